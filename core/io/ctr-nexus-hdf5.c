/* ctr-nexus-hdf5.c — NXtomo frames, image keys and angles read with libhdf5
 * (ctr-nexus.h).  Built only when libhdf5 is found. */
#include "io/ctr-nexus.h"

#include <hdf5.h>
#include <math.h>
#include <string.h>
#include "base/ctr-error.h"
#include "io/ctr-file.h"

gboolean
ctr_nexus_available (void)
{
  return TRUE;
}

/* TRUE when every component of the absolute HDF5 @path exists as a link
 * (H5Lexists fails on a missing parent, so each level is checked). */
static gboolean
link_exists (hid_t file, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path + 1, "/", -1);
  GString *p = g_string_new ("");
  gboolean ok = TRUE;
  for (guint i = 0; ok && parts[i] != NULL; i++)
    {
      g_string_append_printf (p, "/%s", parts[i]);
      ok = H5Lexists (file, p->str, H5P_DEFAULT) > 0;
    }
  g_string_free (p, TRUE);
  return ok;
}

/* The first of @paths that is a data set, opened; -1 when none is. */
static hid_t
open_first_dataset (hid_t file, const char *const *paths, const char **which)
{
  for (guint i = 0; paths[i] != NULL; i++)
    {
      if (!link_exists (file, paths[i]))
        continue;
      H5O_info_t info;
      if (H5Oget_info_by_name (file, paths[i], &info, H5P_DEFAULT) < 0 || info.type != H5O_TYPE_DATASET)
        continue;
      hid_t d = H5Dopen2 (file, paths[i], H5P_DEFAULT);
      if (d >= 0)
        {
          *which = paths[i];
          return d;
        }
    }
  return -1;
}

/* The rank and dimensions (up to 3) of data set @d; -1 on failure. */
static int
dataset_dims (hid_t d, hsize_t dims[3])
{
  hid_t space = H5Dget_space (d);
  if (space < 0)
    return -1;
  int rank = H5Sget_simple_extent_ndims (space);
  if (rank >= 1 && rank <= 3)
    H5Sget_simple_extent_dims (space, dims, NULL);
  H5Sclose (space);
  return rank;
}

/* A rank-1 data set of @n entries read as doubles; NULL with an error when
 * it is missing (and @required), of another rank or length. */
static double *
read_vector (hid_t file, const char *const *paths, hsize_t n, gboolean required, const char *what,
             const char *where, gboolean *found, GError **error)
{
  const char *which = NULL;
  *found = FALSE;
  hid_t d = open_first_dataset (file, paths, &which);
  if (d < 0)
    {
      if (required)
        {
          g_autofree char *list = g_strjoinv (", ", (char **) paths);
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: no %s data set (looked for %s)", where, what, list);
        }
      return NULL;
    }
  hsize_t dims[3] = { 0, 0, 0 };
  int rank = dataset_dims (d, dims);
  if (rank != 1 || dims[0] != n)
    {
      if (rank == 1)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: %s has %llu values; the frames are %llu (one "
                     "value per frame)", where, which, (unsigned long long) dims[0], (unsigned long long) n);
      else
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: %s must be one value per frame (rank 1), it has "
                     "rank %d", where, which, rank);
      H5Dclose (d);
      return NULL;
    }
  double *v = g_try_new (double, MAX (n, 1));
  if (v == NULL || H5Dread (d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
    {
      g_set_error (error, CTR_ERROR, v == NULL ? CTR_ERROR_OUT_OF_MEMORY : CTR_ERROR_FORMAT,
                   "%s: cannot read %s as numbers", where, which);
      g_free (v);
      H5Dclose (d);
      return NULL;
    }
  H5Dclose (d);
  *found = TRUE;
  return v;
}

/* TRUE when the "units" attribute of @path names radians. */
static gboolean
units_are_radians (hid_t file, const char *path)
{
  if (H5Aexists_by_name (file, path, "units", H5P_DEFAULT) <= 0)
    return FALSE;
  hid_t a = H5Aopen_by_name (file, path, "units", H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0)
    return FALSE;
  gboolean rad = FALSE;
  hid_t t = H5Aget_type (a);
  if (H5Tget_class (t) == H5T_STRING)
    {
      char buf[64] = { 0 };
      char *vbuf = NULL;
      hid_t mt = H5Tcopy (H5T_C_S1);
      if (H5Tis_variable_str (t) > 0)
        {
          H5Tset_size (mt, H5T_VARIABLE);
          if (H5Aread (a, mt, &vbuf) >= 0 && vbuf != NULL)
            g_strlcpy (buf, vbuf, sizeof buf);
          H5free_memory (vbuf);
        }
      else
        {
          H5Tset_size (mt, sizeof buf - 1);
          H5Aread (a, mt, buf);
        }
      H5Tclose (mt);
      g_strstrip (buf);
      rad = g_ascii_strcasecmp (buf, "rad") == 0 || g_ascii_strcasecmp (buf, "radian") == 0
            || g_ascii_strcasecmp (buf, "radians") == 0;
    }
  H5Tclose (t);
  H5Aclose (a);
  return rad;
}

typedef struct {
  hid_t file, data;
  const char *data_path;
  hsize_t dims[3];
  double *keys;     /* per frame, NULL: all projections */
  double *angles;   /* per frame */
  gboolean radians;
} Source;

static void
source_clear (Source *s)
{
  if (s->data >= 0)
    H5Dclose (s->data);
  if (s->file >= 0)
    H5Fclose (s->file);
  g_free (s->keys);
  g_free (s->angles);
}

/* Opens @path and finds the frames, the keys and the angles. */
static gboolean
source_open (Source *s, const char *path, GError **error)
{
  static const char *const data_paths[] = { "/entry/data/data", "/entry/data", "/entry/instrument/detector/data", NULL };
  static const char *const key_paths[] = { "/entry/instrument/detector/image_key", "/entry/data/image_key", NULL };
  static const char *const angle_paths[] = { "/entry/sample/rotation_angle", "/entry/data/rotation_angle", NULL };
  if (H5Fis_hdf5 (path) <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s is not an HDF5 file (a NeXus file is HDF5)", path);
      return FALSE;
    }
  s->file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (s->file < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s: HDF5 cannot open the file", path);
      return FALSE;
    }
  s->data = open_first_dataset (s->file, data_paths, &s->data_path);
  if (s->data < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: no NXtomo frames (looked for the data sets /entry/data/data, /entry/data and "
                   "/entry/instrument/detector/data)", path);
      return FALSE;
    }
  int rank = dataset_dims (s->data, s->dims);
  if (rank != 3 || s->dims[0] == 0 || s->dims[1] == 0 || s->dims[2] == 0
      || s->dims[1] > G_MAXUINT32 || s->dims[2] > G_MAXUINT32)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s must be a non-empty stack of frames [frame][row][column] (rank 3), it has rank %d",
                   path, s->data_path, rank);
      return FALSE;
    }
  gboolean found;
  s->keys = read_vector (s->file, key_paths, s->dims[0], FALSE, "image_key", path, &found, error);
  if (s->keys == NULL && error != NULL && *error != NULL)
    return FALSE;
  s->angles = read_vector (s->file, angle_paths, s->dims[0], TRUE, "rotation_angle", path, &found, error);
  if (s->angles == NULL)
    return FALSE;
  s->radians = units_are_radians (s->file, link_exists (s->file, angle_paths[0]) ? angle_paths[0] : angle_paths[1]);
  return TRUE;
}

/* Frame @k into @dst (rows × cols floats). */
static gboolean
read_frame (Source *s, hsize_t k, float *dst, const char *path, GError **error)
{
  hsize_t start[3] = { k, 0, 0 }, count[3] = { 1, s->dims[1], s->dims[2] };
  hid_t fspace = H5Dget_space (s->data);
  hid_t mspace = H5Screate_simple (3, count, NULL);
  herr_t rc = H5Sselect_hyperslab (fspace, H5S_SELECT_SET, start, NULL, count, NULL);
  if (rc >= 0)
    rc = H5Dread (s->data, H5T_NATIVE_FLOAT, mspace, fspace, H5P_DEFAULT, dst);
  H5Sclose (mspace);
  H5Sclose (fspace);
  if (rc < 0)
    g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: cannot read frame %llu of %s as numbers (not numeric, "
                 "or compressed with a filter this HDF5 library lacks)", path, (unsigned long long) k, s->data_path);
  return rc >= 0;
}

/* Counts the frames of each key; FALSE for a key outside 0…3. */
static gboolean
count_keys (const Source *s, guint counts[4], const char *path, GError **error)
{
  memset (counts, 0, 4 * sizeof (guint));
  for (hsize_t k = 0; k < s->dims[0]; k++)
    {
      double key = s->keys != NULL ? s->keys[k] : 0;
      if (!(key == 0 || key == 1 || key == 2 || key == 3))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: image_key of frame %llu is %g; NXtomo knows 0 (projection), 1 (flat), 2 (dark), "
                       "3 (invalid)", path, (unsigned long long) k, key);
          return FALSE;
        }
      if (key == 0 && !isfinite (s->angles[k]))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: rotation_angle of frame %llu is not finite",
                       path, (unsigned long long) k);
          return FALSE;
        }
      counts[(int) key]++;
    }
  if (counts[0] == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: no projection (image_key 0) among the %llu frames",
                   path, (unsigned long long) s->dims[0]);
      return FALSE;
    }
  return TRUE;
}

/* Reads every frame into its place; flats and darks into stacks whose
 * medians become the projections' flat and dark. */
static gboolean
read_frames (Source *s, CtrNexusScan *scan, const guint counts[4], const char *path,
             GCancellable *cancellable, GError **error)
{
  const gsize plane = (gsize) s->dims[1] * s->dims[2];
  float *stacks[3] = { NULL, NULL, NULL };
  guint filled[3] = { 0, 0, 0 };
  gboolean ok = TRUE;
  for (int t = 1; t <= 2 && ok; t++)
    if (counts[t] > 0)
      {
        stacks[t] = g_try_malloc_n ((gsize) counts[t] * plane, sizeof (float));
        ok = stacks[t] != NULL;
        if (!ok)
          g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%s: no memory for %u frames", path, counts[t]);
      }
  for (hsize_t k = 0; ok && k < s->dims[0]; k++)
    {
      int t = s->keys != NULL ? (int) s->keys[k] : 0;
      if (t == 3)
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        ok = FALSE;
      else if (t == 0)
        {
          scan->angles_rad[filled[0]] = s->radians ? s->angles[k] : s->angles[k] * G_PI / 180.0;
          ok = read_frame (s, k, ctr_projections_view (scan->projections, filled[0]++), path, error);
        }
      else
        ok = read_frame (s, k, stacks[t] + (gsize) filled[t]++ * plane, path, error);
    }
  float **dst[3] = { NULL, &scan->projections->flat, &scan->projections->dark };
  for (int t = 1; t <= 2 && ok; t++)
    if (counts[t] > 0)
      {
        *dst[t] = g_try_new (float, plane);
        if (*dst[t] == NULL)
          {
            g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%s: no memory for the flat and dark", path);
            ok = FALSE;
          }
        else
          ok = ctr_nexus_median_planes (stacks[t], counts[t], plane, *dst[t], t == 1 ? "flat frames" : "dark frames",
                                        error);
      }
  g_free (stacks[1]);
  g_free (stacks[2]);
  return ok;
}

CtrNexusScan *
ctr_nexus_read (const char *path, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  if (!ctr_file_check_regular (path, error))
    return NULL;
  /* HDF5 prints its error stack on stderr by default: the messages here say it. */
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  Source s = { .file = -1, .data = -1 };
  g_autoptr (CtrNexusScan) scan = g_new0 (CtrNexusScan, 1);
  guint counts[4];
  gboolean ok = source_open (&s, path, error) && count_keys (&s, counts, path, error);
  if (ok)
    {
      scan->projections = ctr_projections_new (counts[0], (guint) s.dims[1], (guint) s.dims[2],
                                               CTR_PROJ_COUNTS, error);
      scan->angles_rad = g_try_new (double, counts[0]);
      ok = scan->projections != NULL && scan->angles_rad != NULL;
      if (scan->projections == NULL)
        g_prefix_error (error, "%s: ", path);
      if (scan->projections != NULL && scan->angles_rad == NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%s: no memory for the angles", path);
    }
  if (ok)
    {
      scan->n_flats = counts[1];
      scan->n_darks = counts[2];
      scan->data_path = g_strdup (s.data_path);
      ok = read_frames (&s, scan, counts, path, cancellable, error);
    }
  source_clear (&s);
  return ok ? g_steal_pointer (&scan) : NULL;
}
