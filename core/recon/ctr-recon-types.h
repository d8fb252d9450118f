/* ctr-recon-types.h — the vocabulary of a reconstruction: which method, with
 * which parameters, stored how.  Plain data and the method table; nothing
 * here runs a solver (the facade is ctr-recon-plan.h).
 *
 * The method table (names, labels, descriptions, defaults) and the option
 * checks live here once; the CLI's options and the window's widgets are made
 * from them through ctr-params.h (STYLE.md, libvips: parameters as data).
 */
#pragma once

#include <glib.h>
#include "analytic/ctr-filter.h"
#include "analytic/ctr-rebin-helical.h"
#include "sysmat/ctr-ray-model.h"

G_BEGIN_DECLS

/* The smallest edge scale δ PWLS accepts (1/mm): its penalty computes 1/δ²
 * in float (ctr-penalty.c). */
#define CTR_DELTA_MIN 1e-9

typedef enum {
  CTR_METHOD_FBP,   /* filtered back-projection (parallel, flat and curved fan) */
  CTR_METHOD_ART,   /* Kaczmarz, ray by ray (cuART Eq. 1) */
  CTR_METHOD_PART,  /* parallel ART, view by view (cuART Eq. 9) */
  CTR_METHOD_SART,  /* Andersen & Kak 1984, view by view */
  CTR_METHOD_SIRT,  /* all rays at once, row- and column-sum normalised */
  CTR_METHOD_FDK,   /* Feldkamp-Davis-Kress, circular cone beam, flat panel (analytic/ctr-fdk.h) */
  CTR_METHOD_CGLS,  /* conjugate gradients on the normal equations (Hestenes & Stiefel 1952) */
  CTR_METHOD_PWLS,  /* penalised weighted least squares, OS-SQS with momentum (Kim, Ramani & Fessler 2015) */
  CTR_METHOD_ASD_POCS, /* SART data steps + TV steepest descent (Sidky & Pan 2008) */
  CTR_N_METHODS
} CtrMethod;

/* The edge-preserving potential ψ of the PWLS penalty (solve/ctr-penalty.h),
 * all with ψ''(0) = 1; the first three of the differences of the
 * 8-neighbourhood's pairs, the last of the gradient's magnitude; δ is the edge scale in the image's unit (1/mm). */
typedef enum {
  CTR_PENALTY_HYPERBOLA,  /* δ² (sqrt (1 + (t/δ)²) − 1): quadratic below δ, |t|·δ above; anisotropic TV as δ → 0 */
  CTR_PENALTY_HUBER,      /* t²/2 for |t| ≤ δ, δ|t| − δ²/2 above (Huber 1964) */
  CTR_PENALTY_QUADRATIC,  /* t²/2 (δ unused): smooths edges too */
  CTR_PENALTY_ISOTROPIC   /* the hyperbola of the gradient's magnitude |∇x| (forward differences):
                           * isotropic TV as δ → 0 (Rudin, Osher & Fatemi 1992; Chambolle 2004).  Default. */
} CtrPenalty;

/* When an unregularised iterative method stops. */
typedef enum {
  CTR_STOP_NONE,  /* after the given iterations */
  /* The discrepancy principle (Morozov 1966): when the data residual
   * reaches the noise level estimated from the data (ctr-noise.h), at most
   * the given iterations. */
  CTR_STOP_AUTO
} CtrStop;

/* Which iterations report the data residual ||b − A x|| / ||b||
 * (CtrIterStats.residual).  The residual reported is always the exact one
 * of the image reported: for the row-action and subset methods (ART,
 * parallel ART, SART, PWLS's ordered subsets, ASD-POCS) it costs one more
 * forward projection per iteration, as much as half of an on-the-fly
 * iteration; SIRT on the host and CGLS have it from their own recursions
 * at no cost.  (The residuals the subsets see during a sweep are not
 * reported in its place: they belong to no one image, and a curve of them
 * would not be comparable with another method's.) */
typedef enum {
  /* After every iteration.  Default: the window's live curve, the CLI's
   * --metrics file and the Python callback read it; CTR_STOP_AUTO always
   * computes it. */
  CTR_RESIDUAL_EVERY,
  /* After the last iteration, and after the others only where the method
   * has it at no cost (SIRT on the host, CGLS, PWLS's watched objective);
   * NaN elsewhere.  The CLI's plain run (no --metrics, no --stop auto). */
  CTR_RESIDUAL_FINAL
} CtrResidualReport;

/* How parallel ART normalises the rays of one subset (see solve/ctr-part.c). */
typedef enum {
  /* c_i = λ / (κ_S · Σ_j w_ij²), κ_S = the largest number of rays of subset S
   * that cross one pixel (Censor, Gordon & Gordon 2001, sparsity bound):
   * convergent for 0 < λ < 2 and nearly as fast per view as ART.  Default. */
  CTR_PART_STEP_SPARSITY,
  /* c_i = λ / (M' · Σ_j w_ij²), M' = rays of the subset: cuART Eq. 9 as printed. */
  CTR_PART_STEP_CUART
} CtrPartStep;

/* How the system matrix is stored (see sysmat/ctr-scsr.h). */
typedef enum {
  /* The plan chooses (ctr_plan_resolve_matrix in plan/ctr-plan-common.h):
   * the stored matrix (SCSR; CSR for ART and one-view subsets) when the
   * run with it fits in the memory this process may use, else on the fly.
   * Default. */
  CTR_MATRIX_AUTO,
  /* Symmetry-compressed CSR (cuART §3): rows stored for canonical views only;
   * every view (one orbit each, the plan's note says why) when the geometry
   * admits no symmetry, still cached. */
  CTR_MATRIX_SCSR,
  /* Plain CSR: every row of every view stored. */
  CTR_MATRIX_CSR,
  /* No stored matrix: the rows are computed on the fly at every product
   * (sysmat/ctr-fly-op.h), with the same ray models, so the image equals
   * the stored matrices' to rounding; memory for the work arrays only. */
  CTR_MATRIX_NONE
} CtrMatrixFormat;

/* Ordered subsets of the view-by-view solvers (parallel ART, SART). */
typedef enum {
  /* Orbits with SCSR, single views with CSR.  Default. */
  CTR_SUBSETS_AUTO,
  /* One view per subset, in acquisition order (CSR only). */
  CTR_SUBSETS_VIEW,
  /* The views of one symmetry orbit together (ctr-symmetry.h): with SCSR
   * each stored row is read once for all of them. */
  CTR_SUBSETS_ORBIT
} CtrSubsets;

/* What each report of an iterative run carries as its image
 * (CtrIterStats.image), so that a device-resident run (issue 37) copies
 * back only what the caller shows.  The last report always carries the
 * whole image (the result), and so does every report of a run with a
 * reference (its metrics average over all slices, computed on the host). */
typedef enum {
  /* The whole image after every iteration (default). */
  CTR_REPORT_VOLUME,
  /* One slice of the volume, CtrReconOptions.report_slice (clamped to the
   * grid): a CtrVolume of nz = 1 on that slice's plane (its grid's cz is
   * the slice's z); a device copies back that slice alone when the
   * operator's native image is the natural one (the cone-beam pair). */
  CTR_REPORT_SLICE,
  /* No image (CtrIterStats.image NULL) before the last report: the
   * residual and timings only. */
  CTR_REPORT_NONE,
  /* The three orthogonal planes through the voxel (report_x, report_y,
   * report_slice), each clamped to the grid (the window's volume view):
   * CtrIterStats.planes (ctr-progress.h), and the axial one as the image.
   * A device copies back those planes alone (three pitched copies) when the
   * operator's native image is the natural one (the cone-beam pair). */
  CTR_REPORT_PLANES
} CtrReportImage;

/**
 * CtrReportCursor:
 * @voxel: (i, j, k), the column, row and slice the planes of the next
 *   CTR_REPORT_PLANES report pass through (each clamped to the grid);
 *   read and written with g_atomic_int_get/set only (ctr_report_cursor_get,
 *   ctr_report_cursor_set).
 * A voxel the caller moves while a run goes on (the window's crosshair):
 * each report reads it once, so that the planes it carries are those
 * through the voxel at that moment (the components are read one by one: a
 * move during the read may give one report a mix of the two voxels, the
 * next report then carries the new one).  Owned by the caller, alive as
 * long as any CtrReconOptions (or plan made with them) that points to it.
 */
typedef struct {
  gint voxel[3];
} CtrReportCursor;

/**
 * ctr_report_cursor_set:
 * @c: the cursor (caller's).
 * @i, @j, @k: column, row and slice indices (clamped to the grid where a
 *   report reads them; values over G_MAXINT are stored as G_MAXINT).
 * Moves the cursor; safe while a run reads it from another thread.  No
 * errors.
 */
void ctr_report_cursor_set (CtrReportCursor *c, guint i, guint j, guint k);

/**
 * ctr_report_cursor_get:
 * @c: the cursor.
 * @voxel: (out): its column, row and slice, in that order (3 elements).
 * Reads the cursor, component by component (see CtrReportCursor).  No
 * errors.
 */
void ctr_report_cursor_get (const CtrReportCursor *c, guint voxel[3]);

typedef struct {
  CtrMethod method;
  /* iterative methods */
  guint iterations;       /* full passes over all views, >= 1 */
  double relaxation;      /* λ, in (0, 2) for ART/PART/SART/SIRT */
  gboolean nonnegative;   /* clip the image at 0 after every update */
  CtrRayModel ray_model;
  CtrPartStep part_step;
  CtrMatrixFormat matrix;
  CtrSubsets subsets;
  CtrStop stop;           /* art, part, sart, sirt, cgls */
  CtrResidualReport residual;   /* which iterations report the residual (CTR_STOP_AUTO: all) */
  CtrReportImage report_image; /* what each report's image holds (default: the volume) */
  guint report_slice;     /* CTR_REPORT_SLICE, CTR_REPORT_PLANES: the slice (z index, clamped) */
  guint report_x, report_y; /* CTR_REPORT_PLANES: the voxel's column and row (x, y indices, clamped) */
  /* CTR_REPORT_PLANES: nullable, borrowed; when set, each report's planes
   * pass through its voxel at that report (report_x, _y, _slice unused) */
  CtrReportCursor *report_cursor;
  /* PWLS */
  double beta;            /* penalty strength b = β δ² (dimensionless, > 0), or 0: the default (solve/ctr-pwls.c) */
  double delta;           /* edge scale δ (1/mm, CTR_DELTA_MIN to 1), or 0: from the object's attenuation */
  CtrPenalty penalty;
  guint n_subsets;        /* ordered subsets of views (PWLS), or 0: automatic */
  gboolean momentum;      /* Nesterov's momentum (PWLS; default TRUE) */
  /* ASD-POCS */
  guint tv_iterations;    /* TV steepest-descent steps per iteration (N_grad of Sidky & Pan) */
  double epsilon;         /* data-residual tolerance ε (||A x − b||₂), or 0: from the noise level */
  /* Where the iterative solvers and FDK run (ctr-backend.h): "best"
   * (default; NULL reads the same), "cpu", "cuda", "cusparse".  A GPU
   * backend that cannot run falls back to the CPU with a plan note.  Static
   * string, not freed. */
  const char *backend;
  /* FBP, FDK */
  CtrFilterWindow window;
  double cutoff;          /* window cut-off as a fraction of Nyquist, (0, 1] */
  /* metrics: only pixels within this radius (mm) of the grid centre count
   * (the scanned disc); <= 0: the whole image. */
  double metrics_radius_mm;
  /* A reference will be passed to ctr_recon_plan_execute (the metrics):
   * the plan's memory estimate counts it (ctr_plan_memory_estimate), as
   * the plan sees the reference only when it executes.  Default FALSE. */
  gboolean with_reference;
  /* Helical (and curved multi-row) cone-beam data: rebinned to fan-beam
   * slices first (180LI, the default, or 360LI), then any fan-beam method;
   * or CTR_REBIN_NONE: the cone-beam projector pair on the slab of the grid
   * (sart, sirt, cgls, pwls, asd-pocs).  Ignored for other geometries. */
  CtrRebinMode rebin;
} CtrReconOptions;

/* Method table: "fbp", "art", "part", "sart", "sirt", "fdk", "cgls", "pwls",
 * "asd-pocs". */
const char *ctr_method_name (CtrMethod m);
const char *ctr_method_label (CtrMethod m);        /* "Parallel ART (cuART Eq. 9)" */
const char *ctr_method_description (CtrMethod m);  /* one sentence */
gboolean ctr_method_is_iterative (CtrMethod m);
/**
 * ctr_method_names_joined:
 * @mask: bit (1 << CtrMethod) for every method to name; 0 names them all.
 * @conjunction: the word before the last name ("or", "and").
 * The names of the method table in its order, "fbp, art, … or asd-pocs",
 * for help texts and messages (so none is written by hand).
 * Returns: (transfer full): the text; free with g_free.
 */
char *ctr_method_names_joined (guint mask, const char *conjunction);
/* CTR_ERROR_INVALID_ARGUMENT naming the valid choices. */
gboolean ctr_method_from_name (const char *name, CtrMethod *out, GError **error);

/**
 * ctr_residual_report_from_name:
 * @name: "every" (CTR_RESIDUAL_EVERY: the CLI's --residual-every) or
 *   "final" (CTR_RESIDUAL_FINAL: the CLI's default), case-insensitive
 * @out: (out): the report; untouched on failure
 * The one spelling of CtrResidualReport for the entry points that take it
 * by name (the Python package's residual=).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT naming the choices.
 */
gboolean ctr_residual_report_from_name (const char *name, CtrResidualReport *out, GError **error);

/* Defaults per method (iterations, relaxation) — the single source of defaults. */
void ctr_recon_options_init (CtrReconOptions *o, CtrMethod method);
/* Each parameter alone in its range: CTR_ERROR_INVALID_ARGUMENT with the
 * parameter's name, value and range.  Whether the combination suits a
 * geometry and a backend is the plan's check (ctr_recon_plan_new). */
gboolean ctr_recon_options_validate (const CtrReconOptions *o, GError **error);

/**
 * ctr_recon_options_describe:
 * A short label of what tells a run of @o apart from other runs of the same
 * data, for legends, captions and CSV columns: the method's name, then by
 * method the filter window and cut-off (FBP, FDK), the iterations and the
 * relaxation λ (ART, parallel ART, SART, SIRT, ASD-POCS), the iterations and
 * the penalty strength β (PWLS; "β default" for 0), "auto stop" under
 * CTR_STOP_AUTO.  Examples: "FBP · Hann · cut-off 0.8",
 * "PART · 8 it · λ 1.5", "PWLS · 12 it · β 0.2".  Numbers are printed as
 * a person types them (%g), so two options that differ get different
 * labels unless they differ only in a parameter not named above.
 *
 * Returns: (transfer full): the label (UTF-8).
 */
char *ctr_recon_options_describe (const CtrReconOptions *o);

G_END_DECLS
