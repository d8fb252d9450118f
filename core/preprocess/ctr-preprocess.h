/* ctr-preprocess.h — the declared, ordered preprocessing pipeline of a
 * dataset: geometry.json's key "preprocess" (FORMAT.md), applied by the
 * loader to the line integrals after flat/dark correction, so the CLI, the
 * window and Python get the same data.
 *
 *     "preprocess": [ { "op": "outliers", "threshold": 5, "size": 3 },
 *                     { "op": "rings", "size": 21 } ]
 *
 * Steps run in the order listed; each parameter has a default when absent.
 *   "outliers": zinger removal, ctr_outliers_remove() (preprocess/ctr-outliers.h):
 *               "threshold" (robust SDs, > 0, default 5), "size" (odd ≥ 3, default 3)
 *   "rings":    stripe removal, Vo et al. 2018 sorting, ctr_rings_remove()
 *               (preprocess/ctr-rings.h): "size" (odd ≥ 3, default 21),
 *               "warn_change" (0 < f ≤ 1, default 0.3: the effect warns
 *               of rows whose largest change exceeds f × their range);
 *               "method": "sorting" (that, the default), "large" (large
 *               stripes, algorithm 5) or "dead" (unresponsive and
 *               fluctuating stripes, algorithm 6), both ctr-stripes.h, with
 *               "size" (default 51), "snr" (> 0, default 20 for "large",
 *               10 for "dead"), "normalise" (true/false, default false) and
 *               for "dead" "residual" (true/false, default true);
 *               "wavelet-fft" (Münch et al. 2009, ctr-rings-wavelet.h) with
 *               "level" (1-16, default 3),
 *               "wavelet" ("db1" … "db10", "haar"; default "db5"),
 *               "sigma" (> 0, default 2) and "pad" (true/false, default true)
 *   "beam-hardening": water pre-correction, Herman 1979 polynomial
 *               linearisation (preprocess/ctr-beamhard.h): "coefficients"
 *               [a1, a2, …] stated, or "spectrum" (a built-in name or
 *               {"energies_kev", "fluence"}) with "degree" (1-6, default 3)
 *               and "mu_per_mm" (default the spectrum's mean μ_water)
 *   "flux":     a drifting source: each view's transmission divided by its
 *               mean over an air region (preprocess/ctr-flux.h): "columns"
 *               [[first, last], …] (0-based, inclusive; default found
 *               automatically at the detector's edges).  Not after
 *               "beam-hardening" or "truncation".
 *   "truncation": rows of an object wider than the detector extended by a
 *               water cylinder fitted at each edge, Hsieh et al. 2004
 *               (preprocess/ctr-truncation.h): "width" (new columns per
 *               end, default half the detector's columns, at least 16),
 *               "fit" (edge columns fitted, default 8), "mu_per_mm"
 *               (default water's 0.0192); the geometry's columns grow.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "preprocess/ctr-beamhard.h"

G_BEGIN_DECLS

/* "rings" "sorting": the default of "warn_change", the fraction of a row's
 * range above which a pixel's change is reported as damage to an edge. */
#define CTR_RINGS_DEFAULT_WARN_CHANGE 0.3

typedef enum {
  CTR_RINGS_SORTING,  /* algorithm 3, ctr_rings_remove() */
  CTR_RINGS_LARGE,    /* algorithm 5, ctr_stripes_remove_large() */
  CTR_RINGS_DEAD,     /* algorithm 6, ctr_stripes_remove_dead() */
  CTR_RINGS_WAVELET_FFT /* Münch et al. 2009, ctr_rings_remove_wavelet() */
} CtrRingsMethod;

typedef enum {
  CTR_PREP_OUTLIERS,
  CTR_PREP_RINGS,
  CTR_PREP_BEAM_HARDENING,
  CTR_PREP_FLUX,
  CTR_PREP_TRUNCATION
} CtrPrepOp;

typedef struct {
  CtrPrepOp op;
  double threshold;   /* outliers: robust SDs */
  int size;           /* outliers: neighbourhood width; rings: median width */
  CtrRingsMethod method; /* rings: which of Vo et al. 2018's algorithms */
  double snr;         /* rings "large", "dead": detection threshold */
  double warn_change; /* rings "sorting": warn above this change / the row's range */
  gboolean residual;  /* rings "dead": then "large" on what is left */
  gboolean normalise; /* rings "large", "dead": every column less its stripe strength */
  guint level;        /* rings "wavelet-fft": decomposition levels */
  double sigma;       /* rings "wavelet-fft": the damping's width */
  char wavelet[8];    /* rings "wavelet-fft": "db1" … "db10" */
  gboolean pad;       /* rings "wavelet-fft": the views padded by an eighth */
  CtrBeamhard *bh;    /* beam-hardening: its parameters (owned by the pipeline) */
  guint n_ranges;     /* flux: stated air column ranges (0 = found automatically) */
  guint *ranges;      /* flux: 2·n_ranges columns [first, last] (owned) */
  guint width, fit;   /* truncation: new columns per end (0 = default), edge columns fitted */
  double mu_per_mm;   /* truncation: the cylinder's attenuation */
  gboolean consistent; /* truncation: extensions scaled to the views' common total */
} CtrPrepStep;

typedef struct {
  guint n_steps;
  CtrPrepStep *steps;
} CtrPipeline;

/**
 * ctr_pipeline_from_json:
 * @node: (nullable): a JSON array of step objects, or an object holding one
 *   under "preprocess" (a --preprocess file); NULL gives the empty pipeline.
 * @where: the file or key named in messages.
 * Returns: (transfer full): the pipeline (ctr_pipeline_free), or NULL with
 *   CTR_ERROR_FORMAT naming the step and the offending op or parameter: not
 *   a list of objects, a missing or unknown "op", an unknown parameter, a
 *   mistyped or out-of-range value (a size that is not an odd integer ≥ 3,
 *   a threshold that is not a positive number), a "flux" after
 *   "beam-hardening" or "truncation".
 */
CtrPipeline *ctr_pipeline_from_json (JsonNode *node, const char *where, GError **error);

/**
 * ctr_pipeline_from_file:
 * @path: a JSON file holding the list of steps, or an object with
 *   "preprocess" (`reconstruct --preprocess FILE.json`, Python's
 *   `load(preprocess="FILE.json")`).
 * Read through core's one JSON path (ctr_json_parse_file: nesting depth
 * bounded, keys given twice refused), then ctr_pipeline_from_json().
 * Returns: (transfer full): the pipeline, or NULL with CTR_ERROR_IO (the
 *   file cannot be read) or CTR_ERROR_FORMAT (not valid JSON, or a step
 *   ctr_pipeline_from_json() refuses), the message naming @path.
 */
CtrPipeline *ctr_pipeline_from_file (const char *path, GError **error);

/**
 * ctr_pipeline_apply:
 * Runs the steps of @pl in order on @p (line integrals, [view][row][col],
 * in place).  @g: (nullable): the geometry of @p; "truncation" needs it and
 * widens both (@p's columns and @g->n_cols).  @notes: (nullable): each step's effect is appended as one
 * sentence (g_free'd by the array's owner), e.g. "outliers: 412 pixels
 * replaced (0.10 %)".
 * Returns: FALSE with the step's error (CTR_ERROR_INVALID_ARGUMENT when a
 *   size does not fit the data or "truncation" has no geometry,
 *   CTR_ERROR_INVALID_DATA for counts or no air found,
 *   CTR_ERROR_OUT_OF_MEMORY), prefixed with the step's number and op.
 */
gboolean ctr_pipeline_apply (const CtrPipeline *pl, CtrProjections *p, CtrGeometry *g, GPtrArray *notes,
                             GError **error);

void ctr_pipeline_free (CtrPipeline *pl);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrPipeline, ctr_pipeline_free)

G_END_DECLS
