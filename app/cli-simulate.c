/* cli-simulate.c — `ctrecon-cli simulate`: a scan of an analytic phantom.
 *
 * Writes DIR/geometry.json (FORMAT.md), DIR/sinogram.tif (line integrals,
 * [view][col], one page; a cone-beam scan: DIR/projections.tif, a page per
 * view), DIR/reference.tif (the exact phantom on the reconstruction grid,
 * one slice per detector row for cone beam: the 2-D phantom extruded along
 * z, ctr_phantom3d_new_extruded).  --geometry helical is that cone beam on
 * a helix (--turns rotations of --views views centred on z = 0, table feed
 * --pitch × the rows' width; "type": "helical" with source_z_start_mm,
 * source_z_step_mm, table_feed_per_rotation_mm and pitch_factor), its exact
 * line integrals through the phantom extruded past every ray's reach, its
 * reference one 1 mm slice per row about z = 0 (reference "z_mm").  The
 * line integrals are exact chord lengths through
 * ellipses (ctr_phantom_project), averaged over several rays per detector bin,
 * with Poisson noise for a given open-beam photon count: the project's own
 * realistic default scan, available without ../shared.
 */
#include <errno.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"

static void
add_double_array (JsonBuilder *b, const char *key, const double *v, guint n)
{
  json_builder_set_member_name (b, key);
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    json_builder_add_double_value (b, v[i]);
  json_builder_end_array (b);
}

static char *
geometry_json (const CtrGeometry *g, const char *name, const char *phantom, double i0,
               guint64 seed, const CtrGrid *ref_grid, const CtrSpectrum *spectrum)
{
  const gboolean cone = g->beam == CTR_BEAM_CONE;
  const gboolean helical = ctr_geometry_is_helical (g);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, g->beam == CTR_BEAM_PARALLEL ? "parallel" : helical ? "helical"
                                   : g->beam == CTR_BEAM_CONE ? "cone" : "fan");
  if (g->beam != CTR_BEAM_PARALLEL)
    {
      json_builder_set_member_name (b, "detector_shape");
      json_builder_add_string_value (b, g->shape == CTR_DETECTOR_CURVED ? "curved" : "flat");
      json_builder_set_member_name (b, "source_to_isocenter_mm");
      json_builder_add_double_value (b, g->sod_mm);
      json_builder_set_member_name (b, "source_to_detector_mm");
      json_builder_add_double_value (b, g->sdd_mm);
    }
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, "line_integrals");
  if (i0 > 0)
    {
      /* the dose behind the line integrals (ctr-dataset.h), for ctr-noise and ctr-dose */
      json_builder_set_member_name (b, "I0");
      json_builder_add_double_value (b, i0);
    }
  json_builder_set_member_name (b, "views");
  json_builder_add_int_value (b, g->n_views);
  json_builder_set_member_name (b, "detector_cols");
  json_builder_add_int_value (b, g->n_cols);
  json_builder_set_member_name (b, "detector_rows");
  json_builder_add_int_value (b, g->n_rows);
  const gboolean curved = g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED;
  json_builder_set_member_name (b, curved ? "detector_pitch_u_rad" : "detector_pitch_u_mm");
  json_builder_add_double_value (b, g->pitch_u);
  json_builder_set_member_name (b, curved ? "detector_offset_u_rad" : "detector_offset_u_mm");
  json_builder_add_double_value (b, g->offset_u);
  json_builder_set_member_name (b, "detector_pitch_v_mm");
  json_builder_add_double_value (b, g->pitch_v_mm);
  json_builder_set_member_name (b, "detector_offset_v_mm");
  json_builder_add_double_value (b, 0.0);
  add_double_array (b, "angles_rad", g->angles, g->n_views);
  if (helical)
    {
      /* source z_k = start + k · step (FORMAT.md's helical keys) */
      json_builder_set_member_name (b, "source_z_start_mm");
      json_builder_add_double_value (b, g->source_z_mm[0]);
      json_builder_set_member_name (b, "source_z_step_mm");
      json_builder_add_double_value (b, g->n_views > 1 ? (g->source_z_mm[g->n_views - 1] - g->source_z_mm[0]) / (g->n_views - 1) : 0);
      json_builder_set_member_name (b, "table_feed_per_rotation_mm");
      json_builder_add_double_value (b, ctr_helix_feed_mm (g));
      json_builder_set_member_name (b, "pitch_factor");
      json_builder_add_double_value (b, ctr_helix_pitch (g));
    }

  json_builder_set_member_name (b, "projections");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, cone ? "projections.tif" : "sinogram.tif");
  json_builder_set_member_name (b, "layout");
  json_builder_add_string_value (b, cone ? "view_pages" : "sinogram");
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, "float32");
  json_builder_end_object (b);

  json_builder_set_member_name (b, "reference");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, "reference.tif");
  json_builder_set_member_name (b, "unit");
  json_builder_add_string_value (b, "1/mm");
  json_builder_set_member_name (b, "pixel_size_mm");
  json_builder_add_double_value (b, ref_grid->dx);
  if (cone)
    {
      const double spacing[3] = { ref_grid->dx, ref_grid->dy, ref_grid->dz };
      const double shape[3] = { ref_grid->nz, ref_grid->ny, ref_grid->nx };
      add_double_array (b, "spacing_xyz_mm", spacing, 3);
      add_double_array (b, "shape_zyx", shape, 3);
      if (helical)
        {
          /* the slices' z, centred on the helix's middle (z = 0) */
          g_autofree double *z = g_new (double, ref_grid->nz);
          for (guint k = 0; k < ref_grid->nz; k++)
            z[k] = ref_grid->cz + (k - (ref_grid->nz - 1) * 0.5) * ref_grid->dz;
          add_double_array (b, "z_mm", z, ref_grid->nz);
        }
    }
  json_builder_set_member_name (b, "center_mm");
  json_builder_begin_array (b);
  json_builder_add_double_value (b, 0.0);
  json_builder_add_double_value (b, 0.0);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "description");
  json_builder_add_string_value (b, cone ? "exact phantom, 4 x 4 point samples per pixel, every slice the same "
                                        "(the phantom is uniform along z); row 0 = +y, column 0 = -x"
                                      : "exact phantom, 4 x 4 point samples per pixel; row 0 = +y, column 0 = -x");
  json_builder_end_object (b);

  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  g_autofree char *n1 = g_strdup_printf ("Simulated by ctrecon-cli simulate: phantom '%s'%s, exact line integrals "
                                         "(4 rays per bin), %s.", phantom,
                                         helical ? " extruded along z (uniform over the helix and the cone's coverage)"
                                         : cone ? " extruded along z (uniform over the cone's coverage)" : "",
                                         i0 > 0 ? "Poisson noise" : "noiseless");
  json_builder_add_string_value (b, n1);
  if (spectrum != NULL)
    {
      g_autofree char *n3 = g_strdup_printf ("Polychromatic: spectrum '%s' (%u energies, %g to %g keV, mean "
                                             "water attenuation %.5g /mm); every ellipse treated as water at "
                                             "density value/%g, so the line integrals show water's beam "
                                             "hardening (the reference stays monochromatic, in 1/mm).",
                                             spectrum->name, spectrum->n, spectrum->energy_kev[0],
                                             spectrum->energy_kev[spectrum->n - 1],
                                             ctr_spectrum_mean_mu_water (spectrum), CTR_MU_WATER_PER_MM);
      json_builder_add_string_value (b, n3);
    }
  if (i0 > 0)
    {
      g_autofree char *n2 = g_strdup_printf ("I0 = %g photons per bin, seed %" G_GUINT64_FORMAT
                                             "; counts clipped at >= 1", i0, seed);
      json_builder_add_string_value (b, n2);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

int
ctr_cli_simulate (int argc, char **argv)
{
  g_autofree char *phantom = NULL, *geometry = NULL, *output = NULL, *spectrum_arg = NULL, *centre_arg = NULL;
  int views = 720, cols = 736, size = 256, rows = 16;
  double i0 = 2.5e4, radius = 100.0, turns = 2.0, pitch = 1.0;
  gint64 seed = 1;
  GOptionEntry entries[] = {
    { "phantom", 0, 0, G_OPTION_ARG_STRING, &phantom, "head (default), shepp-logan, disc, iq (water with six contrast inserts, ctr-phantom.h) or head-iq (the head with the same inserts, 10 mm, in its brain)", "P" },
    { "geometry", 'g', 0, G_OPTION_ARG_STRING, &geometry, "fan-curved (default; clinical: SOD 595, SDD 1085.6 mm), fan-flat, parallel, cone-curved or cone-flat (circular cone beam, --rows rows of 1 mm at the isocentre), helical (cone-curved on a helix: --turns, --pitch)", "G" },
    { "rows", 0, 0, G_OPTION_ARG_INT, &rows, "detector rows of a cone-beam or helical scan (default 16); the reference has one slice per row (helical: 1 mm slices about the helix's middle)", "N" },
    { "views", 0, 0, G_OPTION_ARG_INT, &views, "views over 360° (default 720; helical: per rotation)", "N" },
    { "turns", 0, 0, G_OPTION_ARG_DOUBLE, &turns, "helical: rotations, centred on z = 0 (default 2)", "T" },
    { "pitch", 0, 0, G_OPTION_ARG_DOUBLE, &pitch, "helical: pitch factor, the table feed per rotation over the rows' width at the isocentre (default 1)", "P" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "detector columns (default 736)", "N" },
    { "size", 0, 0, G_OPTION_ARG_INT, &size, "reference image N × N covering the field of view (default 256)", "N" },
    { "radius", 0, 0, G_OPTION_ARG_DOUBLE, &radius, "phantom radius in mm (default 100)", "MM" },
    { "centre", 0, 0, G_OPTION_ARG_STRING, &centre_arg, "--phantom disc: its centre x,y in mm (default 0,0; "
      "the field of view grows to cover it)", "X,Y" },
    { "i0", 0, 0, G_OPTION_ARG_DOUBLE, &i0, "open-beam photons per bin; 0 = noiseless (default 2.5e4, quarter dose)", "PHOTONS" },
    { "spectrum", 0, 0, G_OPTION_ARG_FILENAME, &spectrum_arg, "polychromatic scan through a stated spectrum: "
      "a built-in name (120kvp: Kramers' law filtered by 2.5 mm Al, approximate) or FILE.json "
      "{\"energies_kev\": [...], \"fluence\": [...]}; water's beam hardening (not helical)", "S" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "noise seed (default 1)", "S" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "folder to write geometry.json, sinogram.tif, reference.tif", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— simulate a scan of an analytic phantom");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (output == NULL || argc != 1)
    {
      fprintf (stderr, "ctrecon-cli simulate: --output DIR is required and takes no other arguments\n");
      return 2;
    }
  if (views < 1 || cols < 2 || size < 8 || !(radius > 0) || !(i0 >= 0) || views > 100000 || cols > 100000 || size > 16384
      || rows < 1 || rows > 4096 || !(turns >= 0.5 && turns <= 100) || !(pitch > 0 && pitch <= 4)
      || turns * views > 1e6)
    {
      fprintf (stderr, "ctrecon-cli simulate: need views ≥ 1, cols ≥ 2, size ≥ 8, rows 1 to 4096, radius > 0, i0 ≥ 0, "
               "turns 0.5 to 100 (at most 10⁶ views in all), pitch above 0 up to 4\n");
      return 2;
    }
  const gboolean helical = g_strcmp0 (geometry, "helical") == 0;
  if (!helical && (turns != 2.0 || pitch != 1.0))
    {
      fprintf (stderr, "ctrecon-cli simulate: --turns and --pitch are for --geometry helical\n");
      return 2;
    }

  g_autoptr (GError) error = NULL;
  g_autoptr (CtrSpectrum) spectrum = NULL;
  if (spectrum_arg != NULL && (spectrum = ctr_spectrum_load (spectrum_arg, &error)) == NULL)
    {
      g_prefix_error (&error, "--spectrum: ");
      return ctr_cli_fail (error);
    }
  if (spectrum != NULL && helical)
    {
      fprintf (stderr, "ctrecon-cli simulate: --spectrum handles parallel, fan and circular cone geometries, not a helix\n");
      return 2;
    }
  double centre[2] = { 0, 0 };
  if (centre_arg != NULL
      && (g_strcmp0 (phantom, "disc") != 0 || sscanf (centre_arg, "%lf,%lf", &centre[0], &centre[1]) != 2
          || !isfinite (centre[0]) || !isfinite (centre[1]) || hypot (centre[0], centre[1]) > 1e5))
    {
      fprintf (stderr, "ctrecon-cli simulate: --centre takes X,Y in mm (finite) and goes with --phantom disc\n");
      return 2;
    }
  g_autoptr (CtrPhantom) ph = NULL;
  if (phantom == NULL || g_str_equal (phantom, "head"))
    ph = ctr_phantom_new_head (radius);
  else if (g_str_equal (phantom, "shepp-logan"))
    ph = ctr_phantom_new_shepp_logan (radius, 0.02);
  else if (g_str_equal (phantom, "disc"))
    ph = ctr_phantom_new_disc (centre[0], centre[1], radius, CTR_MU_WATER_PER_MM);
  else if (g_str_equal (phantom, "iq"))
    ph = ctr_phantom_new_iq (radius);
  else if (g_str_equal (phantom, "head-iq"))
    ph = ctr_phantom_new_head_iq (radius);
  else
    {
      fprintf (stderr, "ctrecon-cli simulate: unknown --phantom '%s' (head, shepp-logan, disc, iq or head-iq)\n", phantom);
      return 2;
    }

  /* The dataset folder is new or empty (never merged into an existing
   * dataset), checked before any work, and written under a hidden name,
   * then renamed into place as a whole (io/ctr-output-set.h). */
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (NULL);
  const guint out_index = ctr_output_set_add (outputs, output, CTR_OUTPUT_DATASET, "--output");
  if (!ctr_output_set_check (outputs, &error))
    return ctr_cli_fail (error);

  /* The field of view covers the phantom with a 10 % margin. */
  const double fov = (radius + hypot (centre[0], centre[1])) * 1.1;
  g_autoptr (CtrGeometry) g = NULL;
  const gboolean cone = geometry != NULL && (g_str_has_prefix (geometry, "cone-") || helical);
  /* helical: views per rotation × turns in all */
  const guint n_views = helical ? (guint) ceil (views * turns) : (guint) views;
  if (geometry == NULL || g_str_equal (geometry, "fan-curved") || g_str_equal (geometry, "fan-flat")
      || g_str_equal (geometry, "cone-curved") || g_str_equal (geometry, "cone-flat") || helical)
    {
      if ((g = ctr_geometry_try_new (cone ? CTR_BEAM_CONE : CTR_BEAM_FAN, n_views, &error)) == NULL)
        return ctr_cli_fail (error);
      g->shape = geometry && g_str_has_suffix (geometry, "-flat") ? CTR_DETECTOR_FLAT : CTR_DETECTOR_CURVED;
      g->sod_mm = MAX (595.0, 3 * fov);
      g->sdd_mm = g->sod_mm * 1085.6 / 595.0;
      double gmax = asin (fov / g->sod_mm);
      g->pitch_u = g->shape == CTR_DETECTOR_CURVED ? 2 * gmax / cols : 2 * g->sdd_mm * tan (gmax) / cols;
    }
  else if (g_str_equal (geometry, "parallel"))
    {
      if ((g = ctr_geometry_try_new (CTR_BEAM_PARALLEL, views, &error)) == NULL)
        return ctr_cli_fail (error);
      g->pitch_u = 2 * fov / cols;
    }
  else
    {
      fprintf (stderr, "ctrecon-cli simulate: unknown --geometry '%s' (fan-curved, fan-flat, parallel, cone-curved, cone-flat or helical)\n", geometry);
      return 2;
    }
  g->n_cols = cols;
  /* cone: rows of 1 mm at the isocentre, one reference slice per row */
  g->n_rows = cone ? (guint) rows : 1;
  g->pitch_v_mm = cone ? g->sdd_mm / g->sod_mm : 1.0;
  ctr_geometry_set_uniform_angles (g, 0, 2 * G_PI / views);
  /* helical: the table feed is pitch × the rows' width at the isocentre
   * (1 mm each), the helix centred on z = 0 */
  const double feed = pitch * rows, z_half = helical ? 0.5 * feed * (n_views - 1) / views : 0;
  if (helical && !ctr_geometry_set_source_z (g, -z_half, feed / views, &error))
    return ctr_cli_fail (error);

  CtrGrid grid = ctr_grid_square (size, 2 * ctr_geometry_fov_radius_mm (g) / size, g->n_rows, 1);
  /* extruded beyond every ray's reach: the helix and the cone's coverage */
  g_autoptr (CtrPhantom3d) ph3 = cone ? ctr_phantom3d_new_extruded (ph, fov + z_half + rows) : NULL;
  g_autoptr (CtrProjections) p = cone && spectrum != NULL ? ctr_phantom3d_project_spectrum (ph3, g, 2, spectrum, &error)
                                      : cone ? ctr_phantom3d_project (ph3, g, 2, &error)
                                      : spectrum != NULL ? ctr_phantom_project_spectrum (ph, g, 4, spectrum, &error)
                                      : ctr_phantom_project (ph, g, 4, &error);
  if (p == NULL)
    return ctr_cli_fail (error);
  if (i0 > 0)
    ctr_projections_add_poisson_noise (p, i0, (guint64) seed);
  g_autoptr (CtrVolume) ref = ctr_phantom_rasterize (ph, &grid, 4, &error);
  if (ref == NULL)
    return ctr_cli_fail (error);

  const char *stage = ctr_output_set_stage (outputs, out_index, &error);
  if (stage == NULL)
    return ctr_cli_fail (error);
  g_autofree char *name = g_strdup_printf ("simulated-%s-%s", phantom ? phantom : "head",
                                           geometry ? geometry : "fan-curved");
  g_autofree char *json = geometry_json (g, name, phantom ? phantom : "head", i0, (guint64) seed, &grid, spectrum);
  g_autofree char *json_path = g_build_filename (stage, "geometry.json", NULL);
  g_autofree char *sino_path = g_build_filename (stage, cone ? "projections.tif" : "sinogram.tif", NULL);
  g_autofree char *ref_path = g_build_filename (stage, "reference.tif", NULL);
  if (!(cone ? ctr_tiff_write_float (sino_path, p->data, g->n_cols, g->n_rows, g->n_views, &error)
              : ctr_tiff_write_float (sino_path, p->data, g->n_cols, g->n_views, 1, &error))
      || !ctr_tiff_write_volume (ref_path, ref, &error)
      || !g_file_set_contents (json_path, json, -1, &error)
      || !ctr_output_set_commit (outputs, &error))
    {
      ctr_output_set_explain (outputs, error);
      return ctr_cli_fail (error);
    }
  g_free (json_path);
  json_path = g_build_filename (output, "geometry.json", NULL);
  g_autofree char *desc = ctr_geometry_describe (g);
  fprintf (stderr, "wrote %s (%s; %s%s%s)\n", json_path, desc,
           i0 > 0 ? "Poisson noise" : "noiseless", spectrum != NULL ? "; polychromatic, spectrum " : "",
           spectrum != NULL ? spectrum->name : "");
  return 0;
}
