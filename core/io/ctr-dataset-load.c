/* ctr-dataset-load.c — geometry.json (shared/data/FORMAT.md) → CtrDataset,
 * and ctr_dataset_load's dispatch to the DICOM reader (ctr-dicom.h).
 *
 * Keys and conventions are FORMAT.md's; every error names the file and the
 * key.  Unknown keys are ignored, as FORMAT.md asks of readers.
 */
#include "io/ctr-dataset.h"
#include "io/ctr-geometry-json.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "io/ctr-file.h"
#include "io/ctr-tiff.h"
#include "io/ctr-dicom.h"
#include "io/ctr-nexus.h"
#include "io/ctr-json.h"
#include "io/ctr-json-get.h"
#include "io/ctr-dataset-correct.h"
#include "io/ctr-dataset-read.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Geometry                                                                  */

static JsonParser *
parse_json (const char *text, gssize length, const char *where, JsonObject **root_out, GError **error)
{
  g_autoptr (JsonParser) parser = ctr_json_parse (text, length, where, error);
  if (parser == NULL)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the file must hold one JSON object ({ \"type\": ..., \"views\": ..., ... })", where);
      return NULL;
    }
  *root_out = json_node_get_object (root);
  return g_steal_pointer (&parser);
}

static CtrGeometry *
geometry_from_object (JsonObject *o, const char *where, GError **error)
{
  const char *type, *shape = NULL;
  if (!ctr_json_get_string (o, "type", TRUE, &type, where, error))
    return NULL;

  CtrBeam beam;
  const gboolean helical = g_str_equal (type, "helical");
  if (g_str_equal (type, "parallel"))
    beam = CTR_BEAM_PARALLEL;
  else if (g_str_equal (type, "fan"))
    beam = CTR_BEAM_FAN;
  else if (g_str_equal (type, "cone") || helical)
    beam = CTR_BEAM_CONE;
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “type” is “%s”; expected “parallel”, “fan”, “cone” or “helical”", where, type);
      return NULL;
    }

  guint views, cols, rows;
  if (!ctr_json_get_size (o, "views", TRUE, 0, &views, where, error)
      || !ctr_json_get_size (o, "detector_cols", TRUE, 0, &cols, where, error)
      || !ctr_json_get_size (o, "detector_rows", FALSE, 1, &rows, where, error))
    return NULL;
  /* Sizes before allocations: "views": 1e9 must not take the machine's
   * memory (or abort in the allocator) before it is refused.  What the
   * dataset needs at least: the angles and the projections as float32. */
  g_autofree char *what = g_strdup_printf ("%s: %u views × %u rows × %u columns", where, views, rows, cols);
  const guint64 need = ctr_memory_add (ctr_memory_mul (views, sizeof (double)),
                                       ctr_memory_mul (ctr_memory_mul (views, rows), ctr_memory_mul (cols, sizeof (float))));
  if (!ctr_memory_check (need, what, error))
    return NULL;
  if (json_object_has_member (o, "vectors") && (helical || ctr_geometry_json_has_helix (o)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: “vectors” and a helical source path (“type”: “helical”, source z, feed, focal-spot "
                   "shifts) do not go together; put the helix into the vectors, or leave them out",
                   where);
      return NULL;
    }
  if (json_object_has_member (o, "vectors"))  /* per-view vectors: ctr-geometry-vectors.h */
    return ctr_geometry_json_read_vectors (o, beam, views, rows, cols, where, error);
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (beam, views, error);
  if (g == NULL)
    return NULL;
  g->n_cols = cols;
  g->n_rows = rows;

  g->shape = CTR_DETECTOR_FLAT;
  if (beam == CTR_BEAM_FAN || beam == CTR_BEAM_CONE)
    {
      if (!ctr_json_get_string (o, "detector_shape", TRUE, &shape, where, error))
        return NULL;
      if (g_str_equal (shape, "curved"))
        g->shape = CTR_DETECTOR_CURVED;
      else if (!g_str_equal (shape, "flat"))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “detector_shape” is “%s”; expected “flat” or “curved”", where, shape);
          return NULL;
        }
      if (!ctr_json_get_double (o, "source_to_isocenter_mm", TRUE, 0, &g->sod_mm, where, error)
          || !ctr_json_get_double (o, "source_to_detector_mm", TRUE, 0, &g->sdd_mm, where, error))
        return NULL;
      if (g->sod_mm <= 0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the key “source_to_isocenter_mm” must be positive, got %g", where, g->sod_mm);
          return NULL;
        }
      if (g->sdd_mm <= g->sod_mm)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the key “source_to_detector_mm” (%g) must exceed “source_to_isocenter_mm” (%g)",
                       where, g->sdd_mm, g->sod_mm);
          return NULL;
        }
    }

  /* Columns: radians on a curved detector, mm otherwise (FORMAT.md). */
  const char *pitch_u_key = g->shape == CTR_DETECTOR_CURVED ? "detector_pitch_u_rad" : "detector_pitch_u_mm";
  const char *offset_u_key = g->shape == CTR_DETECTOR_CURVED ? "detector_offset_u_rad" : "detector_offset_u_mm";
  if (!ctr_json_get_double (o, pitch_u_key, TRUE, 0, &g->pitch_u, where, error)
      || !ctr_json_get_double (o, offset_u_key, FALSE, 0, &g->offset_u, where, error))
    return NULL;
  if (g->pitch_u <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “%s” must be positive, got %g", where, pitch_u_key, g->pitch_u);
      return NULL;
    }
  /* The row pitch matters only with several rows; a single-row (2-D) fan or
   * parallel-beam file may leave it out: its slice is then as thick as the
   * file's "slice_thickness_mm" states (at the isocentre), else 1 mm. */
  double thickness = 1.0;
  if (g->n_rows == 1 && g->beam != CTR_BEAM_CONE
      && !ctr_json_get_double (o, "slice_thickness_mm", FALSE, 1.0, &thickness, where, error))
    return NULL;
  if (!(isfinite (thickness) && thickness > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “slice_thickness_mm” must be positive, got %g", where, thickness);
      return NULL;
    }
  if (!ctr_json_get_double (o, "detector_pitch_v_mm", g->n_rows > 1, thickness, &g->pitch_v_mm, where, error)
      || !ctr_json_get_double (o, "detector_offset_v_mm", FALSE, 0, &g->offset_v_mm, where, error)
      || !ctr_json_get_bool (o, "rows_increase_with_v", TRUE, &g->rows_increase_with_v, where, error)
      || !ctr_json_get_bool (o, "pixel_size_known", TRUE, &g->pixel_size_known, where, error))
    return NULL;
  if (g->pitch_v_mm <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “detector_pitch_v_mm” must be positive, got %g", where, g->pitch_v_mm);
      return NULL;
    }

  /* Angles: the explicit list, else start + k·step. */
  guint n_angles = 0;
  g_autofree double *angles = NULL;
  if (!ctr_json_get_numbers (o, "angles_rad", &angles, &n_angles, where, error))
    return NULL;
  if (angles != NULL)
    {
      if (n_angles != views)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the key “angles_rad” has %u entries but “views” is %u", where, n_angles, views);
          return NULL;
        }
      memcpy (g->angles, angles, views * sizeof (double));
    }
  else if (json_object_has_member (o, "angle_start_rad") && json_object_has_member (o, "angle_step_rad"))
    {
      double start, step;
      if (!ctr_json_get_double (o, "angle_start_rad", TRUE, 0, &start, where, error)
          || !ctr_json_get_double (o, "angle_step_rad", TRUE, 0, &step, where, error))
        return NULL;
      ctr_geometry_set_uniform_angles (g, start, step);
    }
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “angles_rad” is missing (nor are “angle_start_rad” and “angle_step_rad” given)",
                   where);
      return NULL;
    }

  if (beam == CTR_BEAM_CONE && !ctr_geometry_json_read_helix (o, g, helical, where, error))
    return NULL;

  if (!ctr_geometry_validate (g, error))
    {
      g_prefix_error (error, "%s: ", where);
      return NULL;
    }
  if (helical && !ctr_geometry_json_check_feed (o, g, where, error))
    return NULL;
  return g_steal_pointer (&g);
}

CtrGeometry *
ctr_dataset_parse_geometry (const char *json_text, gssize length, GError **error)
{
  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  JsonObject *root = NULL;
  g_autoptr (JsonParser) parser = parse_json (json_text, length, "geometry text", &root, error);
  if (parser == NULL)
    return NULL;
  return geometry_from_object (root, "geometry text", error);
}

CtrGeometry *
ctr_dataset_read_geometry (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_autofree char *abs_path = g_canonicalize_filename (path, NULL);
  g_autoptr (JsonParser) parser = ctr_json_parse_file (abs_path, error);
  if (parser == NULL)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the file must hold one JSON object ({ \"type\": ..., \"views\": ..., ... })", abs_path);
      return NULL;
    }
  return geometry_from_object (json_node_get_object (root), abs_path, error);
}

/* ------------------------------------------------------------------------ */
/* Projection files: ctr-dataset-read.c                                      */

static gboolean
check_cancelled (GCancellable *cancellable, GError **error)
{
  return g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* ------------------------------------------------------------------------ */
/* Reference image                                                           */

static CtrVolume *
load_reference (CtrDataset *d, JsonObject *ref, const CtrGeometry *g, const char *base_dir, const char *where,
                GError **error)
{
  g_autofree char *ctx = g_strdup_printf ("%s, “reference”", where);
  const char *file, *unit;
  if (!ctr_json_get_string (ref, "file", TRUE, &file, ctx, error)
      || !ctr_json_get_string (ref, "unit", FALSE, &unit, ctx, error))
    return NULL;
  g_autofree char *path = ctr_dataset_resolve (d, base_dir, file);
  CtrTiffInfo info;
  g_autoptr (GError) local = NULL;
  g_autofree float *data = ctr_tiff_read (path, &info, &local);
  if (data == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: the key “file”: ", ctx);
      return NULL;
    }

  /* Pages = slices from the lowest z up, row 0 = +y, column 0 = -x (FORMAT.md). */
  CtrGrid grid = { info.width, info.height, info.pages, 0, 0, g->pitch_v_mm, 0, 0, 0 };
  guint n;
  g_autofree double *shape = NULL, *spacing = NULL, *center = NULL;
  if (!ctr_json_get_numbers (ref, "shape_zyx", &shape, &n, ctx, error))
    return NULL;
  if (shape != NULL)
    {
      if (n != 3 || shape[0] != info.pages || shape[1] != info.height || shape[2] != info.width)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “shape_zyx” disagrees with %s (%u pages of %u × %u)",
                       ctx, path, info.pages, info.height, info.width);
          return NULL;
        }
    }
  const char *dims[] = { "rows", "cols" };
  const guint found[] = { info.height, info.width };
  for (guint k = 0; k < 2; k++)
    {
      gint64 v;
      if (!ctr_json_get_int (ref, dims[k], FALSE, found[k], &v, ctx, error))
        return NULL;
      if (v != found[k])
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “%s” is %" G_GINT64_FORMAT " but %s has %u %s",
                       ctx, dims[k], v, path, found[k], k == 0 ? "lines" : "samples");
          return NULL;
        }
    }

  if (!ctr_json_get_numbers (ref, "spacing_xyz_mm", &spacing, &n, ctx, error))
    return NULL;
  if (spacing != NULL)
    {
      if (n != 3)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “spacing_xyz_mm” must hold 3 numbers, got %u", ctx, n);
          return NULL;
        }
      grid.dx = spacing[0];
      grid.dy = spacing[1];
      grid.dz = spacing[2];
    }
  else
    {
      if (!ctr_json_get_double (ref, "pixel_size_mm", TRUE, 0, &grid.dx, ctx, error))
        {
          g_prefix_error (error, "(or “spacing_xyz_mm”) ");
          return NULL;
        }
      grid.dy = grid.dx;
    }
  if (!(grid.dx > 0 && grid.dy > 0 && grid.dz > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “%s” must give positive sizes", ctx,
                   spacing != NULL ? "spacing_xyz_mm" : "pixel_size_mm");
      return NULL;
    }

  g_autofree double *zs = NULL;
  if (!ctr_json_get_numbers (ref, "z_mm", &zs, &n, ctx, error))
    return NULL;
  if (zs != NULL)
    {
      /* The slices' z (a helical scan's reference): uniform, one per page. */
      const double dz = n > 1 ? (zs[n - 1] - zs[0]) / (n - 1) : grid.dz;
      gboolean ok = n == info.pages && dz > 0;
      for (guint k = 0; ok && k < n; k++)
        ok = fabs (zs[k] - (zs[0] + k * dz)) <= 1e-3 * dz;
      if (!ok || (spacing != NULL && fabs (dz - grid.dz) > 1e-3 * dz))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “z_mm” must list one increasing, evenly spaced z per page (%u pages%s)",
                       ctx, info.pages, spacing != NULL ? ", spaced as “spacing_xyz_mm” says" : "");
          return NULL;
        }
      grid.dz = dz;
      grid.cz = 0.5 * (zs[0] + zs[n - 1]);
    }
  if (!ctr_json_get_numbers (ref, "center_mm", &center, &n, ctx, error))
    return NULL;
  if (center != NULL)
    {
      if (n != 2 && n != 3)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “center_mm” must hold 2 or 3 numbers, got %u", ctx, n);
          return NULL;
        }
      grid.cx = center[0];
      grid.cy = center[1];
      if (n == 3)
        grid.cz = center[2];
    }

  g_autoptr (CtrVolume) vol = ctr_volume_new (&grid, &local);
  if (vol == NULL)
    {
      g_set_error (error, CTR_ERROR, local->code == CTR_ERROR_OUT_OF_MEMORY ? CTR_ERROR_OUT_OF_MEMORY
                                                                            : CTR_ERROR_FORMAT,
                   "%s: %s", ctx, local->message);
      return NULL;
    }
  g_free (vol->data);
  vol->data = g_steal_pointer (&data);
  ctr_volume_set_unit (vol, unit != NULL ? unit : g->pixel_size_known ? "1/mm" : "1/pixel");
  return g_steal_pointer (&vol);
}


/* ------------------------------------------------------------------------ */
/* A part of the projections (ctr_dataset_load_part)                         */

/* Why @part cannot be read alone (transfer full), or NULL when it can: a
 * layout read whole, or a correction that needs rows or views the part
 * lacks (docs/design.md §10, "Each rank reads its share", step by step). */
static char *
whole_reason (JsonObject *root, JsonObject *spec, const CtrPipeline *replace, const CtrDatasetPart *part)
{
  if (!ctr_dataset_layout_splits (spec))
    return g_strdup ("the layout is read whole (only TIFF layouts are read in parts)");
  JsonNode *own = json_object_get_member (root, "preprocess");
  const gboolean has_own = own != NULL && !(JSON_NODE_HOLDS_ARRAY (own) && json_array_get_length (
                                                                           json_node_get_array (own)) == 0);
  if (replace != NULL ? replace->n_steps > 0 : has_own)
    return g_strdup ("the preprocessing pipeline runs on the whole projections (its steps and their notes "
                     "count over every row and view)");
  JsonNode *tilt = json_object_get_member (root, "detector_tilt_rad");
  if (tilt != NULL && JSON_NODE_HOLDS_VALUE (tilt) && json_node_get_double (tilt) != 0)
    return g_strdup ("the detector tilt is resampled on the whole detector");
  return NULL;
}

static gboolean
check_part (const CtrGeometry *g, const CtrDatasetPart *part, const char *where, GError **error)
{
  const guint n = part->axis == CTR_DATASET_ROWS ? g->n_rows : g->n_views;
  if (part->first + (guint64) part->count <= n)
    return TRUE;
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%s: %s %u-%u asked for; the scan has %u", where,
               part->axis == CTR_DATASET_ROWS ? "rows" : "views", part->first, part->first + part->count - 1, n);
  return FALSE;
}

/* A copy of @n planes' rows @first .. @first + @count − 1 (@size bytes per
 * sample, @R × @C per plane); NULL for NULL. */
static gpointer
copy_rows (gconstpointer src, guint n, guint R, guint C, guint first, guint count, gsize size, GError **error)
{
  if (src == NULL)
    return NULL;
  guint8 *out = ctr_memory_try_new (ctr_memory_mul ((gsize) n * count, C), size, FALSE, "a part of the projections",
                                    error);
  for (guint k = 0; out != NULL && k < n; k++)
    memcpy (out + (gsize) k * count * C * size, (const guint8 *) src + ((gsize) k * R + first) * C * size,
            (gsize) count * C * size);
  return out;
}

/* @d's projections (read whole, @why) cut to @part. */
static gboolean
cut_part (CtrDataset *d, const CtrDatasetPart *part, const char *why, GError **error)
{
  if (!check_part (d->geometry, part, d->path != NULL ? d->path : d->name, error))
    return FALSE;
  d->partial = TRUE;
  d->part = *part;
  const CtrProjections *w = d->projections;
  const guint R = w->n_rows, C = w->n_cols;
  d->read_note = g_strdup_printf ("read the whole dataset (%s; %" G_GUINT64_FORMAT " bytes of pixel data) and kept "
                                  "%s %u-%u of %u", why, d->bytes_read,
                                  part->axis == CTR_DATASET_ROWS ? "rows" : "views", part->first,
                                  part->first + part->count - 1,
                                  part->axis == CTR_DATASET_ROWS ? w->n_rows : w->n_views);
  if (part->count == 0)
    {
      g_clear_pointer (&d->projections, ctr_projections_unref);
      return TRUE;
    }
  const gboolean rows = part->axis == CTR_DATASET_ROWS;
  g_autoptr (CtrProjections) p = ctr_projections_new (rows ? w->n_views : part->count, rows ? part->count : R, C,
                                                      w->kind, error);
  if (p == NULL)
    return FALSE;
  const guint first = rows ? part->first : 0, count = rows ? part->count : R;
  if (rows)
    {
      g_free (p->data);
      p->data = copy_rows (w->data, w->n_views, R, C, first, count, sizeof (float), error);
    }
  else
    memcpy (p->data, ctr_projections_view (w, part->first), (gsize) part->count * R * C * sizeof (float));
  GError *e = NULL;
  ctr_projections_take_planes (p, copy_rows (w->flat, 1, R, C, first, count, sizeof (float), &e),
                               copy_rows (w->dark, 1, R, C, first, count, sizeof (float), &e),
                               copy_rows (w->mask, 1, R, C, first, count, 1, &e));
  if (p->data == NULL || e != NULL)
    {
      if (e == NULL)
        g_set_error (&e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "no memory for a part of the projections");
      g_propagate_error (error, e);
      return FALSE;
    }
  p->i0 = w->i0;
  d->masked_fraction = ctr_projections_masked_fraction (w);
  ctr_projections_unref (d->projections);
  d->projections = g_steal_pointer (&p);
  return TRUE;
}

/* The projections of @spec into @d as line integrals, corrected (@replace
 * or the file's pipeline, the tilt): all, or @part's (nullable) rows or
 * views only (->split). */
static gboolean
load_pixels (CtrDataset *d, JsonObject *root, JsonObject *spec, const char *spec_key, CtrProjKind kind,
             const char *base_dir, const CtrPipeline *replace, const CtrDatasetPart *part,
             GCancellable *cancellable, GError **error)
{
  const char *where = d->path;
  if (part != NULL && !check_part (d->geometry, part, where, error))
    return FALSE;
  d->projections = ctr_dataset_read_projections (d, spec, spec_key, d->geometry, kind, base_dir, where, part,
                                                 &d->bytes_read, cancellable, error);
  if (d->projections == NULL)
    return FALSE;
  if (kind == CTR_PROJ_COUNTS
      && !(part != NULL ? ctr_dataset_read_part_fields (d, d->projections, d->geometry, part, root, spec, base_dir,
                                                        where, &d->masked_fraction, cancellable, error)
                        : ctr_dataset_read_counts_fields (d, d->projections, root, spec, base_dir, where, cancellable,
                                                          error)))
    return FALSE;
  if (kind == CTR_PROJ_LINE_INTEGRALS && !ctr_dataset_read_photon_count (d->projections, root, spec, where, error))
    return FALSE;
  if (!ctr_projections_check_finite (d->projections, error)
      || !ctr_projections_to_line_integrals (d->projections, error))
    {
      g_prefix_error (error, "%s, “%s”: ", where, spec_key);
      return FALSE;
    }
  if (part != NULL)
    {
      const gboolean rows = part->axis == CTR_DATASET_ROWS;
      d->partial = d->split = d->claims_pending = TRUE;
      d->part = *part;
      d->read_note = g_strdup_printf ("read %s %u-%u of %u: %" G_GUINT64_FORMAT " bytes of pixel data",
                                      rows ? "rows" : "views", part->first, part->first + part->count - 1,
                                      rows ? d->geometry->n_rows : d->geometry->n_views, d->bytes_read);
    }
  /* A split part has neither pipeline nor tilt (whole_reason). */
  return ctr_dataset_correct (d, root, replace, where, error);
}

CtrDataset *
ctr_dataset_load (const char *path, const char *variant, GCancellable *cancellable, GError **error)
{
  return ctr_dataset_load_preprocessed (path, variant, NULL, cancellable, error);
}

CtrDataset *
ctr_dataset_load_preprocessed (const char *path, const char *variant, const CtrPipeline *replace,
                               GCancellable *cancellable, GError **error)
{
  return ctr_dataset_load_part (path, variant, replace, NULL, cancellable, error);
}

CtrDataset *
ctr_dataset_load_part (const char *path, const char *variant, const CtrPipeline *replace,
                       const CtrDatasetPart *part, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (check_cancelled (cancellable, error))
    return NULL;

  /* A dataset's folder stands for its geometry.json (as the data's folders
   * are named in their README); a folder without one may be DICOM. */
  g_autofree char *in_folder = g_build_filename (path, "geometry.json", NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && g_file_test (in_folder, G_FILE_TEST_IS_REGULAR))
    path = in_folder;

  /* A DICOM file or folder (DICM preamble) instead of a geometry.json. */
  if (ctr_dicom_is_dicom (path))
    {
      if (variant != NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: DICOM input has no variants (asked for “%s”)",
                       path, variant);
          return NULL;
        }
      g_autoptr (CtrDataset) dd = ctr_dicom_load_dataset (path, NULL, cancellable, error);
      if (dd == NULL || (replace != NULL && !ctr_dataset_apply_pipeline (dd, replace, error))
          || (part != NULL && !cut_part (dd, part, "DICOM projections are read whole", error)))
        return NULL;
      return g_steal_pointer (&dd);
    }

  /* A NeXus, Nikon or SkyScan scan file: read as DICOM is. */
  gboolean foreign = FALSE;
  g_autoptr (GError) foreign_error = NULL;
  g_autoptr (CtrDataset) fd = ctr_dataset_load_foreign (path, &foreign, cancellable, &foreign_error);
  if (foreign)
    {
      if (fd == NULL)
        g_propagate_error (error, g_steal_pointer (&foreign_error));
      else if (variant != NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: a scan file has no variants (asked for “%s”)",
                     path, variant);
      else if ((replace == NULL || ctr_dataset_apply_pipeline (fd, replace, error))
               && (part == NULL || cut_part (fd, part, "a scan file is read whole", error)))
        return g_steal_pointer (&fd);
      return NULL;
    }

  g_autofree char *abs_path = g_canonicalize_filename (path, NULL);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;
  if (!ctr_file_check_regular (abs_path, error))   /* a FIFO would block the read */
    return NULL;
  if (!g_file_get_contents (abs_path, &text, &length, &local))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot read %s: %s", abs_path, local->message);
      return NULL;
    }
  JsonObject *root = NULL;
  g_autoptr (JsonParser) parser = parse_json (text, (gssize) length, abs_path, &root, error);
  if (parser == NULL)
    return NULL;

  g_autoptr (CtrDataset) d = g_new0 (CtrDataset, 1);
  d->path = g_strdup (abs_path);
  ctr_dataset_add_input (d, abs_path);
  const char *name;
  if (!ctr_json_get_string (root, "name", FALSE, &name, abs_path, error))
    return NULL;
  d->name = name != NULL ? g_strdup (name) : g_path_get_basename (abs_path);
  if (!ctr_json_get_double (root, "mu_water_per_mm", FALSE, 0.0, &d->mu_water, abs_path, error))
    return NULL;
  if (d->mu_water < 0 || (json_object_has_member (root, "mu_water_per_mm") && d->mu_water == 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “mu_water_per_mm” must be positive, got %g",
                   abs_path, d->mu_water);
      return NULL;
    }

  /* Geometry first: no point reading pixels for an impossible acquisition. */
  d->geometry = geometry_from_object (root, abs_path, error);
  if (d->geometry == NULL)
    return NULL;

  const char *kind_s;
  if (!ctr_json_get_string (root, "kind", TRUE, &kind_s, abs_path, error))
    return NULL;
  CtrProjKind kind;
  if (g_str_equal (kind_s, "line_integrals"))
    kind = CTR_PROJ_LINE_INTEGRALS;
  else if (g_str_equal (kind_s, "counts"))
    kind = CTR_PROJ_COUNTS;
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “kind” is “%s”; expected “line_integrals” or “counts”", abs_path, kind_s);
      return NULL;
    }

  JsonObject *variants = ctr_json_get_object (root, "variants", FALSE, abs_path, &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (variants != NULL)
    {
      GList *names = json_object_get_members (variants);
      GStrvBuilder *b = g_strv_builder_new ();
      for (GList *l = names; l != NULL; l = l->next)
        g_strv_builder_add (b, l->data);
      d->variants = g_strv_builder_end (b);
      g_strv_builder_unref (b);
      g_list_free (names);
    }

  JsonObject *spec;
  const char *spec_key;
  g_autofree char *variant_key = NULL;
  if (variant != NULL)
    {
      if (variants == NULL || !json_object_has_member (variants, variant))
        {
          g_autofree char *valid = d->variants != NULL && d->variants[0] != NULL
                                   ? g_strjoinv (", ", d->variants) : g_strdup ("none");
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “variants” has no entry “%s”; valid variants: %s",
                       abs_path, variant, valid);
          return NULL;
        }
      variant_key = g_strdup_printf ("variants.%s", variant);
      spec = ctr_json_get_object (variants, variant, TRUE, abs_path, error);
      spec_key = variant_key;
      d->variant = g_strdup (variant);
    }
  else
    {
      spec = ctr_json_get_object (root, "projections", TRUE, abs_path, error);
      spec_key = "projections";
    }
  if (spec == NULL)
    return NULL;

  g_autofree char *base_dir = g_path_get_dirname (abs_path);
  const gboolean pixels = part == NULL || part->count > 0;
  g_autofree char *whole_why = part != NULL ? whole_reason (root, spec, replace, part) : NULL;
  if (pixels && !load_pixels (d, root, spec, spec_key, kind, base_dir, replace, whole_why == NULL ? part : NULL,
                              cancellable, error))
    return NULL;
  if (!pixels)
    {
      if (!check_part (d->geometry, part, abs_path, error))
        return NULL;
      d->partial = TRUE;
      d->part = *part;
      d->read_note = g_strdup ("read no projections");
      /* the files it would read stay inputs (outputs are kept off them) */
      g_auto (GStrv) named = ctr_dataset_named_files (abs_path, NULL);
      for (guint i = 0; named != NULL && named[i] != NULL; i++)
        ctr_dataset_add_input (d, named[i]);
    }
  JsonObject *ref = ctr_json_get_object (root, "reference", FALSE, abs_path, &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (ref != NULL)
    {
      if (check_cancelled (cancellable, error))
        return NULL;
      d->reference = load_reference (d, ref, d->geometry, base_dir, abs_path, error);
      if (d->reference == NULL)
        return NULL;
    }
  if (!d->split)
    ctr_dataset_check_claims (d);
  if (pixels && part != NULL && !d->split && !cut_part (d, part, whole_why, error))
    return NULL;
  return g_steal_pointer (&d);
}
