/* ctr-params.h — the reconstruction parameters, described once as data.
 *
 * Each CtrReconOptions field a user may set is one CtrParam: its name (the
 * CLI option "--NAME" and the GSettings key), a label and a description for
 * the window, its type and range, the methods that use it, and how to read
 * and write it in a CtrReconOptions.  Defaults are never restated here: they
 * come from ctr_recon_options_init(), the single source of defaults, and the
 * ranges are those ctr_recon_options_validate() enforces (libvips's
 * "operation parameters as data", STYLE.md).  The window's method panel is
 * generated from this table; the CLI can parse its options through it.
 * Not in the table: the backend (CtrReconOptions.backend), whose choices are
 * the backends registered at run time (ctr_backend_list, ctr-backend.h).
 */
#pragma once

#include <glib.h>
#include "recon/ctr-recon-types.h"

G_BEGIN_DECLS

typedef enum {
  CTR_PARAM_INT,     /* whole number in [min, max] */
  CTR_PARAM_DOUBLE,  /* real number in [min, max], ends open when min_open/max_open */
  CTR_PARAM_BOOL,    /* 0 or 1 */
  CTR_PARAM_CHOICE   /* index into choices (names) and choice_labels */
} CtrParamType;

/**
 * CtrParam:
 * @name: machine name, lower case with dashes ("relaxation"); the CLI option
 *   is "--@name".
 * @label: short title for a form ("Relaxation λ").
 * @description: one sentence, with the unit and the source where one exists.
 * @type: see #CtrParamType.
 * @min, @max: range of INT and DOUBLE parameters (inclusive unless the
 *   matching *_open flag is set).
 * @digits: decimals to show for DOUBLE.
 * @step: a sensible increment for a spin button.
 * @choices: (array zero-terminated=1): names of a CHOICE ("ram-lak", ...),
 *   in enum order.
 * @choice_labels: (array zero-terminated=1): their labels.
 * @methods: bit (1 << CtrMethod) for every method that uses the parameter.
 * @offset: where the value lives in CtrReconOptions (offsetof): a guint for
 *   INT, a double for DOUBLE, a gboolean for BOOL, an enum (int) for CHOICE.
 *
 * Static data: never freed.
 */
typedef struct {
  const char *name;
  const char *label;
  const char *description;
  CtrParamType type;
  double min;
  double max;
  gboolean min_open;
  gboolean max_open;
  guint digits;
  double step;
  const char *const *choices;
  const char *const *choice_labels;
  guint methods;
  gsize offset;
} CtrParam;

#define CTR_PARAM_METHOD_BIT(m) (1u << (m))

/* The table, in display order; @n_params receives its length. */
const CtrParam *ctr_params_list (guint *n_params);
/* NULL when no parameter has that name.  A name may stand for different
 * parameters of different methods ("subsets": the subset kind of parallel
 * ART and SART, the number of ordered subsets of PWLS): ctr_param_find gives
 * the first, ctr_param_find_for the one @method uses (else the first). */
const CtrParam *ctr_param_find (const char *name);
const CtrParam *ctr_param_find_for (const char *name, CtrMethod method);
gboolean ctr_param_applies (const CtrParam *p, CtrMethod method);

/* The value of @p in @o as a double (INT, BOOL 0/1, CHOICE index). */
double ctr_param_get (const CtrParam *p, const CtrReconOptions *o);
/**
 * ctr_param_set:
 * Stores @value in @o.  Returns FALSE with CTR_ERROR_INVALID_ARGUMENT naming
 * the parameter, the value and the valid range (or choices) when @value is
 * outside it (INT: not whole; BOOL: not 0/1; CHOICE: not an index).
 */
gboolean ctr_param_set (const CtrParam *p, CtrReconOptions *o, double value, GError **error);
/* The method's default (from ctr_recon_options_init). */
double ctr_param_default (const CtrParam *p, CtrMethod method);
/**
 * ctr_param_parse:
 * Parses @text as the CLI would ("12", "0.25", "yes"/"no"/"true"/"false"/
 * "1"/"0", a choice name) and stores it in @o.  Errors as ctr_param_set,
 * plus CTR_ERROR_INVALID_ARGUMENT for text that is not a number / choice.
 */
gboolean ctr_param_parse (const CtrParam *p, CtrReconOptions *o, const char *text, GError **error);
/* The value as text, in the syntax ctr_param_parse reads; free with g_free. */
char *ctr_param_format (const CtrParam *p, const CtrReconOptions *o);
/* Number of choices of a CHOICE parameter (0 otherwise). */
guint ctr_param_n_choices (const CtrParam *p);

G_END_DECLS
