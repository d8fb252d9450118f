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
 * Helical scans (TypeofProjectionData HELICAL, or any series whose focal
 * centre moves along z: a helix or a sequence of axial turns) keep every
 * view's focal-centre position: beta as above and source z = −z_pd
 * (DetectorFocalCenterAxialPosition (7031,1002)) in CtrGeometry.source_z_mm,
 * with table_reversed set (the data's own table coordinate is z_pd = −z).
 * A flying focal spot's shifts of the source from the focal centre,
 * (7033,100B) angular (rad, the sense of phi, so of beta), (7033,100C) axial
 * (along z_pd, so −z) and (7033,100D) radial, go to CtrGeometry.focal_shift.
 * PhotonStatistics (7033,1065) with one value per channel, or per channel
 * and row (the image's order: [channel][row]), becomes the open-beam counts
 * per detector pixel (CtrProjections.flat, FORMAT order) when the values
 * differ, and their mean CtrProjections.i0.
 *
 * Checks: every file has the first one's detector, TypeofProjectionData and
 * distances (a mixed series is named file by file); the focal centre moves
 * one way along z; TableFeedPerRotation (0018,9310) and SpiralPitchFactor
 * (0018,9311), when present, agree with the motion of the focal centre
 * within 1 % (2 % for the pitch), and so does every view of a helical scan
 * with the straight line of z over the view angle (within half a slice
 * width): otherwise the feed is inconsistent and the series is refused.
 */
#include "io/ctr-dicom.h"
#include "io/ctr-dicom-private.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "data/ctr-helix.h"

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
  double feed, pitch;      /* (0018,9310), (0018,9311); 0 when absent */
  gboolean curved, log, helical;
  gboolean shape_assumed;  /* DetectorShape absent: CYLINDRICAL taken */
  double bits;             /* BitsAllocated (0028,0100); 0 when absent */
  char *type;              /* TypeofProjectionData, or NULL */
  char *ffs;               /* FlyingFocalSpotMode, or NULL */
  float *photons;          /* PhotonStatistics, n_photons values */
  guint n_photons;
} Fixed;

static void
fixed_clear (Fixed *f)
{
  g_free (f->type);
  g_free (f->ffs);
  g_free (f->photons);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Fixed, fixed_clear)

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
  f->shape_assumed = shape == NULL;
  if (shape == NULL || g_ascii_strcasecmp (shape, "CYLINDRICAL") == 0)
    f->curved = TRUE;   /* the clinical default (said: ->note); the format's only other value is FLAT */
  else if (g_ascii_strcasecmp (shape, "FLAT") == 0)
    f->curved = FALSE;
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: DetectorShape (7029,100B) “%s” is not supported (CYLINDRICAL or FLAT)", path, shape);
      return FALSE;
    }

  f->type = get_str (d, &T_TYPE);
  f->helical = f->type != NULL && g_ascii_strcasecmp (f->type, "HELICAL") == 0;
  if (f->type != NULL && !f->helical && g_ascii_strcasecmp (f->type, "AXIAL") != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: TypeofProjectionData (7037,1009) is “%s”; AXIAL and HELICAL are read", path, f->type);
      return FALSE;
    }
  if (!ctr_dcm_get_double (d, 0x0018, 0x9310, 0, &f->feed) || !(f->feed > 0))
    f->feed = 0;
  if (!ctr_dcm_get_double (d, 0x0018, 0x9311, 0, &f->pitch) || !(f->pitch > 0))
    f->pitch = 0;
  g_autofree char *geom = get_str (d, &T_GEOM);
  if (geom != NULL && g_ascii_strcasecmp (geom, "FANBEAM") != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: TypeofProjectionGeometry (7037,100A) is “%s”; only FANBEAM is supported", path, geom);
      return FALSE;
    }
  f->ffs = get_str (d, &T_FFS);
  g_autofree char *log = get_str (d, &T_LOG);
  f->log = log == NULL || g_ascii_strcasecmp (log, "NO") != 0;
  if (!ctr_dcm_get_double (d, 0x0028, 0x0100, 0, &f->bits))
    f->bits = 0;
  /* Line integrals stored as integers need the Modality LUT: without
   * RescaleSlope the integers themselves would be read as -ln values. */
  double slope;
  if (f->log && !ctr_dcm_get_double (d, 0x0028, 0x1053, 0, &slope))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: RescaleSlope (0028,1053) is missing: the stored integers are line integrals only "
                   "once scaled (LogFlag (7039,1009) is not NO); read as they are they would be about "
                   "1000× too large (the usual slope is 0.001)", path);
      return FALSE;
    }

  /* HUCalibrationFactor (0018,0061, the DICOM-CT-PD dictionary): μ_water in 1/mm. */
  if (!ctr_dcm_get_double (d, 0x0018, 0x0061, 0, &f->mu_water) || !isfinite (f->mu_water) || f->mu_water <= 0)
    f->mu_water = 0;

  guint n_ph = ctr_dcm_count (d, T_PHOTONS.group, elem_of (d, &T_PHOTONS));
  f->i0 = 0;
  if (n_ph > 0 && n_ph != 1 && n_ph != f->channels && n_ph != f->channels * f->rows)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: PhotonStatistics (7033,1065) has %u values; expected 1, one per channel (%u) or one "
                   "per channel and row (%u)", path, n_ph, f->channels, f->channels * f->rows);
      return FALSE;
    }
  f->photons = ctr_memory_try_new (MAX (n_ph, 1), sizeof (float), FALSE, "the PhotonStatistics values", error);
  if (f->photons == NULL)
    return FALSE;
  f->n_photons = n_ph;
  for (guint k = 0; k < n_ph; k++)
    {
      double v;
      if (!ctr_dcm_get_double (d, T_PHOTONS.group, elem_of (d, &T_PHOTONS), k, &v) || !(v > 0))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: PhotonStatistics (7033,1065) value %u is not a positive number", path, k + 1);
          return FALSE;
        }
      f->photons[k] = (float) v;
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

/* The values a later file must share with the first (a mixed series
 * otherwise): detector size, spacings, distance, TypeofProjectionData. */
static gboolean
check_same (CtrDcm *d, const char *path, const Fixed *f, GError **error)
{
  double rows = 0, cols = 0, transverse = 0, sdd = 0;
  get_num (d, &T_ROWS, 0, FALSE, 0, &rows, path, NULL);
  get_num (d, &T_COLS, 0, FALSE, 0, &cols, path, NULL);
  get_num (d, &T_TRANSVERSE, 0, FALSE, 0, &transverse, path, NULL);
  get_num (d, &T_SDD, 0, FALSE, 0, &sdd, path, NULL);
  g_autofree char *type = get_str (d, &T_TYPE);
  g_autofree char *log_s = get_str (d, &T_LOG);
  const gboolean log = log_s == NULL || g_ascii_strcasecmp (log_s, "NO") != 0;
  double bits = 0, slope = 0;
  ctr_dcm_get_double (d, 0x0028, 0x0100, 0, &bits);
  const gboolean has_slope = ctr_dcm_get_double (d, 0x0028, 0x1053, 0, &slope);
  const char *what = NULL;
  g_autofree char *mine = NULL, *first = NULL;
  if (log != f->log)
    {
      what = "LogFlag (7039,1009)";
      mine = g_strdup (log ? "line integrals" : "NO (raw counts)");
      first = g_strdup (f->log ? "line integrals" : "NO (raw counts)");
    }
  else if (bits != f->bits)
    {
      what = "BitsAllocated (0028,0100)";
      mine = g_strdup_printf ("%g", bits);
      first = g_strdup_printf ("%g", f->bits);
    }
  else if (log && !has_slope)
    {
      what = "RescaleSlope (0028,1053)";
      mine = g_strdup ("absent");
      first = g_strdup ("present");
    }
  else if (rows != f->rows || cols != f->channels)
    {
      what = "NumberofDetectorRows/Columns (7029,1010/1011)";
      mine = g_strdup_printf ("%g × %g", rows, cols);
      first = g_strdup_printf ("%u × %u", f->rows, f->channels);
    }
  else if (fabs (transverse - f->transverse) > 1e-4 * f->transverse || fabs (sdd - f->sdd) > 1e-4 * f->sdd)
    {
      what = "DetectorElementTransverseSpacing (7029,1002) or ConstantRadialDistance (7031,1031)";
      mine = g_strdup_printf ("%g mm, %g mm", transverse, sdd);
      first = g_strdup_printf ("%g mm, %g mm", f->transverse, f->sdd);
    }
  else if (g_strcmp0 (type, f->type) != 0)
    {
      what = "TypeofProjectionData (7037,1009)";
      mine = g_strdup (type ? type : "(absent)");
      first = g_strdup (f->type ? f->type : "(absent)");
    }
  if (what == NULL)
    return TRUE;
  g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
               "%s: %s is %s but %s in the series' first view: a mixed series (give one scan's files)",
               path, what, mine, first);
  return FALSE;
}

/* The focal centre's motion along z against the feed the series states
 * (see the top of this file); @z: per view z_pd. */
static gboolean
check_motion (const CtrDicomSeries *series, const Fixed *f, const CtrGeometry *g, const double *z_pd,
              GError **error)
{
  const guint V = g->n_views;
  double sign = 0;
  for (guint v = 1; v < V; v++)
    {
      const double dz = z_pd[v] - z_pd[v - 1];
      if (fabs (dz) < 1e-4)
        continue;
      if (sign == 0)
        sign = dz > 0 ? 1 : -1;
      else if (dz * sign < 0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the focal centre moves back along z at this view (DetectorFocalCenterAxialPosition "
                       "%g mm after %g mm): the views are not one scan", series->files[v], z_pd[v], z_pd[v - 1]);
          return FALSE;
        }
    }
  if (!ctr_geometry_is_helical (g))
    return TRUE;
  const double feed = fabs (ctr_helix_feed_mm (g)), width = ctr_geometry_slice_width_mm (g);
  if (f->helical)
    {
      /* Every view on the straight line z(β) of the whole scan. */
      const double b0 = g->angles[0], rate = (g->source_z_mm[V - 1] - g->source_z_mm[0]) / (g->angles[V - 1] - b0);
      for (guint v = 0; v < V; v++)
        {
          const double off = g->source_z_mm[v] - (g->source_z_mm[0] + rate * (g->angles[v] - b0));
          if (fabs (off) > 0.5 * width)
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                           "%s: inconsistent feed: the focal centre is %.3g mm away from the steady helix "
                           "(%.4g mm per rotation) at this view", series->files[v], off, feed);
              return FALSE;
            }
        }
    }
  if (f->feed > 0 && fabs (f->feed - feed) > MAX (0.01, 0.01 * f->feed))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: inconsistent feed: TableFeedPerRotation (0018,9310) is %g mm, but the focal centre "
                   "moves %.4g mm per rotation (DetectorFocalCenterAxialPosition over "
                   "DetectorFocalCenterAngularPosition)", series->files[0], f->feed, feed);
      return FALSE;
    }
  if (f->pitch > 0 && fabs (f->pitch - ctr_helix_pitch (g)) > 0.02 * f->pitch)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: inconsistent feed: SpiralPitchFactor (0018,9311) is %g, but the feed of %.4g mm per "
                   "rotation over %u rows of %.4g mm at the isocentre gives %.4g", series->files[0], f->pitch,
                   feed, g->n_rows, width, ctr_helix_pitch (g));
      return FALSE;
    }
  return TRUE;
}

/* The series as read view by view (read_views): the detector rows kept,
 * the projections they fill and where each view's source was. */
typedef struct {
  guint out_rows, row_first;   /* the rows kept: all from 0, or the central one */
  CtrProjections *p;
  double *phi;                 /* per view: DetectorFocalCenterAngularPosition */
  double *z_pd;                /* per view: DetectorFocalCenterAxialPosition (0 when absent) */
  double *shift;               /* 3 per view: the focal spot's angular, axial (FORMAT's z) and radial shift */
  gboolean shifted;            /* some view's focal spot is shifted */
  double rho0;                 /* DetectorFocalCenterRadialDistance, the same in every view */
  double z_min, z_max;         /* the range of z_pd */
} Views;

static void
views_clear (Views *s)
{
  g_clear_pointer (&s->p, ctr_projections_unref);
  g_free (s->phi);
  g_free (s->z_pd);
  g_free (s->shift);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Views, views_clear)

/* On the first view: the detector rows kept (all, or with
 * CTR_DICOM_CTPD_CENTRAL_ROW the one nearest the central element) and the
 * projections of V views they fill. */
static gboolean
views_start (Views *s, const Fixed *f, CtrDicomCtpdFlags flags, guint V, GError **error)
{
  const gboolean central = (flags & CTR_DICOM_CTPD_CENTRAL_ROW) && f->rows > 1;
  /* The central row: the one nearest to the central element (1-based). */
  s->row_first = central ? (guint) CLAMP (lround (f->central_row - 1), 0, (long) f->rows - 1) : 0;
  s->out_rows = central ? 1 : f->rows;
  s->p = ctr_projections_new (V, s->out_rows, f->channels,
                              f->log ? CTR_PROJ_LINE_INTEGRALS : CTR_PROJ_COUNTS, error);
  return s->p != NULL;
}

/* View v's source: the focal centre's angle, distance (the first view's in
 * every view) and z, and the flying focal spot's shifts. */
static gboolean
read_source (CtrDcm *d, const char *path, guint v, Views *s, GError **error)
{
  double rho, *sh = s->shift + 3 * (gsize) v;
  if (!get_num (d, &T_PHI, 0, TRUE, 0, &s->phi[v], path, error)
      || !get_num (d, &T_RHO, 0, TRUE, 0, &rho, path, error)
      || !get_num (d, &T_ZPOS, 0, FALSE, 0, &s->z_pd[v], path, error)
      || !get_num (d, &T_DPHI, 0, FALSE, 0, &sh[0], path, error)
      || !get_num (d, &T_DZ, 0, FALSE, 0, &sh[1], path, error)
      || !get_num (d, &T_DRHO, 0, FALSE, 0, &sh[2], path, error))
    return FALSE;
  /* FORMAT: the angle keeps phi's sense, z is −z_pd. */
  sh[1] = -sh[1];
  s->shifted = s->shifted || fabs (sh[0]) > 1e-9 || fabs (sh[1]) > 1e-6 || fabs (sh[2]) > 1e-6;
  if (v == 0)
    s->rho0 = rho;
  else if (fabs (rho - s->rho0) > 1e-3 * s->rho0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: DetectorFocalCenterRadialDistance %g mm differs from the first view's %g mm; "
                   "a varying source distance is not supported", path, rho, s->rho0);
      return FALSE;
    }
  s->z_min = MIN (s->z_min, s->z_pd[v]);
  s->z_max = MAX (s->z_max, s->z_pd[v]);
  return TRUE;
}

/* View v's pixels into the projections: one frame of channels × rows, its
 * kept rows in FORMAT order. */
static gboolean
read_pixels (CtrDcm *d, const char *path, guint v, const Fixed *f, Views *s, GError **error)
{
  guint r, c, frames;
  g_autoptr (GError) local = NULL;
  g_autofree float *img = ctr_dcm_read_pixels (d, &r, &c, &frames, &local);
  if (img == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
      return FALSE;
    }
  if (r != f->channels || c != f->rows || frames != 1)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the image is %u rows × %u columns × %u frames; DICOM-CT-PD wants NumberofDetector"
                   "Columns (%u) rows × NumberofDetectorRows (%u) columns, one frame",
                   path, r, c, frames, f->channels, f->rows);
      return FALSE;
    }
  /* DICOM value [channel k-1][row]; FORMAT [row][col = N - k]. */
  float *dst = ctr_projections_view (s->p, v);
  for (guint i = 0; i < s->out_rows; i++)
    for (guint k = 0; k < f->channels; k++)
      dst[(gsize) i * f->channels + (f->channels - 1 - k)] = img[(gsize) k * f->rows + s->row_first + i];
  return TRUE;
}

/* Every file of the series in turn: the first one's values into f (a later
 * one must share them), each view's source and pixels into s. */
static gboolean
read_views (const CtrDicomSeries *series, CtrDicomCtpdFlags flags, GCancellable *cancellable, Fixed *f,
            Views *s, GError **error)
{
  const guint V = series->n_files;

  /* the per-view tables: the focal spot's angle and z, its three shifts */
  g_autofree char *what = g_strdup_printf ("the per-view tables of %u views", V);
  if ((s->phi = ctr_memory_try_new (V, sizeof (double), FALSE, what, error)) == NULL
      || (s->z_pd = ctr_memory_try_new (V, sizeof (double), FALSE, what, error)) == NULL
      || (s->shift = ctr_memory_try_new (V, 3 * sizeof (double), TRUE, what, error)) == NULL)
    return FALSE;
  s->z_min = INFINITY;
  s->z_max = -INFINITY;
  for (guint v = 0; v < V; v++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      const char *path = series->files[v];
      g_autoptr (CtrDcm) d = ctr_dcm_open (path, error);
      if (d == NULL)
        return FALSE;
      if (v == 0)
        {
          if (!read_fixed (d, path, f, error) || !views_start (s, f, flags, V, error))
            return FALSE;
        }
      else if (!check_same (d, path, f, error))
        return FALSE;
      if (!read_source (d, path, v, s, error) || !read_pixels (d, path, v, f, s, error))
        return FALSE;
    }
  return TRUE;
}

/* A focal centre that moves along z (@moving; z_min: its lowest z_pd) is
 * a helix or a sequence of turns: TypeofProjectionData HELICAL requires
 * it, the central row (CTR_DICOM_CTPD_CENTRAL_ROW) refuses it. */
static gboolean
check_moving (const CtrDicomSeries *series, const Fixed *f, CtrDicomCtpdFlags flags, gboolean moving,
              double z_min, GError **error)
{
  if (f->helical && !moving)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: TypeofProjectionData (7037,1009) is HELICAL, but the focal centre stays at "
                   "DetectorFocalCenterAxialPosition %g mm in every view", series->files[0], z_min);
      return FALSE;
    }
  if (moving && (flags & CTR_DICOM_CTPD_CENTRAL_ROW))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: the focal centre moves along z, so the central detector row is no slice; "
                   "reconstruct the whole helical series (it is rebinned to slices)", series->files[0]);
      return FALSE;
    }
  return TRUE;
}

/* The geometry of the V views in FORMAT's terms (see the top of this file):
 * a cone beam when several rows are kept or the focal centre is @moving
 * (then with every view's source z), a fan beam otherwise. */
static CtrGeometry *
assemble_geometry (const Fixed *f, const Views *s, guint V, gboolean moving, GError **error)
{
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (s->out_rows > 1 || moving ? CTR_BEAM_CONE : CTR_BEAM_FAN, V,
                                                    error);
  if (g == NULL)
    return NULL;
  g->shape = f->curved ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT;
  g->sod_mm = s->rho0;
  g->sdd_mm = f->sdd;
  g->n_rows = s->out_rows;
  g->n_cols = f->channels;
  /* Curved: the transverse spacing is an arc length on the cylinder of radius SDD. */
  g->pitch_u = f->curved ? f->transverse / f->sdd : f->transverse;
  g->offset_u = (f->central_col - (f->channels + 1) * 0.5) * g->pitch_u;
  /* DetectorElementAxialSpacing is the row pitch at the detector: a cone
   * beam's row pitch; a fan beam's (one row, a slice) row pitch is its
   * slice width, the row seen at the isocentre (ctr_geometry_slice_width_mm,
   * the grid's dz), as a geometry.json's "slice_thickness_mm" gives it */
  g->pitch_v_mm = g->beam == CTR_BEAM_FAN ? f->axial * s->rho0 / f->sdd : f->axial;
  g->rows_increase_with_v = FALSE;
  g->offset_v_mm = s->out_rows > 1 ? (f->central_row - (f->rows + 1) * 0.5) * f->axial : 0.0;
  g->table_reversed = TRUE;
  /* beta = phi - pi, unwrapped so consecutive views differ by less than pi. */
  for (guint v = 0; v < V; v++)
    {
      double b = s->phi[v] - G_PI;
      if (v == 0)
        b = fmod (b, 2 * G_PI) + (fmod (b, 2 * G_PI) < 0 ? 2 * G_PI : 0);
      else
        {
          double prev = g->angles[v - 1];
          b = prev + remainder (b - prev, 2 * G_PI);
        }
      g->angles[v] = b;
    }
  if (moving)
    {
      g->source_z_mm = ctr_memory_try_new (V, sizeof (double), FALSE, "the source positions of the views", error);
      if (g->source_z_mm == NULL)
        return NULL;
      for (guint v = 0; v < V; v++)
        g->source_z_mm[v] = -s->z_pd[v];
    }
  return g_steal_pointer (&g);
}

/* The flying focal spot: a FlyingFocalSpotMode other than FFSNONE needs
 * the views' shifts; shifts, read for cone beams only, go to
 * g->focal_shift (taken from s). */
static gboolean
set_focal_shift (const CtrDicomSeries *series, const Fixed *f, Views *s, CtrGeometry *g, GError **error)
{
  if (!s->shifted && f->ffs != NULL && g_ascii_strcasecmp (f->ffs, "FFSNONE") != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: FlyingFocalSpotMode (7033,100E) is “%s”, but no view states where its focal spot "
                   "was (SourceAngular/Axial/RadialDistanceShift (7033,100B-100D) are 0 or absent)",
                   series->files[0], f->ffs);
      return FALSE;
    }
  if (s->shifted)
    {
      if (g->beam != CTR_BEAM_CONE)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                       "%s: the focal spot is shifted (SourceAngular/Axial/RadialDistanceShift, (7033,100B-100D)) "
                       "in a single-row axial scan; flying focal spots are read for multi-row and helical scans",
                       series->files[0]);
          return FALSE;
        }
      g->focal_shift = g_steal_pointer (&s->shift);
    }
  return TRUE;
}

/* PhotonStatistics into the projections: their mean as i0 and, when they
 * differ, the open-beam counts per detector pixel as flat.  FALSE with
 * CTR_ERROR_OUT_OF_MEMORY (the flat). */
static gboolean
set_open_beam (const Fixed *f, Views *s, GError **error)
{
  CtrProjections *p = s->p;

  if (f->i0 > 0)
    p->i0 = f->i0;   /* counts: the open beam; line integrals: kept for low-dose weighting */
  if (f->n_photons > 1)
    {
      gboolean uniform = TRUE;
      for (guint k = 1; k < f->n_photons; k++)
        uniform = uniform && fabs (f->photons[k] - f->photons[0]) <= 1e-6 * f->photons[0];
      if (!uniform)
        {
          /* Open-beam counts per pixel in FORMAT order (as the pixels in read_pixels). */
          const gboolean per_row = f->n_photons == f->channels * f->rows;
          p->flat = ctr_memory_try_new ((gsize) s->out_rows * f->channels, sizeof (float), FALSE,
                                        "the open-beam counts of one detector plane", error);
          if (p->flat == NULL)
            return FALSE;
          for (guint i = 0; i < s->out_rows; i++)
            for (guint k = 0; k < f->channels; k++)
              p->flat[(gsize) i * f->channels + (f->channels - 1 - k)]
                = f->photons[per_row ? (gsize) k * f->rows + s->row_first + i : k];
        }
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

  g_auto (Fixed) f = { 0 };
  g_auto (Views) s = { 0 };
  if (!read_views (series, flags, cancellable, &f, &s, error))
    return NULL;

  /* A focal centre that moves along z: a helix (or a sequence of turns). */
  const gboolean moving = s.z_max - s.z_min > 1e-3;
  if (!check_moving (series, &f, flags, moving, s.z_min, error))
    return NULL;

  g_autoptr (CtrGeometry) g = assemble_geometry (&f, &s, V, moving, error);
  if (g == NULL || !set_focal_shift (series, &f, &s, g, error))
    return NULL;
  if (!ctr_geometry_validate (g, error))
    {
      g_prefix_error (error, "%s (DICOM-CT-PD): ", series->files[0]);
      return NULL;
    }
  if (!check_motion (series, &f, g, s.z_pd, error))
    return NULL;
  if (!set_open_beam (&f, &s, error))
    return NULL;
  if (!ctr_projections_check_finite (s.p, error) || !ctr_projections_to_line_integrals (s.p, error))
    {
      g_prefix_error (error, "%s: ", series->files[0]);
      return NULL;
    }

  CtrDicomProjections *out = g_new0 (CtrDicomProjections, 1);
  g_autofree char *gd = ctr_geometry_describe (g);
  out->description = g_strdup_printf ("DICOM-CT-PD, %s%s", gd,
                                      (flags & CTR_DICOM_CTPD_CENTRAL_ROW) && f.rows > 1 ? " (central row)" : "");
  out->geometry = g_steal_pointer (&g);
  out->projections = g_steal_pointer (&s.p);
  out->mu_water = f.mu_water;
  if (f.shape_assumed)
    out->note = g_strdup_printf ("%s: DetectorShape (7029,100B) is absent: a cylindrical (curved) detector is "
                                 "assumed, the format's default; state FLAT if the detector is flat",
                                 series->files[0]);
  return out;
}
