/* ctr-solvers.c — the iterative methods by name (see ctr-solvers.h). */
#include "solve/ctr-solvers.h"

const CtrSolverClass *
ctr_solver_class (CtrMethod method)
{
  static const CtrSolverClass *const all[] = {
    &ctr_art_solver, &ctr_part_solver, &ctr_sart_solver, &ctr_sirt_solver,
    &ctr_cgls_solver, &ctr_pwls_solver, &ctr_asd_pocs_solver,
  };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (all[i]->method == method)
      return all[i];
  return NULL;
}
