/* ctr-dicom-series.c — DICOM folders: files grouped by Series Instance UID,
 * sorted by view, with missing and duplicate views reported.  Which series
 * to load, and loading it, is ctr-dicom-resolve.c's.
 */
#include "io/ctr-dicom.h"
#include "io/ctr-dicom-private.h"
#include "io/ctr-dicom-shim.h"
#include "base/ctr-error.h"
#include "base/ctr-sort.h"

#include <math.h>
#include <string.h>

#define SOP_XA "1.2.840.10008.5.1.4.1.1.12.1"
#define SOP_ENHANCED_XA "1.2.840.10008.5.1.4.1.1.12.1.1"

void
ctr_dicom_series_free (CtrDicomSeries *s)
{
  if (s == NULL)
    return;
  g_free (s->series_uid);
  g_free (s->description);
  g_free (s->modality);
  g_strfreev (s->files);
  g_free (s->report);
  g_free (s);
}

void
ctr_dicom_projections_free (CtrDicomProjections *p)
{
  if (p == NULL)
    return;
  ctr_geometry_free (p->geometry);
  if (p->projections != NULL)
    ctr_projections_unref (p->projections);
  g_free (p->description);
  g_free (p->note);
  g_free (p);
}

gboolean
ctr_dicom_is_dicom (const char *path)
{
  g_return_val_if_fail (path != NULL, FALSE);
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return ctr_dcm_has_preamble (path);
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  if (dir == NULL)
    return FALSE;
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (name[0] == '.')
        continue;
      g_autofree char *p = g_build_filename (path, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_REGULAR) && ctr_dcm_has_preamble (p))
        return TRUE;
    }
  return FALSE;
}

CtrDicomKind
ctr_dicom_classify (CtrDcm *d)
{
  g_autofree char *sop = ctr_dcm_get_string (d, 0x0008, 0x0016);
  g_autofree char *modality = ctr_dcm_get_string (d, 0x0008, 0x0060);
  guint16 phi = ctr_dcm_private_tag (d, 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x01);
  if (ctr_dcm_has (d, 0x7031, phi))
    return CTR_DICOM_KIND_CTPD;
  if ((sop != NULL && (g_str_equal (sop, SOP_XA) || g_str_equal (sop, SOP_ENHANCED_XA)))
      || (modality != NULL && g_str_equal (modality, "XA")))
    return CTR_DICOM_KIND_XA;
  if (ctr_dcm_has (d, 0x7fe0, 0x0010))
    return CTR_DICOM_KIND_IMAGE;
  return CTR_DICOM_KIND_OTHER;
}

static const char *
kind_name (CtrDicomKind k)
{
  switch (k)
    {
    case CTR_DICOM_KIND_CTPD: return "DICOM-CT-PD projections";
    case CTR_DICOM_KIND_XA: return "X-ray angiography";
    case CTR_DICOM_KIND_IMAGE: return "images (not projection data)";
    default: return "no image data";
    }
}

typedef struct {
  char *path;
  char *series_uid;
  gint64 instance;     /* G_MININT64 when absent */
  double angle;        /* DICOM-CT-PD phi, or NAN */
  guint frames;
} Entry;

static void
entry_clear (gpointer p)
{
  Entry *e = p;
  g_free (e->path);
  g_free (e->series_uid);
}

static int
entry_cmp (gconstpointer a, gconstpointer b, gpointer unused)
{
  const Entry *x = a, *y = b;
  int c = strcmp (x->series_uid, y->series_uid);
  if (c != 0)
    return c;
  if (x->instance != y->instance)
    return x->instance < y->instance ? -1 : 1;
  if (x->angle != y->angle && !isnan (x->angle) && !isnan (y->angle))
    return x->angle < y->angle ? -1 : 1;
  return strcmp (x->path, y->path);
}

/* One series from the sorted entries [first, last). */
static CtrDicomSeries *
make_series (GArray *entries, guint first, guint last, CtrDicomKind kind, char *description,
             char *modality)
{
  CtrDicomSeries *s = g_new0 (CtrDicomSeries, 1);
  Entry *e0 = &g_array_index (entries, Entry, first);
  s->series_uid = g_strdup (e0->series_uid);
  s->description = description;
  s->modality = modality;
  s->kind = kind;
  s->n_files = last - first;
  s->files = g_new0 (char *, s->n_files + 1);
  g_autoptr (GString) missing = g_string_new (NULL), dup = g_string_new (NULL);
  guint n_missing_listed = 0, n_dup_listed = 0;
  for (guint i = first; i < last; i++)
    {
      Entry *e = &g_array_index (entries, Entry, i);
      s->files[i - first] = g_strdup (e->path);
      s->n_views += kind == CTR_DICOM_KIND_CTPD ? 1 : e->frames;
      if (i == first || e->instance == G_MININT64)
        continue;
      Entry *p = &g_array_index (entries, Entry, i - 1);
      if (e->instance == p->instance)
        {
          s->n_duplicates++;
          if (n_dup_listed++ < 10)
            g_string_append_printf (dup, "%s%" G_GINT64_FORMAT, dup->len ? ", " : "", e->instance);
        }
      else if (p->instance != G_MININT64 && e->instance > p->instance + 1)
        {
          /* Counted, not walked: instance numbers lie in the IS range
           * (ctr_dicom_scan_files), so the gap fits in 32 bits, and a gap of
           * 2³¹ costs no more than a gap of one. */
          const guint64 gap = (guint64) (e->instance - p->instance - 1);
          s->n_missing = (guint) MIN ((guint64) s->n_missing + gap, (guint64) G_MAXUINT);
          for (gint64 k = p->instance + 1; k < e->instance && n_missing_listed < 10; k++, n_missing_listed++)
            g_string_append_printf (missing, "%s%" G_GINT64_FORMAT, missing->len ? ", " : "", k);
        }
    }
  GString *r = g_string_new (NULL);
  g_string_append_printf (r, "%s: %s, %u file%s, %u view%s", s->description, kind_name (kind), s->n_files,
                          s->n_files == 1 ? "" : "s", s->n_views, s->n_views == 1 ? "" : "s");
  if (s->n_missing > 0)
    g_string_append_printf (r, "; %u missing (instance number%s %s%s)", s->n_missing,
                            s->n_missing == 1 ? "" : "s", missing->str, s->n_missing > 10 ? ", …" : "");
  if (s->n_duplicates > 0)
    g_string_append_printf (r, "; %u duplicate%s (instance number%s %s%s)", s->n_duplicates,
                            s->n_duplicates == 1 ? "" : "s", s->n_duplicates == 1 ? "" : "s", dup->str,
                            s->n_duplicates > 10 ? ", …" : "");
  s->report = g_string_free (r, FALSE);
  return s;
}

static int
series_cmp (gconstpointer a, gconstpointer b)
{
  const CtrDicomSeries *x = *(CtrDicomSeries *const *) a, *y = *(CtrDicomSeries *const *) b;
  return strcmp (x->series_uid, y->series_uid);
}

GPtrArray *
ctr_dicom_scan_files (const char *const *paths, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (paths != NULL, NULL);
  g_autoptr (GArray) entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_array_set_clear_func (entries, entry_clear);
  /* Per series: kind, description and modality of its first file. */
  g_autoptr (GHashTable) kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) descr = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GHashTable) modal = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; paths[i] != NULL; i++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      g_autoptr (CtrDcm) d = ctr_dcm_open (paths[i], error);
      if (d == NULL)
        return NULL;
      Entry e = { g_strdup (paths[i]), ctr_dcm_get_string (d, 0x0020, 0x000e), G_MININT64, NAN, 1 };
      if (e.series_uid == NULL)
        e.series_uid = g_strdup ("(no Series Instance UID)");
      double v;
      if (ctr_dcm_get_double (d, 0x0020, 0x0013, 0, &v))
        {
          /* IS: an integer of -2³¹ … 2³¹ - 1 (PS3.5 6.2); anything else is a
           * damaged or hostile file, and beyond gint64 a cast is undefined. */
          if (!(v >= G_MININT32 && v <= G_MAXINT32) || v != floor (v))
            {
              g_autofree char *text = ctr_dcm_get_string (d, 0x0020, 0x0013);
              g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                           "%s: InstanceNumber (0020,0013) “%s” is not an integer from %d to %d",
                           paths[i], text != NULL ? text : "?", G_MININT32, G_MAXINT32);
              entry_clear (&e);
              return NULL;
            }
          e.instance = (gint64) v;
        }
      CtrDicomKind kind = ctr_dicom_classify (d);
      if (kind == CTR_DICOM_KIND_CTPD)
        {
          guint16 phi = ctr_dcm_private_tag (d, 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x01);
          if (ctr_dcm_get_double (d, 0x7031, phi, 0, &v))
            e.angle = v;
        }
      if (ctr_dcm_get_double (d, 0x0028, 0x0008, 0, &v) && v >= 1)
        e.frames = v <= CTR_DICOM_MAX_FRAMES ? (guint) v : CTR_DICOM_MAX_FRAMES;  /* the reader refuses more */
      if (!g_hash_table_contains (kinds, e.series_uid))
        {
          g_hash_table_insert (kinds, g_strdup (e.series_uid), GINT_TO_POINTER (kind));
          char *desc = ctr_dcm_get_string (d, 0x0008, 0x103e);
          g_hash_table_insert (descr, g_strdup (e.series_uid),
                               desc != NULL ? desc : g_path_get_basename (paths[i]));
          g_hash_table_insert (modal, g_strdup (e.series_uid), ctr_dcm_get_string (d, 0x0008, 0x0060));
        }
      g_array_append_val (entries, e);
    }
  if (entries->len == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "no DICOM files given");
      return NULL;
    }
  /* not g_array_sort: its copy of the entries is a g_malloc that aborts */
  g_autofree char *what = g_strdup_printf ("the order of %u DICOM files", entries->len);
  if (!ctr_sort_stable (entries->data, entries->len, sizeof (Entry), entry_cmp, NULL, what, error))
    return NULL;

  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_dicom_series_free);
  guint first = 0;
  for (guint i = 1; i <= entries->len; i++)
    {
      if (i < entries->len
          && g_str_equal (g_array_index (entries, Entry, i).series_uid,
                          g_array_index (entries, Entry, first).series_uid))
        continue;
      const char *uid = g_array_index (entries, Entry, first).series_uid;
      g_ptr_array_add (out, make_series (entries, first, i,
                                         GPOINTER_TO_INT (g_hash_table_lookup (kinds, uid)),
                                         g_strdup (g_hash_table_lookup (descr, uid)),
                                         g_strdup (g_hash_table_lookup (modal, uid))));
      first = i;
    }
  g_ptr_array_sort (out, series_cmp);
  return out;
}

GPtrArray *
ctr_dicom_scan (const char *path, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  if (!g_file_test (abs, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s: no such file or folder", abs);
      return NULL;
    }
  if (!g_file_test (abs, G_FILE_TEST_IS_DIR))
    {
      const char *one[] = { abs, NULL };
      return ctr_dicom_scan_files (one, cancellable, error);
    }
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) dir = g_dir_open (abs, 0, &local);
  if (dir == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot read the folder %s: %s", abs, local->message);
      return NULL;
    }
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (name[0] == '.')
        continue;
      char *p = g_build_filename (abs, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_REGULAR) && ctr_dcm_has_preamble (p))
        g_ptr_array_add (files, p);
      else
        g_free (p);
    }
  if (files->len == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "the folder %s holds no DICOM file", abs);
      return NULL;
    }
  g_ptr_array_add (files, NULL);
  return ctr_dicom_scan_files ((const char *const *) files->pdata, cancellable, error);
}
