/* cli-project.c — `ctrecon-cli project GEOMETRY.json IMAGE.tif -o SINO.tif`:
 * forward projection of an image (float32 TIFF; pages = slices from the
 * lowest z up, row 0 = +y, column 0 = −x: FORMAT.md) through a geometry,
 * circular or per-view vectors.  Fan and parallel beam: the CSR system
 * matrix with the chosen ray model, each page projected as one slice
 * (output: one page per slice, line k = view k, sample j = column j, the
 * "sinogram" layout).  Cone beam: the matched Joseph projector
 * (sysmat/ctr-cone-projector.h) on the volume (output: one page per view,
 * line i = row i, the "view_pages" layout).  Line integrals in the image's
 * unit × mm.  Peers' projections (ASTRA, RTK) are compared with this.
 */
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "sysmat/ctr-cone-projector.h"
#include "sysmat/ctr-sysmat.h"

int
ctr_cli_project (int argc, char **argv)
{
  g_autofree char *output = NULL, *model_name = NULL;
  double pixel_mm = 1.0, slice_mm = 0.0;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "write the projections here (float32 TIFF; required)", "PATH" },
    { "pixel-mm", 0, 0, G_OPTION_ARG_DOUBLE, &pixel_mm, "the image's pixel size, mm (default 1)", "MM" },
    { "slice-mm", 0, 0, G_OPTION_ARG_DOUBLE, &slice_mm, "cone beam: the slice spacing, mm (default: the pixel size)", "MM" },
    { "ray-model", 0, 0, G_OPTION_ARG_STRING, &model_name,
      "fan/parallel beam: joseph, siddon or area (default siddon; cone beam is Joseph)", "MODEL" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("GEOMETRY.json IMAGE.tif — forward-project an image");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 3 || output == NULL)
    {
      fprintf (stderr, "ctrecon-cli project: give GEOMETRY.json, IMAGE.tif and --output PATH\n");
      return 2;
    }
  CtrRayModel model = CTR_RAY_MODEL_SIDDON;
  if (model_name != NULL && g_str_equal (model_name, "joseph"))
    model = CTR_RAY_MODEL_JOSEPH;
  else if (model_name != NULL && g_str_equal (model_name, "area"))
    model = CTR_RAY_MODEL_AREA;
  else if (model_name != NULL && !g_str_equal (model_name, "siddon"))
    {
      fprintf (stderr, "ctrecon-cli project: --ray-model is joseph, siddon or area, not “%s”\n", model_name);
      return 2;
    }
  if (!(pixel_mm > 0) || slice_mm < 0)
    {
      fprintf (stderr, "ctrecon-cli project: --pixel-mm must be positive and --slice-mm not negative\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  /* The image, the geometry and every file it names (its measured
   * projections, flat, dark, reference) are inputs: never replaced. */
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (NULL);
  ctr_output_set_add_input (outputs, argv[2]);
  const guint out_index = ctr_output_set_add (outputs, output, CTR_OUTPUT_FILE, "--output");
  if (!ctr_output_set_add_geometry (outputs, argv[1], &error) || !ctr_output_set_check (outputs, &error))
    return ctr_cli_fail (error);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) io = NULL;
  if (!g_file_get_contents (argv[1], &text, &length, &io))
    {
      g_set_error (&error, CTR_ERROR, CTR_ERROR_IO, "%s", io->message);
      return ctr_cli_fail (error);
    }
  g_autoptr (CtrGeometry) g = ctr_dataset_parse_geometry (text, (gssize) length, &error);
  if (g == NULL)
    return ctr_cli_fail (error);
  CtrTiffInfo info;
  g_autoptr (CtrVolume) vol = ctr_cli_read_volume (argv[2], pixel_mm, &info, &error);
  if (vol == NULL)
    return ctr_cli_fail (error);
  const CtrGrid *grid = &vol->grid;
  g_autofree float *out = NULL;
  guint width = g->n_cols, height, pages;
  if (g->beam == CTR_BEAM_CONE)
    {
      CtrGrid cg = *grid;
      cg.dz = slice_mm > 0 ? slice_mm : pixel_mm;
      g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &cg, &error);
      if (cp == NULL)
        return ctr_cli_fail (error);
      const gsize n = (gsize) g->n_views * g->n_rows * g->n_cols;
      out = g_try_new (float, n);
      if (out == NULL)
        {
          g_set_error (&error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%zu projection values do not fit in memory", n);
          return ctr_cli_fail (error);
        }
      ctr_cone_projector_forward (cp, vol->data, out);
      height = g->n_rows;
      pages = g->n_views;
    }
  else
    {
      g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, grid, model, NULL, &error);
      if (a == NULL)
        return ctr_cli_fail (error);
      const gsize rays = (gsize) g->n_views * g->n_cols;
      out = g_try_new (float, rays * grid->nz);
      if (out == NULL)
        {
          g_set_error (&error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%zu projection values do not fit in memory",
                       rays * grid->nz);
          return ctr_cli_fail (error);
        }
      ctr_sysmat_apply (a, vol->data, out, grid->nz);
      height = g->n_views;
      pages = grid->nz;
    }
  const char *stage = ctr_output_set_stage (outputs, out_index, &error);
  if (stage == NULL || !ctr_tiff_write_float (stage, out, width, height, pages, &error)
      || !ctr_output_set_commit (outputs, &error))
    {
      ctr_output_set_explain (outputs, error);
      return ctr_cli_fail (error);
    }
  printf ("%s: %u page(s) of %u × %u\n", output, pages, height, width);
  return 0;
}
