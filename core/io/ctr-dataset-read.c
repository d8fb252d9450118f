/* ctr-dataset-read.c — the projection files of a geometry.json
 * (shared/data/FORMAT.md: "sinogram", "view_pages", "one_file_per_view",
 * "dicom", "nexus"), whole or a part of their detector rows or views
 * (CtrDatasetPart, ctr-dataset.h), and the counts' flat, dark and I0.
 * Internal to io/ (ctr-dataset-read.h); ctr-dataset-load.c calls it.
 */
#include "io/ctr-dataset-read.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "io/ctr-tiff.h"
#include "io/ctr-dicom.h"
#include "io/ctr-nexus.h"
#include "io/ctr-json-get.h"

#include <string.h>
/* ------------------------------------------------------------------------ */
/* Projection files                                                          */

static gboolean
check_cancelled (GCancellable *cancellable, GError **error)
{
  return g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* Splits a printf-style file pattern with exactly one integer conversion
 * (%d, %i, %u, optionally zero-padded with a width: %05d) into prefix and
 * suffix; "%%" is a literal percent sign.  The pattern itself is never given
 * to printf. */
static gboolean
parse_pattern (const char *pattern, char **prefix, char **suffix, int *width, gboolean *zero_pad)
{
  g_autoptr (GString) pre = g_string_new (NULL), post = g_string_new (NULL);
  gboolean seen = FALSE;
  *width = 0;
  *zero_pad = FALSE;
  for (const char *c = pattern; *c != '\0'; c++)
    {
      GString *out = seen ? post : pre;
      if (*c != '%')
        {
          g_string_append_c (out, *c);
          continue;
        }
      c++;
      if (*c == '%')
        {
          g_string_append_c (out, '%');
          continue;
        }
      if (seen)
        return FALSE;
      if (*c == '0')
        {
          *zero_pad = TRUE;
          c++;
        }
      while (g_ascii_isdigit (*c))
        {
          *width = *width * 10 + (*c - '0');
          if (*width > 32)
            return FALSE;
          c++;
        }
      if (*c != 'd' && *c != 'i' && *c != 'u')
        return FALSE;
      seen = TRUE;
    }
  if (!seen)
    return FALSE;
  *prefix = g_string_free (g_steal_pointer (&pre), FALSE);
  *suffix = g_string_free (g_steal_pointer (&post), FALSE);
  return TRUE;
}

/* The path of @file named in the JSON, recorded as one of @d's inputs. */
char *
ctr_dataset_resolve (CtrDataset *d, const char *base_dir, const char *file)
{
  char *path = g_path_is_absolute (file) ? g_strdup (file) : g_build_filename (base_dir, file, NULL);
  ctr_dataset_add_input (d, path);
  return path;
}

/* What the geometry.json claims of the projection files' samples: its
 * "kind" and "dtype" (FORMAT.md), and the format of the first file read,
 * which every other view's file must share. */
typedef struct {
  CtrProjKind kind;
  const char *dtype;   /* nullable */
  guint format, bits;  /* of the first file; 0 before it */
} SampleClaim;

static const char *
sample_name (guint format, guint bits)
{
  static const struct { guint format, bits; const char *name; } names[] = {
    { 1, 8, "uint8" }, { 2, 8, "int8" }, { 1, 16, "uint16" }, { 2, 16, "int16" }, { 1, 32, "uint32" },
    { 2, 32, "int32" }, { 3, 32, "float32" }, { 3, 64, "float64" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (names[i].format == format && names[i].bits == bits)
      return names[i].name;
  return "another sample type";
}

/* The samples of @path (@info) against @c: the stated "dtype", integers
 * stated as line integrals, and the same format in every file. */
static gboolean
check_samples (const CtrTiffInfo *info, const char *path, SampleClaim *c, const char *where, GError **error)
{
  const char *found = sample_name (info->sample_format, info->bits_per_sample);
  if (c->format != 0 && (c->format != info->sample_format || c->bits != info->bits_per_sample))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s holds %s samples but the views before it hold %s; every view must be stored alike",
                   where, path, found, sample_name (c->format, c->bits));
      return FALSE;
    }
  c->format = info->sample_format;
  c->bits = info->bits_per_sample;
  if (c->dtype != NULL && !g_str_equal (c->dtype, found))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “dtype” is “%s” but %s holds %s samples",
                   where, c->dtype, path, found);
      return FALSE;
    }
  if (c->kind == CTR_PROJ_LINE_INTEGRALS && info->sample_format != 3)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s holds %s samples, but the key “kind” says “line_integrals”; integer samples are "
                   "detector counts: give “kind”: “counts” with a “flat” (and “dark”) or “I0”",
                   where, path, found);
      return FALSE;
    }
  return TRUE;
}

/* Reads pages @pr and lines @lr (NULL: all) of a TIFF that must be @pages ×
 * @height × @width, with the samples @claim allows (NULL: any), adding the
 * bytes decoded to *@bytes (nullable).  @what says which key named it. */
static float *
read_checked (const char *path, guint pages, guint height, guint width, const CtrTiffRange *pr,
              const CtrTiffRange *lr, SampleClaim *claim, const char *where, const char *what, guint64 *bytes,
              GError **error)
{
  CtrTiffInfo info = { 0 };
  g_autoptr (GError) local = NULL;
  g_autofree float *data = ctr_tiff_read_part (path, pr, lr, &info, bytes, &local);
  if (data == NULL && info.pages == 0)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: %s: ", where, what);
      return NULL;
    }
  if (claim != NULL && !check_samples (&info, path, claim, where, error))
    return NULL;
  if (info.pages != pages || info.height != height || info.width != width)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s: %s holds %u page(s) of %u lines × %u samples, expected %u page(s) of "
                   "%u × %u", where, what, path, info.pages, info.height, info.width,
                   pages, height, width);
      return NULL;
    }
  if (data == NULL)
    g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: %s: ", where, what);
  return g_steal_pointer (&data);
}

/* "layout": "nexus": the frames of an NXtomo file (ctr-nexus.h) with the
 * JSON's geometry; its median flat and dark serve counts unless the JSON
 * names its own "flat" / "dark" (load_counts_fields). */
static CtrProjections *
load_nexus (CtrDataset *d, JsonObject *spec, const CtrGeometry *g, CtrProjKind kind, const char *base_dir,
            const char *ctx, GCancellable *cancellable, GError **error)
{
  const char *file;
  if (!ctr_json_get_string (spec, "file", TRUE, &file, ctx, error))
    return NULL;
  g_autofree char *path = ctr_dataset_resolve (d, base_dir, file);
  g_autoptr (CtrNexusScan) scan = ctr_nexus_read (path, cancellable, error);
  if (scan == NULL)
    {
      g_prefix_error (error, "%s, the key “file”: ", ctx);
      return NULL;
    }
  CtrProjections *p = scan->projections;
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s holds %u projections of %u rows × %u columns; the geometry states %u views of "
                   "%u rows × %u columns", ctx, path, p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows,
                   g->n_cols);
      return NULL;
    }
  p->kind = kind;
  if (kind == CTR_PROJ_LINE_INTEGRALS && (p->flat != NULL || p->dark != NULL))
    {
      ctr_dataset_add_warning (d, "%s: “kind” is “line_integrals”: the %u flat and %u dark frames of %s are not "
                               "used", ctx, scan->n_flats, scan->n_darks, path);
      g_clear_pointer (&p->flat, g_free);
      g_clear_pointer (&p->dark, g_free);
    }
  return ctr_projections_ref (p);
}

gboolean
ctr_dataset_layout_splits (JsonObject *spec)
{
  const char *layout = json_object_has_member (spec, "layout") ? json_object_get_string_member_with_default (
                         spec, "layout", NULL) : NULL;
  return layout != NULL && (g_str_equal (layout, "sinogram") || g_str_equal (layout, "view_pages")
                            || g_str_equal (layout, "one_file_per_view"));
}

/* "one_file_per_view": lines @rows of the files of views @vf .. @vf + @vc − 1
 * into @p (@vc views of rows->count rows). */
static gboolean
read_view_files (CtrDataset *d, JsonObject *spec, const CtrGeometry *g, const char *base_dir, const char *ctx,
                 guint vf, guint vc, const CtrTiffRange *rows, SampleClaim *claim, CtrProjections *p,
                 guint64 *bytes, GCancellable *cancellable, GError **error)
{
  const guint V = g->n_views;
  const char *pattern;
  gint64 first, count;
  if (!ctr_json_get_string (spec, "pattern", TRUE, &pattern, ctx, error)
      || !ctr_json_get_int (spec, "first_index", FALSE, 0, &first, ctx, error)
      || !ctr_json_get_int (spec, "count", FALSE, V, &count, ctx, error))
    return FALSE;
  g_autofree char *prefix = NULL, *suffix = NULL;
  int width;
  gboolean zero_pad;
  if (!parse_pattern (pattern, &prefix, &suffix, &width, &zero_pad))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “pattern” (“%s”) must hold exactly one integer conversion such as "
                   "%%d or %%05d (and %%%% for a percent sign)", ctx, pattern);
      return FALSE;
    }
  if (first < 0 || first > G_MAXINT32)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “first_index” must be between 0 and %d, got %" G_GINT64_FORMAT,
                   ctx, G_MAXINT32, first);
      return FALSE;
    }
  if (count != V)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “count” is %" G_GINT64_FORMAT " but “views” is %u", ctx, count, V);
      return FALSE;
    }
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  for (guint v = vf; v < vf + vc; v++)
    {
      if (check_cancelled (cancellable, error))
        return FALSE;
      gint64 index = first + v;
      g_autofree char *name = zero_pad
        ? g_strdup_printf ("%s%0*" G_GINT64_FORMAT "%s", prefix, width, index, suffix)
        : g_strdup_printf ("%s%*" G_GINT64_FORMAT "%s", prefix, width, index, suffix);
      g_autofree char *path = ctr_dataset_resolve (d, base_dir, name);
      g_autofree char *what = g_strdup_printf ("view %u (key “pattern”)", v);
      g_autofree float *img = read_checked (path, 1, g->n_rows, g->n_cols, NULL, rows, claim, ctx, what, bytes,
                                            error);
      if (img == NULL)
        return FALSE;
      memcpy (ctr_projections_view (p, v - vf), img, plane * sizeof (float));
    }
  return TRUE;
}

CtrProjections *
ctr_dataset_read_projections (CtrDataset *d, JsonObject *spec, const char *spec_key, const CtrGeometry *g,
                              CtrProjKind kind, const char *base_dir, const char *where, const CtrDatasetPart *part,
                              guint64 *bytes, GCancellable *cancellable, GError **error)
{
  g_autofree char *ctx = g_strdup_printf ("%s, “%s”", where, spec_key);
  const char *layout;
  if (!ctr_json_get_string (spec, "layout", TRUE, &layout, ctx, error))
    return NULL;

  const guint V = g->n_views, R = g->n_rows, C = g->n_cols;
  /* The rows and views read: all, or the part's. */
  const gboolean by_rows = part != NULL && part->axis == CTR_DATASET_ROWS;
  const gboolean by_views = part != NULL && part->axis == CTR_DATASET_VIEWS;
  const CtrTiffRange rows = by_rows ? (CtrTiffRange) { part->first, part->count } : (CtrTiffRange) { 0, R };
  const CtrTiffRange views = by_views ? (CtrTiffRange) { part->first, part->count } : (CtrTiffRange) { 0, V };
  g_return_val_if_fail (part == NULL || ctr_dataset_layout_splits (spec), NULL);

  if (g_str_equal (layout, "dicom"))
    {
      /* A folder of DICOM projections (ctr-dicom.h); the JSON's geometry wins. */
      const char *folder;
      if (!ctr_json_get_string (spec, "folder", TRUE, &folder, ctx, error))
        return NULL;
      g_autofree char *path = ctr_dataset_resolve (d, base_dir, folder);
      CtrProjections *dp = ctr_dicom_load_projections (path, g, cancellable, error);
      if (dp == NULL)
        g_prefix_error (error, "%s, the key “folder”: ", ctx);
      return dp;
    }

  if (g_str_equal (layout, "nexus"))
    return load_nexus (d, spec, g, kind, base_dir, ctx, cancellable, error);

  SampleClaim claim = { kind, NULL, 0, 0 };
  if (!ctr_json_get_string (spec, "dtype", FALSE, &claim.dtype, ctx, error))
    return NULL;
  g_autoptr (CtrProjections) p = NULL;
  if (g_str_equal (layout, "sinogram") || g_str_equal (layout, "view_pages"))
    {
      const char *file;
      if (!ctr_json_get_string (spec, "file", TRUE, &file, ctx, error))
        return NULL;
      g_autofree char *path = ctr_dataset_resolve (d, base_dir, file);
      if (check_cancelled (cancellable, error))
        return NULL;
      const gboolean sino = g_str_equal (layout, "sinogram");
      /* sinogram: a page per row, line = view; view_pages: a page per view, line = row. */
      g_autofree float *data = sino ? read_checked (path, R, V, C, &rows, &views, &claim, ctx, "the key “file”",
                                                    bytes, error)
                                    : read_checked (path, V, R, C, &views, &rows, &claim, ctx, "the key “file”",
                                                    bytes, error);
      if (data == NULL)
        return NULL;
      p = ctr_projections_new (views.count, rows.count, C, kind, error);
      if (p == NULL)
        return NULL;
      if (!sino || rows.count == 1)
        {
          g_free (p->data);
          p->data = g_steal_pointer (&data);
        }
      else
        {
          const gsize plane = (gsize) rows.count * C;
          for (guint r = 0; r < rows.count; r++)
            for (guint v = 0; v < views.count; v++)
              memcpy (p->data + (gsize) v * plane + (gsize) r * C,
                      data + ((gsize) r * views.count + v) * C, C * sizeof (float));
        }
    }
  else if (g_str_equal (layout, "one_file_per_view"))
    {
      p = ctr_projections_new (views.count, rows.count, C, kind, error);
      if (p == NULL
          || !read_view_files (d, spec, g, base_dir, ctx, views.first, views.count, &rows, &claim, p, bytes,
                               cancellable, error))
        return NULL;
    }
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “layout” is “%s”; expected “sinogram”, “view_pages”, "
                   "“one_file_per_view”, “dicom” or “nexus”", ctx, layout);
      return NULL;
    }
  return g_steal_pointer (&p);
}

/* A flat or dark image: @R × @C, several pages are averaged. */
static float *
load_field (const char *path, guint R, guint C, const char *where, const char *key, GError **error)
{
  CtrTiffInfo info;
  g_autoptr (GError) local = NULL;
  g_autofree float *data = ctr_tiff_read (path, &info, &local);
  if (data == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: the key “%s”: ", where, key);
      return NULL;
    }
  if (info.height != R || info.width != C)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “%s”: %s is %u lines × %u samples, expected the detector's %u rows × %u columns",
                   where, key, path, info.height, info.width, R, C);
      return NULL;
    }
  const gsize plane = (gsize) R * C;
  for (guint k = 1; k < info.pages; k++)
    for (gsize i = 0; i < plane; i++)
      data[i] += data[k * plane + i];
  if (info.pages > 1)
    {
      for (gsize i = 0; i < plane; i++)
        data[i] /= info.pages;
      /* the mean plane kept (a shrink that fails keeps the whole block) */
      float *shrunk = g_try_realloc_n (data, plane, sizeof (float));
      if (shrunk != NULL)
        data = shrunk;
    }
  return g_steal_pointer (&data);
}

gboolean
ctr_dataset_read_counts_fields (CtrDataset *d, CtrProjections *p, JsonObject *root, JsonObject *spec, const char *base_dir,
                    const char *where, GCancellable *cancellable, GError **error)
{
  const char *keys[] = { "flat", "dark" };
  float **dst[] = { &p->flat, &p->dark };
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      const char *file = NULL;
      JsonObject *o = json_object_has_member (spec, keys[k]) ? spec : root;
      if (!ctr_json_get_string (o, keys[k], FALSE, &file, where, error))
        return FALSE;
      if (file == NULL)
        continue;
      if (check_cancelled (cancellable, error))
        return FALSE;
      g_autofree char *path = ctr_dataset_resolve (d, base_dir, file);
      g_free (*dst[k]);   /* a NeXus file's own, replaced */
      *dst[k] = load_field (path, p->n_rows, p->n_cols, where, keys[k], error);
      if (*dst[k] == NULL)
        return FALSE;
    }
  JsonObject *o = json_object_has_member (spec, "I0") ? spec : root;
  if (!ctr_json_get_double (o, "I0", FALSE, 0.0, &p->i0, where, error))
    return FALSE;
  if (p->i0 < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “I0” must be positive, got %g",
                   where, p->i0);
      return FALSE;
    }
  if (p->flat == NULL && p->i0 <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “kind” is “counts” but neither “flat” nor “I0” is given", where);
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_dataset_read_photon_count (CtrProjections *p, JsonObject *root, JsonObject *spec, const char *where,
                   GError **error)
{
  JsonObject *o = json_object_has_member (spec, "I0") ? spec : root;
  if (!json_object_has_member (o, "I0"))
    return TRUE;   /* keeps what the projections brought (DICOM PhotonStatistics) */
  double i0;
  if (!ctr_json_get_double (o, "I0", TRUE, 0.0, &i0, where, error))
    return FALSE;
  if (!(i0 > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “I0” must be positive, got %g",
                   where, i0);
      return FALSE;
    }
  p->i0 = i0;
  return TRUE;
}


/* The rows @first .. @first + @count − 1 of a @C-column detector plane
 * into *@out (NULL for NULL). */
static gboolean
plane_rows (const float *plane, guint first, guint count, guint C, float **out, GError **error)
{
  *out = NULL;
  if (plane == NULL)
    return TRUE;
  *out = ctr_memory_try_new ((gsize) count * C, sizeof (float), FALSE, "a part of the flat or dark field", error);
  if (*out != NULL)
    memcpy (*out, plane + (gsize) first * C, (gsize) count * C * sizeof (float));
  return *out != NULL;
}

gboolean
ctr_dataset_read_part_fields (CtrDataset *d, CtrProjections *p, const CtrGeometry *g, const CtrDatasetPart *part,
                              JsonObject *root, JsonObject *spec, const char *base_dir, const char *where,
                              double *masked_fraction, GCancellable *cancellable, GError **error)
{
  /* The whole detector plane: the flat and dark as the files hold them,
   * the flat converted as one view (flat and dark stay) so that the
   * open-beam checks (a dead row, no open beam anywhere) and the masked
   * fraction are the whole read's. */
  g_autoptr (CtrProjections) w = ctr_projections_new (1, g->n_rows, g->n_cols, CTR_PROJ_COUNTS, error);
  if (w == NULL || !ctr_dataset_read_counts_fields (d, w, root, spec, base_dir, where, cancellable, error))
    return FALSE;
  const gsize plane = (gsize) g->n_rows * g->n_cols;
  for (gsize i = 0; i < plane; i++)
    w->data[i] = w->flat != NULL ? w->flat[i] : (float) w->i0;
  if (!ctr_projections_to_line_integrals (w, error))
    {
      g_prefix_error (error, "%s: ", where);
      return FALSE;
    }
  *masked_fraction = ctr_projections_masked_fraction (w);
  const gboolean rows = part->axis == CTR_DATASET_ROWS;
  const guint first = rows ? part->first : 0, count = rows ? part->count : g->n_rows;
  float *flat = NULL, *dark = NULL;
  if (!plane_rows (w->flat, first, count, g->n_cols, &flat, error)
      || !plane_rows (w->dark, first, count, g->n_cols, &dark, error))
    {
      g_free (flat);
      return FALSE;
    }
  ctr_projections_take_planes (p, flat, dark, NULL);
  p->i0 = w->i0;
  return TRUE;
}
