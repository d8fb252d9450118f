/* ctr-operator.c — the parts of an operator common to every backend
 * (see ctr-operator.h). */
#include "sysmat/ctr-operator.h"

#include <string.h>

gboolean
ctr_operator_init (CtrOperator *op, const CtrOperatorClass *klass, const CtrGeometry *g,
                   const CtrGrid *grid, guint n_slices, GError **error)
{
  op->klass = klass;
  op->ref_count = 1;
  op->grid = *grid;
  op->n_slices = n_slices;
  op->geometry = ctr_geometry_try_copy (g, error);
  return op->geometry != NULL;
}

void
ctr_operator_clear (CtrOperator *op)
{
  ctr_geometry_free (op->geometry);
  g_free (op->order);
  g_free (op->image_weight);
  g_free (op->description);
}

CtrOperator *
ctr_operator_ref (CtrOperator *op)
{
  g_return_val_if_fail (op != NULL, NULL);
  g_atomic_int_inc (&op->ref_count);
  return op;
}

void
ctr_operator_unref (CtrOperator *op)
{
  if (op != NULL && g_atomic_int_dec_and_test (&op->ref_count))
    op->klass->finalize (op);
}

double
ctr_operator_image_dot (const CtrOperator *op, const float *a, const float *b)
{
  const float *w = op->image_weight;
  const gint64 n = (gint64) op->image_size;
  double acc = 0.0;
  if (w == NULL)
    {
#pragma omp parallel for reduction(+:acc) schedule(static)
      for (gint64 q = 0; q < n; q++)
        acc += (double) a[q] * b[q];
    }
  else
    {
#pragma omp parallel for reduction(+:acc) schedule(static)
      for (gint64 q = 0; q < n; q++)
        acc += (double) w[q] * a[q] * b[q];
    }
  return acc;
}

void
ctr_operator_copy_data_scatter (CtrOperator *op, const float *Y, float *proj)
{
  memcpy (proj, Y, op->data_size * sizeof (float));
}

void
ctr_operator_stack_data_scatter (CtrOperator *op, const float *Y, float *proj)
{
  const CtrGeometry *g = op->geometry;
  const gsize per_view = (gsize) g->n_rows * g->n_cols, per_slice = (gsize) g->n_views * g->n_cols;
  memset (proj, 0, per_view * g->n_views * sizeof (float));
  for (guint s = 0; s < op->n_slices; s++)
    {
      const guint row = ctr_geometry_slice_row (g, s);
      for (guint v = 0; v < g->n_views; v++)
        memcpy (proj + (gsize) v * per_view + (gsize) row * g->n_cols, Y + (gsize) s * per_slice + (gsize) v * g->n_cols,
                g->n_cols * sizeof (float));
    }
}
