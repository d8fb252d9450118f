/* ctr-recon.h — one entry point for every reconstruction method.
 *
 * The CLI and the window both call ctr_reconstruct(); neither branches on the
 * method's internals.  The method table (names, descriptions, parameter
 * ranges and defaults) is data here, so the CLI's options and the window's
 * widgets are made from the same source (STYLE.md, libvips).
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "ctr-geometry.h"
#include "ctr-projections.h"
#include "ctr-volume.h"
#include "sysmat/ctr-sysmat.h"

G_BEGIN_DECLS

typedef enum {
  CTR_METHOD_FBP,   /* filtered back-projection (parallel, flat and curved fan) */
  CTR_METHOD_ART,   /* Kaczmarz, ray by ray (cuART Eq. 1) */
  CTR_METHOD_PART,  /* parallel ART, view by view (cuART Eq. 9) */
  CTR_METHOD_SART,  /* Andersen & Kak 1984, view by view */
  CTR_METHOD_SIRT,  /* all rays at once, row- and column-sum normalised */
  CTR_METHOD_FDK,   /* Feldkamp-Davis-Kress, circular cone beam, flat panel (analytic/ctr-fdk.h) */
  CTR_N_METHODS
} CtrMethod;

typedef enum {
  CTR_WINDOW_RAM_LAK,     /* plain ramp (no apodisation) */
  CTR_WINDOW_SHEPP_LOGAN, /* sinc */
  CTR_WINDOW_COSINE,
  CTR_WINDOW_HAMMING,
  CTR_WINDOW_HANN,
  CTR_N_WINDOWS
} CtrFilterWindow;

/* How parallel ART normalises the rays of one view (see ctr-solver.h). */
typedef enum {
  /* c_i = λ / (κ_v · Σ_j w_ij²), κ_v = the largest number of rays of view v
   * that cross one pixel (Censor, Gordon & Gordon 2001, sparsity bound):
   * convergent for 0 < λ < 2 and nearly as fast per view as ART.  Default. */
  CTR_PART_STEP_SPARSITY,
  /* c_i = λ / (M' · Σ_j w_ij²), M' = rays per view: cuART Eq. 9 as printed. */
  CTR_PART_STEP_CUART
} CtrPartStep;

/* How the system matrix is stored (see sysmat/ctr-scsr.h). */
typedef enum {
  /* Symmetry-compressed CSR (cuART §3): rows stored for canonical views only,
   * with view-level blocking; falls back to plain CSR (with a log line) when
   * the geometry admits no symmetry.  Default. */
  CTR_MATRIX_SCSR,
  /* Plain CSR: every row of every view stored. */
  CTR_MATRIX_CSR
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
  /* Where the SCSR solvers run (ctr-backend.h): "best" (default; NULL
   * reads the same), "cpu", "cuda", "cusparse".  A GPU backend that cannot
   * run falls back to the CPU with a message.  Static string, not freed. */
  const char *backend;
  /* FBP */
  CtrFilterWindow window;
  double cutoff;          /* window cut-off as a fraction of Nyquist, (0, 1] */
  /* metrics: only pixels within this radius (mm) of the grid centre count
   * (the scanned disc); <= 0: the whole image. */
  double metrics_radius_mm;
} CtrReconOptions;

/**
 * CtrIterStats:
 * What a solver reports after every iteration (and FBP once, as iteration 1 of 1).
 * @residual: ||b - A x||₂ / ||b||₂ over the valid rays of all slices
 *   (NaN for FBP, which builds no matrix).
 * @rmse, @psnr, @ssim: against the reference (NaN without one), computed as
 *   ctr-metrics.h states, averaged over slices.
 * @image: borrowed; valid only during the callback (copy what you keep).
 */
typedef struct {
  CtrMethod method;
  guint iteration;
  guint n_iterations;
  double elapsed_s;      /* since the start of the run (matrix build excluded) */
  double iteration_s;    /* this iteration's update alone (no residual, no metrics) */
  double residual;
  gboolean has_reference;
  double rmse;
  double psnr;
  double ssim;
  const CtrVolume *image;
} CtrIterStats;

/* Called from the thread that runs the reconstruction. */
typedef void (*CtrIterFunc) (const CtrIterStats *stats, gpointer user_data);

/* Sets @stats' rmse/psnr/ssim/has_reference from @img against @reference (same
 * grid; NULL → NaN) with ctr_quality_compute's protocol. */
void ctr_iter_stats_set_quality (CtrIterStats *stats, const CtrVolume *img,
                                 const CtrVolume *reference, double radius_mm);

/* Reports a one-pass method (FBP, FDK) through @callback (when non-NULL):
 * iteration 1 of 1, @seconds as elapsed and iteration time, no residual,
 * quality against @reference as ctr_iter_stats_set_quality. */
void ctr_iter_report_single_pass (CtrMethod method, const CtrVolume *img, const CtrVolume *reference,
                                  double radius_mm, double seconds, CtrIterFunc callback,
                                  gpointer user_data);

/* Method table: "fbp", "art", "part", "sart", "sirt", "fdk". */
const char *ctr_method_name (CtrMethod m);
const char *ctr_method_label (CtrMethod m);        /* "Parallel ART (cuART Eq. 9)" */
const char *ctr_method_description (CtrMethod m);  /* one sentence */
gboolean ctr_method_is_iterative (CtrMethod m);
/* CTR_ERROR_INVALID_ARGUMENT naming the valid choices. */
gboolean ctr_method_from_name (const char *name, CtrMethod *out, GError **error);

const char *ctr_window_name (CtrFilterWindow w);   /* "ram-lak", "shepp-logan", "cosine", "hamming", "hann" */
gboolean ctr_window_from_name (const char *name, CtrFilterWindow *out, GError **error);

/* Defaults per method (iterations, relaxation) — the single source of defaults. */
void ctr_recon_options_init (CtrReconOptions *o, CtrMethod method);
/* CTR_ERROR_INVALID_ARGUMENT with the parameter's name, value and range. */
gboolean ctr_recon_options_validate (const CtrReconOptions *o, GError **error);

/**
 * ctr_default_grid:
 * The grid a user expects for @g: n×n pixels whose pixel size is the detector
 * pitch at the isocentre and that cover the field-of-view disc
 * (ctr_geometry_fov_radius_mm), centred on the isocentre; nz = n_rows slices of
 * pitch_v.  @size (> 0) and @pixel_mm (> 0) override the size and the pixel
 * (with only one given, the other is chosen to cover the field of view).
 * Cone beam: ctr_cone_default_grid (ctr-recon-cone.h; slices of
 * pitch_v·SOD/SDD).
 */
CtrGrid ctr_default_grid (const CtrGeometry *g, guint size, double pixel_mm);

/**
 * ctr_reconstruct:
 * @g: validated fan, parallel or cone geometry.
 * @p: line integrals [view][row][col]; for fan and parallel beam every
 *   detector row becomes a slice (ctr_geometry_slice_row gives the order).
 * @grid: output grid (fan/parallel: nz must equal g->n_rows; cone beam: any
 *   3-D grid, reconstructed with fdk, sart or sirt, see ctr-recon-cone.h;
 *   other methods give CTR_ERROR_UNSUPPORTED).
 * @reference: (nullable): reference image on any grid; it is resampled to
 *   @grid for the metrics.
 * @callback: (nullable): per-iteration report.
 * @cancellable: (nullable): checked between views; cancellation returns NULL
 *   with G_IO_ERROR_CANCELLED.
 *
 * Returns: (transfer full): the reconstruction in 1/mm (1/pixel when the
 *   geometry's pixel size is unknown), or NULL with CTR_ERROR_INVALID_GEOMETRY,
 *   CTR_ERROR_INVALID_ARGUMENT, CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 */
CtrVolume *ctr_reconstruct (const CtrGeometry *g, const CtrProjections *p,
                            const CtrGrid *grid, const CtrReconOptions *options,
                            const CtrVolume *reference, CtrIterFunc callback,
                            gpointer user_data, GCancellable *cancellable,
                            GError **error);

G_END_DECLS
