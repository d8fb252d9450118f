/* ctr-skyscan.c — a Bruker SkyScan scan log (.log) and its TIFF projections
 * as a cone-beam dataset (ctr-vendor.h; the key mapping is in
 * docs/readers.md). */
#include "io/ctr-vendor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/ctr-error.h"

#define ACQ "Acquisition"
#define MAX_VIEWS 1000000u
#define MAX_PIXELS 100000u

gboolean
ctr_skyscan_is_log (const char *path)
{
  g_autofree char *lower = path != NULL ? g_ascii_strdown (path, -1) : NULL;
  if (lower == NULL || !g_str_has_suffix (lower, ".log") || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return FALSE;
  g_autoptr (CtrVendorIni) ini = ctr_vendor_ini_load (path, NULL);
  g_autofree char *prefix = ini != NULL ? ctr_vendor_ini_value (ini, ACQ, "Filename Prefix") : NULL;
  return prefix != NULL;
}

/* "AxB" of "Camera binning" (1 when absent). */
static void
binning (const CtrVendorIni *ini, double *bu, double *bv)
{
  g_autofree char *b = ctr_vendor_ini_value (ini, NULL, "Camera binning");
  *bu = *bv = 1;
  if (b != NULL && sscanf (b, "%lfx%lf", bu, bv) != 2)
    *bu = *bv = 1;
  if (!(*bu >= 1 && *bv >= 1))
    *bu = *bv = 1;
}

/* Distances, sizes and the pitch: Camera Pixel Size × binning at the
 * detector, else Image Pixel Size (at the object) × SDD/SOD. */
static gboolean
read_detector (const CtrVendorIni *ini, CtrGeometry *g, GError **error)
{
  double camera_um, image_um, bu, bv;
  if (!ctr_vendor_ini_number (ini, NULL, "Object to Source (mm)", TRUE, 0, &g->sod_mm, error)
      || !ctr_vendor_ini_number (ini, NULL, "Camera to Source (mm)", TRUE, 0, &g->sdd_mm, error)
      || !ctr_vendor_ini_count (ini, ACQ, "Number of Columns", TRUE, 0, MAX_PIXELS, &g->n_cols, error)
      || !ctr_vendor_ini_count (ini, ACQ, "Number of Rows", TRUE, 0, MAX_PIXELS, &g->n_rows, error)
      || !ctr_vendor_ini_number (ini, NULL, "Camera Pixel Size (um)", FALSE, 0, &camera_um, error)
      || !ctr_vendor_ini_number (ini, ACQ, "Image Pixel Size (um)", camera_um == 0, 0, &image_um, error))
    return FALSE;
  binning (ini, &bu, &bv);
  if (camera_um > 0)
    {
      g->pitch_u = camera_um * bu * 1e-3;
      g->pitch_v_mm = camera_um * bv * 1e-3;
    }
  else
    g->pitch_u = g->pitch_v_mm = g->sod_mm > 0 ? image_um * 1e-3 * g->sdd_mm / g->sod_mm : 0;
  return TRUE;
}

/* The rotation axis at column (cols − 1)/2 + Postalignment ([Reconstruction],
 * pixels), the central ray at row "Optical Axis (line)" (the middle row
 * when absent). */
static gboolean
read_offsets (const CtrVendorIni *ini, CtrGeometry *g, GError **error)
{
  double post, axis_row;
  if (!ctr_vendor_ini_number (ini, "Reconstruction", "Postalignment", FALSE, 0, &post, error)
      || !ctr_vendor_ini_number (ini, ACQ, "Optical Axis (line)", FALSE, (g->n_rows - 1) * 0.5, &axis_row, error))
    return FALSE;
  g->offset_u = -post * g->pitch_u;
  g->offset_v_mm = (axis_row - (g->n_rows - 1) * 0.5) * g->pitch_v_mm;   /* rows grow downwards: −v */
  return TRUE;
}

/* The angles: "Rotation Step (deg)" from "Scanning Start Angle"; the sample
 * turns counter-clockwise seen from above ("Rotation Direction=CC", the
 * default), so the source in the sample's frame turns clockwise: β = −θ. */
static gboolean
read_angles (const CtrVendorIni *ini, CtrGeometry *g, GError **error)
{
  double step, start;
  if (!ctr_vendor_ini_number (ini, ACQ, "Rotation Step (deg)", TRUE, 0, &step, error)
      || !ctr_vendor_ini_number (ini, ACQ, "Scanning Start Angle", FALSE, 0, &start, error))
    return FALSE;
  g_autofree char *dir = ctr_vendor_ini_value (ini, ACQ, "Rotation Direction");
  double sense = dir != NULL && g_ascii_strcasecmp (dir, "CW") == 0 ? 1.0 : -1.0;
  if (!(step > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “Rotation Step (deg)” must be positive, got %g",
                   ini->path, step);
      return FALSE;
    }
  ctr_geometry_set_uniform_angles (g, sense * start * G_PI / 180.0, sense * step * G_PI / 180.0);
  return TRUE;
}

/* The open beam: "Reference Intensity", else the full scale of "Depth (bits)". */
static gboolean
read_white (const CtrVendorIni *ini, CtrDataset *notes, double *white, GError **error)
{
  double bits;
  if (!ctr_vendor_ini_number (ini, ACQ, "Reference Intensity", FALSE, 0, white, error)
      || !ctr_vendor_ini_number (ini, ACQ, "Depth (bits)", FALSE, 16, &bits, error))
    return FALSE;
  if (*white == 0 && bits >= 1 && bits <= 32)
    {
      *white = ldexp (1.0, (int) bits) - 1;
      ctr_dataset_add_warning (notes, "%s: no “Reference Intensity”: the open beam is taken as %g, the full "
                               "scale of %g-bit images", ini->path, *white, bits);
    }
  if (!(*white > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “Reference Intensity” must be positive, got %g",
                   ini->path, *white);
      return FALSE;
    }
  g_autofree char *ff = ctr_vendor_ini_value (ini, ACQ, "Flat Field Correction");
  if (ff != NULL && g_ascii_strncasecmp (ff, "OFF", 3) == 0)
    ctr_dataset_add_warning (notes, "%s: “Flat Field Correction=OFF”: the projections are not flat-field "
                             "corrected; the detector's own non-uniformity stays in the data", ini->path);
  return TRUE;
}

/* <Filename Prefix><index, Filename Index Length wide>.tif from 0, beside @ini. */
static char **
projection_paths (const CtrVendorIni *ini, guint views, GError **error)
{
  double digits;
  g_autofree char *prefix = ctr_vendor_ini_value (ini, ACQ, "Filename Prefix");
  if (!ctr_vendor_ini_number (ini, ACQ, "Filename Index Length", FALSE, 8, &digits, error))
    return NULL;
  if (prefix == NULL || strchr (prefix, '/') != NULL || strchr (prefix, '\\') != NULL || !(digits >= 1 && digits <= 12))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: %s", ini->path,
                   prefix == NULL ? "the key “Filename Prefix” (section [" ACQ "]) is missing"
                   : "“Filename Prefix” must be a file name without a folder, “Filename Index Length” 1 … 12");
      return NULL;
    }
  return ctr_vendor_view_paths (ini, prefix, (guint) digits, 0, views, error);
}

CtrDataset *
ctr_skyscan_load_dataset (const char *path, GCancellable *cancellable, GError **error)
{
  g_autoptr (CtrVendorIni) ini = ctr_vendor_ini_load (path, error);
  if (ini == NULL)
    return NULL;
  guint views;
  double white;
  g_autoptr (CtrDataset) notes = g_new0 (CtrDataset, 1);
  if (!ctr_vendor_ini_count (ini, ACQ, "Number of Files", TRUE, 0, MAX_VIEWS, &views, error)
      || !read_white (ini, notes, &white, error))
    return NULL;
  CtrGeometry *g = ctr_geometry_try_new (CTR_BEAM_CONE, views, error);
  if (g == NULL)
    return NULL;
  g->shape = CTR_DETECTOR_FLAT;
  g->rows_increase_with_v = FALSE;
  g->pixel_size_known = TRUE;
  g_auto (GStrv) paths = NULL;
  if (!read_detector (ini, g, error) || !read_offsets (ini, g, error) || !read_angles (ini, g, error)
      || (paths = projection_paths (ini, views, error)) == NULL)
    {
      ctr_geometry_free (g);
      return NULL;
    }
  CtrProjections *p = ctr_vendor_read_views (paths, views, g->n_rows, g->n_cols, white, ini->path, cancellable, error);
  if (p == NULL)
    {
      ctr_geometry_free (g);
      return NULL;
    }
  g_autofree char *base = g_path_get_basename (ini->path);
  CtrDataset *d = ctr_vendor_dataset (ini->path, base, g, p, paths, error);
  for (guint i = 0; d != NULL && notes->warnings != NULL && notes->warnings[i] != NULL; i++)
    ctr_dataset_add_warning (d, "%s", notes->warnings[i]);
  return d;
}
