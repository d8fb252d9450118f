/* ctr-solvers.h — the iterative methods the driver knows (ctr-iterate.h).
 * A new method is a CtrSolverClass in its own file of solve/, declared here
 * and listed in ctr_solver_class() (ctr-solvers.c). */
#pragma once

#include "solve/ctr-iterate.h"

G_BEGIN_DECLS

/* The method's class; NULL for a method that does not iterate (FBP, FDK). */
const CtrSolverClass *ctr_solver_class (CtrMethod method);

/* ctr-subset-methods.c */
extern const CtrSolverClass ctr_art_solver;
extern const CtrSolverClass ctr_part_solver;
extern const CtrSolverClass ctr_sart_solver;
extern const CtrSolverClass ctr_sirt_solver;
/* ctr-cgls.c, ctr-pwls.c, ctr-asd-pocs.c */
extern const CtrSolverClass ctr_cgls_solver;
extern const CtrSolverClass ctr_pwls_solver;
extern const CtrSolverClass ctr_asd_pocs_solver;

G_END_DECLS
