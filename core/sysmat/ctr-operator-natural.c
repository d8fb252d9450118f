/* ctr-operator-natural.c — an operator's products on natural arrays (see
 * ctr-operator-natural.h). */
#include "sysmat/ctr-operator-natural.h"
#include "base/ctr-error.h"

/* The native image and data work arrays, or FALSE with the error. */
static gboolean
work_arrays (const CtrOperator *op, float **X, float **Y, GError **error)
{
  *X = g_try_new (float, MAX (op->image_size, 1));
  *Y = g_try_new0 (float, MAX (op->data_size, 1));
  if (*X != NULL && *Y != NULL)
    return TRUE;
  g_clear_pointer (X, g_free);
  g_clear_pointer (Y, g_free);
  g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
               "%s: no memory for the native work arrays (%.1f MiB)", op->klass->name,
               (op->image_size + op->data_size) * sizeof (float) / 1048576.0);
  return FALSE;
}

gboolean
ctr_operator_forward_natural (CtrOperator *op, const float *x, float *proj, GError **error)
{
  g_return_val_if_fail (op != NULL && x != NULL && proj != NULL, FALSE);
  float *X, *Y;
  if (!work_arrays (op, &X, &Y, error))
    return FALSE;
  op->klass->image_to_native (op, x, X);
  const gboolean ok = op->klass->forward (op, CTR_SUBSET_ALL, X, Y, error);
  if (ok)
    op->klass->data_scatter (op, Y, proj);
  g_free (X);
  g_free (Y);
  return ok;
}

gboolean
ctr_operator_adjoint_natural (CtrOperator *op, const float *proj, float *x, GError **error)
{
  g_return_val_if_fail (op != NULL && proj != NULL && x != NULL, FALSE);
  float *X, *Y;
  if (!work_arrays (op, &X, &Y, error))
    return FALSE;
  op->klass->data_gather (op, proj, Y);
  const gboolean ok = op->klass->adjoint (op, CTR_SUBSET_ALL, Y, X, error);
  if (ok)
    op->klass->image_from_native (op, X, x);
  g_free (X);
  g_free (Y);
  return ok;
}
