/* cli-iq.c — `ctrecon-cli iq IMAGE.tif …`: task-based image quality after
 * AAPM TG-233 (core/quality/ctr-nps.h, ctr-ttf.h, ctr-detectability.h):
 *
 *   ctrecon-cli iq IMAGE.tif [MORE.tif…] --pixel-size MM [--nps-roi SPEC]… [--nps-size N]
 *       [--nps-difference SECOND.tif] [--detrend mean|plane] [--insert circle:X,Y,R]…
 *       [--ttf-centre common|each] [--task disc:D,C | designer:D,C,N] [--task-insert I] [--unit mu|hu]
 *       [--mu-water MU] [--viewing-distance MM] [--magnification M] [--json OUT.json]
 *
 * Values are converted to HU first (HU = 1000·(μ − μ_water)/μ_water, as
 * `roi` does) unless --unit hu says they are HU already, so the NPS is in
 * HU²·mm² and the contrasts in HU.  Several images (noise realisations or
 * slices of one object, all of one size) count as the pages of one.  The
 * NPS uses every page (slices), tiled with --nps-size squares wholly
 * inside the --nps-roi ROIs; with --nps-difference, the difference of the
 * two images (page 0 of IMAGE and of SECOND), halved.  The TTF of each
 * --insert is measured on the edge-spread samples pooled over every page
 * (ctr_ttf_pooled; --ttf-centre: about the centre found on the pages'
 * mean, or each page's own), or on page --slice of each image; d′
 * uses the NPS and the TTF of insert --task-insert (default 0).  ROIs in mm, x to the right, y
 * up, origin at the image centre (`roi`'s syntax).  A summary is printed;
 * --json writes (atomically):
 *
 *   {"image", "pixel_size_mm", "unit": "HU", "mu_water",
 *    "nps": {"roi_size", "rois", "difference", "detrend", "variance",
 *            "noise_sd", "f_peak", "f_avg", "radial": [[f, NPS], …]} | null,
 *    "images": [path, …], "pages",
 *    "ttf": [{"insert", "centre_mm": [x, y], "contrast", "noise_sd", "cnr",
 *             "images_pooled", "cnr_single", "centre",
 *             "radius_mm", "f50", "f10", "curve": [[f, TTF], …]}, …],
 *    "dprime": {"task", "npw", "npwe", "viewing_distance_mm",
 *               "magnification"} | null}
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"

typedef struct {
  double pixel_mm, mu_water, viewing_mm, magnification;
  int slice, nps_size, task_insert;
  char **inserts, **nps_rois;
  char *difference, *detrend, *task, *unit, *json, *centre;
} Options;

/* The volume in HU (in place) unless it is HU already. */
static void
to_hu (CtrVolume *v, const Options *o)
{
  if (g_strcmp0 (o->unit, "hu") == 0)
    return;
  gsize n = ctr_grid_size (&v->grid);
  for (gsize i = 0; i < n; i++)
    v->data[i] = (float) (1000.0 * (v->data[i] - o->mu_water) / o->mu_water);
}

static void
add_pairs (JsonBuilder *b, const char *name, const double *x, const double *y, guint n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_array (b);
      json_builder_add_double_value (b, x[i]);
      json_builder_add_double_value (b, isfinite (y[i]) ? y[i] : 0);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
}

/* The NPS over every slice (or of the halved difference with @second). */
static CtrNps *
measure_nps (const CtrVolume *v, const float *const *pages, guint n_pages, const CtrVolume *second,
             const Options *o, GError **error)
{
  const CtrGrid *g = &v->grid;
  g_autofree guint *corners = NULL;   /* every ROI's, in turn */
  gsize n_corners = 0;
  for (guint r = 0; o->nps_rois[r] != NULL; r++)
    {
      CtrRoi roi;
      if (!ctr_cli_parse_roi (o->nps_rois[r], "--nps-roi", &roi, error))
        return NULL;
      g_autofree guint8 *mask = ctr_roi_mask (g, &roi, NULL, error);
      if (mask == NULL)
        return NULL;
      guint count = 0;
      g_autoptr (GError) local = NULL;
      g_autofree guint *c = ctr_nps_tile (mask, g->nx, g->ny, (guint) o->nps_size, &count, &local);
      if (local != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      if (count == 0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "--nps-roi %s holds no %d × %d square of the image (make it larger or "
                       "--nps-size smaller)", o->nps_rois[r], o->nps_size, o->nps_size);
          return NULL;
        }
      guint *grown = g_try_realloc_n (corners, 2 * (n_corners + count), sizeof (guint));
      if (grown == NULL)
        {
          ctr_memory_set_error (error, 2 * (guint64) (n_corners + count) * sizeof (guint), "the NPS squares' corners");
          return NULL;
        }
      corners = grown;
      memcpy (corners + 2 * n_corners, c, 2 * (gsize) count * sizeof (guint));
      n_corners += count;
    }
  CtrNpsDetrend detrend = g_strcmp0 (o->detrend, "plane") == 0 ? CTR_NPS_DETREND_PLANE : CTR_NPS_DETREND_MEAN;
  if (second != NULL)
    return ctr_nps_difference (ctr_volume_slice (v, 0), ctr_volume_slice (second, 0), g->nx, g->ny,
                               g->dx, corners, (guint) n_corners, (guint) o->nps_size, detrend, error);
  return ctr_nps_compute (pages, n_pages, g->nx, g->ny, g->dx, corners, (guint) n_corners,
                          (guint) o->nps_size, detrend, 1.0, error);
}

static void
add_nps (JsonBuilder *b, const CtrNps *nps, const Options *o)
{
  json_builder_set_member_name (b, "nps");
  if (nps == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "roi_size");
  json_builder_add_int_value (b, nps->n);
  json_builder_set_member_name (b, "rois");
  json_builder_add_int_value (b, nps->n_rois);
  json_builder_set_member_name (b, "difference");
  json_builder_add_boolean_value (b, o->difference != NULL);
  json_builder_set_member_name (b, "detrend");
  json_builder_add_string_value (b, g_strcmp0 (o->detrend, "plane") == 0 ? "plane" : "mean");
  ctr_cli_json_number (b, "variance", nps->variance);
  ctr_cli_json_number (b, "noise_sd", nps->noise_sd);
  ctr_cli_json_number (b, "f_peak", nps->f_peak);
  ctr_cli_json_number (b, "f_avg", nps->f_avg);
  add_pairs (b, "radial", nps->radial_f, nps->radial_nps, nps->n_radial);
  json_builder_end_object (b);
  printf ("NPS: %u ROIs of %u × %u, noise %.4g HU, f_peak %.3f, f_avg %.3f cycles/mm\n", nps->n_rois,
          nps->n, nps->n, nps->noise_sd, nps->f_peak, nps->f_avg);
}

/* The TTF of each insert pooled over @slices (every page, or page --slice
 * of each image), added to "ttf"; @ttfs receives them. */
static gboolean
measure_ttfs (const CtrVolume *v, const float *const *slices, guint n, const Options *o, JsonBuilder *b,
              GPtrArray *ttfs, GError **error)
{
  const CtrGrid *g = &v->grid;
  const CtrTtfCentre centre = g_strcmp0 (o->centre, "each") == 0 ? CTR_TTF_CENTRE_EACH : CTR_TTF_CENTRE_COMMON;
  json_builder_set_member_name (b, "ttf");
  json_builder_begin_array (b);
  for (guint i = 0; o->inserts != NULL && o->inserts[i] != NULL; i++)
    {
      CtrRoi roi;
      if (!ctr_cli_parse_roi (o->inserts[i], "--insert", &roi, error))
        return FALSE;
      if (roi.shape != CTR_ROI_CIRCLE)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--insert %s: an insert is a circle (circle:X,Y,R)", o->inserts[i]);
          return FALSE;
        }
      double cx = (roi.x_mm - g->cx) / g->dx + (g->nx - 1) * 0.5;
      double cy = (g->ny - 1) * 0.5 - (roi.y_mm - g->cy) / g->dy;
      CtrTtf *t = ctr_ttf_pooled (slices, n, g->nx, g->ny, g->dx, cx, cy, roi.radius_mm / g->dx, centre, error);
      if (t == NULL)
        {
          g_prefix_error (error, "--insert %s: ", o->inserts[i]);
          return FALSE;
        }
      g_ptr_array_add (ttfs, t);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "insert");
      json_builder_add_string_value (b, o->inserts[i]);
      json_builder_set_member_name (b, "centre_mm");
      json_builder_begin_array (b);
      json_builder_add_double_value (b, ctr_grid_x (g, t->cx_px));
      json_builder_add_double_value (b, ctr_grid_y (g, t->cy_px));
      json_builder_end_array (b);
      ctr_cli_json_number (b, "contrast", t->contrast);
      ctr_cli_json_number (b, "noise_sd", t->noise_sd);
      ctr_cli_json_number (b, "cnr", t->cnr);
      json_builder_set_member_name (b, "images_pooled");
      json_builder_add_int_value (b, t->n_images);
      ctr_cli_json_number (b, "cnr_single", t->cnr_single);
      json_builder_set_member_name (b, "centre");
      json_builder_add_string_value (b, centre == CTR_TTF_CENTRE_EACH ? "each" : "common");
      ctr_cli_json_number (b, "radius_mm", t->radius_px * g->dx);
      ctr_cli_json_number (b, "f50", t->f50);
      ctr_cli_json_number (b, "f10", t->f10);
      add_pairs (b, "curve", t->f, t->ttf, t->n_freq);
      json_builder_end_object (b);
      printf ("TTF %s: contrast %.1f HU, CNR %.1f (%u image(s) pooled, %.1f each), f50 %.3f, f10 %.3f cycles/mm\n",
              o->inserts[i], t->contrast, t->cnr, t->n_images, t->cnr_single, t->f50, t->f10);
      if (t->cnr < CTR_TTF_MIN_CNR)
        fprintf (stderr, "ctrecon-cli: warning: --insert %s: CNR %.1f over %u slice(s), below the %.0f that "
                 "TG-233 asks for a TTF: its f50 and f10 are uncertain (pool more slices or realisations)\n",
                 o->inserts[i], t->cnr, n, CTR_TTF_MIN_CNR);
    }
  json_builder_end_array (b);
  return TRUE;
}

static gboolean
add_dprime (JsonBuilder *b, const CtrNps *nps, GPtrArray *ttfs, const Options *o, GError **error)
{
  json_builder_set_member_name (b, "dprime");
  if (o->task == NULL)
    {
      json_builder_add_null_value (b);
      return TRUE;
    }
  CtrTask task;
  if (!ctr_task_parse (o->task, &task, error))
    return FALSE;
  if (nps == NULL || o->task_insert < 0 || (guint) o->task_insert >= ttfs->len)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--task needs an NPS (--nps-roi) and the TTF of --insert number %d (%u given)",
                   o->task_insert, ttfs->len);
      return FALSE;
    }
  CtrEyeFilter eye = ctr_eye_filter_default ();
  eye.viewing_distance_mm = o->viewing_mm, eye.magnification = o->magnification;
  CtrDprime d;
  if (!ctr_dprime_measured (&task, ttfs->pdata[o->task_insert], nps, &eye, &d, error))
    return FALSE;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "task");
  json_builder_add_string_value (b, o->task);
  ctr_cli_json_number (b, "npw", d.npw);
  ctr_cli_json_number (b, "npwe", d.npwe);
  ctr_cli_json_number (b, "viewing_distance_mm", eye.viewing_distance_mm);
  ctr_cli_json_number (b, "magnification", eye.magnification);
  json_builder_end_object (b);
  printf ("d′ for %s: NPW %.4g, NPWE %.4g\n", o->task, d.npw, d.npwe);
  return TRUE;
}

/* IMAGE.tif and every further image (@paths, @n_paths), all of one size,
 * in HU, into @vols; FALSE (a message printed, @status set) otherwise. */
static gboolean
read_images (char **paths, guint n_paths, const Options *o, GPtrArray *vols, int *status)
{
  CtrTiffInfo first = { 0 };
  for (guint i = 0; i < n_paths; i++)
    {
      g_autoptr (GError) error = NULL;
      CtrTiffInfo info;
      CtrVolume *v = ctr_cli_read_volume (paths[i], o->pixel_mm, &info, &error);
      if (v == NULL)
        {
          *status = ctr_cli_fail (error);
          return FALSE;
        }
      g_ptr_array_add (vols, v);
      if (i == 0)
        first = info;
      else if (info.width != first.width || info.height != first.height)
        {
          fprintf (stderr, "ctrecon-cli iq: %s is %u × %u, %s %u × %u: the images must match\n",
                   paths[0], first.width, first.height, paths[i], info.width, info.height);
          *status = 1;
          return FALSE;
        }
      if (o->slice >= 0 && (guint) o->slice >= info.pages)
        {
          fprintf (stderr, "ctrecon-cli iq: --slice %d: %s has %u pages\n", o->slice, paths[i], info.pages);
          *status = 2;
          return FALSE;
        }
      to_hu (v, o);
    }
  return TRUE;
}

static int
run_iq (char **paths, guint n_paths, const Options *o)
{
  g_autoptr (GError) error = NULL;
  CtrTiffInfo info, info2;
  int status = 1;
  g_autoptr (GPtrArray) vols = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_volume_unref);
  if (!read_images (paths, n_paths, o, vols, &status))
    return status;
  const CtrVolume *v = vols->pdata[0];
  const char *path = paths[0];
  info.width = v->grid.nx, info.height = v->grid.ny;
  g_autoptr (CtrVolume) second = NULL;
  if (o->difference != NULL)
    {
      second = ctr_cli_read_volume (o->difference, o->pixel_mm, &info2, &error);
      if (second == NULL)
        return ctr_cli_fail (error);
      if (info2.width != info.width || info2.height != info.height)
        {
          fprintf (stderr, "ctrecon-cli iq: %s is %u × %u, %s %u × %u: the two realisations must match\n",
                   path, info.width, info.height, o->difference, info2.width, info2.height);
          return 1;
        }
      to_hu (second, o);
    }
  /* Every page of every image, and the TTFs' pages (page --slice of each). */
  g_autoptr (GPtrArray) pages = g_ptr_array_new ();
  g_autoptr (GPtrArray) ttf_pages = g_ptr_array_new ();
  for (guint i = 0; i < vols->len; i++)
    {
      CtrVolume *vi = vols->pdata[i];
      for (guint z = 0; z < vi->grid.nz; z++)
        {
          g_ptr_array_add (pages, ctr_volume_slice (vi, z));
          if (o->slice < 0 || (guint) o->slice == z)
            g_ptr_array_add (ttf_pages, ctr_volume_slice (vi, z));
        }
    }
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "image");
  json_builder_add_string_value (b, path);
  json_builder_set_member_name (b, "images");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_paths; i++)
    json_builder_add_string_value (b, paths[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "pages");
  json_builder_add_int_value (b, pages->len);
  ctr_cli_json_number (b, "pixel_size_mm", o->pixel_mm);
  json_builder_set_member_name (b, "unit");
  json_builder_add_string_value (b, "HU");
  ctr_cli_json_number (b, "mu_water", g_strcmp0 (o->unit, "hu") == 0 ? NAN : o->mu_water);
  g_autoptr (CtrNps) nps = NULL;
  if (o->nps_rois != NULL && (nps = measure_nps (v, (const float *const *) pages->pdata, pages->len, second, o, &error)) == NULL)
    return ctr_cli_fail (error);
  add_nps (b, nps, o);
  g_autoptr (GPtrArray) ttfs = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_ttf_free);
  if (!measure_ttfs (v, (const float *const *) ttf_pages->pdata, ttf_pages->len, o, b, ttfs, &error) || !add_dprime (b, nps, ttfs, o, &error))
    return ctr_cli_fail (error);
  json_builder_end_object (b);
  if (o->json == NULL)
    return 0;
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  if (!g_file_set_contents (o->json, text, -1, &error))
    return ctr_cli_fail (error);
  return 0;
}

int
ctr_cli_iq (int argc, char **argv)
{
  Options o = { 1.0, 0, 500.0, 1.0, -1, 64, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
  GOptionEntry entries[] = {
    { "pixel-size", 0, 0, G_OPTION_ARG_DOUBLE, &o.pixel_mm, "pixel size in mm (default 1)", "MM" },
    { "nps-roi", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.nps_rois, "uniform region for the NPS (repeat): circle:X,Y,R or rect:X,Y,W,H in mm", "SPEC" },
    { "nps-size", 0, 0, G_OPTION_ARG_INT, &o.nps_size, "side of the NPS's square ROIs in pixels (default 64)", "N" },
    { "nps-difference", 0, 0, G_OPTION_ARG_FILENAME, &o.difference, "a second noise realisation: the NPS of the difference, halved (page 0 of each)", "SECOND.tif" },
    { "detrend", 0, 0, G_OPTION_ARG_STRING, &o.detrend, "ROI trend removed before the NPS: mean (default) or plane", "KIND" },
    { "insert", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.inserts, "circular insert for a TTF (repeat): circle:X,Y,R in mm", "SPEC" },
    { "slice", 0, 0, G_OPTION_ARG_INT, &o.slice, "the TTFs on this page of each image alone (default: pooled over every page)", "Z" },
    { "ttf-centre", 0, 0, G_OPTION_ARG_STRING, &o.centre, "the pooled TTF's centre: common (found on the pages' mean; default) or each (every page's own)", "HOW" },
    { "task", 0, 0, G_OPTION_ARG_STRING, &o.task, "detection task for d′: disc:DIAMETER_MM,CONTRAST_HU or designer:D,C,N", "TASK" },
    { "task-insert", 0, 0, G_OPTION_ARG_INT, &o.task_insert, "which --insert's TTF d′ uses (default 0, the first)", "I" },
    { "unit", 0, 0, G_OPTION_ARG_STRING, &o.unit, "the image's values: mu (1/mm, converted to HU; default) or hu", "UNIT" },
    { "mu-water", 0, 0, G_OPTION_ARG_DOUBLE, &o.mu_water, "μ_water in 1/mm for HU (default 0.0192)", "MU" },
    { "viewing-distance", 0, 0, G_OPTION_ARG_DOUBLE, &o.viewing_mm, "NPWE eye filter: viewing distance in mm (default 500)", "MM" },
    { "magnification", 0, 0, G_OPTION_ARG_DOUBLE, &o.magnification, "NPWE eye filter: display mm per object mm (default 1)", "M" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &o.json, "write the results as JSON to this file", "OUT.json" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("IMAGE.tif [MORE.tif…] — NPS, TTF and detectability index d′ (AAPM TG-233); several images (realisations, slices) are pooled");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  int status = 2;
  if (argc < 2 || (o.nps_rois == NULL && o.inserts == NULL))
    fprintf (stderr, "ctrecon-cli iq: give IMAGE.tif (and any further realisations) and at least one --nps-roi or --insert\n");
  else if (!(isfinite (o.pixel_mm) && o.pixel_mm > 0) || o.slice < -1 || o.nps_size < 4
           || !(isfinite (o.mu_water) && o.mu_water >= 0) || !(isfinite (o.viewing_mm) && o.viewing_mm > 0)
           || !(isfinite (o.magnification) && o.magnification > 0))
    fprintf (stderr, "ctrecon-cli iq: need --pixel-size > 0, --slice >= 0, --nps-size >= 4, --mu-water > 0, "
             "--viewing-distance > 0 and --magnification > 0\n");
  else if ((o.detrend != NULL && strcmp (o.detrend, "mean") != 0 && strcmp (o.detrend, "plane") != 0)
           || (o.unit != NULL && strcmp (o.unit, "mu") != 0 && strcmp (o.unit, "hu") != 0)
           || (o.centre != NULL && strcmp (o.centre, "common") != 0 && strcmp (o.centre, "each") != 0))
    fprintf (stderr, "ctrecon-cli iq: --detrend is mean or plane, --unit mu or hu, --ttf-centre common or each\n");
  else
    {
      if (o.mu_water == 0)
        o.mu_water = CTR_MU_WATER_PER_MM;
      status = run_iq (argv + 1, (guint) argc - 1, &o);
    }
  g_strfreev (o.inserts), g_strfreev (o.nps_rois);
  g_free (o.difference), g_free (o.detrend), g_free (o.task), g_free (o.unit), g_free (o.json), g_free (o.centre);
  return status;
}
