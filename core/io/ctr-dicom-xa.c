/* ctr-dicom-xa.c — X-ray angiography (XA, Enhanced XA) multi-frame → cone beam.
 *
 * A rotational C-arm run stores one frame per view.  Geometry (PS3.3 C.8.7.5
 * XA Positioner, C.8.19.6 Enhanced XA; ctr-dicom.h states the mapping):
 *
 *   beta_k = primary angle of frame k, radians.  Classic XA: Positioner
 *     Primary Angle (0018,1510) plus Positioner Primary Angle Increment
 *     (0018,1520): one value = the constant change per frame (beta_k = P +
 *     k·inc); one value per frame = offsets from the initial angle (beta_k =
 *     P + inc[k]) (PS3.3 C.8.7.5.1.3).  Enhanced XA: (0018,1510) of each
 *     frame's functional groups.
 *   FORMAT's world frame for a patient on the table: x = patient right,
 *     y = anterior, z = head.  At primary angle 0 (AP) the source is
 *     posterior (-y) and the detector anterior: beta = 0.  LAO (positive)
 *     moves the detector to the patient's left (-x), i.e. the source to
 *     (+x): (R sin b, -R cos b) with b > 0.  So beta = primary angle.
 *   SOD = DistanceSourceToPatient (0018,1111) (the isocentre; Enhanced XA:
 *     DistanceSourceToIsocenter (0018,9402) of the X-Ray Geometry group), SDD =
 *     DistanceSourceToDetector (0018,1110), pitches = ImagerPixelSpacing
 *     (0018,1164) (row spacing, column spacing) at the detector plane.
 *   Frames are viewed as radiographs (patient's right on the viewer's left,
 *     head up), so image columns run against u (= +x at beta 0) and image
 *     rows against v (= +z): FORMAT column j = C - 1 - c, rows_increase_with_v
 *     FALSE.  PatientOrientation (0020,0020) overrides: "R" as the first value
 *     keeps the column order, "H" as the second makes rows increase with v.
 */
#include "io/ctr-dicom.h"
#include "io/ctr-dicom-private.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

static gboolean
positive (CtrDcm *d, guint16 g, guint16 e, guint index, double *out)
{
  return ctr_dcm_get_double_frame (d, 0, g, e, index, out) && *out > 0;
}

CtrDicomProjections *
ctr_dicom_xa_load (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_autoptr (CtrDcm) d = ctr_dcm_open (path, error);
  if (d == NULL)
    return NULL;
  if (ctr_dicom_classify (d) != CTR_DICOM_KIND_XA)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: not an X-ray angiography image (SOP Class XA or Enhanced XA, Modality XA)", path);
      return NULL;
    }
  guint R, C, F;
  g_autoptr (GError) local = NULL;
  g_autofree float *img = ctr_dcm_read_pixels (d, &R, &C, &F, &local);
  if (img == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
      return NULL;
    }

  CtrDicomMissing missing = CTR_DICOM_MISSING_NONE;
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (CTR_BEAM_CONE, F, error);
  if (g == NULL)
    return NULL;
  g->shape = CTR_DETECTOR_FLAT;
  g->n_rows = R;
  g->n_cols = C;
  /* SOD: DistanceSourceToPatient, or Enhanced XA's DistanceSourceToIsocenter (0018,9402). */
  if (!positive (d, 0x0018, 0x1111, 0, &g->sod_mm) && !positive (d, 0x0018, 0x9402, 0, &g->sod_mm))
    missing |= CTR_DICOM_MISSING_SOD, g->sod_mm = 0;
  if (!positive (d, 0x0018, 0x1110, 0, &g->sdd_mm))
    missing |= CTR_DICOM_MISSING_SDD, g->sdd_mm = 0;
  if (!positive (d, 0x0018, 0x1164, 0, &g->pitch_v_mm) || !positive (d, 0x0018, 0x1164, 1, &g->pitch_u))
    missing |= CTR_DICOM_MISSING_PIXEL_SPACING, g->pitch_u = g->pitch_v_mm = 0;

  /* Angles. */
  const gboolean enhanced = ctr_dcm_has (d, 0x5200, 0x9230);
  double primary0 = 0, secondary0 = 0, s;
  gboolean have_angles = FALSE, secondary_moves = FALSE;
  if (enhanced)
    {
      have_angles = TRUE;
      for (guint k = 0; k < F && have_angles; k++)
        {
          have_angles = ctr_dcm_get_double_frame (d, k, 0x0018, 0x1510, 0, &g->angles[k]);
          if (ctr_dcm_get_double_frame (d, k, 0x0018, 0x1511, 0, &s))
            {
              if (k == 0)
                secondary0 = s;
              else if (fabs (s - secondary0) > 0.5)
                secondary_moves = TRUE;
            }
        }
    }
  else if (ctr_dcm_get_double (d, 0x0018, 0x1510, 0, &primary0))
    {
      const guint n_inc = ctr_dcm_count (d, 0x0018, 0x1520);
      const guint n_inc2 = ctr_dcm_count (d, 0x0018, 0x1521);
      ctr_dcm_get_double (d, 0x0018, 0x1511, 0, &secondary0);
      if (F == 1 || n_inc == 1 || n_inc == F)
        {
          have_angles = TRUE;
          for (guint k = 0; k < F; k++)
            {
              double inc = 0;
              if (n_inc == 1 && ctr_dcm_get_double (d, 0x0018, 0x1520, 0, &inc))
                inc *= k;
              else if (n_inc == F)
                ctr_dcm_get_double (d, 0x0018, 0x1520, k, &inc);
              g->angles[k] = primary0 + inc;
            }
        }
      for (guint k = 0; k < n_inc2 && !secondary_moves; k++)
        if (ctr_dcm_get_double (d, 0x0018, 0x1521, k, &s) && fabs (n_inc2 == 1 ? s * (F - 1) : s) > 0.5)
          secondary_moves = TRUE;
    }
  if (secondary_moves)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: the secondary (cranial/caudal) positioner angle changes during the run; only "
                   "orbits of the primary angle are supported", path);
      return NULL;
    }
  if (have_angles)
    for (guint k = 0; k < F; k++)
      g->angles[k] *= G_PI / 180.0;
  else
    missing |= CTR_DICOM_MISSING_ANGLES;

  /* Orientation of the frames' rows and columns (see the file comment). */
  gboolean cols_along_u = FALSE;
  g->rows_increase_with_v = FALSE;
  g_autofree char *orient = ctr_dcm_get_string (d, 0x0020, 0x0020);
  if (orient != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (orient, "\\", 2);
      if (parts[0] != NULL && parts[0][0] == 'R')
        cols_along_u = TRUE;
      if (parts[0] != NULL && parts[1] != NULL && parts[1][0] == 'H')
        g->rows_increase_with_v = TRUE;
    }

  /* Pixel values: LOG → line integrals as stored; otherwise intensities. */
  g_autofree char *rel = ctr_dcm_get_string (d, 0x0028, 0x1040);
  const gboolean log = rel != NULL && g_ascii_strcasecmp (rel, "LOG") == 0;
  g_autoptr (CtrProjections) p = ctr_projections_new (F, R, C, log ? CTR_PROJ_LINE_INTEGRALS : CTR_PROJ_COUNTS,
                                                      error);
  if (p == NULL)
    return NULL;
  const gsize plane = (gsize) R * C;
  float vmax = 0;
  for (gsize i = 0; i < plane * F; i++)
    vmax = MAX (vmax, img[i]);
  for (guint k = 0; k < F; k++)
    for (guint r = 0; r < R; r++)
      for (guint c = 0; c < C; c++)
        p->data[k * plane + (gsize) r * C + (cols_along_u ? c : C - 1 - c)] = img[k * plane + (gsize) r * C + c];
  if (!log)
    {
      if (!(vmax > 0))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "%s: every pixel is 0 or negative", path);
          return NULL;
        }
      p->i0 = vmax;
    }
  if (!ctr_projections_check_finite (p, error) || !ctr_projections_to_line_integrals (p, error))
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }

  CtrDicomProjections *out = g_new0 (CtrDicomProjections, 1);
  out->missing = missing;
  if (missing == CTR_DICOM_MISSING_NONE)
    {
      if (!ctr_geometry_validate (g, error))
        {
          g_prefix_error (error, "%s (X-ray angiography): ", path);
          ctr_dicom_projections_free (out);
          return NULL;
        }
      g_autofree char *gd = ctr_geometry_describe (g);
      g_autofree char *i0 = log ? g_strdup ("") : g_strdup_printf (", I0 = %g (brightest pixel)", vmax);
      out->description = g_strdup_printf ("%s, %s%s", enhanced ? "Enhanced XA" : "XA", gd, i0);
    }
  else
    out->description = g_strdup_printf ("%s, %u frames of %u × %u, geometry incomplete",
                                        enhanced ? "Enhanced XA" : "XA", F, R, C);
  out->geometry = g_steal_pointer (&g);
  out->projections = g_steal_pointer (&p);
  return out;
}

gboolean
ctr_dicom_xa_complete (CtrDicomProjections *p, double sod_mm, double sdd_mm, double pitch_u_mm,
                       double pitch_v_mm, double start_rad, double step_rad, GError **error)
{
  g_return_val_if_fail (p != NULL && p->geometry != NULL, FALSE);
  CtrGeometry *g = p->geometry;
  if (p->missing & CTR_DICOM_MISSING_SOD)
    g->sod_mm = sod_mm;
  if (p->missing & CTR_DICOM_MISSING_SDD)
    g->sdd_mm = sdd_mm;
  if (p->missing & CTR_DICOM_MISSING_PIXEL_SPACING)
    {
      g->pitch_u = pitch_u_mm;
      g->pitch_v_mm = pitch_v_mm;
    }
  if (p->missing & CTR_DICOM_MISSING_ANGLES)
    ctr_geometry_set_uniform_angles (g, start_rad, step_rad);
  if (!ctr_geometry_validate (g, error))
    return FALSE;
  p->missing = CTR_DICOM_MISSING_NONE;
  return TRUE;
}
