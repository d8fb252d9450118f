/* ctr-dicom-series.c — DICOM folders: files grouped by Series Instance UID,
 * sorted by view, with missing and duplicate views reported.  Which series
 * to load, and loading it, is ctr-dicom-resolve.c's.
 */
#include "io/ctr-dicom.h"
#include "io/ctr-dicom-private.h"
#include "io/ctr-dicom-shim.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
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

/* The entries read so far: @n of them, each with its strings. */
typedef struct {
  Entry *e;
  guint n;
} Entries;

static void
entries_clear (Entries *l)
{
  for (guint i = 0; i < l->n; i++)
    entry_clear (&l->e[i]);
  g_clear_pointer (&l->e, g_free);
  l->n = 0;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Entries, entries_clear)

/* Per series, the kind, description and modality of its first file. */
typedef struct {
  GHashTable *kinds, *descr, *modal;
} FirstFiles;

static void
first_files_clear (FirstFiles *ff)
{
  g_clear_pointer (&ff->kinds, g_hash_table_unref);
  g_clear_pointer (&ff->descr, g_hash_table_unref);
  g_clear_pointer (&ff->modal, g_hash_table_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FirstFiles, first_files_clear)

/* One series from the sorted entries [first, last), or NULL with
 * CTR_ERROR_OUT_OF_MEMORY when its list of files cannot be allocated.
 * Takes @description and @modality. */
static CtrDicomSeries *
make_series (const Entry *entries, guint first, guint last, CtrDicomKind kind, char *description,
             char *modality, GError **error)
{
  CtrDicomSeries *s = g_new0 (CtrDicomSeries, 1);
  const Entry *e0 = &entries[first];
  s->series_uid = g_strdup (e0->series_uid);
  s->description = description;
  s->modality = modality;
  s->kind = kind;
  s->n_files = last - first;
  g_autofree char *what = g_strdup_printf ("the file names of a series of %u DICOM files", s->n_files);
  s->files = ctr_memory_try_new ((gsize) s->n_files + 1, sizeof (char *), TRUE, what, error);
  if (s->files == NULL)
    {
      ctr_dicom_series_free (s);
      return NULL;
    }
  g_autoptr (GString) missing = g_string_new (NULL), dup = g_string_new (NULL);
  guint n_missing_listed = 0, n_dup_listed = 0;
  for (guint i = first; i < last; i++)
    {
      const Entry *e = &entries[i];
      s->files[i - first] = g_strdup (e->path);
      s->n_views += kind == CTR_DICOM_KIND_CTPD ? 1 : e->frames;
      if (i == first || e->instance == G_MININT64)
        continue;
      const Entry *p = &entries[i - 1];
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

/* Reads @path into @e (its strings owned by @e) and, for the first file of
 * its series, the series' kind, description and modality into @ff.  FALSE
 * with the file's error (@e then holds nothing). */
static gboolean
read_entry (const char *path, Entry *e, FirstFiles *ff, GError **error)
{
  g_autoptr (CtrDcm) d = ctr_dcm_open (path, error);
  if (d == NULL)
    return FALSE;
  *e = (Entry) { g_strdup (path), ctr_dcm_get_string (d, 0x0020, 0x000e), G_MININT64, NAN, 1 };
  if (e->series_uid == NULL)
    e->series_uid = g_strdup ("(no Series Instance UID)");
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
                       path, text != NULL ? text : "?", G_MININT32, G_MAXINT32);
          entry_clear (e);
          return FALSE;
        }
      e->instance = (gint64) v;
    }
  CtrDicomKind kind = ctr_dicom_classify (d);
  if (kind == CTR_DICOM_KIND_CTPD)
    {
      guint16 phi = ctr_dcm_private_tag (d, 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x01);
      if (ctr_dcm_get_double (d, 0x7031, phi, 0, &v))
        e->angle = v;
    }
  if (ctr_dcm_get_double (d, 0x0028, 0x0008, 0, &v) && v >= 1)
    e->frames = v <= CTR_DICOM_MAX_FRAMES ? (guint) v : CTR_DICOM_MAX_FRAMES;  /* the reader refuses more */
  if (!g_hash_table_contains (ff->kinds, e->series_uid))
    {
      g_hash_table_insert (ff->kinds, g_strdup (e->series_uid), GINT_TO_POINTER (kind));
      char *desc = ctr_dcm_get_string (d, 0x0008, 0x103e);
      g_hash_table_insert (ff->descr, g_strdup (e->series_uid), desc != NULL ? desc : g_path_get_basename (path));
      g_hash_table_insert (ff->modal, g_strdup (e->series_uid), ctr_dcm_get_string (d, 0x0008, 0x0060));
    }
  return TRUE;
}

/* The series of the entries, sorted by Series Instance UID (the entries'
 * first key), or NULL with CTR_ERROR_OUT_OF_MEMORY. */
static GPtrArray *
group_series (const Entries *l, FirstFiles *ff, GError **error)
{
  guint n_series = 0;
  for (guint i = 0; i < l->n; i++)
    n_series += i == 0 || !g_str_equal (l->e[i].series_uid, l->e[i - 1].series_uid);
  g_autofree char *what = g_strdup_printf ("the %u series of %u DICOM files", n_series, l->n);
  if (!ctr_memory_check (ctr_memory_mul (n_series, sizeof (gpointer) + sizeof (CtrDicomSeries)), what, error))
    return NULL;
  g_autoptr (GPtrArray) out = g_ptr_array_new_full (n_series, (GDestroyNotify) ctr_dicom_series_free);
  guint first = 0;
  for (guint i = 1; i <= l->n; i++)
    {
      if (i < l->n && g_str_equal (l->e[i].series_uid, l->e[first].series_uid))
        continue;
      const char *uid = l->e[first].series_uid;
      CtrDicomSeries *s = make_series (l->e, first, i, GPOINTER_TO_INT (g_hash_table_lookup (ff->kinds, uid)),
                                       g_strdup (g_hash_table_lookup (ff->descr, uid)),
                                       g_strdup (g_hash_table_lookup (ff->modal, uid)), error);
      if (s == NULL)
        return NULL;
      g_ptr_array_add (out, s);
      first = i;
    }
  /* no sort of the series: the entries were sorted by UID first, so the
   * series come out in UID order (g_ptr_array_sort's copy aborted) */
  return g_steal_pointer (&out);
}

GPtrArray *
ctr_dicom_scan_files (const char *const *paths, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (paths != NULL, NULL);
  guint n = 0;
  while (paths[n] != NULL)
    n++;
  if (n == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "no DICOM files given");
      return NULL;
    }
  /* the list at once, before any file is read: a grown GArray's g_realloc
   * aborted the process when the list of many files did not fit */
  g_autofree char *what = g_strdup_printf ("the list of %u DICOM files", n);
  g_auto (Entries) list = { ctr_memory_try_new (n, sizeof (Entry), TRUE, what, error), 0 };
  if (list.e == NULL)
    return NULL;
  g_auto (FirstFiles) ff = { g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
                             g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
                             g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free) };
  for (; list.n < n; list.n++)
    if (g_cancellable_set_error_if_cancelled (cancellable, error)
        || !read_entry (paths[list.n], &list.e[list.n], &ff, error))
      return NULL;
  /* not g_array_sort: its copy of the entries is a g_malloc that aborts */
  g_autofree char *order = g_strdup_printf ("the order of %u DICOM files", n);
  if (!ctr_sort_stable (list.e, n, sizeof (Entry), entry_cmp, NULL, order, error))
    return NULL;
  return group_series (&list, &ff, error);
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
  /* Counted first, then listed into an array of that size (a grown
   * GPtrArray's g_realloc aborted where the list did not fit). */
  guint n = 0;
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    n += name[0] != '.' && n < G_MAXUINT - 1;
  g_autofree char *what = g_strdup_printf ("the list of %u files in %s", n, abs);
  g_auto (GStrv) files = ctr_memory_try_new ((gsize) n + 1, sizeof (char *), TRUE, what, error);
  if (files == NULL)
    return NULL;
  g_dir_rewind (dir);
  guint k = 0;
  while (k < n && (name = g_dir_read_name (dir)) != NULL)
    {
      if (name[0] == '.')
        continue;
      char *p = g_build_filename (abs, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_REGULAR) && ctr_dcm_has_preamble (p))
        files[k++] = p;
      else
        g_free (p);
    }
  if (k == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "the folder %s holds no DICOM file", abs);
      return NULL;
    }
  return ctr_dicom_scan_files ((const char *const *) files, cancellable, error);
}
