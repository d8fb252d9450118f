/* ctr-cuda-fly-op.c — the GPU's on-the-fly fan/parallel pair as an
 * operator, "cuda-fly" (ctr-cuda-fly.h; issue 37): the subsets, layouts and
 * ray model of the CPU's on-the-fly operator (core/sysmat/ctr-fly-op.h),
 * every product on the device (ctr-cuda-fly.cu).  PART, SART and SIRT run
 * whole passes on the device (CtrOperatorPass); CGLS, PWLS and ASD-POCS its
 * vector operations (ctr-cuda-fly-vecops.c).  The set-up quantities a
 * method asks for once — ‖a_i‖² and the orbits' overlaps κ — come from the
 * CPU's operator on the same rows, which the operator keeps (its host work
 * arrays are what a CPU run would hold).
 */
#include "ctr-cuda-fly.h"
#include "ctr-cuda.h"
#include "ctr-cuda-vecops-api.h"
#include "sysmat/ctr-fly-op.h"
#include "plan/ctr-backend.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  CtrOperator parent;
  CtrCudaFly *dev;
  CtrOperator *cpu;    /* the CPU's on-the-fly operator on the same rows */
  CtrCudaVecs *vecs;   /* reductions for a pass's residual (on the session's stream) */
  float *upd;          /* a host image */
  float *step;         /* a pass's per-subset steps (host) */
} CudaFlyOp;

static void
cuda_fly_finalize (CtrOperator *op)
{
  CudaFlyOp *c = (CudaFlyOp *) op;
  ctr_cuda_vecs_destroy (c->vecs);
  ctr_cuda_fly_destroy (c->dev);
  ctr_operator_unref (c->cpu);
  g_free (c->upd);
  g_free (c->step);
  ctr_operator_clear (op);
  g_free (c);
}

static void
cuda_fly_image_copy (CtrOperator *op, const float *from, float *to)
{
  if (from != to)
    memcpy (to, from, op->image_size * sizeof (float));
}

static void
cuda_fly_data_gather (CtrOperator *op, const float *proj, float *Y)
{
  CtrOperator *cpu = ((CudaFlyOp *) op)->cpu;
  cpu->klass->data_gather (cpu, proj, Y);
}

static gboolean
cuda_fly_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  return ctr_cuda_fly_forward_host (((CudaFlyOp *) op)->dev, subset, X, Y, error);
}

static gboolean
cuda_fly_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  return ctr_cuda_fly_adjoint_host (((CudaFlyOp *) op)->dev, subset, Y, D, error);
}

/* The fused subset step with host arrays: the image and the subset's data
 * and coefficients go up, the step runs on the device, the image (or the
 * update, added to @D) comes back. */
static gboolean
cuda_fly_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step, float *D,
                 CtrUpdateFlags flags, GError **error)
{
  CudaFlyOp *c = (CudaFlyOp *) op;
  CtrCudaFly *f = c->dev;
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "the GPU's on-the-fly operator has no ray-sequential "
                   "update (ART runs on the CPU)");
      return FALSE;
    }
  const guint s = ctr_cuda_fly_subset (subset);
  const gboolean scaled = D == NULL && (flags & CTR_UPDATE_COLUMN_SCALE);
  float *x = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_X), *d = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_D);
  float *cs = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_CS), *y = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_Y);
  float *r = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_R);
  CTR_CUDA_TRY (ctr_cuda_fly_upload (f, CTR_CUDA_FLY_X, 0, X, op->image_size, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_upload_rays (f, CTR_CUDA_FLY_B, s, B, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_upload_rays (f, CTR_CUDA_FLY_COEF, s, coef, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_forward (f, s, x, y, NULL, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_residual (f, s, step, ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_B),
                                       ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_COEF), y, r, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_D, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, r, d, CTR_CUDA_ERR));
  if (D != NULL)
    {
      CTR_CUDA_TRY (ctr_cuda_fly_download (f, CTR_CUDA_FLY_D, 0, c->upd, op->image_size, CTR_CUDA_ERR));
      for (gsize i = 0; i < op->image_size; i++)
        D[i] += c->upd[i];
      return TRUE;
    }
  if (scaled)
    {
      CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_CS, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, NULL, cs, CTR_CUDA_ERR));
    }
  CTR_CUDA_TRY (ctr_cuda_fly_apply (f, scaled ? 1 : 0, (flags & CTR_UPDATE_NONNEG) != 0, x, d, cs, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_download (f, CTR_CUDA_FLY_X, 0, X, op->image_size, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
cuda_fly_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  CtrOperator *cpu = ((CudaFlyOp *) op)->cpu;
  return cpu->klass->finish (cpu, X, D, scale, flags, error);
}

static gboolean
cuda_fly_column_sums (CtrOperator *op, guint subset, float *out, GError **error)
{
  CtrCudaFly *f = ((CudaFlyOp *) op)->dev;
  CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_CS, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, ctr_cuda_fly_subset (subset), NULL, ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_CS),
                                      CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_download (f, CTR_CUDA_FLY_CS, 0, out, op->scale_size, CTR_CUDA_ERR));
  return TRUE;
}

/* ‖a_i‖², Σ_j a_ij and κ_S: once per run, from the CPU's rows. */
static void
cuda_fly_row_sums (CtrOperator *op, float *sq, float *sum)
{
  CtrOperator *cpu = ((CudaFlyOp *) op)->cpu;
  cpu->klass->row_sums (cpu, sq, sum);
}

static gboolean
cuda_fly_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error)
{
  CtrOperator *cpu = ((CudaFlyOp *) op)->cpu;
  return cpu->klass->subset_overlap (cpu, subset, kappa, error);
}

static guint64
cuda_fly_subset_rays (CtrOperator *op, guint subset)
{
  CtrOperator *cpu = ((CudaFlyOp *) op)->cpu;
  return cpu->klass->subset_rays (cpu, subset);
}

/* ---- whole passes on the device (CtrOperatorPass): PART, SART, SIRT ---- */

static gboolean
pass_begin (CtrOperator *op, int kind, const float *X, const float *B, const float *coef, const float *valid,
            const float *step, const float *scale, GError **error)
{
  CudaFlyOp *c = (CudaFlyOp *) op;
  CtrCudaFly *f = c->dev;
  CTR_CUDA_TRY (ctr_cuda_fly_upload (f, CTR_CUDA_FLY_X, 0, X, op->image_size, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_upload (f, CTR_CUDA_FLY_B, 0, B, op->data_size, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_upload (f, CTR_CUDA_FLY_COEF, 0, coef, op->data_size, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_upload (f, CTR_CUDA_FLY_VALID, 0, valid, op->data_size, CTR_CUDA_ERR));
  if (kind == 2)
    CTR_CUDA_TRY (ctr_cuda_fly_upload (f, CTR_CUDA_FLY_CS, 0, scale, op->scale_size, CTR_CUDA_ERR));
  g_clear_pointer (&c->step, g_free);
  if (step != NULL)
    c->step = g_memdup2 (step, sizeof (float) * op->n_subsets);
  return TRUE;
}

/* ||B − A X|| / ||B|| over the valid rays (one forward pass into Y). */
static gboolean
pass_residual (CudaFlyOp *c, double *residual, GError **error)
{
  CtrCudaFly *f = c->dev;
  const float *y = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_Y);
  double n[3];
  CTR_CUDA_TRY (ctr_cuda_fly_forward (f, G_MAXUINT, ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_X), (float *) y, NULL,
                                      CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_vec_data_norms (c->vecs, y, ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_B), NULL,
                                         ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_VALID), c->parent.data_size, n,
                                         CTR_CUDA_ERR));
  *residual = n[2] > 0 ? sqrt (n[1] / n[2]) : 0.0;
  return TRUE;
}

static gboolean
pass_run (CtrOperator *op, int kind, gboolean nonneg, double *seconds, double *residual, double *residual_seconds,
          GError **error)
{
  CudaFlyOp *c = (CudaFlyOp *) op;
  CtrCudaFly *f = c->dev;
  float *x = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_X), *d = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_D);
  float *cs = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_CS), *y = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_Y);
  float *r = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_R), *b = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_B);
  const float *coef = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_COEF);
  const gint64 t0 = g_get_monotonic_time ();
  if (kind == 2)
    {
      /* SIRT: X += CS ∘ Aᵀ (COEF ∘ (B − A X)), CS = λ / column sums */
      CTR_CUDA_TRY (ctr_cuda_fly_forward (f, G_MAXUINT, x, y, NULL, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_fly_residual (f, G_MAXUINT, 1.f, b, coef, y, r, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_D, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, G_MAXUINT, r, d, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_fly_apply (f, 2, nonneg, x, d, cs, CTR_CUDA_ERR));
    }
  else
    for (guint t = 0; t < op->n_subsets; t++)
      {
        /* PART (0) and SART (1), subset by subset in the operator's order */
        const guint s = ctr_operator_subset_at (op, t);
        CTR_CUDA_TRY (ctr_cuda_fly_forward (f, s, x, y, NULL, CTR_CUDA_ERR));
        CTR_CUDA_TRY (ctr_cuda_fly_residual (f, s, c->step ? c->step[s] : 1.f, b, coef, y, r, CTR_CUDA_ERR));
        CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_D, CTR_CUDA_ERR));
        CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, r, d, CTR_CUDA_ERR));
        if (kind == 1)
          {
            CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_CS, CTR_CUDA_ERR));
            CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, NULL, cs, CTR_CUDA_ERR));
          }
        CTR_CUDA_TRY (ctr_cuda_fly_apply (f, kind == 1 ? 1 : 0, nonneg, x, d, cs, CTR_CUDA_ERR));
      }
  CTR_CUDA_TRY (ctr_cuda_fly_sync (f, CTR_CUDA_ERR));
  const gint64 t1 = g_get_monotonic_time ();
  *seconds = (t1 - t0) / 1e6;
  if (residual_seconds != NULL)
    *residual_seconds = 0.0;
  if (residual == NULL)
    return TRUE;
  if (!pass_residual (c, residual, error))
    return FALSE;
  if (residual_seconds != NULL)
    *residual_seconds = (g_get_monotonic_time () - t1) / 1e6;
  return TRUE;
}

static gboolean
pass_download (CtrOperator *op, float *X, GError **error)
{
  CtrCudaFly *f = ((CudaFlyOp *) op)->dev;
  CTR_CUDA_TRY (ctr_cuda_fly_download (f, CTR_CUDA_FLY_X, 0, X, op->image_size, CTR_CUDA_ERR));
  return TRUE;
}

static void
pass_end (CtrOperator *op)
{
  g_clear_pointer (&((CudaFlyOp *) op)->step, g_free);
}

static const CtrOperatorPass cuda_fly_pass = {
  .begin = pass_begin,
  .run = pass_run,
  .download = pass_download,
  .end = pass_end,
};

static const CtrOperatorClass cuda_fly_class = {
  .name = "cuda-fly",
  .finalize = cuda_fly_finalize,
  .image_to_native = cuda_fly_image_copy,
  .image_from_native = cuda_fly_image_copy,
  .data_gather = cuda_fly_data_gather,
  .data_scatter = ctr_operator_stack_data_scatter,
  .forward = cuda_fly_forward,
  .adjoint = cuda_fly_adjoint,
  .update = cuda_fly_update,
  .finish = cuda_fly_finish,
  .column_sums = cuda_fly_column_sums,
  .row_sums = cuda_fly_row_sums,
  .subset_overlap = cuda_fly_subset_overlap,
  .subset_rays = cuda_fly_subset_rays,
  .pass = &cuda_fly_pass,
  .vec = &ctr_cuda_fly_vecops,
};

CtrCudaFly *
ctr_cuda_fly_op_session (CtrOperator *op)
{
  return ((CudaFlyOp *) op)->dev;
}

CtrOperator *
ctr_cuda_fly_op_new (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, CtrSymmetry *orbits,
                     GError **error)
{
  CtrCudaFly *dev = ctr_cuda_fly_new (g, grid, model, orbits, error);
  if (dev == NULL)
    {
      if (orbits != NULL)
        ctr_symmetry_free (orbits);
      return NULL;
    }
  /* the CPU's operator takes @orbits */
  CtrOperator *cpu = ctr_fly_op_new (g, grid, model, orbits, error);
  if (cpu == NULL)
    {
      ctr_cuda_fly_destroy (dev);
      return NULL;
    }
  CudaFlyOp *c = g_new0 (CudaFlyOp, 1);
  CtrOperator *op = &c->parent;
  c->dev = dev;
  c->cpu = cpu;
  if (!ctr_operator_init (op, &cuda_fly_class, g, grid, grid->nz, error))
    {
      ctr_operator_unref (op);
      return NULL;
    }
  char err[CTR_CUDA_ERR_LEN] = "";
  const CtrCudaStatus st = ctr_cuda_vecs_create (ctr_cuda_fly_stream (dev), &c->vecs, err);
  if (st != CTR_CUDA_OK)
    {
      ctr_cuda_status_error (st, err, error);
      ctr_operator_unref (op);
      return NULL;
    }
  op->image_size = cpu->image_size;
  op->data_size = cpu->data_size;
  op->scale_size = cpu->scale_size;
  op->n_subsets = cpu->n_subsets;
  c->upd = g_try_new (float, op->image_size);
  if (c->upd == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the GPU on-the-fly operator's host image (%" G_GSIZE_FORMAT " floats)",
                   op->image_size);
      ctr_operator_unref (op);
      return NULL;
    }
  g_autofree char *bytes = g_format_size_full (ctr_cuda_fly_device_bytes (dev), G_FORMAT_SIZE_IEC_UNITS);
  op->description = g_strdup_printf ("%s; on the GPU (cuda-fly, %s of device memory)", cpu->description, bytes);
  return op;
}

/* ---- the "cuda" backend's on-the-fly operator (ctr-backend.h) ---- */

static CtrOperator *
cuda_backend_fly (const CtrBackend *self, const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model,
                  CtrSymmetry *orbits, GError **error)
{
  g_autofree char *why = NULL;
  if (!self->available (self, &why))
    {
      if (orbits != NULL)
        ctr_symmetry_free (orbits);
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "%s", why ? why : "unavailable");
      return NULL;
    }
  return ctr_cuda_fly_op_new (g, grid, model, orbits, error);
}

/* The device memory of the pair (ctr_cuda_fly_estimate_bytes: the ray
 * table, the subsets' views, three images and five data arrays) against
 * the device's free memory less ctr_cuda_check_free's margin. */
static char *
cuda_backend_fly_memory (const CtrBackend *self, const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model)
{
  CtrCudaDeviceInfo info;
  char err[CTR_CUDA_ERR_LEN] = "";
  if (!self->available (self, NULL) || ctr_cuda_device_query (&info, err) != CTR_CUDA_OK)
    return NULL;
  const unsigned ptr[2] = { 0, g->n_views };
  const CtrCudaFlyDesc d = {
    .n_views = g->n_views, .n_cols = g->n_cols, .nx = grid->nx, .ny = grid->ny, .ns = grid->nz,
    .model = (int) model, .n_subsets = 1, .subset_ptr = ptr,
  };
  const guint64 need = ctr_cuda_fly_estimate_bytes (&d);
  const guint64 margin = ((guint64) 64 << 20) + info.total_bytes / 20;
  const guint64 usable = info.free_bytes > margin ? info.free_bytes - margin : 0;
  g_autofree char *n = g_format_size_full (need, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *u = g_format_size_full (usable, G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf ("device memory: the on-the-fly pair needs %s (ray table, three images, five data "
                          "arrays), %s usable: %s", n, u,
                          need <= usable ? "on the device" : "too little, the CPU would run");
}

/* Runs before main() (the library is linked whole, gpu/meson.build). */
__attribute__ ((constructor)) static void
ctr_cuda_fly_constructor (void)
{
  ctr_backend_register_fly ("cuda", cuda_backend_fly, cuda_backend_fly_memory);
}
