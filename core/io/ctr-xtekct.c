/* ctr-xtekct.c — a Nikon XTek .xtekct file and its TIFF projections as a
 * cone-beam dataset (ctr-vendor.h; the key mapping is in docs/readers.md). */
#include "io/ctr-vendor.h"

#include <math.h>
#include <string.h>
#include "base/ctr-error.h"

#define GROUP "XTekCT"
#define MAX_VIEWS 1000000u
#define MAX_PIXELS 100000u

gboolean
ctr_xtekct_is_xtekct (const char *path)
{
  g_autofree char *lower = path != NULL ? g_ascii_strdown (path, -1) : NULL;
  return lower != NULL && g_str_has_suffix (lower, ".xtekct") && g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/* Distances, sizes and pitches: the keys every scan states. */
static gboolean
read_detector (const CtrVendorIni *ini, CtrGeometry *g, GError **error)
{
  return ctr_vendor_ini_number (ini, GROUP, "SrcToObject", TRUE, 0, &g->sod_mm, error)
         && ctr_vendor_ini_number (ini, GROUP, "SrcToDetector", TRUE, 0, &g->sdd_mm, error)
         && ctr_vendor_ini_count (ini, GROUP, "DetectorPixelsX", TRUE, 0, MAX_PIXELS, &g->n_cols, error)
         && ctr_vendor_ini_count (ini, GROUP, "DetectorPixelsY", TRUE, 0, MAX_PIXELS, &g->n_rows, error)
         && ctr_vendor_ini_number (ini, GROUP, "DetectorPixelSizeX", TRUE, 0, &g->pitch_u, error)
         && ctr_vendor_ini_number (ini, GROUP, "DetectorPixelSizeY", TRUE, 0, &g->pitch_v_mm, error);
}

/* The detector offset: DetectorOffsetX/Y (mm at the detector) and the
 * rotation axis's position CentreOfRotationTop/Bottom (mm at the object,
 * magnified onto the detector by SDD/SOD; their mean, the tilt noted). */
static gboolean
read_offsets (const CtrVendorIni *ini, CtrGeometry *g, CtrDataset *notes, GError **error)
{
  double dx, dy, top, bottom;
  if (!ctr_vendor_ini_number (ini, GROUP, "DetectorOffsetX", FALSE, 0, &dx, error)
      || !ctr_vendor_ini_number (ini, GROUP, "DetectorOffsetY", FALSE, 0, &dy, error)
      || !ctr_vendor_ini_number (ini, GROUP, "CentreOfRotationTop", FALSE, 0, &top, error)
      || !ctr_vendor_ini_number (ini, GROUP, "CentreOfRotationBottom", FALSE, top, &bottom, error))
    return FALSE;
  double magnification = g->sod_mm > 0 ? g->sdd_mm / g->sod_mm : 0;
  g->offset_u = dx - 0.5 * (top + bottom) * magnification;
  g->offset_v_mm = dy;
  if (top != bottom)
    ctr_dataset_add_warning (notes, "%s: CentreOfRotationTop (%g mm) and CentreOfRotationBottom (%g mm) differ: "
                             "the axis is tilted; their mean is used (the tilt is not modelled)",
                             ini->path, top, bottom);
  return TRUE;
}

/* <Name><InputSeparator><index, InputDigits wide>.tif from 1, beside @ini. */
static char **
projection_paths (const CtrVendorIni *ini, const char *name, guint views, GError **error)
{
  double digits;
  if (!ctr_vendor_ini_number (ini, GROUP, "InputDigits", FALSE, 4, &digits, error))
    return NULL;
  if (!(digits >= 1 && digits <= 12))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “InputDigits” must be 1 … 12, got %g",
                   ini->path, digits);
      return NULL;
    }
  g_autofree char *sep = ctr_vendor_ini_value (ini, GROUP, "InputSeparator");
  g_autofree char *stem = g_strconcat (name, sep != NULL ? sep : "_", NULL);
  return ctr_vendor_view_paths (ini, stem, (guint) digits, 1, views, error);
}

CtrDataset *
ctr_xtekct_load_dataset (const char *path, GCancellable *cancellable, GError **error)
{
  g_autoptr (CtrVendorIni) ini = ctr_vendor_ini_load (path, error);
  if (ini == NULL)
    return NULL;
  g_autofree char *name = ctr_vendor_ini_value (ini, GROUP, "Name");
  guint views;
  double first, step, white;
  if (name == NULL || name[0] == '\0' || strchr (name, '/') != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “Name” (section [" GROUP "]) %s", ini->path,
                   name == NULL ? "is missing" : "must name the projections (<Name>_0001.tif), without a folder");
      return NULL;
    }
  if (!ctr_vendor_ini_count (ini, GROUP, "Projections", TRUE, 0, MAX_VIEWS, &views, error)
      || !ctr_vendor_ini_number (ini, GROUP, "InitialAngle", FALSE, 0, &first, error)
      || !ctr_vendor_ini_number (ini, GROUP, "AngularStep", FALSE, 360.0 / views, &step, error)
      || !ctr_vendor_ini_number (ini, GROUP, "WhiteLevel", TRUE, 0, &white, error))
    return NULL;
  if (!(white > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “WhiteLevel” must be positive, got %g",
                   ini->path, white);
      return NULL;
    }
  g_autoptr (CtrDataset) notes = g_new0 (CtrDataset, 1);
  CtrGeometry *g = ctr_geometry_try_new (CTR_BEAM_CONE, views, error);
  if (g == NULL)
    return NULL;
  g->shape = CTR_DETECTOR_FLAT;
  g->rows_increase_with_v = FALSE;
  g->pixel_size_known = TRUE;
  /* The sample turns clockwise seen from above: the source, in the
   * sample's frame, counter-clockwise, the sense of β (FORMAT.md). */
  ctr_geometry_set_uniform_angles (g, first * G_PI / 180.0, step * G_PI / 180.0);
  if (!read_detector (ini, g, error) || !read_offsets (ini, g, notes, error))
    {
      ctr_geometry_free (g);
      return NULL;
    }
  g_auto (GStrv) paths = projection_paths (ini, name, views, error);
  CtrProjections *p = paths != NULL
    ? ctr_vendor_read_views (paths, views, g->n_rows, g->n_cols, white, ini->path, cancellable, error) : NULL;
  if (p == NULL)
    {
      ctr_geometry_free (g);
      return NULL;
    }
  CtrDataset *d = ctr_vendor_dataset (ini->path, name, g, p, paths, error);
  for (guint i = 0; d != NULL && notes->warnings != NULL && notes->warnings[i] != NULL; i++)
    ctr_dataset_add_warning (d, "%s", notes->warnings[i]);
  return d;
}
