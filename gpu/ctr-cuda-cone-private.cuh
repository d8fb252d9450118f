/* ctr-cuda-cone-private.cuh — what the cone-beam pair's session
 * (ctr-cuda-cone.cu) and its out-of-core split (ctr-cuda-cone-split.cu)
 * share: the kernels' geometry and the session's buffers.  The split drives
 * the session's own launchers on a z-slab of the volume (ConeGeo's nz and
 * z0 set to the slab's) and a window of views (yv0), swapping the
 * session's buffer pointers between its double buffers. */
#pragma once

#include "ctr-cuda-common.cuh"

#define CONE_BLOCK 256

struct ConeGeo {
  unsigned nv, nr, nc, nx, ny, nz;
  int small;            /* voxel indices fit 32 bits: the interior run takes them */
  double x0, y0, z0, dx, dy, dz;
  const double *src;    /* device [view][3] */
  const double *ray0;   /* device [view][col][3]: P_v(col, 0) − S_v */
  const double *drow;   /* device [view][3] */
  const uint8_t *mask;  /* device [view][row][col] or NULL */
  unsigned yv0;         /* the data buffers' first view (0 unless split in view chunks) */
  int accumulate;       /* the forward projection adds into Y (the z-slabs after the first) */
};

struct CtrCudaCone {
  ConeGeo g;
  size_t nvox, per_view, ndata;
  unsigned data_views;  /* views the data buffers hold, from g.yv0 */
  cudaStream_t stream;
  cudaEvent_t ev[6];
  double *src, *ray0, *drow;
  uint8_t *mask;
  float *buf[CTR_CUDA_CONE_N_BUFS];   /* B, COEF, VALID NULL with desc->products_only */
  /* the transposed layout ([z][x][y]) for x-dominant rays (desc->transposed):
   * a copy of X, and the adjoint's targets, folded into D and CS after it */
  float *xt, *dt, *cst;
  double *norms;        /* 2 doubles: Σ valid (B − Y)², Σ valid B² */
  size_t bytes;
  int y_current;        /* Y = A X for the X held (SIRT's residual pass) */
  int xt_current;       /* xt = X transposed */
};
