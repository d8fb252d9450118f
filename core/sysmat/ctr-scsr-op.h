/* ctr-scsr-op.h — the symmetry-compressed matrix (ctr-scsr.h) as a CPU
 * operator (ctr-operator.h): subsets are the symmetry orbits. */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-scsr.h"

G_BEGIN_DECLS

/**
 * ctr_scsr_op_new:
 * @m: the matrix of @g on one slice of @grid (a reference is taken).
 * @grid: the image grid; its nz slices (= g->n_rows) form the stack.
 * Returns: (transfer full): the operator, or NULL with
 *   CTR_ERROR_INVALID_ARGUMENT (@m was built for another geometry or grid)
 *   or CTR_ERROR_OUT_OF_MEMORY (work space).
 */
CtrOperator *ctr_scsr_op_new (CtrScsr *m, const CtrGeometry *g, const CtrGrid *grid, GError **error);

/* ------------------------------------------------------------------------
 * For every backend's SCSR operator (this CPU one, gpu/'s): the common part
 * and the host-side functions of the layout, which a GPU operator's class
 * plugs in as they are.
 * --------------------------------------------------------------------- */

/**
 * CtrScsrOpBase:
 * The first member of every SCSR operator's struct.
 * @parent: the operator.
 * @m: the matrix (a reference).
 * @kappa: (nullable) κ of every orbit, made on first use.
 */
typedef struct {
  CtrOperator parent;
  CtrScsr *m;
  float *kappa;
} CtrScsrOpBase;

/* CTR_ERROR_INVALID_ARGUMENT when @m was built for another geometry or grid
 * (or the grid's nz is not the detector's row count). */
gboolean ctr_scsr_op_check (const CtrScsr *m, const CtrGeometry *g, const CtrGrid *grid, GError **error);
/* Fills the common fields: native sizes (packed image, lane data, one
 * slice's packed image as the scale size), the orbits as subsets, the
 * inner-product weights of the packed layout, the description; takes a
 * reference on @m.  FALSE with CTR_ERROR_OUT_OF_MEMORY when the weights
 * (4 bytes a packed image element) cannot be allocated: the operator is
 * initialised all the same, for ctr_operator_unref(). */
gboolean ctr_scsr_op_init_common (CtrScsrOpBase *b, const CtrOperatorClass *klass, CtrScsr *m,
                                  const CtrGeometry *g, const CtrGrid *grid, GError **error);
void ctr_scsr_op_clear_common (CtrScsrOpBase *b);

/* The class functions of the layout (see CtrOperatorClass), on the host. */
void ctr_scsr_op_image_to_native (CtrOperator *op, const float *x, float *X);
void ctr_scsr_op_image_from_native (CtrOperator *op, const float *X, float *x);
void ctr_scsr_op_data_gather (CtrOperator *op, const float *proj, float *Y);
void ctr_scsr_op_data_scatter (CtrOperator *op, const float *Y, float *proj);
gboolean ctr_scsr_op_column_sums (CtrOperator *op, guint subset, float *out, GError **error);
void ctr_scsr_op_row_sums (CtrOperator *op, float *sq, float *sum);
gboolean ctr_scsr_op_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error);
guint64 ctr_scsr_op_subset_rays (CtrOperator *op, guint subset);

G_END_DECLS
