/* ctr-cuda-cone-split.cu — the cone-beam pair out of core on the device
 * (see ctr-cuda-cone-split-api.h): one session of ctr-cuda-cone.cu sized to
 * a z-slab and a chunk of views, driven slab by slab and chunk by chunk.
 *
 * Double buffers without more memory: the session's three volumes are X,
 * D and CS; the forward projection streams the slabs through X and CS, the
 * back-projection fills D and CS in turn; its two data arrays Y and R take
 * the chunks in turn.  Two streams: the session's (kernels) and a copy
 * stream (transfers), ordered by events per buffer (uploaded, used,
 * downloaded), as TIGRE (Biguri et al. 2020, §3) overlaps the copy of the
 * next piece with the kernels of the current one.  The copies are issued
 * in the order that lets them overlap even from pageable host memory
 * (where a host-to-device copy waits for its stream, and a device-to-host
 * copy returns when done): the next piece's kernels are queued before the
 * previous piece's result is copied back.
 *
 * Orders: forward — for each chunk, every slab (the volume crosses once per
 * chunk, the projections once); adjoint — for each slab, every chunk (the
 * projections cross once when one chunk holds every view, else once per
 * slab; the volume once).
 */
#include "ctr-cuda-cone-private.cuh"
#include "ctr-cuda-cone-split-api.h"

#include <stdlib.h>

enum { UP = 0, USED = 1, DOWN = 2 };

struct CtrCudaConeSplit {
  CtrCudaCone *c;
  cudaStream_t copy;
  cudaEvent_t vol_ev[3][2], dat_ev[3][2];   /* [UP|USED|DOWN][buffer] */
  float *orig[CTR_CUDA_CONE_N_BUFS];        /* the session's own buffers */
  unsigned nz, n_slabs, chunk_views, n_chunks;
  double z0, dz;
  size_t slice;
  size_t bytes;
  double up, down;
};

extern "C" void
ctr_cuda_cone_split_destroy (CtrCudaConeSplit *s)
{
  if (s == nullptr)
    return;
  if (s->copy != nullptr)
    cudaStreamSynchronize (s->copy);
  for (int e = 0; e < 3; e++)
    for (int b = 0; b < 2; b++)
      {
        if (s->vol_ev[e][b] != nullptr)
          cudaEventDestroy (s->vol_ev[e][b]);
        if (s->dat_ev[e][b] != nullptr)
          cudaEventDestroy (s->dat_ev[e][b]);
      }
  if (s->copy != nullptr)
    cudaStreamDestroy (s->copy);
  ctr_cuda_cone_destroy (s->c);
  ctr_cuda_clear_error ();
  free (s);
}

extern "C" CtrCudaStatus
ctr_cuda_cone_split_create (const CtrCudaConeDesc *desc, unsigned slab_nz, unsigned chunk_views,
                            CtrCudaConeSplit **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  *out = nullptr;
  if (slab_nz == 0 || slab_nz > desc->nz || chunk_views == 0 || chunk_views > desc->n_views)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone split: %u slices of %u, %u views of %u", slab_nz, desc->nz, chunk_views,
                desc->n_views);
      return CTR_CUDA_INVALID;
    }
  CtrCudaConeSplit *s = (CtrCudaConeSplit *) calloc (1, sizeof *s);
  if (s == nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cannot allocate the cone split");
      return CTR_CUDA_NO_MEMORY;
    }
  s->nz = desc->nz;
  s->n_slabs = (desc->nz + slab_nz - 1) / slab_nz;
  s->chunk_views = chunk_views;
  s->n_chunks = (desc->n_views + chunk_views - 1) / chunk_views;
  s->z0 = desc->z0;
  s->dz = desc->dz;
  s->slice = (size_t) desc->nx * desc->ny;
  CtrCudaConeDesc d = *desc;
  d.nz = slab_nz;
  d.data_views = chunk_views;
  d.products_only = 1;
  if ((st = ctr_cuda_cone_create (&d, &s->c, err)) != CTR_CUDA_OK)
    {
      free (s);
      return st;
    }
  for (int k = 0; k < CTR_CUDA_CONE_N_BUFS; k++)
    s->orig[k] = s->c->buf[k];
  CK (cudaStreamCreateWithFlags (&s->copy, cudaStreamNonBlocking));
  for (int e = 0; e < 3; e++)
    for (int b = 0; b < 2; b++)
      {
        CK (cudaEventCreate (&s->vol_ev[e][b]));
        CK (cudaEventCreate (&s->dat_ev[e][b]));
        CK (cudaEventRecord (s->vol_ev[e][b], s->c->stream));
        CK (cudaEventRecord (s->dat_ev[e][b], s->c->stream));
      }
  CK (cudaStreamSynchronize (s->c->stream));
  s->bytes = ctr_cuda_cone_device_bytes (s->c);
  *out = s;
  return CTR_CUDA_OK;
fail:
  ctr_cuda_cone_split_destroy (s);
  return st;
}

extern "C" size_t
ctr_cuda_cone_split_device_bytes (const CtrCudaConeSplit *s)
{
  return s->bytes;
}

extern "C" unsigned
ctr_cuda_cone_split_slabs (const CtrCudaConeSplit *s)
{
  return s->n_slabs;
}

extern "C" unsigned
ctr_cuda_cone_split_chunks (const CtrCudaConeSplit *s)
{
  return s->n_chunks;
}

extern "C" void
ctr_cuda_cone_split_traffic (const CtrCudaConeSplit *s, double *up, double *down)
{
  *up = s->up;
  *down = s->down;
}

/* Slices [k0, k1) of slab @i. */
static void
slab_range (const CtrCudaConeSplit *s, unsigned i, size_t *k0, size_t *k1)
{
  *k0 = (size_t) i * s->nz / s->n_slabs;
  *k1 = (size_t) (i + 1) * s->nz / s->n_slabs;
}

/* The session's kernels on slab @i: its slices and z origin. */
static void
set_slab (CtrCudaConeSplit *s, unsigned i)
{
  size_t k0, k1;
  slab_range (s, i, &k0, &k1);
  CtrCudaCone *c = s->c;
  c->g.nz = (unsigned) (k1 - k0);
  c->g.z0 = s->z0 + (double) k0 * s->dz;
  c->nvox = s->slice * (k1 - k0);
  c->xt_current = c->y_current = 0;
}

/* Back to the session's own buffers and the whole window; after a failure
 * the streams are drained first (their errors dropped: the first one is
 * the one reported). */
static void
restore (CtrCudaConeSplit *s, bool failed)
{
  CtrCudaCone *c = s->c;
  if (failed)
    {
      cudaStreamSynchronize (s->copy);
      cudaStreamSynchronize (c->stream);
      ctr_cuda_clear_error ();
    }
  for (int k = 0; k < CTR_CUDA_CONE_N_BUFS; k++)
    c->buf[k] = s->orig[k];
  c->g.yv0 = 0;
  c->g.accumulate = 0;
  set_slab (s, 0);
}

static bool
views_in (const CtrCudaConeSplit *s, unsigned v0, unsigned nviews, char *err)
{
  if (nviews == 0 || v0 >= s->c->g.nv || nviews > s->c->g.nv - v0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone split: views [%u, %u) outside the %u views", v0, v0 + nviews,
                s->c->g.nv);
      return false;
    }
  return true;
}

/* The two volume buffers: X and CS (forward), D and CS (adjoint). */
static float *
vol_buffer (const CtrCudaConeSplit *s, CtrCudaConeBuf first, unsigned k)
{
  return s->orig[(k & 1) ? CTR_CUDA_CONE_CS : first];
}

/* The two data buffers: Y and R. */
static float *
dat_buffer (const CtrCudaConeSplit *s, unsigned k)
{
  return s->orig[(k & 1) ? CTR_CUDA_CONE_R : CTR_CUDA_CONE_Y];
}

/* Copies @n floats on the copy stream after @wait, then records @done. */
static CtrCudaStatus
copy_after (CtrCudaConeSplit *s, void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaEvent_t wait,
            cudaEvent_t done, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaStreamWaitEvent (s->copy, wait, 0));
  CK (cudaMemcpyAsync (dst, src, n * sizeof (float), kind, s->copy));
  CK (cudaEventRecord (done, s->copy));
  if (kind == cudaMemcpyHostToDevice)
    s->up += (double) n * sizeof (float);
  else
    s->down += (double) n * sizeof (float);
  return CTR_CUDA_OK;
fail:
  return st;
}

/* The chunk of views [w0, w0 + cv) projected from every slab into data
 * buffer @j & 1 (the slabs streamed through the volume buffers, counter
 * *@k). */
static CtrCudaStatus
forward_chunk (CtrCudaConeSplit *s, const float *x, unsigned w0, unsigned cv, unsigned j, unsigned *k, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CtrCudaCone *c = s->c;
  CK (cudaStreamWaitEvent (c->stream, s->dat_ev[DOWN][j & 1], 0));
  c->buf[CTR_CUDA_CONE_Y] = dat_buffer (s, j);
  c->g.yv0 = w0;
  for (unsigned i = 0; i < s->n_slabs; i++, (*k)++)
    {
      const unsigned b = *k & 1;
      size_t k0, k1;
      slab_range (s, i, &k0, &k1);
      if ((st = copy_after (s, vol_buffer (s, CTR_CUDA_CONE_X, b), x + k0 * s->slice, (k1 - k0) * s->slice,
                            cudaMemcpyHostToDevice, s->vol_ev[USED][b], s->vol_ev[UP][b], err)) != CTR_CUDA_OK)
        return st;
      CK (cudaStreamWaitEvent (c->stream, s->vol_ev[UP][b], 0));
      set_slab (s, i);
      c->buf[CTR_CUDA_CONE_X] = vol_buffer (s, CTR_CUDA_CONE_X, b);
      c->g.accumulate = i > 0;
      if ((st = ctr_cuda_cone_forward (c, w0, cv, err)) != CTR_CUDA_OK)
        return st;
      CK (cudaEventRecord (s->vol_ev[USED][b], c->stream));
    }
  CK (cudaEventRecord (s->dat_ev[USED][j & 1], c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_split_forward (CtrCudaConeSplit *s, const float *x, unsigned v0, unsigned nviews, float *y, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (!views_in (s, v0, nviews, err))
    return CTR_CUDA_INVALID;
  const size_t per = s->c->per_view;
  unsigned k = 0, j = 0, prev_w0 = 0, prev_cv = 0;
  for (unsigned w0 = v0; w0 < v0 + nviews; w0 += s->chunk_views, j++)
    {
      const unsigned cv = v0 + nviews - w0 < s->chunk_views ? v0 + nviews - w0 : s->chunk_views;
      if ((st = forward_chunk (s, x, w0, cv, j, &k, err)) != CTR_CUDA_OK)
        goto fail_quiet;
      /* the previous chunk comes back while this one's kernels run */
      if (j > 0 && (st = copy_after (s, y + prev_w0 * per, dat_buffer (s, j - 1), prev_cv * per,
                                     cudaMemcpyDeviceToHost, s->dat_ev[USED][(j - 1) & 1],
                                     s->dat_ev[DOWN][(j - 1) & 1], err)) != CTR_CUDA_OK)
        goto fail_quiet;
      prev_w0 = w0;
      prev_cv = cv;
    }
  if ((st = copy_after (s, y + prev_w0 * per, dat_buffer (s, j - 1), prev_cv * per, cudaMemcpyDeviceToHost,
                        s->dat_ev[USED][(j - 1) & 1], s->dat_ev[DOWN][(j - 1) & 1], err)) != CTR_CUDA_OK)
    goto fail_quiet;
  CK (cudaStreamSynchronize (s->copy));
  restore (s, false);
  return CTR_CUDA_OK;
fail:
fail_quiet:
  restore (s, true);
  return st;
}

/* Slab @i's share of A_Sᵀ r into volume buffer @i & 1: every chunk of views
 * [v0, v0 + nviews) (uploaded through the data buffers, counter *@m, only
 * once when one chunk holds them all). */
static CtrCudaStatus
adjoint_slab (CtrCudaConeSplit *s, const float *r, unsigned v0, unsigned nviews, unsigned i, unsigned *m, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CtrCudaCone *c = s->c;
  const size_t per = c->per_view;
  const unsigned b = i & 1;
  const bool resident = nviews <= s->chunk_views;
  CK (cudaStreamWaitEvent (c->stream, s->vol_ev[DOWN][b], 0));
  set_slab (s, i);
  c->buf[CTR_CUDA_CONE_D] = vol_buffer (s, CTR_CUDA_CONE_D, b);
  if ((st = ctr_cuda_cone_zero (c, CTR_CUDA_CONE_D, err)) != CTR_CUDA_OK)
    return st;
  for (unsigned w0 = v0; w0 < v0 + nviews; w0 += s->chunk_views)
    {
      const unsigned cv = v0 + nviews - w0 < s->chunk_views ? v0 + nviews - w0 : s->chunk_views;
      const unsigned db = *m & 1;
      if (r != nullptr && !(resident && i > 0))
        {
          if ((st = copy_after (s, dat_buffer (s, *m), r + (size_t) w0 * per, cv * per, cudaMemcpyHostToDevice,
                                s->dat_ev[USED][db], s->dat_ev[UP][db], err)) != CTR_CUDA_OK)
            return st;
          CK (cudaStreamWaitEvent (c->stream, s->dat_ev[UP][db], 0));
        }
      c->buf[CTR_CUDA_CONE_R] = dat_buffer (s, *m);
      c->g.yv0 = w0;
      if ((st = ctr_cuda_cone_adjoint (c, w0, cv, r == nullptr, 0, err)) != CTR_CUDA_OK)
        return st;
      CK (cudaEventRecord (s->dat_ev[USED][db], c->stream));
      if (!resident)
        (*m)++;
    }
  CK (cudaEventRecord (s->vol_ev[USED][b], c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

/* Slab @i's volume buffer back into @d (after its kernels). */
static CtrCudaStatus
download_slab (CtrCudaConeSplit *s, unsigned i, float *d, char *err)
{
  size_t k0, k1;
  slab_range (s, i, &k0, &k1);
  return copy_after (s, d + k0 * s->slice, vol_buffer (s, CTR_CUDA_CONE_D, i & 1), (k1 - k0) * s->slice,
                     cudaMemcpyDeviceToHost, s->vol_ev[USED][i & 1], s->vol_ev[DOWN][i & 1], err);
}

extern "C" CtrCudaStatus
ctr_cuda_cone_split_adjoint (CtrCudaConeSplit *s, const float *r, unsigned v0, unsigned nviews, float *d, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (!views_in (s, v0, nviews, err))
    return CTR_CUDA_INVALID;
  unsigned m = 0;
  for (unsigned i = 0; i < s->n_slabs; i++)
    {
      if ((st = adjoint_slab (s, r, v0, nviews, i, &m, err)) != CTR_CUDA_OK)
        goto fail_quiet;
      /* the previous slab comes back while this one's kernels run */
      if (i > 0 && (st = download_slab (s, i - 1, d, err)) != CTR_CUDA_OK)
        goto fail_quiet;
    }
  if ((st = download_slab (s, s->n_slabs - 1, d, err)) != CTR_CUDA_OK)
    goto fail_quiet;
  CK (cudaStreamSynchronize (s->copy));
  restore (s, false);
  return CTR_CUDA_OK;
fail:
fail_quiet:
  restore (s, true);
  return st;
}
