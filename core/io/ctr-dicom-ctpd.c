/* ctr-dicom-ctpd.c — DICOM-CT-PD projection series → CtrGeometry + CtrProjections.
 *
 * DICOM-CT-PD (Chen et al., Mayo Clinic; the format of TCIA's
 * LDCT-and-Projection-data; dictionary v8, summarised in
 * shared/data/gel-fan/README.md and head-fan-lowdose/README.md) stores one
 * view per file: the image's Rows are the detector channels (columns of the
 * detector), its Columns the detector rows; private tags give the geometry.
 *
 * Mapping onto FORMAT.md (right-handed, source at (R sin b, -R cos b)):
 *
 *   DICOM-CT-PD places the focal spot at cylindrical (rho, phi, z_pd) with
 *   x = -rho sin phi, y = rho cos phi in a left-handed frame (x, y, z_pd).
 *   Identifying x and y with FORMAT's and z_pd = -z makes it right-handed.
 *   Equating source positions,
 *       (-rho sin phi, rho cos phi) = (R sin b, -R cos b)  =>  b = phi - pi.
 *   Both angles then grow counter-clockwise seen from FORMAT's +z.  The
 *   format's channels are numbered so that channel 1 is on the left seen
 *   from the table with the detector at 6 o'clock: they run *against*
 *   FORMAT's u, so FORMAT column j = N - k for the 1-based channel k (DICOM
 *   image row r = k - 1), and the central element c (1-based, channel order)
 *   gives offset_u = (c - (N + 1)/2) · pitch_u.  Channel order and angle
 *   direction must be mapped together: keeping phi's sense and the channel
 *   order would not mirror the image but make the geometry inconsistent
 *   (validated on the shared datasets: the reconstruction equals that of
 *   the TIFF copy).
 *
 *   Detector rows run along z_pd = -z, so rows_increase_with_v is FALSE
 *   and offset_v = (c_row - (rows + 1)/2) · pitch_v.
 *
 * Helical scans (TypeofProjectionData HELICAL, or a focal-spot axial
 * position that moves) would need rebinning to axial slices; this version
 * refuses them with CTR_ERROR_UNSUPPORTED and says so.
 */
#include "ctr-dicom.h"
#include "ctr-dicom-private.h"
#include "ctr-error.h"

#include <math.h>
#include <string.h>

/* A private tag of DICOM-CT-PD: group, creator, low byte, name. */
typedef struct {
  guint16 group;
  const char *creator;
  guint8 low;
  const char *name;
} PdTag;

static const PdTag T_ROWS = { 0x7029, CTPD_CREATOR_DETECTOR_ARRANGEMENT, 0x10, "NumberofDetectorRows" };
static const PdTag T_COLS = { 0x7029, CTPD_CREATOR_DETECTOR_ARRANGEMENT, 0x11, "NumberofDetectorColumns" };
static const PdTag T_TRANSVERSE = { 0x7029, CTPD_CREATOR_DETECTOR_ARRANGEMENT, 0x02, "DetectorElementTransverseSpacing" };
static const PdTag T_AXIAL = { 0x7029, CTPD_CREATOR_DETECTOR_ARRANGEMENT, 0x06, "DetectorElementAxialSpacing" };
static const PdTag T_SHAPE = { 0x7029, CTPD_CREATOR_DETECTOR_ARRANGEMENT, 0x0b, "DetectorShape" };
static const PdTag T_PHI = { 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x01, "DetectorFocalCenterAngularPosition" };
static const PdTag T_ZPOS = { 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x02, "DetectorFocalCenterAxialPosition" };
static const PdTag T_RHO = { 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x03, "DetectorFocalCenterRadialDistance" };
static const PdTag T_SDD = { 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x31, "ConstantRadialDistance" };
static const PdTag T_CENTRAL = { 0x7031, CTPD_CREATOR_DETECTOR_DYNAMICS, 0x33, "DetectorCentralElement" };
/* 100B/100C: names swapped in some dictionary versions; numbers as the Mayo manual and FreeCT use them. */
static const PdTag T_DPHI = { 0x7033, CTPD_CREATOR_SOURCE_DYNAMICS, 0x0b, "SourceAngularPositionShift" };
static const PdTag T_DZ = { 0x7033, CTPD_CREATOR_SOURCE_DYNAMICS, 0x0c, "SourceAxialPositionShift" };
static const PdTag T_DRHO = { 0x7033, CTPD_CREATOR_SOURCE_DYNAMICS, 0x0d, "SourceRadialDistanceShift" };
static const PdTag T_FFS = { 0x7033, CTPD_CREATOR_SOURCE_DYNAMICS, 0x0e, "FlyingFocalSpotMode" };
static const PdTag T_PHOTONS = { 0x7033, CTPD_CREATOR_SOURCE_DYNAMICS, 0x65, "PhotonStatistics" };
static const PdTag T_TYPE = { 0x7037, CTPD_CREATOR_DEFINITIONS, 0x09, "TypeofProjectionData" };
static const PdTag T_GEOM = { 0x7037, CTPD_CREATOR_DEFINITIONS, 0x0a, "TypeofProjectionGeometry" };
static const PdTag T_LOG = { 0x7039, CTPD_CREATOR_PREPROCESSING, 0x09, "LogFlag" };

static guint16
elem_of (CtrDcm *d, const PdTag *t)
{
  return ctr_dcm_private_tag (d, t->group, t->creator, t->low);
}

static gboolean
get_num (CtrDcm *d, const PdTag *t, guint index, gboolean required, double def, double *out,
         const char *path, GError **error)
{
  guint16 e = elem_of (d, t);
  if (ctr_dcm_get_double (d, t->group, e, index, out))
    return TRUE;
  if (!required)
    {
      *out = def;
      return TRUE;
    }
  g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
               "%s: the DICOM-CT-PD tag %s (%04X,%04X)%s is missing or not a number", path, t->name,
               t->group, e, index > 0 ? " (its second value)" : "");
  return FALSE;
}

static char *
get_str (CtrDcm *d, const PdTag *t)
{
  return ctr_dcm_get_string (d, t->group, elem_of (d, t));
}

/* Values every view must share, from the first file. */
typedef struct {
  guint channels, rows;
  double transverse, axial, sdd, central_col, central_row, i0, mu_water;
  gboolean curved, log;
} Fixed;

static gboolean
read_fixed (CtrDcm *d, const char *path, Fixed *f, GError **error)
{
  double rows, cols;
  if (!get_num (d, &T_ROWS, 0, TRUE, 0, &rows, path, error)
      || !get_num (d, &T_COLS, 0, TRUE, 0, &cols, path, error)
      || !get_num (d, &T_TRANSVERSE, 0, TRUE, 0, &f->transverse, path, error)
      || !get_num (d, &T_AXIAL, 0, FALSE, 1.0, &f->axial, path, error)
      || !get_num (d, &T_SDD, 0, TRUE, 0, &f->sdd, path, error)
      || !get_num (d, &T_CENTRAL, 0, TRUE, 0, &f->central_col, path, error)
      || !get_num (d, &T_CENTRAL, 1, FALSE, (rows + 1) / 2, &f->central_row, path, error))
    return FALSE;
  if (rows < 1 || cols < 1 || rows > 65535 || cols > 65535)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: detector of %g rows × %g columns is invalid",
                   path, rows, cols);
      return FALSE;
    }
  f->rows = (guint) rows;
  f->channels = (guint) cols;

  g_autofree char *shape = get_str (d, &T_SHAPE);
  if (shape == NULL || g_ascii_strcasecmp (shape, "CYLINDRICAL") == 0)
    f->curved = TRUE;   /* the clinical default; the format's only other value is FLAT */
  else if (g_ascii_strcasecmp (shape, "FLAT") == 0)
    f->curved = FALSE;
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: DetectorShape (7029,100B) “%s” is not supported (CYLINDRICAL or FLAT)", path, shape);
      return FALSE;
    }

  g_autofree char *type = get_str (d, &T_TYPE);
  if (type != NULL && g_ascii_strcasecmp (type, "AXIAL") != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: TypeofProjectionData (7037,1009) is “%s”: only axial scans are read; a helical "
                   "scan needs rebinning to axial slices, which this version does not do", path, type);
      return FALSE;
    }
  g_autofree char *geom = get_str (d, &T_GEOM);
  if (geom != NULL && g_ascii_strcasecmp (geom, "FANBEAM") != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: TypeofProjectionGeometry (7037,100A) is “%s”; only FANBEAM is supported", path, geom);
      return FALSE;
    }
  g_autofree char *ffs = get_str (d, &T_FFS);
  if (ffs != NULL && g_ascii_strcasecmp (ffs, "FFSNONE") != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: FlyingFocalSpotMode (7033,100E) is “%s”; flying focal spots are not supported", path, ffs);
      return FALSE;
    }
  g_autofree char *log = get_str (d, &T_LOG);
  f->log = log == NULL || g_ascii_strcasecmp (log, "NO") != 0;

  /* HUCalibrationFactor (0018,0061, the DICOM-CT-PD dictionary): μ_water in 1/mm. */
  if (!ctr_dcm_get_double (d, 0x0018, 0x0061, 0, &f->mu_water) || !isfinite (f->mu_water) || f->mu_water <= 0)
    f->mu_water = 0;

  guint n_ph = ctr_dcm_count (d, T_PHOTONS.group, elem_of (d, &T_PHOTONS));
  f->i0 = 0;
  for (guint k = 0; k < n_ph; k++)
    {
      double v;
      if (ctr_dcm_get_double (d, T_PHOTONS.group, elem_of (d, &T_PHOTONS), k, &v))
        f->i0 += v / n_ph;
    }
  if (!f->log && f->i0 <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: LogFlag (7039,1009) is NO (raw counts) but PhotonStatistics (7033,1065) is missing",
                   path);
      return FALSE;
    }
  if (!(f->transverse > 0) || !(f->sdd > 0) || !(f->axial > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: DetectorElementTransverseSpacing (%g), DetectorElementAxialSpacing (%g) and "
                   "ConstantRadialDistance (%g) must be positive", path, f->transverse, f->axial, f->sdd);
      return FALSE;
    }
  return TRUE;
}

CtrDicomProjections *
ctr_dicom_ctpd_load (const CtrDicomSeries *series, CtrDicomCtpdFlags flags, GCancellable *cancellable,
                     GError **error)
{
  g_return_val_if_fail (series != NULL && series->files != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (series->n_duplicates > 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "%s", series->report);
      return NULL;
    }
  const guint V = series->n_files;
  if (V == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "the series %s has no files", series->series_uid);
      return NULL;
    }

  Fixed f = { 0 };
  g_autoptr (CtrProjections) p = NULL;
  g_autofree double *phi = g_new (double, V);
  double rho0 = 0, z_min = INFINITY, z_max = -INFINITY;
  guint out_rows = 0, row_first = 0;

  for (guint v = 0; v < V; v++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      const char *path = series->files[v];
      g_autoptr (CtrDcm) d = ctr_dcm_open (path, error);
      if (d == NULL)
        return NULL;
      if (v == 0)
        {
          if (!read_fixed (d, path, &f, error))
            return NULL;
          const gboolean central = (flags & CTR_DICOM_CTPD_CENTRAL_ROW) && f.rows > 1;
          /* The central row: the one nearest to the central element (1-based). */
          row_first = central ? (guint) CLAMP (lround (f.central_row - 1), 0, (long) f.rows - 1) : 0;
          out_rows = central ? 1 : f.rows;
          p = ctr_projections_new (V, out_rows, f.channels,
                                   f.log ? CTR_PROJ_LINE_INTEGRALS : CTR_PROJ_COUNTS, error);
          if (p == NULL)
            return NULL;
        }
      double rho, z, dphi, dz, drho;
      if (!get_num (d, &T_PHI, 0, TRUE, 0, &phi[v], path, error)
          || !get_num (d, &T_RHO, 0, TRUE, 0, &rho, path, error)
          || !get_num (d, &T_ZPOS, 0, FALSE, 0, &z, path, error)
          || !get_num (d, &T_DPHI, 0, FALSE, 0, &dphi, path, error)
          || !get_num (d, &T_DZ, 0, FALSE, 0, &dz, path, error)
          || !get_num (d, &T_DRHO, 0, FALSE, 0, &drho, path, error))
        return NULL;
      if (fabs (dphi) > 1e-9 || fabs (dz) > 1e-6 || fabs (drho) > 1e-6)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                       "%s: the focal spot is shifted (angular %g rad, axial %g mm, radial %g mm): "
                       "flying focal spots are not supported", path, dphi, dz, drho);
          return NULL;
        }
      if (v == 0)
        rho0 = rho;
      else if (fabs (rho - rho0) > 1e-3 * rho0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                       "%s: DetectorFocalCenterRadialDistance %g mm differs from the first view's %g mm; "
                       "a varying source distance is not supported", path, rho, rho0);
          return NULL;
        }
      z_min = MIN (z_min, z);
      z_max = MAX (z_max, z);

      guint r, c, frames;
      g_autoptr (GError) local = NULL;
      g_autofree float *img = ctr_dcm_read_pixels (d, &r, &c, &frames, &local);
      if (img == NULL)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
          return NULL;
        }
      if (r != f.channels || c != f.rows || frames != 1)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the image is %u rows × %u columns × %u frames; DICOM-CT-PD wants NumberofDetector"
                       "Columns (%u) rows × NumberofDetectorRows (%u) columns, one frame",
                       path, r, c, frames, f.channels, f.rows);
          return NULL;
        }
      /* DICOM value [channel k-1][row]; FORMAT [row][col = N - k]. */
      float *dst = ctr_projections_view (p, v);
      for (guint i = 0; i < out_rows; i++)
        for (guint k = 0; k < f.channels; k++)
          dst[(gsize) i * f.channels + (f.channels - 1 - k)] = img[(gsize) k * f.rows + row_first + i];
    }

  /* A focal spot that moves along z is a helical (or step-and-shoot) scan. */
  if (z_max - z_min > 1e-3)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: the focal spot moves along z by %.4g mm (DetectorFocalCenterAxialPosition): a "
                   "helical scan needs rebinning to axial slices, which this version does not do",
                   series->files[0], z_max - z_min);
      return NULL;
    }

  g_autoptr (CtrGeometry) g = ctr_geometry_new (out_rows > 1 ? CTR_BEAM_CONE : CTR_BEAM_FAN, V);
  g->shape = f.curved ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT;
  g->sod_mm = rho0;
  g->sdd_mm = f.sdd;
  g->n_rows = out_rows;
  g->n_cols = f.channels;
  /* Curved: the transverse spacing is an arc length on the cylinder of radius SDD. */
  g->pitch_u = f.curved ? f.transverse / f.sdd : f.transverse;
  g->offset_u = (f.central_col - (f.channels + 1) * 0.5) * g->pitch_u;
  g->pitch_v_mm = f.axial;
  g->rows_increase_with_v = FALSE;
  g->offset_v_mm = out_rows > 1 ? (f.central_row - (f.rows + 1) * 0.5) * f.axial : 0.0;
  /* beta = phi - pi, unwrapped so consecutive views differ by less than pi. */
  for (guint v = 0; v < V; v++)
    {
      double b = phi[v] - G_PI;
      if (v == 0)
        b = fmod (b, 2 * G_PI) + (fmod (b, 2 * G_PI) < 0 ? 2 * G_PI : 0);
      else
        {
          double prev = g->angles[v - 1];
          b = prev + remainder (b - prev, 2 * G_PI);
        }
      g->angles[v] = b;
    }
  if (!ctr_geometry_validate (g, error))
    {
      g_prefix_error (error, "%s (DICOM-CT-PD): ", series->files[0]);
      return NULL;
    }
  if (!f.log)
    p->i0 = f.i0;
  else if (f.i0 > 0)
    p->i0 = f.i0;   /* photon statistics kept for low-dose weighting */
  if (!ctr_projections_check_finite (p, error) || !ctr_projections_to_line_integrals (p, error))
    {
      g_prefix_error (error, "%s: ", series->files[0]);
      return NULL;
    }

  CtrDicomProjections *out = g_new0 (CtrDicomProjections, 1);
  g_autofree char *gd = ctr_geometry_describe (g);
  out->description = g_strdup_printf ("DICOM-CT-PD, %s%s", gd,
                                      (flags & CTR_DICOM_CTPD_CENTRAL_ROW) && f.rows > 1 ? " (central row)" : "");
  out->geometry = g_steal_pointer (&g);
  out->projections = g_steal_pointer (&p);
  out->mu_water = f.mu_water;
  return out;
}
