/* ctr-projections.c — the projection container.  Count → line-integral
 * conversion lives in ctr-projections-preprocess.c. */
#include "data/ctr-projections.h"
#include "base/ctr-error.h"
#include "base/ctr-random.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

CtrProjections *
ctr_projections_new (guint n_views, guint n_rows, guint n_cols, CtrProjKind kind, GError **error)
{
  if (n_views == 0 || n_rows == 0 || n_cols == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "projections of %u views × %u rows × %u columns: every size must be at least 1",
                   n_views, n_rows, n_cols);
      return NULL;
    }
  gsize n = (gsize) n_views * n_rows * n_cols;
  g_autofree char *what = g_strdup_printf ("projections of %u views × %u rows × %u columns", n_views, n_rows, n_cols);
  float *data = ctr_memory_try_new (n, sizeof (float), TRUE, what, error);
  if (data == NULL)
    return NULL;
  CtrProjections *p = g_new0 (CtrProjections, 1);
  p->ref_count = 1;
  p->n_views = n_views;
  p->n_rows = n_rows;
  p->n_cols = n_cols;
  p->kind = kind;
  p->data = data;
  return p;
}

CtrProjections *
ctr_projections_ref (CtrProjections *p)
{
  g_return_val_if_fail (p != NULL, NULL);
  g_atomic_int_inc (&p->ref_count);
  return p;
}

void
ctr_projections_unref (CtrProjections *p)
{
  if (p == NULL || !g_atomic_int_dec_and_test (&p->ref_count))
    return;
  g_free (p->data);
  g_free (p->flat);
  g_free (p->dark);
  g_free (p->mask);
  g_free (p);
}

/* *@dst = a copy of the @bytes of @src (NULL: none); FALSE with
 * CTR_ERROR_OUT_OF_MEMORY naming @what. */
static gboolean
plane_copy (gpointer *dst, gconstpointer src, gsize bytes, const char *what, GError **error)
{
  if (src == NULL)
    return TRUE;
  *dst = ctr_memory_try_new (bytes, 1, FALSE, what, error);
  if (*dst == NULL)
    return FALSE;
  memcpy (*dst, src, bytes);
  return TRUE;
}

CtrProjections *
ctr_projections_copy (const CtrProjections *p, GError **error)
{
  CtrProjections *c = ctr_projections_new (p->n_views, p->n_rows, p->n_cols, p->kind, error);
  if (c == NULL)
    return NULL;
  gsize plane = (gsize) p->n_rows * p->n_cols;
  memcpy (c->data, p->data, plane * p->n_views * sizeof (float));
  if (!ctr_projections_copy_planes (c, p, error))
    {
      ctr_projections_unref (c);
      return NULL;
    }
  return c;
}

void
ctr_projections_take_planes (CtrProjections *p, float *flat, float *dark, guint8 *mask)
{
  g_return_if_fail (p != NULL);
  if (flat != NULL)
    {
      g_free (p->flat);
      p->flat = flat;
    }
  if (dark != NULL)
    {
      g_free (p->dark);
      p->dark = dark;
    }
  if (mask != NULL)
    {
      g_free (p->mask);
      p->mask = mask;
    }
}

gboolean
ctr_projections_copy_planes (CtrProjections *dst, const CtrProjections *src, GError **error)
{
  g_return_val_if_fail (dst != NULL && src != NULL, FALSE);
  g_return_val_if_fail (dst->n_rows == src->n_rows && dst->n_cols == src->n_cols, FALSE);
  const gsize plane = (gsize) src->n_rows * src->n_cols;
  g_clear_pointer (&dst->flat, g_free);
  g_clear_pointer (&dst->dark, g_free);
  g_clear_pointer (&dst->mask, g_free);
  dst->i0 = src->i0;
  return plane_copy ((gpointer *) &dst->flat, src->flat, plane * sizeof (float), "the flat field", error)
         && plane_copy ((gpointer *) &dst->dark, src->dark, plane * sizeof (float), "the dark field", error)
         && plane_copy ((gpointer *) &dst->mask, src->mask, plane, "the dead-pixel mask", error);
}

float *
ctr_projections_sinogram (const CtrProjections *p, guint row, GError **error)
{
  g_return_val_if_fail (row < p->n_rows, NULL);
  g_autofree char *what = g_strdup_printf ("the sinogram of %u views × %u columns", p->n_views, p->n_cols);
  float *s = ctr_memory_try_new ((gsize) p->n_views * p->n_cols, sizeof (float), FALSE, what, error);
  if (s == NULL)
    return NULL;
  for (guint v = 0; v < p->n_views; v++)
    memcpy (s + (gsize) v * p->n_cols, ctr_projections_view (p, v) + (gsize) row * p->n_cols,
            p->n_cols * sizeof (float));
  return s;
}

void
ctr_projections_add_poisson_noise (CtrProjections *p, double i0, guint64 seed)
{
  gsize plane = (gsize) p->n_rows * p->n_cols;
#pragma omp parallel for schedule(static)
  for (guint v = 0; v < p->n_views; v++)
    {
      CtrRng rng;
      ctr_rng_init (&rng, seed, v);
      float *d = p->data + (gsize) v * plane;
      for (gsize i = 0; i < plane; i++)
        {
          double counts = ctr_rng_poisson (&rng, i0 * exp (-(double) d[i]));
          d[i] = (float) -log (MAX (counts, 1.0) / i0);
        }
    }
}
