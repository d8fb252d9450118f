/* ctr-nexus-dataset.c — an NXtomo file as a parallel-beam dataset, the
 * format check and the flats' median (ctr-nexus.h); no HDF5 here. */
#include "io/ctr-nexus.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "io/ctr-file.h"

void
ctr_nexus_scan_free (CtrNexusScan *s)
{
  if (s == NULL)
    return;
  g_clear_pointer (&s->projections, ctr_projections_unref);
  g_free (s->angles_rad);
  g_free (s->data_path);
  g_free (s);
}

gboolean
ctr_nexus_is_nexus (const char *path)
{
  static const char *const ext[] = { ".nxs", ".nx5", ".h5", ".hdf5", ".hdf" };
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return FALSE;
  g_autofree char *lower = g_ascii_strdown (path, -1);
  for (guint i = 0; i < G_N_ELEMENTS (ext); i++)
    if (g_str_has_suffix (lower, ext[i]))
      return TRUE;
  /* The HDF5 superblock signature at offset 0 (no user block). */
  static const guchar sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
  int fd = ctr_file_open_regular (path, NULL);
  if (fd < 0)
    return FALSE;
  guchar head[8];
  gboolean yes = read (fd, head, sizeof head) == (ssize_t) sizeof head && memcmp (head, sig, sizeof sig) == 0;
  close (fd);
  return yes;
}

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

gboolean
ctr_nexus_median_planes (const float *stack, guint n, gsize plane, float *out, const char *what, GError **error)
{
  g_return_val_if_fail (n > 0, FALSE);
  g_autofree char *name = g_strdup_printf ("the per-pixel median of %u %s", n, what);
  g_autofree float *v = ctr_memory_try_new (n, sizeof (float), FALSE, name, error);
  if (v == NULL)
    return FALSE;
  for (gsize i = 0; i < plane; i++)
    {
      for (guint k = 0; k < n; k++)
        v[k] = stack[(gsize) k * plane + i];
      qsort (v, n, sizeof (float), cmp_float);
      out[i] = n % 2 == 1 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
    }
  return TRUE;
}

CtrDataset *
ctr_nexus_load_dataset (const char *path, GCancellable *cancellable, GError **error)
{
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  g_autoptr (CtrNexusScan) scan = ctr_nexus_read (abs, cancellable, error);
  if (scan == NULL)
    return NULL;
  CtrProjections *p = scan->projections;
  if (p->flat == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: no flat field (no frame with image_key 1): to read it, name it in a geometry.json "
                   "(\"projections\": {\"layout\": \"nexus\", \"file\": …}) with \"I0\" or \"flat\"", abs);
      return NULL;
    }
  g_autoptr (CtrDataset) d = g_new0 (CtrDataset, 1);
  d->path = g_strdup (abs);
  d->name = g_path_get_basename (abs);
  ctr_dataset_add_input (d, abs);
  CtrGeometry *g = ctr_geometry_try_new (CTR_BEAM_PARALLEL, p->n_views, error);
  if (g == NULL)
    return NULL;
  d->geometry = g;
  g->n_rows = p->n_rows;
  g->n_cols = p->n_cols;
  g->pitch_u = 1.0;
  g->pitch_v_mm = 1.0;
  g->rows_increase_with_v = FALSE;
  g->pixel_size_known = FALSE;
  memcpy (g->angles, scan->angles_rad, p->n_views * sizeof (double));
  if (!ctr_geometry_validate (g, error))
    {
      g_prefix_error (error, "%s: ", abs);
      return NULL;
    }
  ctr_dataset_add_warning (d, "%s: NeXus scan read as parallel beam: %u projections, %u flat and %u dark "
                           "frames from %s; the pixel size and the centre of rotation are not read from the "
                           "file (pitch 1 pixel, rotation axis at the centre column; a geometry.json with "
                           "\"layout\": \"nexus\" states them)", abs, p->n_views, scan->n_flats,
                           scan->n_darks, scan->data_path);
  d->projections = ctr_projections_ref (p);
  if (!ctr_projections_check_finite (d->projections, error)
      || !ctr_projections_to_line_integrals (d->projections, error))
    {
      g_prefix_error (error, "%s: ", abs);
      return NULL;
    }
  return g_steal_pointer (&d);
}
