/* ctr-solver-private.h — state shared by the solver files of core/solve/. */
#pragma once

#include "solve/ctr-solver.h"
#include "sysmat/ctr-scsr.h"

typedef struct _CtrScsrSolve CtrScsrSolve;

typedef struct {
  const CtrSysmat *a;    /* CSR, or NULL when m is set */
  const CtrScsr *m;      /* SCSR, or NULL */
  const CtrSymmetry *orbits;  /* CSR with orbit subsets, else NULL */
  const CtrGeometry *g;
  const CtrProjections *p;
  const CtrReconOptions *o;
  guint ns;              /* slices in the stack */
  guint n_views, n_cols;
  guint64 nr, np;        /* rays and pixels of one slice */
  float *b;              /* [s][ray] measured line integrals */
  guint8 *valid;         /* [s][col]: detector pixel alive for slice s */
  float *x;              /* [s][pixel] the image (the output volume's data) */
  float *inv_sq;         /* [ray] 1 / sum_j a_ij^2, 0 for empty rays */
  float *inv_sum;        /* [ray] 1 / sum_j a_ij,   0 for empty rays */
  float *r;              /* [s][ray] scratch: residuals and weights */
  GCancellable *cancellable;
} CtrSolve;

static inline gboolean
ctr_solve_ray_valid (const CtrSolve *st, guint s, guint64 ray)
{
  return st->valid[(gsize) s * st->n_cols + ray % st->n_cols] != 0;
}

/* Clip every pixel at 0 when the options ask for non-negativity. */
void ctr_solve_clip (CtrSolve *st);

/* One full pass over all views (one "iteration").  FALSE with
 * G_IO_ERROR_CANCELLED when cancelled between views. */
gboolean ctr_art_iterate (CtrSolve *st, GError **error);
gboolean ctr_part_iterate (CtrSolve *st, const float *kappa, GError **error);
gboolean ctr_sart_iterate (CtrSolve *st, GError **error);
gboolean ctr_sirt_iterate (CtrSolve *st, const float *inv_colsum, GError **error);

/* κ_v of every view: the largest number of rays of the view that cross one
 * pixel (Censor, Gordon & Gordon 2001); n_views floats (g_free). */
float *ctr_part_sparsity (const CtrSysmat *a);
/* 1 / (column sums over all rays), 0 where a pixel is never seen; np floats. */
float *ctr_sirt_inverse_colsum (const CtrSolve *st);

/* Parallel ART on CSR with the views of each orbit of @sy as one subset
 * (the reference the SCSR solver must equal); @kappa per orbit. */
gboolean ctr_part_iterate_orbits (CtrSolve *st, const float *kappa, GError **error);
/* κ of every orbit of st->orbits: the largest number of the subset's rays
 * crossing one pixel (or M' for CTR_PART_STEP_CUART); n_orbits floats. */
float *ctr_part_orbit_sparsity (const CtrSolve *st);

/* SCSR solvers (ctr-scsr-solve.c): set-up packs st->x and the data; each
 * iterate runs one pass over all orbits for st->o->method (PART, SART or
 * SIRT) and leaves the image unpacked in st->x. */
CtrScsrSolve *ctr_scsr_solve_new (CtrSolve *st, GError **error);
void ctr_scsr_solve_free (CtrScsrSolve *ss);
gboolean ctr_scsr_solve_iterate (CtrSolve *st, CtrScsrSolve *ss, GError **error);
