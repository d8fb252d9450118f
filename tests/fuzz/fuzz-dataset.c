/* fuzz-dataset.c — libFuzzer harness of the geometry.json / dataset loader
 * (core/io/ctr-dataset.c): the input is the text of a geometry.json beside
 * small valid files it may name (sinogram.tif: 4 views × 8 columns × 2 rows;
 * views.tif: the same as a page per view; view_0.tif … view_3.tif; flat.tif
 * and dark.tif: 2 × 8; reference.tif: 8 × 8; pd/: a DICOM-CT-PD series of
 * 4 views × 8 channels).  Loads it with ctr_dataset_load and parses it with
 * ctr_dataset_parse_geometry; a dataset that loads goes on to the default
 * grid and the output-path check, as the CLI does before a run.  The same
 * text goes to the geometry importers (ASTRA proj_geom JSON, RTK XML:
 * core/io/ctr-geometry-import.h), whose result must validate. */
#include "fuzz-common.h"
#include "ctrecon.h"
#include "io/ctr-dicom-shim.h"
#include "io/ctr-geometry-import.h"

#include <math.h>

static void
write_tiff (const char *name, guint w, guint h, guint pages, float base)
{
  g_autofree float *px = g_new (float, (gsize) w * h * pages);
  for (gsize i = 0; i < (gsize) w * h * pages; i++)
    px[i] = base + 0.01f * (float) (i % 17);
  g_autofree char *path = g_build_filename (fuzz_dir (), name, NULL);
  if (!ctr_tiff_write_float (path, px, w, h, pages, NULL))
    g_error ("cannot write %s", path);
}

static void
put (CtrDcm *d, guint16 g, guint16 e, const char *vr, const char *v)
{
  if (!ctr_dcm_put_string (d, g, e, vr, v, NULL))
    g_error ("DICOM fixture");
}

/* The DICOM-CT-PD series of tests/cli/ctpd.py, through the shim. */
static void
write_ctpd (void)
{
  g_autofree char *folder = g_build_filename (fuzz_dir (), "pd", NULL);
  g_mkdir_with_parents (folder, 0700);
  for (guint k = 0; k < 4; k++)
    {
      g_autoptr (CtrDcm) d = ctr_dcm_new ();
      g_autofree char *uid = ctr_dcm_new_uid ();
      g_autofree char *inst = g_strdup_printf ("%u", k + 1);
      put (d, 0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.2");
      put (d, 0x0008, 0x0018, "UI", uid);
      put (d, 0x0008, 0x0060, "CS", "CT");
      put (d, 0x0020, 0x000e, "UI", "1.2.3.4.5.6");
      put (d, 0x0020, 0x0013, "IS", inst);
      put (d, 0x0028, 0x0004, "CS", "MONOCHROME2");
      put (d, 0x0028, 0x1052, "DS", "0");
      put (d, 0x0028, 0x1053, "DS", "0.001");
      const guint16 us[][2] = { { 0x0002, 1 }, { 0x0010, 8 }, { 0x0011, 1 }, { 0x0100, 16 }, { 0x0101, 16 },
                                { 0x0102, 15 }, { 0x0103, 0 } };
      for (guint i = 0; i < G_N_ELEMENTS (us); i++)
        ctr_dcm_put_u16 (d, 0x0028, us[i][0], "US", us[i][1], NULL);
      put (d, 0x7029, 0x0010, "LO", "DetectorSystemArrangementModule");
      ctr_dcm_put_u16 (d, 0x7029, 0x1010, "US", 1, NULL);
      ctr_dcm_put_u16 (d, 0x7029, 0x1011, "US", 8, NULL);
      const float tsp = 0.5f, asp = 1.0f, rho = 500, sdd = 900, central[2] = { 4.5f, 1.0f };
      const float phi = (float) fmod (G_PI + k * G_PI / 2, 2 * G_PI), z = 0;
      ctr_dcm_put_floats (d, 0x7029, 0x1002, &tsp, 1, NULL);
      ctr_dcm_put_floats (d, 0x7029, 0x1006, &asp, 1, NULL);
      put (d, 0x7029, 0x100b, "CS", "FLAT");
      put (d, 0x7031, 0x0010, "LO", "DetectorDynamicsModule");
      ctr_dcm_put_floats (d, 0x7031, 0x1001, &phi, 1, NULL);
      ctr_dcm_put_floats (d, 0x7031, 0x1002, &z, 1, NULL);
      ctr_dcm_put_floats (d, 0x7031, 0x1003, &rho, 1, NULL);
      ctr_dcm_put_floats (d, 0x7031, 0x1031, &sdd, 1, NULL);
      ctr_dcm_put_floats (d, 0x7031, 0x1033, central, 2, NULL);
      guint16 pix[8];
      for (guint i = 0; i < 8; i++)
        pix[i] = (guint16) (100 + 10 * k + i);
      ctr_dcm_put_pixels16 (d, pix, 8, NULL);
      g_autofree char *name = g_strdup_printf ("view_%u.dcm", k);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      if (!ctr_dcm_save (d, path, NULL))
        g_error ("cannot write %s", path);
    }
}

void
fuzz_init (void)
{
  write_tiff ("sinogram.tif", 8, 4, 2, 0.5f);   /* sinogram: a page per row, line = view */
  write_tiff ("views.tif", 8, 2, 4, 0.5f);      /* view_pages: a page per view, line = row */
  for (guint v = 0; v < 4; v++)
    {
      g_autofree char *name = g_strdup_printf ("view_%u.tif", v);
      write_tiff (name, 8, 2, 1, 0.5f);
    }
  write_tiff ("flat.tif", 8, 2, 1, 1000.0f);
  write_tiff ("dark.tif", 8, 2, 1, 10.0f);
  write_tiff ("reference.tif", 8, 8, 1, 0.02f);
  write_ctpd ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  g_autofree char *path = fuzz_write ("geometry.json", data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) parsed = ctr_dataset_parse_geometry ((const char *) data, (gssize) size, &error);
  g_assert ((parsed == NULL) == (error != NULL));
  g_clear_error (&error);
  {
    g_autoptr (CtrGeometry) astra = ctr_geometry_import_astra ((const char *) data, (gssize) size, &error);
    g_assert ((astra == NULL) == (error != NULL));
    g_assert (astra == NULL || ctr_geometry_validate (astra, NULL));
    g_clear_error (&error);
    const CtrRtkDetector det = { 8, 2, 1.0, 1.0, NAN, NAN };
    g_autoptr (CtrGeometry) rtk = ctr_geometry_import_rtk ((const char *) data, (gssize) size, &det, &error);
    g_assert ((rtk == NULL) == (error != NULL));
    g_assert (rtk == NULL || ctr_geometry_validate (rtk, NULL));
    g_clear_error (&error);
  }

  g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
  if (d == NULL)
    {
      g_assert (error != NULL);
      return 0;
    }
  g_assert (ctr_geometry_validate (d->geometry, NULL));
  g_assert (d->projections->n_views == d->geometry->n_views);
  /* As the CLI before a run: the default grid (refused, not wrapped, when
   * too large) and the outputs kept off the inputs. */
  CtrGrid grid = ctr_grid_default (d->geometry, 0, 0);
  ctr_grid_validate (&grid, NULL);
  g_autofree char *out = g_build_filename (fuzz_dir (), "out.tif", NULL);
  ctr_output_path_check (out, CTR_OUTPUT_FILE, d, NULL, NULL);
  g_assert (!ctr_output_path_check (path, CTR_OUTPUT_FILE, d, NULL, NULL));
  if (d->variants != NULL && d->variants[0] != NULL)
    {
      g_autoptr (CtrDataset) v = ctr_dataset_load (path, d->variants[0], NULL, &error);
      g_assert ((v == NULL) == (error != NULL));
    }
  return 0;
}
