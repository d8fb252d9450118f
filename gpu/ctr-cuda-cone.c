/* ctr-cuda-cone.c — GLib glue of the GPU's cone-beam projector pair (see
 * ctr-cuda-cone.h): the geometry tables the kernels read (the rays' ends
 * from ctr_cone_ray_ends, checked to be affine in the row), the operator's
 * vtable over the session of ctr-cuda-cone.cu and GError conversion (the
 * "cuda" backend's cone operator is registered by ctr-cuda-cone-split.c:
 * this one when it fits the device, the split otherwise).
 */
#include "ctr-cuda-cone.h"
#include "ctr-cuda-cone-private.h"
#include "ctr-cuda.h"
#include "sysmat/ctr-cone-op.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

/* The layout by default (CTR_CUDA_CONE_LAYOUT overrides): see gpu/README.md. */
#define CTR_CUDA_CONE_TRANSPOSED_DEFAULT 1

typedef struct {
  CtrOperator parent;
  CtrCudaCone *dev;
  gsize nvox, per_view;
  guint nv;
  guint8 *mask;    /* host copy, nullable */
  float *tmp;      /* a host volume: ones, or an update to add */
  float *step;     /* the pass's per-view steps (SART), host */
  /* An open accumulation (update with D): the image @acc_x went up once, the
   * subsets' updates add up in the device's D, and reduce or finish brings
   * the sum into @acc_d (ctr-operator.h). */
  const float *acc_x;
  float *acc_d;
  /* what the accumulation holds, to compute it again on the CPU when the
   * device cannot give it back (reduce cannot fail) */
  const float *acc_b, *acc_coef;
  GArray *acc_subsets;   /* guint */
  GArray *acc_steps;     /* float */
  gboolean times;      /* CTR_CUDA_CONE_TIMES: the SIRT pass's phases on stderr */
} CudaConeOp;


static void
subset_views (const CudaConeOp *c, guint subset, guint *v0, guint *nv)
{
  *v0 = subset == CTR_SUBSET_ALL ? 0 : subset;
  *nv = subset == CTR_SUBSET_ALL ? c->nv : 1;
}

/* The open accumulation computed on the CPU's pair (the same model) and
 * added into the host's D: when the device cannot give its sum back. */
static void
accumulate_on_cpu (CudaConeOp *c, float *D)
{
  CtrOperator *op = &c->parent;
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (op->geometry, &op->grid, NULL);
  g_autofree float *r = g_try_new (float, c->per_view);
  if (cp == NULL || r == NULL)
    g_error ("cannot make the CPU's cone-beam pair for a failed device accumulation");
  for (guint k = 0; k < c->acc_subsets->len; k++)
    {
      const guint s = g_array_index (c->acc_subsets, guint, k);
      const float step = g_array_index (c->acc_steps, float, k);
      const guint v0 = s == CTR_SUBSET_ALL ? 0 : s, v1 = s == CTR_SUBSET_ALL ? c->nv : s + 1;
      for (guint v = v0; v < v1; v++)
        {
          const guint8 *m = c->mask ? c->mask + c->per_view * v : NULL;
          const float *b = c->acc_b + c->per_view * v, *cf = c->acc_coef + c->per_view * v;
          ctr_cone_projector_forward_view_masked (cp, c->acc_x, v, m, r);
          for (gsize i = 0; i < c->per_view; i++)
            r[i] = step * cf[i] * (b[i] - r[i]);
          ctr_cone_projector_adjoint_view_masked (cp, r, v, m, D, NULL);
        }
    }
}

/* Closes an open accumulation: the device's D added into the host's (or,
 * when it cannot come back, the same sum from the CPU's pair). */
static void
flush (CudaConeOp *c)
{
  if (c->acc_d == NULL)
    return;
  float *D = c->acc_d;
  char err[CTR_CUDA_ERR_LEN] = "";
  if (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_D, 0, c->tmp, c->nvox, err) == CTR_CUDA_OK)
    {
#pragma omp parallel for schedule(static)
      for (gint64 i = 0; i < (gint64) c->nvox; i++)
        D[i] += c->tmp[i];
    }
  else
    {
      g_message ("the device's accumulated update could not come back (%s); computed on the CPU", err);
      accumulate_on_cpu (c, D);
    }
  c->acc_x = NULL;
  c->acc_d = NULL;
  g_array_set_size (c->acc_subsets, 0);
  g_array_set_size (c->acc_steps, 0);
}

static void
cuda_cone_finalize (CtrOperator *op)
{
  CudaConeOp *c = (CudaConeOp *) op;
  g_array_unref (c->acc_subsets);
  g_array_unref (c->acc_steps);
  ctr_cuda_cone_destroy (c->dev);
  g_free (c->mask);
  g_free (c->tmp);
  g_free (c->step);
  ctr_operator_clear (op);
  g_free (c);
}

static void
cuda_cone_data_gather (CtrOperator *op, const float *proj, float *Y)
{
  ctr_cone_op_gather_masked (op, ((CudaConeOp *) op)->mask, proj, Y);
}

static gboolean
cuda_cone_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  flush (c);
  guint v0, nv;
  subset_views (c, subset, &v0, &nv);
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_X, 0, X, c->nvox, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_forward (c->dev, v0, nv, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_Y, c->per_view * v0, Y + c->per_view * v0,
                               c->per_view * nv, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
cuda_cone_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  flush (c);
  guint v0, nv;
  subset_views (c, subset, &v0, &nv);
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_R, c->per_view * v0, Y + c->per_view * v0,
                             c->per_view * nv, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_zero (c->dev, CTR_CUDA_CONE_D, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_adjoint (c->dev, v0, nv, 0, 0, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_D, 0, D, c->nvox, CTR_CUDA_ERR));
  return TRUE;
}

/* The fused subset step (ctr-operator.h) with host arrays: the image and
 * the subset's data and coefficients go up, the step runs on the device,
 * the image (or the update, added to @D) comes back. */
static gboolean
cuda_cone_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step,
                  float *D, CtrUpdateFlags flags, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "the cone-beam operator has no ray-sequential update");
      return FALSE;
    }
  guint v0, nv;
  subset_views (c, subset, &v0, &nv);
  const gsize o = c->per_view * v0, n = c->per_view * nv;
  const gboolean scaled = D == NULL && (flags & CTR_UPDATE_COLUMN_SCALE);
  /* the same accumulation goes on: the image is up, D gathers on the device */
  const gboolean going_on = D != NULL && D == c->acc_d && X == c->acc_x && B == c->acc_b && coef == c->acc_coef;
  if (!going_on)
    {
      flush (c);
      CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_X, 0, X, c->nvox, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_cone_zero (c->dev, CTR_CUDA_CONE_D, CTR_CUDA_ERR));
    }
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_B, o, B + o, n, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_COEF, o, coef + o, n, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_forward (c->dev, v0, nv, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_residual (c->dev, v0, nv, step, CTR_CUDA_ERR));
  if (scaled)
    CTR_CUDA_TRY (ctr_cuda_cone_zero (c->dev, CTR_CUDA_CONE_CS, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_adjoint (c->dev, v0, nv, 0, scaled, CTR_CUDA_ERR));
  if (D != NULL)
    {
      c->acc_x = X;
      c->acc_d = D;
      c->acc_b = B;
      c->acc_coef = coef;
      g_array_append_val (c->acc_subsets, subset);
      g_array_append_val (c->acc_steps, step);
      return TRUE;
    }
  CTR_CUDA_TRY (ctr_cuda_cone_apply (c->dev, scaled ? 1 : 0, (flags & CTR_UPDATE_NONNEG) != 0, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_X, 0, X, c->nvox, CTR_CUDA_ERR));
  return TRUE;
}

/* Completes an open accumulation into @D (ctr-operator.h's reduce). */
static void
cuda_cone_reduce (CtrOperator *op, float *D)
{
  CudaConeOp *c = (CudaConeOp *) op;
  if (c->acc_d == D)
    flush (c);
}

/* X ← X + scale ∘ D on the host (as the CPU operator), D zeroed. */
static gboolean
cuda_cone_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  flush ((CudaConeOp *) op);
  ctr_cone_op_finish_host (op, X, D, scale, flags);
  return TRUE;
}

static gboolean
cuda_cone_column_sums (CtrOperator *op, guint subset, float *out, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  flush (c);
  guint v0, nv;
  subset_views (c, subset, &v0, &nv);
  CTR_CUDA_TRY (ctr_cuda_cone_zero (c->dev, CTR_CUDA_CONE_D, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_adjoint (c->dev, v0, nv, 1, 0, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_D, 0, out, c->nvox, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
row_sums_device (CudaConeOp *c, float *sum, GError **error)
{
  flush (c);
  for (gsize i = 0; i < c->nvox; i++)
    c->tmp[i] = 1.0f;
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_X, 0, c->tmp, c->nvox, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_forward (c->dev, 0, c->nv, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_Y, 0, sum, c->per_view * c->nv, CTR_CUDA_ERR));
  return TRUE;
}

/* The vtable's row sums cannot fail: a device error here leaves the sums of
 * the CPU's pair (the same model), with a warning. */
static void
cuda_cone_row_sums (CtrOperator *op, float *sq, float *sum)
{
  CudaConeOp *c = (CudaConeOp *) op;
  g_return_if_fail (sq == NULL);
  if (sum == NULL)
    return;
  g_autoptr (GError) e = NULL;
  if (row_sums_device (c, sum, &e))
    return;
  g_message ("row sums on the device failed (%s); computed on the CPU", e->message);
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (op->geometry, &op->grid, NULL);
  for (gsize i = 0; i < c->nvox; i++)
    c->tmp[i] = 1.0f;
  for (guint v = 0; cp != NULL && v < c->nv; v++)
    ctr_cone_projector_forward_view_masked (cp, c->tmp, v, c->mask ? c->mask + c->per_view * v : NULL,
                                            sum + c->per_view * v);
}

static gboolean
cuda_cone_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error)
{
  *kappa = 1.0;
  return TRUE;
}

static guint64
cuda_cone_subset_rays (CtrOperator *op, guint subset)
{
  return ((CudaConeOp *) op)->per_view;
}

/* ---- whole passes on the device (CtrOperatorPass): SART and SIRT ---- */

static gboolean
pass_begin (CtrOperator *op, int kind, const float *X, const float *B, const float *coef, const float *valid,
            const float *step, const float *scale, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  if (kind != 1 && kind != 2)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "the cone-beam operator runs SART and SIRT passes, not parallel ART");
      return FALSE;
    }
  const gsize nd = c->per_view * c->nv;
  flush (c);
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_X, 0, X, c->nvox, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_B, 0, B, nd, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_COEF, 0, coef, nd, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_VALID, 0, valid, nd, CTR_CUDA_ERR));
  if (kind == 2)
    CTR_CUDA_TRY (ctr_cuda_cone_upload (c->dev, CTR_CUDA_CONE_CS, 0, scale, c->nvox, CTR_CUDA_ERR));
  g_clear_pointer (&c->step, g_free);
  if (step != NULL)
    c->step = g_memdup2 (step, sizeof (float) * c->nv);
  return TRUE;
}

static gboolean
pass_run (CtrOperator *op, int kind, gboolean nonneg, double *seconds, double *residual, double *residual_seconds,
          GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  double ms = 0, rms = 0, phase[3] = { 0, 0, 0 };
  CTR_CUDA_TRY (ctr_cuda_cone_iterate (c->dev, kind == 1, op->order, c->step, nonneg, &ms, residual, &rms, phase, CTR_CUDA_ERR));
  *seconds = ms * 1e-3;
  if (c->times)
    g_printerr ("cuda-cone %s pass: %.3f ms (forward %.3f, residual and back-projection %.3f, image step %.3f), "
                "residual pass %.3f ms\n", kind == 1 ? "SART" : "SIRT", ms, phase[0], phase[1], phase[2], rms);
  if (residual_seconds != NULL)
    *residual_seconds = rms * 1e-3;
  return TRUE;
}

static gboolean
pass_download (CtrOperator *op, float *X, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  CTR_CUDA_TRY (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_X, 0, X, c->nvox, CTR_CUDA_ERR));
  return TRUE;
}

/* One slice of a report: native = natural, so a contiguous range. */
static gboolean
pass_download_part (CtrOperator *op, float *X, gsize offset, gsize n, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  g_return_val_if_fail (offset <= c->nvox && n <= c->nvox - offset, FALSE);
  CTR_CUDA_TRY (ctr_cuda_cone_download (c->dev, CTR_CUDA_CONE_X, offset, X + offset, n, CTR_CUDA_ERR));
  return TRUE;
}

/* The planes of a report: native = natural, so one pitched copy each. */
static gboolean
pass_download_runs (CtrOperator *op, float *X, const CtrImageRuns *runs, GError **error)
{
  CudaConeOp *c = (CudaConeOp *) op;
  g_return_val_if_fail (ctr_image_runs_valid (runs, c->nvox), FALSE);
  CTR_CUDA_TRY (ctr_cuda_cone_download_pitched (c->dev, CTR_CUDA_CONE_X, runs->offset, X + runs->offset, runs->run,
                                                runs->count, runs->stride, CTR_CUDA_ERR));
  return TRUE;
}

static void
pass_end (CtrOperator *op)
{
  CudaConeOp *c = (CudaConeOp *) op;
  g_clear_pointer (&c->step, g_free);
}

static const CtrOperatorPass cuda_cone_pass = {
  .begin = pass_begin,
  .run = pass_run,
  .download = pass_download,
  .download_part = pass_download_part,
  .end = pass_end,
  .download_runs = pass_download_runs,
};

static const CtrOperatorClass cuda_cone_class = {
  .name = "cuda-cone",
  .finalize = cuda_cone_finalize,
  .image_to_native = ctr_cone_op_copy_image,
  .image_from_native = ctr_cone_op_copy_image,
  .data_gather = cuda_cone_data_gather,
  .data_scatter = ctr_operator_copy_data_scatter,
  .forward = cuda_cone_forward,
  .adjoint = cuda_cone_adjoint,
  .update = cuda_cone_update,
  .reduce = cuda_cone_reduce,
  .finish = cuda_cone_finish,
  .column_sums = cuda_cone_column_sums,
  .row_sums = cuda_cone_row_sums,
  .subset_overlap = cuda_cone_subset_overlap,
  .subset_rays = cuda_cone_subset_rays,
  .pass = &cuda_cone_pass,
  .natural_image = TRUE,
  .vec = &ctr_cuda_cone_vecops,
};

CtrCudaCone *
ctr_cuda_cone_op_session (CtrOperator *op)
{
  CudaConeOp *c = (CudaConeOp *) op;
  flush (c);
  return c->dev;
}

/* The kernels' tables: per view the source, the detector point of row 0 of
 * every column minus the source, and the point's step per row; FALSE with
 * CTR_ERROR_UNSUPPORTED when a view's rows are not straight lines (the
 * point of the last row off the line by more than 1e-6 mm). */
gboolean
ctr_cuda_cone_ray_tables (const CtrGeometry *g, double *src, double *ray0, double *drow, GError **error)
{
  const guint nc = g->n_cols, nr = g->n_rows;
  for (guint v = 0; v < g->n_views; v++)
    {
      double s[3], p0[3], p1[3];
      ctr_cone_ray_ends (g, v, 0, 0, src + 3 * v, p0);
      ctr_cone_ray_ends (g, v, 0, 1, s, p1);
      for (guint k = 0; k < 3; k++)
        drow[3 * v + k] = p1[k] - p0[k];
      for (guint col = 0; col < nc; col++)
        {
          double p[3];
          ctr_cone_ray_ends (g, v, col, 0, s, p);
          for (guint k = 0; k < 3; k++)
            ray0[3 * ((gsize) v * nc + col) + k] = p[k] - src[3 * v + k];
          if (col != 0 && col != nc - 1 && col != nc / 2)
            continue;
          double q[3];
          ctr_cone_ray_ends (g, v, col, nr - 1, s, q);
          for (guint k = 0; k < 3; k++)
            if (fabs (p[k] + (nr - 1) * drow[3 * v + k] - q[k]) > 1e-6 + 1e-12 * fabs (q[k]))
              {
                g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                             "the GPU's cone-beam projector needs straight detector rows; view %u's are not", v);
                return FALSE;
              }
        }
    }
  return TRUE;
}

/* CTR_CUDA_CONE_LAYOUT=plain|transposed (tuning; gpu/README.md): whether
 * x-dominant rays of whole passes use the transposed copy of the volume. */
int
ctr_cuda_cone_transposed_layout (void)
{
  const char *v = g_getenv ("CTR_CUDA_CONE_LAYOUT");
  if (v != NULL && strcmp (v, "plain") == 0)
    return 0;
  if (v != NULL && strcmp (v, "transposed") == 0)
    return 1;
  return CTR_CUDA_CONE_TRANSPOSED_DEFAULT;
}

CtrOperator *
ctr_cuda_cone_op_new (const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask, GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL, NULL);
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error))
    return NULL;
  if (g->beam != CTR_BEAM_CONE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, "the cone-beam projector needs a cone-beam geometry");
      return NULL;
    }
  const gsize per_view = (gsize) g->n_rows * g->n_cols, nvox = ctr_grid_size (grid);
  /* the host side first: the tables and one volume, against the memory limit */
  const guint64 host = ctr_memory_add (ctr_memory_mul (nvox, sizeof (float)),
                                       ctr_memory_mul ((guint64) g->n_views * (g->n_cols + 2), 3 * sizeof (double)));
  g_autofree char *what = g_strdup_printf ("the GPU's cone-beam operator's host tables and a volume of %u × %u × %u",
                                           grid->nx, grid->ny, grid->nz);
  if (!ctr_memory_check (ctr_memory_add (host, mask != NULL ? ctr_memory_mul (per_view, g->n_views) : 0), what, error))
    return NULL;
  g_autofree double *src = g_try_new (double, 3 * (gsize) g->n_views);
  g_autofree double *drow = g_try_new (double, 3 * (gsize) g->n_views);
  g_autofree double *ray0 = g_try_new (double, 3 * (gsize) g->n_views * g->n_cols);
  g_autofree float *tmp = g_try_new (float, nvox);
  g_autofree guint8 *mask_copy = mask != NULL ? g_try_malloc (per_view * g->n_views) : NULL;
  if (src == NULL || drow == NULL || ray0 == NULL || tmp == NULL || (mask != NULL && mask_copy == NULL))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "the GPU's cone-beam operator: cannot allocate its host tables and a volume of %" G_GSIZE_FORMAT
                   " voxels", nvox);
      return NULL;
    }
  if (!ctr_cuda_cone_ray_tables (g, src, ray0, drow, error))
    return NULL;
  if (mask != NULL)
    memcpy (mask_copy, mask, per_view * g->n_views);
  CtrCudaConeDesc d = {
    .n_views = g->n_views, .n_rows = g->n_rows, .n_cols = g->n_cols,
    .nx = grid->nx, .ny = grid->ny, .nz = grid->nz,
    .x0 = ctr_grid_x (grid, 0), .y0 = ctr_grid_y (grid, 0), .z0 = ctr_grid_z (grid, 0),
    .dx = grid->dx, .dy = grid->dy, .dz = grid->dz,
    .src = src, .ray0 = ray0, .drow = drow, .mask = mask_copy,
    .transposed = ctr_cuda_cone_transposed_layout (),
    .checked_only = g_strcmp0 (g_getenv ("CTR_CUDA_CONE_INTERIOR"), "0") == 0,
  };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaCone *dev = NULL;
  CtrCudaStatus st = ctr_cuda_cone_create (&d, &dev, err);
  if (st != CTR_CUDA_OK)
    {
      ctr_cuda_status_error (st, err, error);
      return NULL;
    }
  CudaConeOp *c = g_new0 (CudaConeOp, 1);
  CtrOperator *op = &c->parent;
  c->dev = dev;
  c->nvox = nvox;
  c->per_view = per_view;
  c->nv = g->n_views;
  c->mask = g_steal_pointer (&mask_copy);
  c->tmp = g_steal_pointer (&tmp);
  c->times = g_getenv ("CTR_CUDA_CONE_TIMES") != NULL;
  c->acc_subsets = g_array_new (FALSE, FALSE, sizeof (guint));
  c->acc_steps = g_array_new (FALSE, FALSE, sizeof (float));
  if (!ctr_operator_init (op, &cuda_cone_class, g, grid, 1, error)
      || (op->order = ctr_cone_op_visit_order (g->n_views, error)) == NULL)
    {
      ctr_operator_unref (op);
      return NULL;
    }
  op->image_size = op->scale_size = nvox;
  op->data_size = per_view * g->n_views;
  op->n_subsets = g->n_views;
  op->description = g_strdup_printf ("cone-beam Joseph projector pair on the GPU (%u × %u × %u voxels, %.0f MiB "
                                     "of device memory)",
                                     grid->nx, grid->ny, grid->nz, ctr_cuda_cone_device_bytes (dev) / 1048576.0);
  return op;
}
