/* ctr-test-solve.h — run an iterative method on a given matrix, for the
 * tests that compare matrices and solvers directly: the operator of the
 * matrix (sysmat/ctr-*-op.h) under the one iteration driver
 * (solve/ctr-iterate.h), as the plan would run it. */
#pragma once

#include "ctrecon.h"
#include "solve/ctr-iterate.h"
#include "solve/ctr-solvers.h"
#include "sysmat/ctr-csr-op.h"
#include "sysmat/ctr-scsr-op.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-sysmat.h"

/* On operator @op (taken over). */
static inline CtrVolume *
test_run_op (CtrOperator *op, const CtrProjections *p, const CtrReconOptions *o, const CtrVolume *ref,
             CtrIterFunc cb, gpointer ud, GCancellable *cancel, GError **error)
{
  if (op == NULL)
    return NULL;
  CtrVolume *v = ctr_iterate_run (op, ctr_solver_class (o->method), NULL, NULL, p, o, ref, cb, ud, cancel,
                                  NULL, error);
  ctr_operator_unref (op);
  return v;
}

/* On the CSR matrix @a: views as subsets, or (parallel ART with
 * CTR_SUBSETS_ORBIT) the symmetry orbits of @g. */
static inline CtrVolume *
test_run_csr (CtrSysmat *a, const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
              const CtrReconOptions *o, const CtrVolume *ref, CtrIterFunc cb, gpointer ud,
              GCancellable *cancel, GError **error)
{
  CtrSymmetry *sy = o->method == CTR_METHOD_PART && o->subsets == CTR_SUBSETS_ORBIT
                      ? ctr_symmetry_find (g, grid, CTR_SYM_ALL, NULL) : NULL;
  g_autoptr (CtrOperator) op = ctr_csr_op_new (a, sy, g, grid, error);
  if (op == NULL)
    return NULL;
  return ctr_iterate_run (op, ctr_solver_class (o->method), NULL, NULL, p, o, ref, cb, ud, cancel, NULL, error);
}

/* On the SCSR matrix @m: the symmetry orbits as subsets. */
static inline CtrVolume *
test_run_scsr (CtrScsr *m, const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
               const CtrReconOptions *o, const CtrVolume *ref, CtrIterFunc cb, gpointer ud,
               GCancellable *cancel, GError **error)
{
  g_autoptr (CtrOperator) op = ctr_scsr_op_new (m, g, grid, error);
  if (op == NULL)
    return NULL;
  return ctr_iterate_run (op, ctr_solver_class (o->method), NULL, NULL, p, o, ref, cb, ud, cancel, NULL, error);
}
