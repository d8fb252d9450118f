/* ctr-projections.h — measured projection data.
 *
 * float32 [view][row][col], col fastest (docs/design.md §3).  Either raw counts
 * (with flat/dark fields or an open-beam photon count I0) or line integrals
 * -ln(I/I0).  Reference counted.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  CTR_PROJ_LINE_INTEGRALS,
  CTR_PROJ_COUNTS
} CtrProjKind;

typedef struct {
  /*< private >*/
  gint ref_count;
  /*< public >*/
  guint n_views, n_rows, n_cols;
  CtrProjKind kind;
  float *data;   /* n_views·n_rows·n_cols */
  float *flat;   /* optional: [row][col] open beam (counts: divided by; line integrals: the
                  * photons per pixel the data state, e.g. DICOM-CT-PD PhotonStatistics per channel) */
  float *dark;   /* counts only, optional: [row][col] dark current */
  double i0;     /* counts only, optional: photons per bin of the open beam (0 = unknown) */
  /* [row][col]: 1 = valid detector pixel, 0 = dead (flat - dark <= 0).
   * NULL means every pixel is valid.  Iterative solvers skip dead rays; the
   * loader fills them by linear interpolation along the row, and FBP, FDK
   * and the helical rebinning fill them again on their own copy, so a value
   * a later step left there (beam hardening skips dead pixels) or a caller
   * wrote never reaches the filter. */
  guint8 *mask;
} CtrProjections;

/* Zero-filled projections; NULL with CTR_ERROR_OUT_OF_MEMORY /
 * CTR_ERROR_INVALID_ARGUMENT.  Transfer full. */
CtrProjections *ctr_projections_new (guint n_views, guint n_rows, guint n_cols,
                                     CtrProjKind kind, GError **error);
CtrProjections *ctr_projections_ref (CtrProjections *p);
void ctr_projections_unref (CtrProjections *p);
/* A deep copy; NULL with CTR_ERROR_OUT_OF_MEMORY (as ctr_projections_new). */
CtrProjections *ctr_projections_copy (const CtrProjections *p, GError **error);
/* @src's i0, flat, dark and mask (one detector plane each; @dst has the same
 * rows and columns) copied into @dst, replacing its own.  FALSE with
 * CTR_ERROR_OUT_OF_MEMORY naming the plane. */
gboolean ctr_projections_copy_planes (CtrProjections *dst, const CtrProjections *src, GError **error);
/* @p's flat, dark and mask planes ([row][col] of its detector as it now
 * is, e.g. after a step that resampled or widened it) replaced by @flat,
 * @dark and @mask (transfer full; each nullable: NULL keeps @p's own),
 * the old ones freed.  No error. */
void ctr_projections_take_planes (CtrProjections *p, float *flat, float *dark, guint8 *mask);

static inline float *
ctr_projections_view (const CtrProjections *p, guint view)
{ return p->data + (gsize) view * p->n_rows * p->n_cols; }

/**
 * ctr_projections_to_line_integrals:
 * Converts counts to line integrals in place: -ln((I - dark)/(flat - dark))
 * when a flat is present (dark defaults to 0), else -ln(I/I0).  Pixels with
 * flat - dark <= 0 are marked dead in @p->mask; measured I - dark <= 0 is
 * clamped to 0.5 count (the usual log safeguard) rather than giving +Inf.
 * Non-finite input gives CTR_ERROR_INVALID_DATA, and so does an open beam
 * (flat − dark, or I0 − dark) that is not positive in any pixel of the
 * detector or of one detector row (an empty flat, flat and dark swapped: the
 * slices would be filled from nothing).  Line integrals are returned
 * unchanged (TRUE).  Afterwards dead pixels are filled by linear interpolation
 * along their row so analytic methods see a continuous sinogram.
 */
gboolean ctr_projections_to_line_integrals (CtrProjections *p, GError **error);

/**
 * ctr_projections_open_beam:
 * The open-beam counts of every detector pixel as the data state them:
 * flat − dark where a flat is present, else I0 − dark (dark 0 when absent),
 * the same numbers ctr_projections_to_line_integrals() divides by.
 * Returns: (transfer full) (nullable): double [row][col] (g_free), 0 for
 *   dead pixels (not a positive finite number, or @p->mask 0); NULL without
 *   an error when the data state neither a flat nor I0, NULL with
 *   CTR_ERROR_OUT_OF_MEMORY when the plane cannot be allocated.
 */
double *ctr_projections_open_beam (const CtrProjections *p, GError **error);

/* Fills the dead samples (@mask 0) of one detector row @row of @n values in
 * place by linear interpolation between the nearest valid neighbours,
 * constant at the ends; a row without any valid sample becomes 0.  @mask is
 * that row of a CtrProjections mask ([col], 1 = valid).  Analytic methods
 * call it on their copy of each row, so that a dead pixel's stored value
 * (stale after a preprocessing step that skips dead pixels, or written by a
 * caller) never reaches the filter.  No error. */
void ctr_projections_fill_row (float *row, const guint8 *mask, guint n);

/* @p itself (a new reference) when it has no mask, else a copy of @p whose
 * dead pixels are filled along their rows (ctr_projections_fill_row), for
 * the analytic paths that read the whole buffer (helical rebinning, the GPU's
 * FDK).  Transfer full; NULL with CTR_ERROR_OUT_OF_MEMORY (as
 * ctr_projections_copy). */
CtrProjections *ctr_projections_filled (const CtrProjections *p, GError **error);

/* The fraction (0…1) of detector pixels marked dead in @p->mask (flat −
 * dark ≤ 0), 0 without a mask. */
double ctr_projections_masked_fraction (const CtrProjections *p);

/* CTR_ERROR_INVALID_DATA if any value is NaN or infinite (names view/row/col). */
gboolean ctr_projections_check_finite (const CtrProjections *p, GError **error);

/* Poisson noise for a simulated scan: counts ~ Poisson(i0·exp(-p)), clipped at
 * >= 1, p = -ln(counts/i0).  Deterministic for a given @seed. */
void ctr_projections_add_poisson_noise (CtrProjections *p, double i0, guint64 seed);

/* Sinogram of one detector row as a new [view][col] float array (g_free);
 * NULL with CTR_ERROR_OUT_OF_MEMORY when it cannot be allocated. */
float *ctr_projections_sinogram (const CtrProjections *p, guint row, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrProjections, ctr_projections_unref)

G_END_DECLS
