/* ctr-cuda-vecops.h — the device's vector operations (core/sysmat/ctr-vecops.h)
 * as GLib glue over ctr-cuda-vecops.cu: every operation of the table but
 * the products.  The penalties and the TV descent run on the natural image
 * [z][y][x]: an operator whose native image is the natural one (the
 * cone-beam pair) runs them on it as it is; one whose native image is
 * another (the SCSR operator's packed slots) gives the permutation both ways
 * (ctr_cuda_vecs_set_layout) and they run on natural copies on the device.
 * An operator's table (ctr-cuda-cone-vecops.c, ctr-cuda-scsr-vecops.c) adds
 * its products and begins the state on its session's stream.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-vecops.h"
#include "ctr-cuda-vecops-api.h"
#include "ctr-cuda-quality-api.h"

G_BEGIN_DECLS

/* CtrVecs.priv of a device table. */
typedef struct {
  CtrCudaVecs *dev;
  float *weight;       /* the operator's image weights on the device (NULL: all 1) */
  gpointer session;    /* the operator's session, for its products */
  gpointer table;      /* the operator's table's own state (freed by its end) */
  /* native ≠ natural (ctr_cuda_vecs_set_layout), else NULL: */
  guint32 *to_natural; /* natural size: natural[i] = native[to_natural[i]] */
  guint32 *to_native;  /* image_size: native[i] = natural[to_native[i]] */
  float *nat[3];       /* natural scratch images, made on first use */
  CtrCudaQuality *quality;  /* the metrics' reference (ctr-cuda-quality.c), NULL until set */
} CtrCudaVecState;

/* Makes vs->priv on @stream (a cudaStream_t of @session); FALSE with
 * CTR_ERROR_BACKEND_UNAVAILABLE or CTR_ERROR_OUT_OF_MEMORY. */
gboolean ctr_cuda_vecs_begin_on (CtrVecs *vs, void *stream, gpointer session, GError **error);
void ctr_cuda_vecs_end (CtrVecs *vs);

/**
 * ctr_cuda_vecs_set_layout:
 * Gives the permutation between the operator's native image and the natural
 * one (ctr_grid_size floats), both ways, as the operator's
 * image_from_native / image_to_native do it: @to_natural (natural size)
 * and @to_native (image_size) index the other image.  Uploaded once for
 * the run; the penalties and the TV descent then gather natural copies.
 * Returns: FALSE with CTR_ERROR_BACKEND_UNAVAILABLE or
 *   CTR_ERROR_OUT_OF_MEMORY.
 */
gboolean ctr_cuda_vecs_set_layout (CtrVecs *vs, const guint32 *to_natural, const guint32 *to_native,
                                   GError **error);

/* The table's generic entries (see CtrVecOps). */
CtrVec *ctr_cuda_vecop_alloc (CtrVecs *vs, CtrVecKind kind, GError **error);
CtrVec *ctr_cuda_vecop_bind (CtrVecs *vs, CtrVecKind kind, const float *host, GError **error);
void ctr_cuda_vecop_free (CtrVecs *vs, CtrVec *v);
gboolean ctr_cuda_vecop_download (CtrVecs *vs, const CtrVec *v, float *host, GError **error);
gboolean ctr_cuda_vecop_download_part (CtrVecs *vs, const CtrVec *v, gsize offset, gsize n, float *host,
                                       GError **error);
gboolean ctr_cuda_vecop_download_runs (CtrVecs *vs, const CtrVec *v, const CtrImageRuns *runs, float *host,
                                       GError **error);
gboolean ctr_cuda_vecop_fill (CtrVecs *vs, CtrVec *y, float value, GError **error);
gboolean ctr_cuda_vecop_copy (CtrVecs *vs, CtrVec *dst, const CtrVec *src, GError **error);
gboolean ctr_cuda_vecop_axpby (CtrVecs *vs, CtrVec *y, float a, const CtrVec *x, float b, GError **error);
gboolean ctr_cuda_vecop_mul (CtrVecs *vs, CtrVec *y, const CtrVec *x, GError **error);
gboolean ctr_cuda_vecop_dot (CtrVecs *vs, const CtrVec *a, const CtrVec *b, double *out, GError **error);
gboolean ctr_cuda_vecop_diff_dot (CtrVecs *vs, const CtrVec *a, const CtrVec *b, const CtrVec *c, const CtrVec *d,
                                  double *out, GError **error);
gboolean ctr_cuda_vecop_data_norms (CtrVecs *vs, const CtrVec *Y, const CtrVec *B, const CtrVec *W,
                                    const CtrVec *valid, double out[3], GError **error);
gboolean ctr_cuda_vecop_sqs_step (CtrVecs *vs, CtrVec *X, const CtrVec *Z, const CtrVec *G, const CtrVec *GR,
                                  const CtrVec *CR, const CtrVec *Dd, float M, float beta, gboolean nonneg,
                                  GError **error);
gboolean ctr_cuda_vecop_extrapolate (CtrVecs *vs, CtrVec *Z, const CtrVec *X, const CtrVec *Xold, float c,
                                     GError **error);
gboolean ctr_cuda_vecop_penalty_gradient (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X,
                                          CtrVec *grad, CtrVec *curv, GError **error);
gboolean ctr_cuda_vecop_penalty_value (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X, double *out,
                                       GError **error);
gboolean ctr_cuda_vecop_tv_descent (CtrVecs *vs, CtrVec *X, guint n_steps, double dtvg, GError **error);
/* ctr-cuda-quality.c */
gboolean ctr_cuda_vecop_set_reference (CtrVecs *vs, const CtrVolume *reference, double radius_mm, GError **error);
gboolean ctr_cuda_vecop_quality (CtrVecs *vs, const CtrVec *X, double data_range, double *ssd, double *ssim_sum,
                                 GError **error);

/* The natural image of @X in device memory: X itself when the native image
 * is the natural one, else a natural scratch image gathered from it (valid
 * until the next operation of the table); NULL with an error. */
const float *ctr_cuda_vecs_natural_of (CtrVecs *vs, const CtrVec *X, GError **error);

/* The entries of an operator's device table that are the shared ones
 * above (every entry but name, begin, end, forward, adjoint, update,
 * reduce),
 * for its initializer. */
#define CTR_CUDA_VECOPS_SHARED                                   \
  .alloc = ctr_cuda_vecop_alloc,                                 \
  .bind = ctr_cuda_vecop_bind,                                   \
  .free = ctr_cuda_vecop_free,                                   \
  .download = ctr_cuda_vecop_download,                           \
  .download_part = ctr_cuda_vecop_download_part,                 \
  .download_runs = ctr_cuda_vecop_download_runs,                 \
  .fill = ctr_cuda_vecop_fill,                                   \
  .copy = ctr_cuda_vecop_copy,                                   \
  .axpby = ctr_cuda_vecop_axpby,                                 \
  .mul = ctr_cuda_vecop_mul,                                     \
  .dot = ctr_cuda_vecop_dot,                                     \
  .diff_dot = ctr_cuda_vecop_diff_dot,                           \
  .data_norms = ctr_cuda_vecop_data_norms,                       \
  .sqs_step = ctr_cuda_vecop_sqs_step,                           \
  .extrapolate = ctr_cuda_vecop_extrapolate,                     \
  .penalty_gradient = ctr_cuda_vecop_penalty_gradient,           \
  .penalty_value = ctr_cuda_vecop_penalty_value,                 \
  .tv_descent = ctr_cuda_vecop_tv_descent,                       \
  .set_reference = ctr_cuda_vecop_set_reference,                 \
  .quality = ctr_cuda_vecop_quality

/* The device memory of @v (a vector of a device table). */
static inline float *
ctr_cuda_vec_ptr (const CtrVec *v)
{
  return (float *) v->dev;
}

G_END_DECLS
