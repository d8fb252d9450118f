/* ctr-cuda.c — GLib glue of the CUDA backend: run-time probe, GError
 * conversion, the host-side solver set-up, and the operators of the "cuda"
 * and "cusparse" backends (ctr-operator.h; see ctr-cuda.h; the backends
 * themselves are registered by ctr-cuda-backend.c).  The iteration loop is core's
 * (solve/ctr-iterate.c); the coefficients are the methods' own, the layout
 * core's SCSR host functions, so the device iterates exactly the CPU
 * operator's numbers.  It reads only the public arrays of ctr-scsr.h
 * (ctr_scsr_arrays), not the CPU kernel.
 */
#include "ctr-cuda.h"
#include "ctr-cuda-libs.h"
#include "ctr-cuda-scsr-op.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "sysmat/ctr-blocking.h"
#include "sysmat/ctr-scsr-op.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------- errors -- */

gboolean
ctr_cuda_status_error (CtrCudaStatus st, const char *err, GError **error)
{
  if (st == CTR_CUDA_OK)
    return TRUE;
  g_set_error (error, CTR_ERROR,
               st == CTR_CUDA_NO_MEMORY ? CTR_ERROR_OUT_OF_MEMORY
               : st == CTR_CUDA_INVALID ? CTR_ERROR_INVALID_ARGUMENT : CTR_ERROR_BACKEND_UNAVAILABLE,
               "CUDA: %s", err[0] ? err : "unknown error");
  return FALSE;
}

/* -------------------------------------------------------------- probe -- */

static CtrCudaDeviceInfo probe_info;
static CtrCudaStatus probe_status;
static char probe_err[CTR_CUDA_ERR_LEN];

gboolean
ctr_cuda_probe (CtrCudaDeviceInfo *info, GError **error)
{
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      probe_status = ctr_cuda_device_query (&probe_info, probe_err);
      g_once_init_leave (&once, 1);
    }
  if (info)
    *info = probe_info;
  if (probe_status != CTR_CUDA_OK)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "%s", probe_err);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ session -- */

/* The kernel variant: the stored rows walked by warps (CTR_CUDA_KERNEL=rows,
 * CTR_CUDA_WARPS_PER_ROW warps per row) or the orbit-level blocked layout
 * walked by threads (CTR_CUDA_KERNEL=blocked).  The default is the one the
 * traffic model of gpu/README.md finds cheapest, until a device measures. */
#define CTR_CUDA_DEFAULT_BLOCKED FALSE

static gboolean
want_blocked (void)
{
  const char *v = g_getenv ("CTR_CUDA_KERNEL");
  if (v != NULL && strcmp (v, "blocked") == 0)
    return TRUE;
  if (v != NULL && strcmp (v, "rows") == 0)
    return FALSE;
  return CTR_CUDA_DEFAULT_BLOCKED;
}

/* Uploads the orbit-level blocked layout of @m and walks it from now on. */
static gboolean
use_blocked (CtrCudaScsr *s, const CtrScsr *m, GError **error)
{
  g_autoptr (CtrBlocked) blk = ctr_blocked_new (m, CTR_BLOCKING_ORBIT, error);
  if (blk == NULL)
    return FALSE;
  g_autofree CtrCudaBlock *cb = g_new0 (CtrCudaBlock, MAX (blk->n_blocks, 1));
  for (guint i = 0; i < blk->n_blocks; i++)
    {
      const CtrBlock *k = &blk->blocks[i];
      cb[i] = (CtrCudaBlock) { k->orbit, k->n_rows, k->width, k->ray0, k->ray1, k->junction, k->rep, k->slot, k->w };
    }
  char err[CTR_CUDA_ERR_LEN] = "";
  return ctr_cuda_status_error (ctr_cuda_scsr_set_blocked (s, cb, blk->n_blocks, blk->orbit_first, err), err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_use_blocked (s, 1, err), err, error);
}

/* A device session for @m: @blocked 0 the rows, 1 the blocked layout, -1
 * the default (want_blocked). */
static CtrCudaScsr *
scsr_session (const CtrScsr *m, guint ns, int with_scale, int blocked, GError **error)
{
  if (!ctr_cuda_probe (NULL, error))
    return NULL;
  /* a compact matrix makes its 8-byte elements here: an error, not an abort,
   * when they cannot be had */
  const gint64 *seg;
  const CtrScsrElem *el;
  if (!ctr_scsr_arrays (m, &seg, &el, error))
    return NULL;
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  G_STATIC_ASSERT (sizeof (CtrScsrElem) == 8);
  CtrCudaScsrDesc d = {
    .K = ctr_scsr_order (m), .n_parts = ctr_scsr_n_parts (m), .n_orbits = ctr_scsr_n_orbits (m), .n_cols = ctr_scsr_n_cols (m),
    .n_reps = sy->n_reps, .ns = ns, .nnz = ctr_scsr_nnz (m),
    .seg_ptr = (const int64_t *) seg, .elems = el, .compose = &sy->group.compose[0][0],
    .rep_pixel = sy->rep_pixel, .rep_stabilised = sy->rep_stabilised, .with_scale = with_scale,
  };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaScsr *s = NULL;
  if (!ctr_cuda_status_error (ctr_cuda_scsr_create (&d, &s, err), err, error))
    return NULL;
  if ((blocked < 0 ? want_blocked () : blocked) && !use_blocked (s, m, error))
    {
      ctr_cuda_scsr_destroy (s);
      return NULL;
    }
  return s;
}

static gboolean
apply_forward (const CtrScsr *m, const float *x, float *y, guint ns, int blocked, GError **error)
{
  CtrCudaScsr *s = scsr_session (m, ns, 0, blocked, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  g_autofree float *X = g_new (float, ctr_scsr_packed_size (m, ns));
  g_autofree float *ax = g_new (float, ctr_scsr_lane_size (m, ns));
  ctr_scsr_pack (m, x, X, ns);
  gboolean ok = ctr_cuda_status_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_X, X, ctr_scsr_packed_size (m, ns), err), err, error)
                && ctr_cuda_status_error (ctr_cuda_scsr_forward (s, ax, err), err, error);
  ctr_cuda_scsr_destroy (s);
  if (ok)
    ctr_scsr_lanes_to_rays (m, ax, y, ns);
  return ok;
}

/* 1 on the lanes of acquired views, 0 on padding (a missing view of an
 * orbit): n_orbits·n_cols·ns·K floats, lane order [o][j][s][k]. */
static void
lane_mask (const CtrScsr *m, guint ns, float *out)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), no = ctr_scsr_n_orbits (m);
  const gsize per_orbit = ctr_scsr_lane_size (m, ns) / no;
  for (guint o = 0; o < no; o++)
    for (gsize q = 0; q < per_orbit; q++)
      out[per_orbit * o + q] = sy->lane_view[(gsize) o * K + q % K] >= 0;
}

static gboolean
apply_adjoint (const CtrScsr *m, const float *y, float *x, guint ns, int blocked, GError **error)
{
  CtrCudaScsr *s = scsr_session (m, ns, 0, blocked, error);
  if (s == NULL)
    return FALSE;
  const gsize lt = ctr_scsr_lane_size (m, ns);
  char err[CTR_CUDA_ERR_LEN] = "";
  g_autofree float *bl = g_new0 (float, lt), *cl = g_new (float, lt);
  g_autofree float *X = g_new (float, ctr_scsr_packed_size (m, ns));
  ctr_scsr_rays_to_lanes (m, y, bl, ns);
  lane_mask (m, ns, cl);
  gboolean ok = ctr_cuda_status_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_B, bl, lt, err), err, error)
                && ctr_cuda_status_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_COEF, cl, lt, err), err, error)
                && ctr_cuda_status_error (ctr_cuda_scsr_adjoint (s, err), err, error)
                && ctr_cuda_status_error (ctr_cuda_scsr_download_x (s, X, err), err, error);
  ctr_cuda_scsr_destroy (s);
  if (ok)
    ctr_scsr_unpack (m, X, x, ns);
  return ok;
}

gboolean
ctr_cuda_scsr_apply (const CtrScsr *m, const float *x, float *y, guint ns, GError **error)
{
  return apply_forward (m, x, y, ns, 0, error);
}

gboolean
ctr_cuda_scsr_apply_adjoint (const CtrScsr *m, const float *y, float *x, guint ns, GError **error)
{
  return apply_adjoint (m, y, x, ns, 0, error);
}

gboolean
ctr_cuda_scsr_apply_blocked (const CtrScsr *m, const float *x, float *y, guint ns, GError **error)
{
  return apply_forward (m, x, y, ns, 1, error);
}

gboolean
ctr_cuda_scsr_apply_adjoint_blocked (const CtrScsr *m, const float *y, float *x, guint ns, GError **error)
{
  return apply_adjoint (m, y, x, ns, 1, error);
}

static CtrCudaCsr *
csr_session (const CtrSysmat *a, guint ns, const CtrSymmetry *sy, GError **error)
{
  if (!ctr_cuda_probe (NULL, error) || !ctr_cuda_lib_require (CTR_CUDA_LIB_CUSPARSE, error))
    return NULL;
  const gint64 *rp;
  const guint32 *ci;
  const float *val;
  ctr_sysmat_csr (a, &rp, &ci, &val);
  /* Without orbits: one view per subset (K = 1, lane_view = identity). */
  g_autofree gint32 *ident = NULL;
  if (sy == NULL)
    {
      ident = g_new (gint32, ctr_sysmat_n_views (a));
      for (guint v = 0; v < ctr_sysmat_n_views (a); v++)
        ident[v] = (gint32) v;
    }
  CtrCudaCsrDesc d = {
    .n_views = ctr_sysmat_n_views (a), .n_cols = ctr_sysmat_n_cols (a), .ns = ns,
    .n_pixels = ctr_sysmat_n_pixels (a), .nnz = ctr_sysmat_nnz (a),
    .row_ptr = (const int64_t *) rp, .col_idx = ci, .values = val,
    .K = sy ? sy->group.order : 1, .n_orbits = sy ? sy->n_orbits : ctr_sysmat_n_views (a),
    .lane_view = sy ? sy->lane_view : ident,
  };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaCsr *s = NULL;
  if (!ctr_cuda_status_error (ctr_cuda_csr_create (&d, &s, err), err, error))
    return NULL;
  return s;
}

gboolean
ctr_cuda_csr_apply (const CtrSysmat *a, const float *x, float *y, guint ns, GError **error)
{
  CtrCudaCsr *s = csr_session (a, ns, NULL, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  gboolean ok = ctr_cuda_status_error (ctr_cuda_csr_forward (s, x, y, err), err, error);
  ctr_cuda_csr_destroy (s);
  return ok;
}

gboolean
ctr_cuda_csr_apply_adjoint (const CtrSysmat *a, const float *y, float *x, guint ns, GError **error)
{
  CtrCudaCsr *s = csr_session (a, ns, NULL, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  gboolean ok = ctr_cuda_status_error (ctr_cuda_csr_adjoint (s, y, x, err), err, error);
  ctr_cuda_csr_destroy (s);
  return ok;
}

/* ---------------------------------------------------------- operators -- */

/* The SCSR operator on the device (ctr-operator.h).  Layouts, column and row
 * sums are core's host functions (sysmat/ctr-scsr-op.h) on the same matrix,
 * so the device iterates exactly the CPU operator's numbers.  Whole passes of
 * PART, SART and SIRT run on the device (CtrOperatorPass); the device
 * session (matrix, image, data, coefficients) lives from begin to end.  The
 * cuSPARSE baseline (cusparse != 0) runs parallel ART on the expanded CSR
 * matrix with the same orbit subsets. */
typedef struct {
  CtrScsrOpBase base;
  gboolean cusparse;
  int kind;
  CtrCudaScsr *ds;      /* SCSR session, begin → end */
  CtrCudaCsr *dc;       /* cuSPARSE session, begin → end */
  CtrSysmat *a;         /* cuSPARSE: the expanded matrix, made on first use */
  float *x;             /* cuSPARSE: natural image [s][pixel] */
  /* The products and single subset steps of the other methods (CGLS,
   * PWLS, ASD-POCS): a session of their own, made on first use and kept to
   * the end (the matrix goes up once); host arrays in and out per call
   * here, device vectors through the class's table
   * (ctr-cuda-scsr-vecops.c). */
  CtrCudaScsr *ps;
  float *mask;          /* 1 on acquired lanes, 0 on padding (data_size) */
  float *inv_colsum;    /* [orbit][rep][K] 1 / A_oᵀ1 (0 where 0), made on first use */
  float *tmp_data, *tmp_image;
} CudaOp;

static void
cuda_op_end (CtrOperator *op)
{
  CudaOp *c = (CudaOp *) op;
  ctr_cuda_scsr_destroy (c->ds);
  ctr_cuda_csr_destroy (c->dc);
  c->ds = NULL;
  c->dc = NULL;
  g_clear_pointer (&c->x, g_free);
}

static void
cuda_op_finalize (CtrOperator *op)
{
  CudaOp *c = (CudaOp *) op;
  cuda_op_end (op);
  if (c->ps)
    ctr_cuda_scsr_destroy (c->ps);
  g_free (c->mask);
  g_free (c->inv_colsum);
  g_free (c->tmp_data);
  g_free (c->tmp_image);
  if (c->a)
    ctr_sysmat_unref (c->a);
  ctr_scsr_op_clear_common (&c->base);
  g_free (c);
}

/* coef · step of the ray's subset, lane order (@step NULL: coef). */
static float *
stepped_coef (CtrOperator *op, const float *coef, const float *step)
{
  float *c = g_new (float, op->data_size);
  const gsize per_orbit = op->data_size / op->n_subsets;
  for (gsize q = 0; q < op->data_size; q++)
    c[q] = step ? coef[q] * step[q / per_orbit] : coef[q];
  return c;
}

static gboolean
cuda_op_begin (CtrOperator *op, int kind, const float *X, const float *B, const float *coef,
               const float *valid, const float *step, const float *scale, GError **error)
{
  CudaOp *c = (CudaOp *) op;
  const CtrScsr *m = c->base.m;
  const guint ns = op->n_slices;
  char err[CTR_CUDA_ERR_LEN] = "";
  c->kind = kind;
  g_autofree float *cf = stepped_coef (op, coef, step);
  if (c->cusparse)
    {
      if (kind != CTR_CUDA_PART)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "the cuSPARSE baseline runs parallel ART only");
          return FALSE;
        }
      if (c->a == NULL)
        {
          c->a = ctr_sysmat_build (op->geometry, &op->grid, ctr_scsr_model (m), NULL, error);
          if (c->a == NULL)
            return FALSE;
        }
      c->dc = csr_session (c->a, ns, ctr_scsr_symmetry (m), error);
      if (c->dc == NULL)
        return FALSE;
      const gsize nr = (gsize) op->geometry->n_views * op->geometry->n_cols * ns;
      g_autofree float *br = g_new0 (float, nr), *cr = g_new0 (float, nr), *vr = g_new0 (float, nr);
      ctr_scsr_lanes_to_rays (m, B, br, ns);
      ctr_scsr_lanes_to_rays (m, cf, cr, ns);
      ctr_scsr_lanes_to_rays (m, valid, vr, ns);
      c->x = g_new (float, ctr_grid_size (&op->grid));
      ctr_scsr_unpack (m, X, c->x, ns);
      return ctr_cuda_status_error (ctr_cuda_csr_upload (c->dc, c->x, br, cr, vr, err), err, error);
    }
  const int with_scale = kind == CTR_CUDA_SART ? 2 : kind == CTR_CUDA_SIRT ? 1 : 0;
  c->ds = scsr_session (m, ns, with_scale, -1, error);
  if (c->ds == NULL)
    return FALSE;
  g_autofree float *sart_scale = NULL;
  if (kind == CTR_CUDA_SART)
    {
      sart_scale = ctr_memory_try_new (op->scale_size * op->n_subsets, sizeof (float), FALSE,
                                       "the SART column scale of every orbit", error);
      if (sart_scale == NULL || !ctr_scsr_inverse_column_sums (m, sart_scale, error))
        return FALSE;
    }
  const float *sc = kind == CTR_CUDA_SART ? sart_scale : scale;
  const gsize sc_n = kind == CTR_CUDA_SART ? op->scale_size * op->n_subsets : op->scale_size;
  return ctr_cuda_status_error (ctr_cuda_scsr_upload (c->ds, CTR_CUDA_BUF_X, X, op->image_size, err), err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_upload (c->ds, CTR_CUDA_BUF_B, B, op->data_size, err), err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_upload (c->ds, CTR_CUDA_BUF_COEF, cf, op->data_size, err), err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_upload (c->ds, CTR_CUDA_BUF_VALID, valid, op->data_size, err), err, error)
         && (sc == NULL || ctr_cuda_status_error (ctr_cuda_scsr_upload (c->ds, CTR_CUDA_BUF_SCALE, sc, sc_n, err), err, error));
}

static gboolean
cuda_op_run (CtrOperator *op, int kind, gboolean nonneg, double *seconds, double *residual,
             double *residual_seconds, GError **error)
{
  CudaOp *c = (CudaOp *) op;
  char err[CTR_CUDA_ERR_LEN] = "";
  double ms = 0, rms = 0;
  CtrCudaStatus st = c->dc ? ctr_cuda_csr_iterate_part (c->dc, nonneg, &ms, residual, &rms, err)
                           : ctr_cuda_scsr_iterate (c->ds, (CtrCudaMethod) kind, nonneg, &ms, residual, &rms, err);
  if (seconds)
    *seconds = ms / 1e3;
  if (residual_seconds)
    *residual_seconds = rms / 1e3;
  return ctr_cuda_status_error (st, err, error);
}

static gboolean
cuda_op_download (CtrOperator *op, float *X, GError **error)
{
  CudaOp *c = (CudaOp *) op;
  char err[CTR_CUDA_ERR_LEN] = "";
  if (c->dc)
    {
      if (!ctr_cuda_status_error (ctr_cuda_csr_download_x (c->dc, c->x, err), err, error))
        return FALSE;
      ctr_scsr_pack (c->base.m, c->x, X, op->n_slices);
      return TRUE;
    }
  return ctr_cuda_status_error (ctr_cuda_scsr_download_x (c->ds, X, err), err, error);
}

static const CtrOperatorPass cuda_pass = {
  .begin = cuda_op_begin,
  .run = cuda_op_run,
  .download = cuda_op_download,
  .end = cuda_op_end,
};

/* ---- products and single subset steps (CGLS, PWLS, ASD-POCS) ---- */

static CtrCudaScsr *
product_session (CudaOp *c, GError **error)
{
  CtrOperator *op = &c->base.parent;
  if (c->ps == NULL)
    {
      c->ps = scsr_session (c->base.m, op->n_slices, 1, -1, error);
      if (c->ps == NULL)
        return NULL;
      c->mask = g_new (float, op->data_size);
      lane_mask (c->base.m, op->n_slices, c->mask);
      c->tmp_data = g_new (float, op->data_size);
      c->tmp_image = g_new (float, op->image_size);
    }
  return c->ps;
}

CtrCudaScsr *
ctr_cuda_op_product_session (CtrOperator *op, GError **error)
{
  return product_session ((CudaOp *) op, error);
}

const float *
ctr_cuda_op_lane_mask (CtrOperator *op)
{
  return ((CudaOp *) op)->mask;
}

/* The product session, and the orbits of @subset: [*o0, *o0 + *n). */
static CtrCudaScsr *
subset_session (CudaOp *c, guint subset, guint *o0, guint *n, GError **error)
{
  const CtrOperator *op = &c->base.parent;
  *o0 = subset == CTR_SUBSET_ALL ? 0 : subset;
  *n = subset == CTR_SUBSET_ALL ? op->n_subsets : 1;
  return product_session (c, error);
}

static gboolean
cuda_op_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  CudaOp *c = (CudaOp *) op;
  guint o0, n;
  CtrCudaScsr *s = subset_session (c, subset, &o0, &n, error);
  if (s == NULL)
    return FALSE;
  const gsize per_orbit = op->data_size / op->n_subsets;
  char err[CTR_CUDA_ERR_LEN] = "";
  return ctr_cuda_status_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_X, X, op->image_size, err), err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_forward_orbits (s, o0, n, Y + per_orbit * o0, err), err, error);
}

/* The data of orbits [o0, o0 + n) as b, and @coef (data_size floats; NULL:
 * the acquired-lane mask) times @step as the coefficients. */
static gboolean
upload_orbits (CudaOp *c, CtrCudaScsr *s, guint o0, guint n, const float *B, const float *coef, float step,
               GError **error)
{
  CtrOperator *op = &c->base.parent;
  const gsize per_orbit = op->data_size / op->n_subsets, off = per_orbit * o0, len = per_orbit * n;
  const float *cf = coef != NULL ? coef : c->mask;
  const float *cu = cf + off;
  if (step != 1.f)
    {
      for (gsize q = 0; q < len; q++)
        c->tmp_data[q] = step * cf[off + q];
      cu = c->tmp_data;
    }
  char err[CTR_CUDA_ERR_LEN] = "";
  return ctr_cuda_status_error (ctr_cuda_scsr_upload_part (s, CTR_CUDA_BUF_B, off, B + off, len, op->data_size, err), err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_upload_part (s, CTR_CUDA_BUF_COEF, off, cu, len, op->data_size, err), err, error);
}

static gboolean
cuda_op_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  CudaOp *c = (CudaOp *) op;
  guint o0, n;
  CtrCudaScsr *s = subset_session (c, subset, &o0, &n, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  return upload_orbits (c, s, o0, n, Y, NULL, 1.f, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_adjoint_orbits (s, o0, n, err), err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_download_x (s, D, err), err, error);
}

/* One subset step on the device (ctr-operator.h, @update): the image goes
 * up, the step runs there (ctr_cuda_scsr_step_orbits), and the new image
 * (or, with @D, the step's consistent update, added to @D here) comes back.
 * COLUMN_SCALE divides by the subset's column sums as the CPU operator does
 * (ctr_scsr_inverse_column_sums per orbit; all orbits at once: the sums
 * over every orbit).  SEQUENTIAL (ray-by-ray ART) is the CPU's alone. */
static gboolean
cuda_op_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step,
                float *D, CtrUpdateFlags flags, GError **error)
{
  CudaOp *c = (CudaOp *) op;
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "%s: ray-by-ray updates run on the CPU only",
                   op->klass->name);
      return FALSE;
    }
  guint o0, n;
  CtrCudaScsr *s = subset_session (c, subset, &o0, &n, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  if (!upload_orbits (c, s, o0, n, B, coef, step, error)
      || !ctr_cuda_status_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_X, X, op->image_size, err), err, error))
    return FALSE;
  if (D != NULL)
    {
      if (!ctr_cuda_status_error (ctr_cuda_scsr_step_orbits (s, o0, n, 0, 0, 0, err), err, error)
          || !ctr_cuda_status_error (ctr_cuda_scsr_download_x (s, c->tmp_image, err), err, error))
        return FALSE;
      for (gsize q = 0; q < op->image_size; q++)
        D[q] += c->tmp_image[q];
      return TRUE;
    }
  const gboolean scaled = (flags & CTR_UPDATE_COLUMN_SCALE) != 0;
  if (scaled)
    {
      const CtrScsr *m = c->base.m;
      const gsize p1 = ctr_scsr_packed_size (m, 1);
      g_autofree float *all = NULL;
      const float *inv;
      if (subset == CTR_SUBSET_ALL)
        {
          all = ctr_memory_try_new (p1, sizeof (float), FALSE, "the column sums", error);
          if (all == NULL || !ctr_scsr_column_sums_all (m, all, error))
            return FALSE;
          for (gsize q = 0; q < p1; q++)
            all[q] = all[q] > 0.f ? 1.f / all[q] : 0.f;
          inv = all;
        }
      else
        {
          if (c->inv_colsum == NULL)
            {
              float *inv_all = ctr_memory_try_new (p1 * op->n_subsets, sizeof (float), FALSE,
                                                   "the column sums of every orbit", error);
              if (inv_all == NULL || !ctr_scsr_inverse_column_sums (m, inv_all, error))
                {
                  g_free (inv_all);
                  return FALSE;
                }
              c->inv_colsum = inv_all;
            }
          inv = c->inv_colsum + p1 * subset;
        }
      if (!ctr_cuda_status_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_SCALE, inv, p1, err), err, error))
        return FALSE;
    }
  return ctr_cuda_status_error (ctr_cuda_scsr_step_orbits (s, o0, n, 1, scaled, (flags & CTR_UPDATE_NONNEG) != 0, err),
                          err, error)
         && ctr_cuda_status_error (ctr_cuda_scsr_download_x (s, X, err), err, error);
}

static gboolean
cuda_op_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
               "%s: a separate update step is not implemented on the GPU", op->klass->name);
  return FALSE;
}

#define CUDA_OP_CLASS(cname, vecops) { \
  .name = cname, \
  .finalize = cuda_op_finalize, \
  .image_to_native = ctr_scsr_op_image_to_native, \
  .image_from_native = ctr_scsr_op_image_from_native, \
  .data_gather = ctr_scsr_op_data_gather, \
  .data_scatter = ctr_scsr_op_data_scatter, \
  .forward = cuda_op_forward, \
  .adjoint = cuda_op_adjoint, \
  .update = cuda_op_update, \
  .finish = cuda_op_finish, \
  .column_sums = ctr_scsr_op_column_sums, \
  .row_sums = ctr_scsr_op_row_sums, \
  .subset_overlap = ctr_scsr_op_subset_overlap, \
  .subset_rays = ctr_scsr_op_subset_rays, \
  .pass = &cuda_pass, \
  .vec = vecops, \
}

/* "cuda-scsr": CGLS, PWLS and ASD-POCS keep their vectors on the device
 * (ctr-cuda-scsr-vecops.c); the cuSPARSE baseline runs parallel ART only. */
static const CtrOperatorClass cuda_scsr_class = CUDA_OP_CLASS ("cuda-scsr", &ctr_cuda_scsr_vecops);
static const CtrOperatorClass cusparse_class = CUDA_OP_CLASS ("cusparse-csr", NULL);

CtrOperator *
ctr_cuda_op_new (CtrScsr *m, gboolean cusparse, const CtrGeometry *g, const CtrGrid *grid, GError **error)
{
  g_return_val_if_fail (m != NULL && g != NULL && grid != NULL, NULL);
  if (!ctr_cuda_probe (NULL, error) || !ctr_scsr_op_check (m, g, grid, error))
    return NULL;
  CudaOp *c = g_new0 (CudaOp, 1);
  c->cusparse = cusparse;
  if (!ctr_scsr_op_init_common (&c->base, cusparse ? &cusparse_class : &cuda_scsr_class, m, g, grid, error))
    {
      ctr_operator_unref (&c->base.parent);
      return NULL;
    }
  return &c->base.parent;
}
