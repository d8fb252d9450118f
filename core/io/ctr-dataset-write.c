/* ctr-dataset-write.c — a dataset folder written atomically (see
 * ctr-dataset-write.h). */
#include "io/ctr-dataset-write.h"
#include "base/ctr-error.h"
#include "io/ctr-file.h"
#include "io/ctr-temp.h"
#include "io/ctr-geometry-json.h"
#include "io/ctr-tiff.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

gboolean
ctr_dataset_write_check (const char *dir, GError **error)
{
  g_return_val_if_fail (dir != NULL, FALSE);
  return ctr_file_check_new_folder (dir, error);
}

static JsonObject *
reference_object (const CtrVolume *ref)
{
  const CtrGrid *gr = &ref->grid;
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "file", "reference.tif");
  if (ref->unit != NULL)
    json_object_set_string_member (o, "unit", ref->unit);
  JsonArray *shape = json_array_new ();
  json_array_add_int_element (shape, gr->nz);
  json_array_add_int_element (shape, gr->ny);
  json_array_add_int_element (shape, gr->nx);
  json_object_set_array_member (o, "shape_zyx", shape);
  JsonArray *spacing = json_array_new ();
  json_array_add_double_element (spacing, gr->dx);
  json_array_add_double_element (spacing, gr->dy);
  json_array_add_double_element (spacing, gr->dz);
  json_object_set_array_member (o, "spacing_xyz_mm", spacing);
  JsonArray *center = json_array_new ();
  json_array_add_double_element (center, gr->cx);
  json_array_add_double_element (center, gr->cy);
  json_array_add_double_element (center, gr->cz);
  json_object_set_array_member (o, "center_mm", center);
  return o;
}

/* The projections in file order: sinogram layout for one row, else one page per view. */
static gboolean
write_projections (const char *path, const CtrProjections *p, const float *data, GError **error)
{
  if (p->n_rows == 1)
    return ctr_tiff_write_float (path, data, p->n_cols, p->n_views, 1, error);
  return ctr_tiff_write_float (path, data, p->n_cols, p->n_rows, p->n_views, error);
}

static gboolean
write_files (const char *tmp, const char *name, const CtrGeometry *g, const CtrProjections *p,
             const float *counts, const CtrVolume *reference, JsonObject *extra, GError **error)
{
  const gboolean as_counts = p->flat != NULL;
  const gsize plane = (gsize) p->n_rows * p->n_cols, n = plane * p->n_views;

  g_autofree char *proj_path = g_build_filename (tmp, "projections.tif", NULL);
  if (as_counts)
    {
      g_autofree float *c = NULL;
      if (counts == NULL)
        {
          c = g_try_malloc_n (n, sizeof (float));
          if (c == NULL)
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the counts to write");
              return FALSE;
            }
          for (gsize i = 0; i < n; i++)
            c[i] = (float) (p->flat[i % plane] * exp (-(double) p->data[i]));
        }
      g_autofree char *flat_path = g_build_filename (tmp, "flat.tif", NULL);
      if (!write_projections (proj_path, p, counts != NULL ? counts : c, error)
          || !ctr_tiff_write_float (flat_path, p->flat, p->n_cols, p->n_rows, 1, error))
        return FALSE;
    }
  else if (!write_projections (proj_path, p, p->data, error))
    return FALSE;

  if (reference != NULL)
    {
      g_autofree char *ref_path = g_build_filename (tmp, "reference.tif", NULL);
      if (!ctr_tiff_write_volume (ref_path, reference, error))
        return FALSE;
    }

  JsonObject *root = json_object_new ();
  json_object_set_string_member (root, "name", name);
  JsonObject *geo = ctr_geometry_to_json_object (g);
  ctr_json_object_merge (root, geo, TRUE);
  json_object_unref (geo);

  json_object_set_string_member (root, "kind", as_counts ? "counts" : "line_integrals");
  JsonObject *spec = json_object_new ();
  json_object_set_string_member (spec, "file", "projections.tif");
  json_object_set_string_member (spec, "layout", p->n_rows == 1 ? "sinogram" : "view_pages");
  json_object_set_string_member (spec, "dtype", "float32");
  json_object_set_object_member (root, "projections", spec);
  if (as_counts)
    json_object_set_string_member (root, "flat", "flat.tif");
  if (isfinite (p->i0) && p->i0 > 0)
    json_object_set_double_member (root, "I0", p->i0);
  if (reference != NULL)
    json_object_set_object_member (root, "reference", reference_object (reference));
  if (extra != NULL)
    ctr_json_object_merge (root, extra, TRUE);
  g_autofree char *json_path = g_build_filename (tmp, "geometry.json", NULL);
  gboolean ok = ctr_json_object_write (root, json_path, error);
  json_object_unref (root);
  return ok;
}

gboolean
ctr_dataset_write (const char *dir, const char *name, const CtrGeometry *g, const CtrProjections *p,
                   const float *counts, const CtrVolume *reference, JsonObject *extra, GError **error)
{
  g_return_val_if_fail (dir != NULL && name != NULL && g != NULL && p != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ctr_geometry_validate (g, error))
    return FALSE;
  if (g->n_views != p->n_views || g->n_rows != p->n_rows || g->n_cols != p->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "geometry of %u views × %u rows × %u columns but projections of %u × %u × %u",
                   g->n_views, g->n_rows, g->n_cols, p->n_views, p->n_rows, p->n_cols);
      return FALSE;
    }
  if (!ctr_dataset_write_check (dir, error))
    return FALSE;

  g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);
  g_autofree char *parent = g_path_get_dirname (abs_dir);
  g_autofree char *base = g_path_get_basename (abs_dir);
  if (g_mkdir_with_parents (parent, 0755) != 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot create the folder %s: %s", parent, g_strerror (e));
      return FALSE;
    }
  g_autofree char *tmpl = g_strdup_printf ("%s/.%s.partial-XXXXXX", parent, base);
  ctr_temp_lock ();
  const gboolean made = g_mkdtemp (tmpl) != NULL;
  const int mk_errno = errno;
  if (made)
    ctr_temp_register (tmpl, TRUE);
  ctr_temp_unlock ();
  if (!made)
    {
      int e = mk_errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot create a folder in %s: %s", parent, g_strerror (e));
      return FALSE;
    }
  if (!write_files (tmpl, name, g, p, counts, reference, extra, error))
    {
      ctr_file_remove_folder (tmpl);
      ctr_temp_forget (tmpl);
      return FALSE;
    }
  /* rename(2) replaces an empty folder and refuses a non-empty one, so a
   * folder filled meanwhile by someone else is never overwritten. */
  g_chmod (tmpl, 0755);
  ctr_temp_lock ();
  const gboolean renamed = g_rename (tmpl, abs_dir) == 0;
  const int rn_errno = errno;
  ctr_temp_forget (tmpl);
  ctr_temp_unlock ();
  if (!renamed)
    {
      int e = rn_errno;
      ctr_file_remove_folder (tmpl);
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot move the new dataset into %s: %s", abs_dir,
                   g_strerror (e));
      return FALSE;
    }
  return TRUE;
}
