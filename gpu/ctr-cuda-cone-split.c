/* ctr-cuda-cone-split.c — GLib side of the cone-beam pair out of core on
 * the device (see ctr-cuda-cone-split.h): the device memory plan, the
 * operator "cuda-cone-split" over ctr-cuda-cone-split.cu with host arrays,
 * and the choice between it and the whole operator, registered as the
 * "cuda" backend's cone operator.
 */
#include "ctr-cuda-cone-split.h"
#include "ctr-cuda-cone.h"
#include "ctr-cuda-cone-private.h"
#include "ctr-cuda-cone-split-api.h"
#include "ctr-cuda.h"
#include "plan/ctr-backend.h"
#include "sysmat/ctr-cone-op.h"
#include "sysmat/ctr-cone-projector.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <stdlib.h>
#include <string.h>

static guint64 memory_cap;   /* ctr_cuda_cone_set_memory_cap; 0: none */

void
ctr_cuda_cone_set_memory_cap (guint64 bytes)
{
  memory_cap = bytes;
}

static guint64
cap_bytes (void)
{
  if (memory_cap != 0)
    return memory_cap;
  const char *mb = g_getenv ("CTR_CUDA_CONE_MEMORY_MB");
  const double v = mb != NULL ? g_ascii_strtod (mb, NULL) : 0.0;
  return v > 0.0 ? (guint64) (v * 1048576.0) : 0;
}

/* Mirrors ctr_cuda_cone_create's count (ctr-cuda-cone.cu). */
guint64
ctr_cuda_cone_split_bytes (const CtrGeometry *g, const CtrGrid *grid, gboolean masked, gboolean transposed,
                           gboolean whole, guint slab_nz, guint chunk_views)
{
  const guint64 per_view = (guint64) g->n_rows * g->n_cols, slice = (guint64) grid->nx * grid->ny;
  const guint64 geo = (guint64) g->n_views * 3 * 8 * 2 + (guint64) g->n_views * g->n_cols * 3 * 8;
  const guint64 vols = ctr_memory_mul (ctr_memory_mul (transposed ? 6 : 3, slice), slab_nz);
  const guint64 data = ctr_memory_mul (ctr_memory_mul (whole ? 5 : 2, per_view), chunk_views);
  guint64 n = ctr_memory_add (geo, masked ? ctr_memory_mul (per_view, g->n_views) : 0);
  n = ctr_memory_add (n, ctr_memory_mul (ctr_memory_add (vols, data), sizeof (float)));
  return ctr_memory_add (n, 16);
}

/* The device's room for the pair: free − the checks' margin, capped. */
static gboolean
device_budget (guint64 *budget, GError **error)
{
  CtrCudaDeviceInfo info;
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaStatus st = ctr_cuda_device_query (&info, err);
  if (st != CTR_CUDA_OK)
    return ctr_cuda_status_error (st, err, error);
  const guint64 margin = ((guint64) 64 << 20) + info.total_bytes / 20;
  *budget = info.free_bytes > margin ? info.free_bytes - margin : 0;
  const guint64 cap = cap_bytes ();
  if (cap != 0 && cap < *budget)
    *budget = cap;
  return TRUE;
}

/* Slabs balanced over nz: n = ⌈nz / t⌉ slabs of at most ⌈nz / n⌉ slices. */
static void
balance (guint n_total, guint most, guint *n, guint *each)
{
  *n = (n_total + most - 1) / most;
  *each = (n_total + *n - 1) / *n;
}

gboolean
ctr_cuda_cone_fit (const CtrGeometry *g, const CtrGrid *grid, gboolean masked, guint64 budget, CtrCudaConeFit *out,
                   GError **error)
{
  memset (out, 0, sizeof *out);
  if (budget == G_MAXUINT64 && !device_budget (&budget, error))
    return FALSE;
  const gboolean tr = ctr_cuda_cone_transposed_layout () != 0;
  out->budget = budget;
  out->transposed = tr;
  out->whole_bytes = ctr_cuda_cone_split_bytes (g, grid, masked, tr, TRUE, grid->nz, g->n_views);
  out->n_slabs = out->n_chunks = 1;
  out->slab_nz = grid->nz;
  out->chunk_views = g->n_views;
  if (out->whole_bytes <= budget)
    return TRUE;
  out->split = TRUE;
  const guint64 fixed = ctr_cuda_cone_split_bytes (g, grid, masked, tr, FALSE, 0, 0);
  const guint64 slice = ctr_cuda_cone_split_bytes (g, grid, masked, tr, FALSE, 1, 0) - fixed;
  const guint64 view = ctr_cuda_cone_split_bytes (g, grid, masked, tr, FALSE, 0, 1) - fixed;
  const guint64 room = budget > fixed ? budget - fixed : 0;
  guint64 t = 0, cv = g->n_views;
  if (room >= ctr_memory_add (ctr_memory_mul (view, g->n_views), slice))
    t = (room - view * g->n_views) / slice;   /* every view resident */
  else
    {
      t = MAX (room / 2 / slice, 1);
      cv = room >= t * slice ? (room - t * slice) / view : 0;
    }
  if (t == 0 || cv == 0)
    {
      g_autofree char *one = g_format_size_full (fixed + slice + view, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *room_s = g_format_size_full (budget, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *whole = g_format_size_full (out->whole_bytes, G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "too little device memory for the cone-beam pair even split: one slice and one view need %s, "
                   "%s usable (the whole needs %s)", one, room_s, whole);
      return FALSE;
    }
  balance (grid->nz, (guint) MIN (t, grid->nz), &out->n_slabs, &out->slab_nz);
  balance (g->n_views, (guint) MIN (cv, g->n_views), &out->n_chunks, &out->chunk_views);
  out->split_bytes = ctr_cuda_cone_split_bytes (g, grid, masked, tr, FALSE, out->slab_nz, out->chunk_views);
  return TRUE;
}

/* ------------------------------------------------------------ operator -- */

typedef struct {
  CtrOperator parent;
  CtrCudaConeSplit *dev;
  gsize nvox, per_view;
  guint nv;
  guint8 *mask;    /* host copy, nullable */
  float *vol;      /* a host volume: an update, ones */
  float *cs;       /* a host volume: column sums (SART's scale) */
  float *data;     /* a host data array: a residual */
} SplitOp;


static void
views_of (const SplitOp *c, guint subset, guint *v0, guint *nv)
{
  *v0 = subset == CTR_SUBSET_ALL ? 0 : subset;
  *nv = subset == CTR_SUBSET_ALL ? c->nv : 1;
}

static void
split_finalize (CtrOperator *op)
{
  SplitOp *c = (SplitOp *) op;
  ctr_cuda_cone_split_destroy (c->dev);
  g_free (c->mask);
  g_free (c->vol);
  g_free (c->cs);
  g_free (c->data);
  ctr_operator_clear (op);
  g_free (c);
}

static void
split_data_gather (CtrOperator *op, const float *proj, float *Y)
{
  ctr_cone_op_gather_masked (op, ((SplitOp *) op)->mask, proj, Y);
}

static gboolean
split_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  SplitOp *c = (SplitOp *) op;
  guint v0, nv;
  views_of (c, subset, &v0, &nv);
  CTR_CUDA_TRY (ctr_cuda_cone_split_forward (c->dev, X, v0, nv, Y, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
split_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  SplitOp *c = (SplitOp *) op;
  guint v0, nv;
  views_of (c, subset, &v0, &nv);
  CTR_CUDA_TRY (ctr_cuda_cone_split_adjoint (c->dev, Y, v0, nv, D, CTR_CUDA_ERR));
  return TRUE;
}

/* The fused subset step (ctr-operator.h) from the products: the residual
 * and the image step on the host. */
static gboolean
split_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step, float *D,
              CtrUpdateFlags flags, GError **error)
{
  SplitOp *c = (SplitOp *) op;
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "the cone-beam operator has no ray-sequential update");
      return FALSE;
    }
  guint v0, nv;
  views_of (c, subset, &v0, &nv);
  const gsize o = c->per_view * v0, n = c->per_view * nv;
  if (!split_forward (op, subset, X, c->data, error))
    return FALSE;
#pragma omp parallel for schedule(static)
  for (gint64 i = (gint64) o; i < (gint64) (o + n); i++)
    c->data[i] = step * coef[i] * (B[i] - c->data[i]);
  if (!split_adjoint (op, subset, c->data, c->vol, error))
    return FALSE;
  if (D != NULL)
    {
#pragma omp parallel for schedule(static)
      for (gint64 i = 0; i < (gint64) c->nvox; i++)
        D[i] += c->vol[i];
      return TRUE;
    }
  const gboolean scaled = (flags & CTR_UPDATE_COLUMN_SCALE) != 0;
  if (scaled)
    CTR_CUDA_TRY (ctr_cuda_cone_split_adjoint (c->dev, NULL, v0, nv, c->cs, CTR_CUDA_ERR));
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) c->nvox; i++)
    {
      float x = X[i];
      if (!scaled)
        x += c->vol[i];
      else if (c->cs[i] > 0.0f)
        x += c->vol[i] / c->cs[i];
      X[i] = (flags & CTR_UPDATE_NONNEG) && x < 0.0f ? 0.0f : x;
    }
  return TRUE;
}

static gboolean
split_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  ctr_cone_op_finish_host (op, X, D, scale, flags);
  return TRUE;
}

static gboolean
split_column_sums (CtrOperator *op, guint subset, float *out, GError **error)
{
  SplitOp *c = (SplitOp *) op;
  guint v0, nv;
  views_of (c, subset, &v0, &nv);
  CTR_CUDA_TRY (ctr_cuda_cone_split_adjoint (c->dev, NULL, v0, nv, out, CTR_CUDA_ERR));
  return TRUE;
}

/* The vtable's row sums cannot fail: a device error here leaves the sums of
 * the CPU's pair (the same model), with a message. */
static void
split_row_sums (CtrOperator *op, float *sq, float *sum)
{
  SplitOp *c = (SplitOp *) op;
  g_return_if_fail (sq == NULL);
  if (sum == NULL)
    return;
  for (gsize i = 0; i < c->nvox; i++)
    c->vol[i] = 1.0f;
  g_autoptr (GError) e = NULL;
  if (split_forward (op, CTR_SUBSET_ALL, c->vol, sum, &e))
    return;
  g_message ("row sums on the device failed (%s); computed on the CPU", e->message);
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (op->geometry, &op->grid, NULL);
  for (guint v = 0; cp != NULL && v < c->nv; v++)
    ctr_cone_projector_forward_view_masked (cp, c->vol, v, c->mask ? c->mask + c->per_view * v : NULL,
                                            sum + c->per_view * v);
}

static gboolean
split_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error)
{
  *kappa = 1.0;
  return TRUE;
}

static guint64
split_subset_rays (CtrOperator *op, guint subset)
{
  return ((SplitOp *) op)->per_view;
}

static const CtrOperatorClass split_class = {
  .name = "cuda-cone-split",
  .natural_image = TRUE,
  .finalize = split_finalize,
  .image_to_native = ctr_cone_op_copy_image,
  .image_from_native = ctr_cone_op_copy_image,
  .data_gather = split_data_gather,
  .data_scatter = ctr_operator_copy_data_scatter,
  .forward = split_forward,
  .adjoint = split_adjoint,
  .update = split_update,
  .finish = split_finish,
  .column_sums = split_column_sums,
  .row_sums = split_row_sums,
  .subset_overlap = split_subset_overlap,
  .subset_rays = split_subset_rays,
};

gboolean
ctr_cuda_cone_split_op_traffic (CtrOperator *op, double *up, double *down)
{
  if (op == NULL || op->klass != &split_class)
    return FALSE;
  ctr_cuda_cone_split_traffic (((SplitOp *) op)->dev, up, down);
  return TRUE;
}

/* The device session: tables up, the split's buffers allocated. */
static CtrCudaConeSplit *
make_device (const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask, const CtrCudaConeFit *fit,
             GError **error)
{
  g_autofree double *src = g_try_new (double, 3 * (gsize) g->n_views);
  g_autofree double *drow = g_try_new (double, 3 * (gsize) g->n_views);
  g_autofree double *ray0 = g_try_new (double, 3 * (gsize) g->n_views * g->n_cols);
  if (src == NULL || drow == NULL || ray0 == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "the GPU's cone-beam operator: cannot allocate its "
                   "host tables");
      return NULL;
    }
  if (!ctr_cuda_cone_ray_tables (g, src, ray0, drow, error))
    return NULL;
  CtrCudaConeDesc d = {
    .n_views = g->n_views, .n_rows = g->n_rows, .n_cols = g->n_cols,
    .nx = grid->nx, .ny = grid->ny, .nz = grid->nz,
    .x0 = ctr_grid_x (grid, 0), .y0 = ctr_grid_y (grid, 0), .z0 = ctr_grid_z (grid, 0),
    .dx = grid->dx, .dy = grid->dy, .dz = grid->dz,
    .src = src, .ray0 = ray0, .drow = drow, .mask = mask,
    .transposed = fit->transposed,
    .checked_only = g_strcmp0 (g_getenv ("CTR_CUDA_CONE_INTERIOR"), "0") == 0,
  };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaConeSplit *dev = NULL;
  CtrCudaStatus st = ctr_cuda_cone_split_create (&d, fit->slab_nz, fit->chunk_views, &dev, err);
  if (st != CTR_CUDA_OK)
    {
      ctr_cuda_status_error (st, err, error);
      return NULL;
    }
  return dev;
}

static char *
describe (const CtrGrid *grid, const CtrCudaConeFit *fit, guint64 dev_bytes)
{
  g_autofree char *held = g_format_size_full (dev_bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *whole = g_format_size_full (fit->whole_bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *budget = g_format_size_full (fit->budget, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *why = fit->split ? g_strdup_printf ("the whole needs %s of device memory, %s usable", whole, budget)
                                    : g_strdup ("split on request");
  return g_strdup_printf ("cone-beam Joseph projector pair on the GPU, out of core (%u × %u × %u voxels): %u z-slab%s "
                          "of ≤ %u slices × %u view chunk%s of ≤ %u views, %s of device memory (%s%s); "
                          "slabs double-buffered on two streams; products with host arrays (SART and SIRT "
                          "passes not kept on the device; one-view subsets, as SART's, PWLS's and ASD-POCS's, "
                          "stream the volume at every subset: SIRT and CGLS suit a split)",
                          grid->nx, grid->ny, grid->nz, fit->n_slabs, fit->n_slabs == 1 ? "" : "s", fit->slab_nz,
                          fit->n_chunks, fit->n_chunks == 1 ? "" : "s", fit->chunk_views, held, why,
                          fit->transposed ? "; transposed layout" : "");
}

CtrOperator *
ctr_cuda_cone_split_op_new (const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask, const CtrCudaConeFit *fit,
                            GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL && fit != NULL, NULL);
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error))
    return NULL;
  if (g->beam != CTR_BEAM_CONE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, "the cone-beam projector needs a cone-beam geometry");
      return NULL;
    }
  const gsize per_view = (gsize) g->n_rows * g->n_cols, nvox = ctr_grid_size (grid), nd = per_view * g->n_views;
  const guint64 host = ctr_memory_add (ctr_memory_mul (2 * (guint64) nvox + nd, sizeof (float)),
                                       mask != NULL ? ctr_memory_mul (per_view, g->n_views) : 0);
  if (!ctr_memory_check (host, "the GPU's split cone-beam operator's host volumes and data", error))
    return NULL;
  g_autofree float *vol = g_try_new (float, nvox);
  g_autofree float *cs = g_try_new (float, nvox);
  g_autofree float *data = g_try_new0 (float, nd);
  g_autofree guint8 *mask_copy = mask != NULL ? g_try_malloc (nd) : NULL;
  if (vol == NULL || cs == NULL || data == NULL || (mask != NULL && mask_copy == NULL))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "the GPU's split cone-beam operator: cannot allocate "
                   "two volumes of %" G_GSIZE_FORMAT " voxels and the data", nvox);
      return NULL;
    }
  if (mask != NULL)
    memcpy (mask_copy, mask, nd);
  CtrCudaConeSplit *dev = make_device (g, grid, mask_copy, fit, error);
  CtrCudaConeFit said = *fit;   /* the counts the device split into */
  if (dev != NULL)
    {
      said.n_slabs = ctr_cuda_cone_split_slabs (dev);
      said.n_chunks = ctr_cuda_cone_split_chunks (dev);
    }
  if (dev == NULL)
    return NULL;
  SplitOp *c = g_new0 (SplitOp, 1);
  CtrOperator *op = &c->parent;
  c->dev = dev;
  c->nvox = nvox;
  c->per_view = per_view;
  c->nv = g->n_views;
  c->mask = g_steal_pointer (&mask_copy);
  c->vol = g_steal_pointer (&vol);
  c->cs = g_steal_pointer (&cs);
  c->data = g_steal_pointer (&data);
  if (!ctr_operator_init (op, &split_class, g, grid, 1, error)
      || (op->order = ctr_cone_op_visit_order (g->n_views, error)) == NULL)
    {
      ctr_operator_unref (op);
      return NULL;
    }
  op->image_size = op->scale_size = nvox;
  op->data_size = nd;
  op->n_subsets = g->n_views;
  op->description = describe (grid, &said, ctr_cuda_cone_split_device_bytes (dev));
  return op;
}

CtrOperator *
ctr_cuda_cone_op_new_fitted (const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask, GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL, NULL);
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error))
    return NULL;
  CtrCudaConeFit fit;
  if (!ctr_cuda_cone_fit (g, grid, mask != NULL, G_MAXUINT64, &fit, error))
    return NULL;
  if (!fit.split)
    return ctr_cuda_cone_op_new (g, grid, mask, error);
  return ctr_cuda_cone_split_op_new (g, grid, mask, &fit, error);
}

/* The "cuda" backend's cone operator (ctr-backend.h, CtrBackendConeOperator). */
static CtrOperator *
cuda_backend_cone (const CtrBackend *self, const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask,
                   GError **error)
{
  g_autofree char *why = NULL;
  if (!self->available (self, &why))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "%s", why ? why : "unavailable");
      return NULL;
    }
  return ctr_cuda_cone_op_new_fitted (g, grid, mask, error);
}

/* The "cuda" backend's cone memory plan (ctr-backend.h, CtrBackendConeMemory). */
static char *
cuda_backend_cone_memory (const CtrBackend *self, const CtrGeometry *g, const CtrGrid *grid)
{
  CtrCudaConeFit fit;
  g_autoptr (GError) e = NULL;
  if (!self->available (self, NULL))
    return NULL;
  if (!ctr_cuda_cone_fit (g, grid, FALSE, G_MAXUINT64, &fit, &e))
    return g_strdup_printf ("device memory: %s; the CPU would run", e->message);
  g_autofree char *whole = g_format_size_full (fit.whole_bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *budget = g_format_size_full (fit.budget, G_FORMAT_SIZE_IEC_UNITS);
  if (!fit.split)
    return g_strdup_printf ("device memory: the cone-beam pair needs %s, %s usable: whole on the device", whole,
                            budget);
  g_autofree char *split = g_format_size_full (fit.split_bytes, G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf ("device memory: the cone-beam pair needs %s whole, %s usable: out of core, %u z-slabs of "
                          "≤ %u slices × %u view chunk%s of ≤ %u views in %s", whole, budget, fit.n_slabs,
                          fit.slab_nz, fit.n_chunks, fit.n_chunks == 1 ? "" : "s", fit.chunk_views, split);
}

/* Runs before main() (the library is linked whole, gpu/meson.build). */
__attribute__ ((constructor)) static void
ctr_cuda_cone_split_constructor (void)
{
  ctr_backend_register_cone ("cuda", cuda_backend_cone);
  ctr_backend_register_cone_memory ("cuda", cuda_backend_cone_memory);
}
