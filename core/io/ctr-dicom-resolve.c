/* ctr-dicom-resolve.c — which DICOM series to load, and loading it.
 *
 * A file, a folder or a set of dropped files resolves to the loaded dataset,
 * to the projection series to choose from, or to X-ray angiography frames
 * whose geometry the file lacks (ctr_dicom_resolve).  The window asks the
 * user in the last two cases; ctr_dicom_load_dataset (ctr_dataset_load, the
 * CLI) turns them into errors that say what to do.  The readers themselves
 * are ctr-dicom-ctpd.c and ctr-dicom-xa.c; the scan is ctr-dicom-series.c.
 */
#include "io/ctr-dicom.h"
#include "base/ctr-error.h"

#include <string.h>

void
ctr_dicom_resolution_free (CtrDicomResolution *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->dataset, ctr_dataset_free);
  g_clear_pointer (&r->series, g_ptr_array_unref);
  g_clear_pointer (&r->frames, ctr_dicom_projections_free);
  g_free (r->report);
  g_free (r->path);
  g_free (r->name);
  g_free (r);
}

static gboolean
is_projection_series (const CtrDicomSeries *s)
{
  return s->kind == CTR_DICOM_KIND_CTPD || s->kind == CTR_DICOM_KIND_XA;
}

/* The series of @path or @files; *folder gets the folder they lie in, and
 * *preselect the series a single DICOM-CT-PD file stands for. */
static GPtrArray *
scan (const char *path, const char *const *files, char **folder, char **preselect,
      GCancellable *cancellable, GError **error)
{
  if (files != NULL)
    {
      *folder = g_path_get_dirname (files[0]);
      return ctr_dicom_scan_files (files, cancellable, error);
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      *folder = g_strdup (path);
      return ctr_dicom_scan (path, cancellable, error);
    }
  g_autoptr (GPtrArray) one = ctr_dicom_scan (path, cancellable, error);
  if (one == NULL)
    return NULL;
  if (one->len == 1 && ((CtrDicomSeries *) one->pdata[0])->kind == CTR_DICOM_KIND_CTPD)
    {
      /* one view of a DICOM-CT-PD series: the whole series in its folder */
      *preselect = g_strdup (((CtrDicomSeries *) one->pdata[0])->series_uid);
      *folder = g_path_get_dirname (path);
      return ctr_dicom_scan (*folder, cancellable, error);
    }
  *folder = g_strdup (path);
  return g_steal_pointer (&one);
}

/* "\n  report (UID)" for each series: what an error message lists. */
static char *
list_series (GPtrArray *series)
{
  GString *list = g_string_new (NULL);
  for (guint i = 0; i < series->len; i++)
    {
      const CtrDicomSeries *s = series->pdata[i];
      g_string_append_printf (list, "\n  %s (%s)", s->report, s->series_uid);
      if (s->n_files > 0)
        g_string_append_printf (list, ", e.g. %s", s->files[0]);
    }
  return g_string_free (list, FALSE);
}

/* Loads the chosen projection series @s into @r. */
static gboolean
load_series (CtrDicomResolution *r, const CtrDicomSeries *s, GCancellable *cancellable, GError **error)
{
  g_autoptr (CtrDicomProjections) p = NULL;

  if (s->n_duplicates > 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "%s: %s", r->path, s->report);
      return FALSE;
    }
  if (s->n_missing > CTR_DICOM_MAX_MISSING)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "%s: %s: more than %u views missing; the InstanceNumbers do not number the views "
                   "of one scan", r->path, s->report, CTR_DICOM_MAX_MISSING);
      return FALSE;
    }
  if (s->kind == CTR_DICOM_KIND_CTPD)
    p = ctr_dicom_ctpd_load (s, CTR_DICOM_CTPD_DEFAULT, cancellable, error);
  else if (s->kind == CTR_DICOM_KIND_XA && s->n_files == 1)
    {
      p = ctr_dicom_xa_load (s->files[0], error);
      g_free (r->path);
      r->path = g_canonicalize_filename (s->files[0], NULL);
    }
  else if (s->kind == CTR_DICOM_KIND_XA)
    g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                 "%s: the X-ray angiography series has %u files; a rotational run must be one multi-frame file",
                 r->path, s->n_files);
  else
    g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: series %s is not projection data (%s)", r->path,
                 s->series_uid, s->report);
  if (p == NULL)
    return FALSE;

  r->name = g_strdup (s->description);
  /* XA: the description states how counts became line integrals */
  r->report = s->kind == CTR_DICOM_KIND_XA && p->description != NULL && p->missing == CTR_DICOM_MISSING_NONE
    ? g_strdup_printf ("%s\n%s", s->report, p->description)
    : g_strdup (s->report);
  if (p->missing != CTR_DICOM_MISSING_NONE)
    {
      r->outcome = CTR_DICOM_OUTCOME_GEOMETRY_MISSING;
      r->frames = g_steal_pointer (&p);
    }
  else
    {
      r->outcome = CTR_DICOM_OUTCOME_DATASET;
      r->dataset = ctr_dicom_dataset_from_projections (p, r->path, r->name);
      for (guint i = 0; i < s->n_files; i++)
        ctr_dataset_add_input (r->dataset, s->files[i]);
      if (s->n_missing > 0)
        ctr_dataset_add_warning (r->dataset, "%s", s->report);
      if (p->note != NULL)
        ctr_dataset_add_warning (r->dataset, "%s", p->note);
    }
  return TRUE;
}

CtrDicomResolution *
ctr_dicom_resolve (const char *path, const char *const *files, const char *series_uid,
                   GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (path != NULL || (files != NULL && files[0] != NULL), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_autofree char *folder = NULL;
  g_autofree char *preselect = NULL;
  g_autoptr (GPtrArray) all = scan (path, files, &folder, &preselect, cancellable, error);
  if (all == NULL)
    return NULL;
  if (series_uid == NULL)
    series_uid = preselect;

  const CtrDicomSeries *chosen = NULL;
  guint n_chosen = 0;
  for (guint i = 0; i < all->len; i++)
    {
      const CtrDicomSeries *s = all->pdata[i];
      if (series_uid != NULL ? g_str_equal (s->series_uid, series_uid) : is_projection_series (s))
        {
          chosen = s;
          n_chosen++;
        }
    }
  if (n_chosen == 0)
    {
      g_autofree char *list = list_series (all);
      g_autofree char *abs = g_canonicalize_filename (folder, NULL);
      if (series_uid != NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s holds no series %s; it holds:%s", abs, series_uid,
                     list);
      else
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s holds no projection data (DICOM-CT-PD or X-ray angiography); it holds:%s", abs, list);
      return NULL;
    }

  g_autoptr (CtrDicomResolution) r = g_new0 (CtrDicomResolution, 1);
  r->path = g_canonicalize_filename (folder, NULL);
  if (n_chosen > 1)
    {
      r->outcome = CTR_DICOM_OUTCOME_CHOOSE_SERIES;
      r->series = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_dicom_series_free);
      for (guint i = 0; i < all->len; i++)
        if (is_projection_series (all->pdata[i]))
          g_ptr_array_add (r->series, g_steal_pointer (&all->pdata[i]));
      return g_steal_pointer (&r);
    }
  if (!load_series (r, chosen, cancellable, error))
    return NULL;
  return g_steal_pointer (&r);
}

CtrDataset *
ctr_dicom_resolution_take_dataset (CtrDicomResolution *r, GError **error)
{
  g_return_val_if_fail (r != NULL, NULL);

  switch (r->outcome)
    {
    case CTR_DICOM_OUTCOME_DATASET:
      if (r->dataset != NULL)
        {
          ctr_dataset_check_claims (r->dataset);
          return g_steal_pointer (&r->dataset);
        }
      break;
    case CTR_DICOM_OUTCOME_CHOOSE_SERIES:
      {
        g_autofree char *list = list_series (r->series);
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s holds several projection series; choose one by giving one of its files instead of "
                     "the folder (a file stands for its whole series):%s", r->path,
                     list);
        return NULL;
      }
    case CTR_DICOM_OUTCOME_GEOMETRY_MISSING:
      if (r->frames != NULL && r->frames->missing == CTR_DICOM_MISSING_NONE)
        {
          CtrDataset *d = ctr_dicom_dataset_from_projections (r->frames, r->path, r->name);
          ctr_dataset_add_input (d, r->path);   /* the XA file */
          g_clear_pointer (&r->frames, ctr_dicom_projections_free);
          ctr_dataset_check_claims (d);
          return d;
        }
      if (r->frames != NULL)
        {
          g_autoptr (GString) m = g_string_new (NULL);
          if (r->frames->missing & CTR_DICOM_MISSING_SOD)
            g_string_append (m, " DistanceSourceToPatient (0018,1111)");
          if (r->frames->missing & CTR_DICOM_MISSING_SDD)
            g_string_append (m, " DistanceSourceToDetector (0018,1110)");
          if (r->frames->missing & CTR_DICOM_MISSING_PIXEL_SPACING)
            g_string_append (m, " ImagerPixelSpacing (0018,1164)");
          if (r->frames->missing & CTR_DICOM_MISSING_ANGLES)
            g_string_append (m, " PositionerPrimaryAngle (0018,1510)/Increment (0018,1520)");
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the acquisition geometry is incomplete; missing:%s", r->path, m->str);
          return NULL;
        }
      break;
    }
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%s: the dataset was already taken", r->path);
  return NULL;
}

CtrDataset *
ctr_dicom_load_dataset (const char *path, const char *series_uid, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autoptr (CtrDicomResolution) r = ctr_dicom_resolve (path, NULL, series_uid, cancellable, error);
  if (r == NULL)
    return NULL;
  return ctr_dicom_resolution_take_dataset (r, error);
}

CtrDataset *
ctr_dicom_dataset_from_projections (CtrDicomProjections *p, const char *path, const char *name)
{
  g_return_val_if_fail (p != NULL && p->geometry != NULL && p->projections != NULL, NULL);
  g_return_val_if_fail (p->missing == CTR_DICOM_MISSING_NONE, NULL);
  CtrDataset *d = g_new0 (CtrDataset, 1);
  d->path = g_canonicalize_filename (path, NULL);
  d->name = name != NULL ? g_strdup (name) : g_path_get_basename (path);
  d->geometry = g_steal_pointer (&p->geometry);
  d->projections = g_steal_pointer (&p->projections);
  d->mu_water = p->mu_water;
  return d;
}

CtrProjections *
ctr_dicom_load_projections (const char *path, const CtrGeometry *expect, GCancellable *cancellable,
                            GError **error)
{
  g_return_val_if_fail (path != NULL && expect != NULL, NULL);
  g_autoptr (CtrDataset) d = ctr_dicom_load_dataset (path, NULL, cancellable, error);
  if (d == NULL)
    return NULL;
  const CtrProjections *p = d->projections;
  if (p->n_views != expect->n_views || p->n_rows != expect->n_rows || p->n_cols != expect->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s holds %u views × %u rows × %u columns, the geometry says %u × %u × %u", path,
                   p->n_views, p->n_rows, p->n_cols, expect->n_views, expect->n_rows, expect->n_cols);
      return NULL;
    }
  if (d->geometry->focal_shift != NULL && expect->focal_shift == NULL)
    {
      /* the JSON's geometry would drop the source's jumps: a wrong image */
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s has a flying focal spot that the geometry.json does not state; open the DICOM folder "
                   "itself (its own geometry)", path);
      return NULL;
    }
  if (d->geometry->rows_increase_with_v == expect->rows_increase_with_v)
    return ctr_projections_ref (d->projections);
  /* The DICOM's rows run the other way along v (DICOM-CT-PD: rows grow
   * along z_pd = −z, ctr-dicom-ctpd.c) than the JSON's geometry says:
   * reorder them, or every ray would be read from its mirror row (the
   * helical quarter dose of head-helical-ctpd: 172.6 HU instead of 56.1 HU
   * for FBP at z = 82.5 mm). */
  CtrProjections *flipped = ctr_projections_new (p->n_views, p->n_rows, p->n_cols, p->kind, error);
  if (flipped == NULL)
    return NULL;
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  for (guint v = 0; v < p->n_views; v++)
    for (guint r = 0; r < p->n_rows; r++)
      memcpy (flipped->data + v * plane + (gsize) r * p->n_cols,
              p->data + v * plane + (gsize) (p->n_rows - 1 - r) * p->n_cols, p->n_cols * sizeof (float));
  return flipped;
}
