/* cli-import-geometry.c — `ctrecon-cli import-geometry FILE --output geometry.json`:
 * an ASTRA projection geometry (JSON with the keys of ASTRA's proj_geom) or
 * an RTK geometry XML into our geometry.json (core/io/ctr-geometry-import.h).
 * The written file has no "projections": add them (FORMAT.md) to load data.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"

int
ctr_cli_import_geometry (int argc, char **argv)
{
  g_autofree char *from = NULL, *output = NULL, *name = NULL;
  int cols = 0, rows = 0;
  double pitch_u = 0, pitch_v = 0, origin_u = NAN, origin_v = NAN;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write our geometry.json here (required)", "PATH" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from, "astra or rtk (default: rtk for .xml, astra otherwise)", "TOOL" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, "the dataset's name in the written file", "TEXT" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "RTK: detector columns of the projection images", "N" },
    { "rows", 0, 0, G_OPTION_ARG_INT, &rows, "RTK: detector rows of the projection images", "N" },
    { "pitch-u", 0, 0, G_OPTION_ARG_DOUBLE, &pitch_u, "RTK: column spacing of the projection images, mm", "MM" },
    { "pitch-v", 0, 0, G_OPTION_ARG_DOUBLE, &pitch_v, "RTK: row spacing of the projection images, mm", "MM" },
    { "origin-u", 0, 0, G_OPTION_ARG_DOUBLE, &origin_u,
      "RTK: u of column 0 (the images' ITK origin), mm (default: centred)", "MM" },
    { "origin-v", 0, 0, G_OPTION_ARG_DOUBLE, &origin_v,
      "RTK: v of row 0 (the images' ITK origin), mm (default: centred)", "MM" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE — an ASTRA or RTK geometry as our geometry.json");
  g_option_context_set_description (ctx,
    "ASTRA: a JSON object with the keys of ASTRA's Python proj_geom (type parallel, parallel_vec, fanflat,\n"
    "fanflat_vec, cone or cone_vec).  RTK: RTKThreeDCircularGeometry XML (rtk::ThreeDCircularProjection-\n"
    "GeometryXMLFileWriter); its projection images' size and spacing are not in the XML: give --cols,\n"
    "--rows, --pitch-u and --pitch-v.  Circular ASTRA geometries stay circular, and so does parallel_vec\n"
    "(one pitch and offset, rays across the row); fanflat_vec, cone_vec and RTK become per-view vectors.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2 || output == NULL)
    {
      fprintf (stderr, "ctrecon-cli import-geometry: give one FILE and --output PATH\n");
      return 2;
    }
  const char *input = argv[1];
  const gboolean rtk = from != NULL ? g_str_equal (from, "rtk") : g_str_has_suffix (input, ".xml");
  if (from != NULL && !g_str_equal (from, "rtk") && !g_str_equal (from, "astra"))
    {
      fprintf (stderr, "ctrecon-cli import-geometry: --from is astra or rtk, not “%s”\n", from);
      return 2;
    }
  g_autoptr (GError) error = NULL;
  /* The input is kept off limits like a dataset's (outputs never replace inputs). */
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (NULL);
  ctr_output_set_add_input (outputs, input);
  const guint out_index = ctr_output_set_add (outputs, output, CTR_OUTPUT_FILE, "--output");
  if (!ctr_output_set_check (outputs, &error))
    return ctr_cli_fail (error);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) io = NULL;
  if (!g_file_get_contents (input, &text, &length, &io))
    {
      g_set_error (&error, CTR_ERROR, CTR_ERROR_IO, "%s", io->message);
      return ctr_cli_fail (error);
    }
  g_autoptr (CtrGeometry) g = NULL;
  if (rtk)
    {
      if (cols <= 0 || rows <= 0 || !(pitch_u > 0) || !(pitch_v > 0))
        {
          fprintf (stderr, "ctrecon-cli import-geometry: an RTK geometry needs --cols, --rows, --pitch-u and "
                           "--pitch-v (the projection images' size and spacing; the XML does not hold them)\n");
          return 2;
        }
      const CtrRtkDetector det = { (guint) cols, (guint) rows, pitch_u, pitch_v, origin_u, origin_v };
      g = ctr_geometry_import_rtk (text, (gssize) length, &det, &error);
    }
  else
    g = ctr_geometry_import_astra (text, (gssize) length, &error);
  const char *stage = g != NULL ? ctr_output_set_stage (outputs, out_index, &error) : NULL;
  if (stage == NULL || !ctr_geometry_json_write (g, name, NULL, stage, &error)
      || !ctr_output_set_commit (outputs, &error))
    {
      ctr_output_set_explain (outputs, error);
      return ctr_cli_fail (error);
    }
  g_autofree char *what = ctr_geometry_describe (g);
  printf ("%s: %s%s\n", output, what, ctr_geometry_has_vectors (g) ? " (per-view vectors)" : "");
  return 0;
}
