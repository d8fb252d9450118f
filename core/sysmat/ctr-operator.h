/* ctr-operator.h — the projector every iterative method runs on (docs/design.md §5).
 *
 * An operator is the system matrix A of one geometry on one grid, for a
 * stack of n_slices images, on one backend: CPU-SCSR (sysmat/ctr-scsr-op.c),
 * CPU-CSR (sysmat/ctr-csr-op.c), CPU-cone on the fly
 * (sysmat/ctr-cone-op.c), CUDA (gpu/).  The iteration driver
 * (solve/ctr-iterate.h) and every method speak only this interface, so a
 * method written once runs on every backend.
 *
 * Native layouts.  Each operator keeps images and data in the order its
 * kernels read fastest (SCSR: the packed image X[rep][slice][K] and the lane
 * order [orbit][stored column][slice][K], ctr-scsr.h; CSR and cone: the
 * natural orders).  Methods work on native arrays only and convert at the
 * ends:
 *   image  natural = CtrVolume data [z][y][x] (fan/parallel: slice z is
 *          detector row ctr_geometry_slice_row (g, z)); native: image_size
 *          floats (image_to_native / image_from_native).
 *   data   natural = the shape of CtrProjections, [view][row][col]; native:
 *          data_size floats (data_gather: every native element written,
 *          padding — a missing view of an orbit — as 0).
 * Native images are *consistent*: elements that are one pixel (SCSR slots on
 * a symmetry axis) hold equal values; element-wise arithmetic keeps them so.
 * Inner products of native arrays weigh element q by image_weight[q] (1 /
 * multiplicity; NULL: all 1) — ctr_operator_image_dot.  Padding elements of
 * native data are 0 in every gathered array, so plain sums serve the data.
 *
 * Subsets.  The rays are split into n_subsets ordered subsets (SCSR: the
 * views of one symmetry orbit; CSR: one view or one orbit; cone: one view),
 * visited in order[] (NULL: 0 … n_subsets − 1).  CTR_SUBSET_ALL names every
 * ray at once.
 *
 * An operator holds scratch memory for its products: one caller at a time
 * (the plan serialises its executes).  Reference counted.
 */
#pragma once

#include <glib.h>
#include <string.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"

G_BEGIN_DECLS

#define CTR_SUBSET_ALL G_MAXUINT

typedef struct _CtrOperator CtrOperator;
typedef struct _CtrOperatorClass CtrOperatorClass;

typedef enum {
  CTR_UPDATE_NONNEG = 1 << 0,      /* clip the image at 0 after the update */
  /* Divide the subset's update by its column sums A_Sᵀ1 over the acquired
   * rays (SART, Andersen & Kak 1984 Eq. 5); the operator computes or caches
   * them. */
  CTR_UPDATE_COLUMN_SCALE = 1 << 1,
  /* The rays of the subset one after another, each seeing the previous
   * rays' updates (Kaczmarz; ART, cuART Eq. 1).  Only operators with
   * can_update_sequential take it. */
  CTR_UPDATE_SEQUENTIAL = 1 << 2
} CtrUpdateFlags;

/**
 * CtrOperatorClass:
 * The vtable a backend implements.  Arrays are native unless stated: @X and
 * @D hold image_size floats, @Y, @B and @coef data_size floats, @scale and
 * column sums scale_size floats (one value per pixel, shared by every slice
 * of the stack, in the native order of one slice).  Functions returning
 * gboolean fail only on a device error (CTR_ERROR_BACKEND_UNAVAILABLE,
 * CTR_ERROR_OUT_OF_MEMORY); the CPU ones never fail.
 *
 * @name: "cpu-scsr", "cpu-csr", "cpu-fly" (on the fly, sysmat/ctr-fly-op.h), "cpu-cone", "cuda-scsr", ….
 * @finalize: frees the instance (the struct was allocated by the backend).
 * @image_to_native, @image_from_native: natural ↔ native image.
 * @data_gather: natural data (projection shape) → native (padding 0).
 * @data_scatter: native data → natural (projection shape), data_gather's
 *   inverse on the acquired rays: every natural element written (one that
 *   no native element holds as 0); padding is not read.
 * @forward: Y = A_S X on the rays of @subset (other elements of Y untouched).
 * @adjoint: D = A_Sᵀ Y (overwrites D, consistent); Y read on the rays of S.
 * @update: the fused subset step.  With @D NULL:
 *     X ← X + A_Sᵀ (step · coef ∘ (B − A_S X))   [÷ A_Sᵀ1 with COLUMN_SCALE]
 *   clipped with NONNEG; with SEQUENTIAL ray by ray.  With @D:
 *   D += A_Sᵀ (step · coef ∘ (B − A_S X)) in raw form, X untouched (flags
 *   ignored); finish or reduce D before reading it as an image.  A backend
 *   may defer: consecutive calls with the same @X and @D are one
 *   accumulation, which @reduce or @finish (or any other call) completes in
 *   @D; @X must not change within it (gpu/ctr-cuda-cone.c keeps the sum on
 *   its device).
 * @reduce: (nullable) makes a raw accumulation consistent (NULL: nothing to do).
 * @forward_update: (nullable) SIRT's host pass in one traversal: Y = A X on
 *   every ray (overwritten), then D += Aᵀ (coef ∘ (B − Y)) in raw form as
 *   @update's with @D, X untouched — the same Y and D as @forward, then
 *   @adjoint of coef ∘ (B − Y), bit for bit; an on-the-fly operator sets
 *   each ray up once for both.  @X NULL: the image of zeros (Y = 0, no
 *   forward product).  NULL: the driver calls @forward and @adjoint.
 * @finish: X ← X + scale ∘ D (D reduced first; @scale NULL: 1), clipped
 *   with NONNEG; D zeroed.
 * @column_sums: @out = A_Sᵀ1 over the acquired rays of @subset
 *   (CTR_SUBSET_ALL: all), scale_size floats.
 * @row_sums: Σ_j a_ij² into @sq and Σ_j a_ij into @sum (native data, either
 *   may be NULL; 0 on padding).
 * @subset_overlap: @kappa = κ_S, the largest number of rays of @subset that
 *   cross one pixel (the sparsity bound of Censor, Gordon & Gordon 2001);
 *   counted on first use (per-pixel counts of each thread): FALSE with
 *   CTR_ERROR_OUT_OF_MEMORY when those cannot be allocated.
 * @subset_rays: the acquired rays of @subset in one slice (M' of cuART
 *   Eq. 9).
 * @pass: (nullable) a whole iteration kept on the device: see
 *   CtrOperatorPass.
 * @natural_image: TRUE when the native image is the natural one
 *   (@image_to_native and @image_from_native copy): natural slice z is
 *   then native floats [z·nx·ny, (z + 1)·nx·ny), and a report of one slice
 *   brings only those back from a device (CtrReportImage).
 * @vec: (nullable) vector operations in the operator's memory
 *   (sysmat/ctr-vecops.h): CGLS, PWLS and ASD-POCS keep their vectors there
 *   for the whole run; NULL: the host's.
 */
struct _CtrOperatorClass {
  const char *name;
  void (*finalize) (CtrOperator *op);
  void (*image_to_native) (CtrOperator *op, const float *x, float *X);
  void (*image_from_native) (CtrOperator *op, const float *X, float *x);
  void (*data_gather) (CtrOperator *op, const float *proj, float *Y);
  void (*data_scatter) (CtrOperator *op, const float *Y, float *proj);
  gboolean (*forward) (CtrOperator *op, guint subset, const float *X, float *Y, GError **error);
  gboolean (*adjoint) (CtrOperator *op, guint subset, const float *Y, float *D, GError **error);
  gboolean (*update) (CtrOperator *op, guint subset, float *X, const float *B, const float *coef,
                      float step, float *D, CtrUpdateFlags flags, GError **error);
  void (*reduce) (CtrOperator *op, float *D);
  gboolean (*forward_update) (CtrOperator *op, const float *X, const float *B, const float *coef, float *Y,
                              float *D, GError **error);
  gboolean (*finish) (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags,
                      GError **error);
  gboolean (*column_sums) (CtrOperator *op, guint subset, float *out, GError **error);
  void (*row_sums) (CtrOperator *op, float *sq, float *sum);
  gboolean (*subset_overlap) (CtrOperator *op, guint subset, double *kappa, GError **error);
  guint64 (*subset_rays) (CtrOperator *op, guint subset);
  const struct _CtrOperatorPass *pass;
  gboolean natural_image;
  const struct _CtrVecOps *vec;
};

/**
 * CtrImageRuns:
 * A strided part of a native image (what a report of planes needs,
 * CTR_REPORT_PLANES): @count runs of @run floats, run k starting at float
 * @offset + k·@stride (@stride >= @run when @count > 1).  One contiguous
 * range: @count 1.  On a natural image (x fastest, then y, then z; nx, ny,
 * nz): the axial plane z is { z·nx·ny, nx·ny, 1, nx·ny }, the coronal
 * plane y is { y·nx, nx, nz, nx·ny }, the sagittal plane x is
 * { x, 1, ny·nz, nx }.  A device copies it as one pitched copy.
 */
typedef struct {
  gsize offset;
  gsize run;
  gsize count;
  gsize stride;
} CtrImageRuns;

/* TRUE when @r lies within @n floats (and its runs do not overlap). */
static inline gboolean
ctr_image_runs_valid (const CtrImageRuns *r, gsize n)
{
  if (r->count == 0 || r->run == 0)
    return r->offset <= n;
  if (r->count > 1 && (r->stride < r->run || r->stride > (n - r->run) / (r->count - 1)))
    return FALSE;
  const gsize last = r->count > 1 ? (r->count - 1) * r->stride : 0;
  return r->run <= n && r->offset <= n - r->run - last;
}

/* Copies the floats of @r from @src to the same places of @dst. */
static inline void
ctr_image_runs_copy (const CtrImageRuns *r, const float *src, float *dst)
{
  for (gsize k = 0; k < r->count; k++)
    {
      const gsize at = r->offset + k * r->stride;
      memcpy (dst + at, src + at, r->run * sizeof (float));
    }
}

/**
 * CtrOperatorPass:
 * A backend whose memory is not the host's (a GPU) may keep a whole pass of
 * a subset method on its device.  The driver uses it for the standard
 * subset methods (PART, SART, SIRT) when present:
 * @begin: uploads X, B, coef, valid (1/0 per native ray), the step of each
 *   subset (@step: n_subsets floats, NULL: 1) and, for SIRT, @scale
 *   (scale_size floats; NULL otherwise).  @kind as in @run: the
 *   backend prepares what that method needs (SART: the subsets' column
 *   sums).
 * @run: one full pass: @kind 0 = PART (update per subset), 1 = SART (update
 *   per subset with COLUMN_SCALE), 2 = SIRT (accumulate all subsets, then
 *   finish with the scale); *@seconds: the device's time for the pass;
 *   @residual (nullable): ||B − A X|| / ||B|| over the valid rays after the
 *   pass (one more forward pass on the device), *@residual_seconds its
 *   device time (0 without).
 * @download: the current X to the host (native).
 * @download_part: (nullable) native floats [@offset, @offset + @n) of the
 *   current X to @X + @offset (what a report of one slice needs); NULL:
 *   the driver downloads the whole X.
 * @download_runs: (nullable) the floats of @runs (CtrImageRuns) of the
 *   current X to the same places of @X (a report of planes), in one pitched
 *   copy; NULL: the driver downloads the whole X.
 * @end: releases what begin allocated (also after a failure).
 */
typedef struct _CtrOperatorPass {
  gboolean (*begin) (CtrOperator *op, int kind, const float *X, const float *B, const float *coef,
                     const float *valid, const float *step, const float *scale, GError **error);
  gboolean (*run) (CtrOperator *op, int kind, gboolean nonneg, double *seconds, double *residual,
                   double *residual_seconds, GError **error);
  gboolean (*download) (CtrOperator *op, float *X, GError **error);
  gboolean (*download_part) (CtrOperator *op, float *X, gsize offset, gsize n, GError **error);
  void (*end) (CtrOperator *op);
  gboolean (*download_runs) (CtrOperator *op, float *X, const CtrImageRuns *runs, GError **error);
} CtrOperatorPass;

/**
 * CtrOperator:
 * Public fields, set by the backend's constructor and constant afterwards.
 * @geometry: the geometry (owned copy).
 * @grid: the image grid (fan/parallel: nz = n_slices slices; cone: the volume).
 * @n_slices: right-hand sides of the stack (fan/parallel: grid.nz; cone: 1).
 * @image_size, @data_size: native sizes, floats.
 * @scale_size: floats of a per-pixel map shared by the slices (one slice's
 *   native image).
 * @n_subsets, @order: see the top of this file; @order (nullable) has
 *   n_subsets entries.
 * @image_weight: (nullable) native image inner-product weights.
 * @can_update_sequential: TRUE when @update takes CTR_UPDATE_SEQUENTIAL.
 * @description: one line for the plan's notes ("SCSR, D4: 91 of 720 views
 *   stored, 617 MiB"), owned.
 */
struct _CtrOperator {
  const CtrOperatorClass *klass;
  gint ref_count;
  CtrGeometry *geometry;
  CtrGrid grid;
  guint n_slices;
  gsize image_size;
  gsize data_size;
  gsize scale_size;
  guint n_subsets;
  guint *order;
  float *image_weight;
  gboolean can_update_sequential;
  char *description;
};

/* For constructors: fills the common fields (copies @g) and sets ref_count
 * to 1; the backend sets the rest.  @op was allocated with g_malloc0 by the
 * backend (its own struct, with CtrOperator first).  FALSE with
 * CTR_ERROR_OUT_OF_MEMORY when the copy of @g's per-view arrays cannot be
 * allocated (ctr_geometry_try_copy; op->geometry NULL, the other common
 * fields set: ctr_operator_clear may free it). */
gboolean ctr_operator_init (CtrOperator *op, const CtrOperatorClass *klass, const CtrGeometry *g,
                            const CtrGrid *grid, guint n_slices, GError **error);
/* For finalize functions: frees the common fields (not @op itself). */
void ctr_operator_clear (CtrOperator *op);

CtrOperator *ctr_operator_ref (CtrOperator *op);
void ctr_operator_unref (CtrOperator *op);

/* The subset visited @t-th in a pass. */
static inline guint
ctr_operator_subset_at (const CtrOperator *op, guint t)
{
  return op->order != NULL ? op->order[t] : t;
}

/* The data_scatter of the operators whose native data are natural (the cone
 * pairs): a copy of data_size floats. */
void ctr_operator_copy_data_scatter (CtrOperator *op, const float *Y, float *proj);

/* The data_scatter of the slice-stack operators whose native data are
 * [slice][view][col] (CSR, on the fly: slice z is detector row
 * ctr_geometry_slice_row (g, z)) into natural [view][row][col]. */
void ctr_operator_stack_data_scatter (CtrOperator *op, const float *Y, float *proj);

/* Σ_q w_q a_q b_q over a native image (w = image_weight, 1 when NULL). */
double ctr_operator_image_dot (const CtrOperator *op, const float *a, const float *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrOperator, ctr_operator_unref)

G_END_DECLS
