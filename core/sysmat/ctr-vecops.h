/* ctr-vecops.h — vector operations in an operator's memory (issue 37): what
 * a method needs besides the products, so that a device-resident run keeps
 * image, data, weights and work vectors in the device's memory for the
 * whole run and the one iteration driver (solve/ctr-iterate.h) stays the one
 * driver.
 *
 * An operator whose memory is not the host's may give its class a table
 * (CtrOperatorClass.vec); the methods (solve/ctr-vec.h) run on it, or on the
 * host's table (solve/ctr-vec-host.c: the arithmetic the methods did on host
 * arrays before) when the class has none.  Every operation of the table
 * works on CtrVec handles of one CtrVecs; arrays are native (ctr-operator.h):
 * an image vector holds image_size floats, a data vector data_size floats.
 *
 * Every function returning gboolean fails only on a device error
 * (CTR_ERROR_BACKEND_UNAVAILABLE naming the failed call, or
 * CTR_ERROR_OUT_OF_MEMORY with the sizes) or, for @update, with
 * CTR_ERROR_UNSUPPORTED (a flag the operator does not take); the host's
 * never fail except @alloc (CTR_ERROR_OUT_OF_MEMORY).  Image inner products
 * weigh element q by the operator's image_weight[q] (ctr_operator_image_dot);
 * data inner products are plain sums (padding is 0).  Reductions are
 * accumulated in double.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"
#include "recon/ctr-recon-types.h"
#include "data/ctr-volume.h"

G_BEGIN_DECLS

typedef enum { CTR_VEC_IMAGE, CTR_VEC_DATA } CtrVecKind;

/**
 * CtrVec:
 * One vector of a CtrVecs.
 * @kind: image or data.
 * @n: floats.
 * @host: the host table's array (NULL on a device).
 * @dev: a device table's memory (NULL on the host).
 * @owned: the table frees @host / @dev with the vector.
 */
typedef struct {
  CtrVecKind kind;
  gsize n;
  float *host;
  gpointer dev;
  gboolean owned;
} CtrVec;

typedef struct _CtrVecOps CtrVecOps;

/**
 * CtrVecs:
 * The vectors of one run: the operator, the table, the table's state.
 * @op: the operator (not referenced: it outlives the run).
 * @ops: the table (the operator's, or the host's).
 * @priv: the table's state (made by @begin, freed by @end).
 * @nat: the host table's scratch natural images (NULL until needed).
 */
typedef struct {
  CtrOperator *op;
  const CtrVecOps *ops;
  gpointer priv;
  float *nat[3];
} CtrVecs;

/**
 * CtrVecOps:
 * @name: "host", "cuda-cone", ….
 * @begin, @end: make and free @priv (@end also after a failure; may be NULL).
 * @alloc: a zeroed vector of @kind (NULL with an error).
 * @bind: a vector holding @host's @kind-sized array: the host's table
 *   wraps it (no copy: the vector is the array, which must outlive it), a
 *   device's allocates and uploads.
 * @free: frees @v (nullable).
 * @download: @v to @host (a bound host vector: nothing to do when the
 *   arrays are one).
 * @download_part: floats [@offset, @offset + @n) of @v to @host + @offset
 *   (@host holds all of @v's floats; nothing to do when the arrays are one).
 * @download_runs: the floats of @runs (CtrImageRuns, within @v) of @v to
 *   the same places of @host (one pitched copy from a device; nothing to do
 *   when the arrays are one).
 * @fill: y = value.  @copy: dst = src.  @axpby: y = a x + b y.
 * @mul: y = y ∘ x (element-wise; 0 where x is 0, whatever y holds there).
 * @dot: *@out = Σ a_q b_q (weighted for images).
 * @diff_dot: *@out = Σ w_q (a_q − b_q)(c_q − d_q) (images).
 * @data_norms: over data vectors: out[0] = Σ W_q (Y_q − B_q)² (@W nullable:
 *   0), out[1] = Σ (Y_q − B_q)² and out[2] = Σ B_q² over the rays where
 *   valid_q ≠ 0.
 * @forward, @adjoint, @update, @reduce: the operator's products and subset
 *   step of ctr-operator.h on vectors (same arguments, same meaning).
 * @sqs_step: PWLS's separable quadratic surrogate step (ctr-pwls.c):
 *   X = Z + (M G − β GR) / (Dd + β CR) where the denominator is > 0, Z
 *   elsewhere, clipped at 0 with @nonneg.
 * @extrapolate: Z = X + c (X − Xold) (Nesterov's momentum).
 * @penalty_gradient: ∇R(X) into @grad and the surrogate's curvature into
 *   @curv, R the neighbourhood penalty of solve/ctr-penalty.h on the
 *   natural image of X (per slice, in-plane), native in and out.
 * @penalty_value: *@out = R(X).
 * @tv_descent: ASD-POCS's descent on the total variation (ctr-asd-pocs.c):
 *   on the natural image f of X, ε = 1e-5 · max |f| (1e-5 when f is 0),
 *   @n_steps times f −= @dtvg ∇TV_ε(f) / ||∇TV_ε(f)|| (stopping when the
 *   gradient is 0), ctr_tv_gradient's TV; X native in and out.
 * @set_reference, @quality: (nullable: both NULL on the host, whose
 *   metrics the driver computes from the image itself) the metrics against
 *   a reference where the image is (issue 37), by the protocol of
 *   quality/ctr-metrics.h.  @set_reference keeps @reference (natural
 *   [z][y][x], on the operator's grid) and the disc of @radius_mm (<= 0:
 *   every pixel) in the table's memory for the rest of the run (a later
 *   call replaces them).  @quality then fills, for each slice z of the
 *   natural image of @X, @ssd[z] and @ssim_sum[z] as
 *   ctr_quality_from_slices takes them (SSIM with @data_range; the sums 0
 *   where SSIM is undefined): nz doubles each, the only numbers that come
 *   back.  Both fail as the other operations do; @quality before
 *   @set_reference is a programming error.
 */
struct _CtrVecOps {
  const char *name;
  gboolean (*begin) (CtrVecs *vs, GError **error);
  void (*end) (CtrVecs *vs);
  CtrVec *(*alloc) (CtrVecs *vs, CtrVecKind kind, GError **error);
  CtrVec *(*bind) (CtrVecs *vs, CtrVecKind kind, const float *host, GError **error);
  void (*free) (CtrVecs *vs, CtrVec *v);
  gboolean (*download) (CtrVecs *vs, const CtrVec *v, float *host, GError **error);
  gboolean (*download_part) (CtrVecs *vs, const CtrVec *v, gsize offset, gsize n, float *host, GError **error);
  gboolean (*download_runs) (CtrVecs *vs, const CtrVec *v, const CtrImageRuns *runs, float *host, GError **error);
  gboolean (*fill) (CtrVecs *vs, CtrVec *y, float value, GError **error);
  gboolean (*copy) (CtrVecs *vs, CtrVec *dst, const CtrVec *src, GError **error);
  gboolean (*axpby) (CtrVecs *vs, CtrVec *y, float a, const CtrVec *x, float b, GError **error);
  gboolean (*mul) (CtrVecs *vs, CtrVec *y, const CtrVec *x, GError **error);
  gboolean (*dot) (CtrVecs *vs, const CtrVec *a, const CtrVec *b, double *out, GError **error);
  gboolean (*diff_dot) (CtrVecs *vs, const CtrVec *a, const CtrVec *b, const CtrVec *c, const CtrVec *d,
                        double *out, GError **error);
  gboolean (*data_norms) (CtrVecs *vs, const CtrVec *Y, const CtrVec *B, const CtrVec *W, const CtrVec *valid,
                          double out[3], GError **error);
  gboolean (*forward) (CtrVecs *vs, guint subset, const CtrVec *X, CtrVec *Y, GError **error);
  gboolean (*adjoint) (CtrVecs *vs, guint subset, const CtrVec *Y, CtrVec *D, GError **error);
  gboolean (*update) (CtrVecs *vs, guint subset, CtrVec *X, const CtrVec *B, const CtrVec *coef, float step,
                      CtrVec *D, CtrUpdateFlags flags, GError **error);
  gboolean (*reduce) (CtrVecs *vs, CtrVec *D, GError **error);
  gboolean (*sqs_step) (CtrVecs *vs, CtrVec *X, const CtrVec *Z, const CtrVec *G, const CtrVec *GR, const CtrVec *CR,
                        const CtrVec *Dd, float M, float beta, gboolean nonneg, GError **error);
  gboolean (*extrapolate) (CtrVecs *vs, CtrVec *Z, const CtrVec *X, const CtrVec *Xold, float c, GError **error);
  gboolean (*penalty_gradient) (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X, CtrVec *grad,
                                CtrVec *curv, GError **error);
  gboolean (*penalty_value) (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X, double *out,
                             GError **error);
  gboolean (*tv_descent) (CtrVecs *vs, CtrVec *X, guint n_steps, double dtvg, GError **error);
  gboolean (*set_reference) (CtrVecs *vs, const CtrVolume *reference, double radius_mm, GError **error);
  gboolean (*quality) (CtrVecs *vs, const CtrVec *X, double data_range, double *ssd, double *ssim_sum,
                       GError **error);
};

G_END_DECLS
