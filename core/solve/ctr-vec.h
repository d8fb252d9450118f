/* ctr-vec.h — the vectors of one iterative run (sysmat/ctr-vecops.h): the
 * operator's table when it has one (a device: the run's vectors stay in
 * its memory), else the host's.  CGLS, PWLS and ASD-POCS are written once
 * against it.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-vecops.h"

G_BEGIN_DECLS

/* The host's table: the methods' arithmetic on host arrays. */
extern const CtrVecOps ctr_vec_host_ops;

/**
 * ctr_vecs_init:
 * @vs: (out caller-allocates): the run's vectors.
 * @op: the operator (not referenced; it outlives @vs).
 * Chooses op->klass->vec, or the host's table when the class has none or
 * the environment says CTR_VECOPS=host (a tuning and test knob: the device
 * operator's products with host arrays, as before issue 37), and begins it.
 * Returns: FALSE with the table's error (a device: CTR_ERROR_BACKEND_UNAVAILABLE,
 *   CTR_ERROR_OUT_OF_MEMORY); ctr_vecs_clear is still to be called.
 */
gboolean ctr_vecs_init (CtrVecs *vs, CtrOperator *op, GError **error);

/* Ends the table's state (nothing else: free the vectors first). */
void ctr_vecs_clear (CtrVecs *vs);

/* Frees *@v (nullable) and sets it to NULL. */
void ctr_vec_clear (CtrVecs *vs, CtrVec **v);

/* TRUE when the vectors live in the host's memory. */
static inline gboolean
ctr_vecs_on_host (const CtrVecs *vs)
{
  return vs->ops == &ctr_vec_host_ops;
}

G_END_DECLS
