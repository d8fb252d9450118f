/* test-geometry-vectors.c — per-view vector geometry (core/data/ctr-geometry-vectors.h):
 * circular ⇄ vectors exactly (rays, projection matrices, SCSR symmetry,
 * reconstructions), a calibrated scan (shifted and rotated detector)
 * reconstructed as well as the exact circular description does, FBP/FDK
 * refusing non-circular orbits, geometry.json round trips and bad vectors. */
#include "ctrecon.h"
#include "data/ctr-geometry-vectors.h"
#include "sim/ctr-phantom3d.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-cone-projector.h"
#include "io/ctr-geometry-json.h"
#include "io/ctr-dataset.h"
#include "io/ctr-geometry-import.h"

#include <math.h>
#include <string.h>

static CtrGeometry *
fan_circular (guint views, guint cols)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, views);
  g->n_cols = cols;
  g->sod_mm = 400;
  g->sdd_mm = 700;
  g->pitch_u = 1.3;
  g->offset_u = 0.0;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / views);
  return g;
}

static CtrGeometry *
cone_circular (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, 24);
  g->n_cols = 40;
  g->n_rows = 30;
  g->sod_mm = 300;
  g->sdd_mm = 500;
  g->pitch_u = 1.1;
  g->pitch_v_mm = 1.2;
  g->offset_u = 2.3;
  g->offset_v_mm = -1.7;
  g->rows_increase_with_v = FALSE;
  ctr_geometry_set_uniform_angles (g, 0.3, 2 * G_PI / 24);
  return g;
}

/* Circular → vectors: same rays, same projection matrices, and the
 * circular description found back from the vectors. */
static void
test_round_trip (void)
{
  g_autoptr (CtrGeometry) f = fan_circular (90, 64);
  f->offset_u = 3.4;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) fv = ctr_geometry_to_vectors (f, &error);
  g_assert_no_error (error);
  g_assert_true (ctr_geometry_has_vectors (fv));
  g_assert_true (ctr_geometry_validate (fv, &error));
  for (guint v = 0; v < f->n_views; v += 7)
    for (double c = -0.5; c <= f->n_cols - 0.5; c += 8.25)
      {
        double o1[2], d1[2], o2[2], d2[2];
        ctr_geometry_ray (f, v, c, o1, d1);
        ctr_geometry_ray (fv, v, c, o2, d2);
        for (int k = 0; k < 2; k++)
          {
            g_assert_cmpfloat_with_epsilon (o1[k], o2[k], 1e-9);
            g_assert_cmpfloat_with_epsilon (d1[k], d2[k], 1e-12);
          }
      }
  double dev = -1;
  g_autoptr (CtrGeometry) back = ctr_geometry_circular_from_vectors (fv, &dev, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dev, <, 1e-9);
  g_assert_cmpfloat_with_epsilon (back->sod_mm, f->sod_mm, 1e-9);
  g_assert_cmpfloat_with_epsilon (back->sdd_mm, f->sdd_mm, 1e-9);
  g_assert_cmpfloat_with_epsilon (back->pitch_u, f->pitch_u, 1e-12);
  g_assert_cmpfloat_with_epsilon (back->offset_u, f->offset_u, 1e-9);
  for (guint v = 0; v < f->n_views; v++)
    g_assert_cmpfloat_with_epsilon (back->angles[v], f->angles[v], 1e-12);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_fov_radius_mm (fv), ctr_geometry_fov_radius_mm (f), 1e-9);

  g_autoptr (CtrGeometry) c = cone_circular ();
  g_autoptr (CtrGeometry) cv = ctr_geometry_to_vectors (c, &error);
  g_assert_no_error (error);
  for (guint v = 0; v < c->n_views; v += 5)
    {
      double P1[12], P2[12];
      ctr_geometry_projection_matrix (c, v, P1);
      ctr_geometry_projection_matrix (cv, v, P2);
      for (int k = 0; k < 12; k++)
        g_assert_cmpfloat (fabs (P1[k] - P2[k]), <, 1e-9 * (1.0 + fabs (P1[k])));
      for (double col = 0; col < c->n_cols; col += 13.5)
        for (double row = 0; row < c->n_rows; row += 9.5)
          {
            double o1[3], d1[3], o2[3], d2[3];
            ctr_cone_ray (c, v, col, row, o1, d1);
            ctr_cone_ray (cv, v, col, row, o2, d2);
            for (int k = 0; k < 3; k++)
              {
                g_assert_cmpfloat_with_epsilon (o1[k], o2[k], 1e-9);
                g_assert_cmpfloat_with_epsilon (d1[k], d2[k], 1e-12);
              }
            /* The matrix maps a point on the ray back to (col, row). */
            const double X[3] = { o2[0] + 350 * d2[0], o2[1] + 350 * d2[1], o2[2] + 350 * d2[2] };
            const double h0 = P2[0] * X[0] + P2[1] * X[1] + P2[2] * X[2] + P2[3];
            const double h1 = P2[4] * X[0] + P2[5] * X[1] + P2[6] * X[2] + P2[7];
            const double h2 = P2[8] * X[0] + P2[9] * X[1] + P2[10] * X[2] + P2[11];
            g_assert_cmpfloat_with_epsilon (h0 / h2, col, 1e-9);
            g_assert_cmpfloat_with_epsilon (h1 / h2, row, 1e-9);
          }
    }
  g_autoptr (CtrGeometry) cback = ctr_geometry_circular_from_vectors (cv, &dev, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (cback->offset_v_mm, c->offset_v_mm, 1e-9);
  g_assert_cmpfloat_with_epsilon (cback->pitch_v_mm, c->pitch_v_mm, 1e-12);
  g_assert_false (cback->rows_increase_with_v);

  /* Parallel beam and curved detectors have no vector form. */
  g_autoptr (CtrGeometry) p = ctr_geometry_new (CTR_BEAM_PARALLEL, 4);
  g_assert_null (ctr_geometry_to_vectors (p, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
}

/* A tilted (rotated in-plane) and shifted fan detector, and a cone detector
 * rotated about its normal and tilted: per-view vectors. */
static CtrGeometry *
calibrated (const CtrGeometry *nominal, double shift_mm, double rot_rad, double tilt_rad)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) v = ctr_geometry_to_vectors (nominal, &error);
  g_assert_no_error (error);
  g_autofree double *w = g_memdup2 (v->vectors, sizeof (double) * 12 * v->n_views);
  for (guint k = 0; k < v->n_views; k++)
    {
      double *x = w + 12 * k;
      const double pu = hypot (hypot (x[6], x[7]), x[8]);
      const double eu[3] = { x[6] / pu, x[7] / pu, x[8] / pu };
      for (int c = 0; c < 3; c++)  /* shift along u */
        x[3 + c] += shift_mm * eu[c];
      if (nominal->beam == CTR_BEAM_FAN)
        {
          /* in-plane rotation of the detector line about its centre */
          const double ux = x[6], uy = x[7];
          x[6] = cos (rot_rad) * ux - sin (rot_rad) * uy;
          x[7] = sin (rot_rad) * ux + cos (rot_rad) * uy;
        }
      else
        {
          /* rotation about the detector normal (u, v turn in their plane),
           * then a tilt of v towards the source (about u) */
          double u[3], vv[3], n[3];
          const double pv = hypot (hypot (x[9], x[10]), x[11]);
          for (int c = 0; c < 3; c++)
            {
              u[c] = x[6 + c];
              vv[c] = x[9 + c];
            }
          for (int c = 0; c < 3; c++)
            {
              x[6 + c] = cos (rot_rad) * u[c] + sin (rot_rad) * vv[c] * pu / pv;
              x[9 + c] = -sin (rot_rad) * u[c] * pv / pu + cos (rot_rad) * vv[c];
            }
          n[0] = -x[0];  /* towards the source, in-plane */
          n[1] = -x[1];
          n[2] = 0;
          const double nn = hypot (n[0], n[1]);
          for (int c = 0; c < 3; c++)
            x[9 + c] = cos (tilt_rad) * x[9 + c] + sin (tilt_rad) * pv * n[c] / nn;
        }
    }
  CtrGeometry *g = ctr_geometry_new_from_vectors (nominal->beam, nominal->n_views, nominal->n_rows,
                                                  nominal->n_cols, w, &error);
  g_assert_no_error (error);
  return g;
}

static CtrVolume *
cgls (const CtrGeometry *scan, const CtrGeometry *recon_g, const CtrPhantom *ph, const CtrGrid *grid)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, scan, 4, &error);
  g_assert_no_error (error);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_CGLS);
  o.iterations = 25;
  CtrVolume *img = ctr_reconstruct (recon_g, p, grid, &o, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return img;
}

/* "A vector geometry reconstructs a calibrated (shifted and rotated
 * detector) simulated scan as well as the exact circular description does"
 * (issue 17): the same error against the truth, and nearly the same image;
 * with the nominal circular description instead the image moves away. */
static void
test_calibrated_fan (void)
{
  /* 180 columns cover a disc of 66 mm at the isocentre: no truncation. */
  g_autoptr (CtrGeometry) nominal = fan_circular (90, 180);
  g_autoptr (CtrGeometry) cal = calibrated (nominal, 8.0, 5.0 * G_PI / 180.0, 0.0);
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_shepp_logan (50.0, 0.02);
  const CtrGrid grid = ctr_grid_square (56, 2.4, 1, 1.0);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrVolume) truth = ctr_phantom_rasterize (ph, &grid, 4, &error);
  g_autofree guint8 *mask = ctr_metrics_disc_mask (&grid, 50.0, NULL);
  const gsize n = ctr_grid_size (&grid);
  g_autoptr (CtrVolume) exact = cgls (nominal, nominal, ph, &grid);
  g_autoptr (CtrVolume) vec = cgls (cal, cal, ph, &grid);
  g_autoptr (CtrVolume) wrong = cgls (cal, nominal, ph, &grid);
  const double e_exact = ctr_metrics_rmse (exact->data, truth->data, n, mask);
  const double e_vec = ctr_metrics_rmse (vec->data, truth->data, n, mask);
  const double e_wrong = ctr_metrics_rmse (wrong->data, truth->data, n, mask);
  const double d_vec = ctr_metrics_rmse (vec->data, exact->data, n, mask);
  const double d_wrong = ctr_metrics_rmse (wrong->data, exact->data, n, mask);
  g_test_message ("CGLS RMSE against the truth: circular scan with its circular geometry %.4e; calibrated scan "
                  "with its vectors %.4e; calibrated scan with the nominal circular geometry %.4e.  RMSE against "
                  "the circular scan's image: vectors %.3e, nominal %.3e", e_exact, e_vec, e_wrong, d_vec, d_wrong);
  g_assert_cmpfloat (e_vec, <=, 1.05 * e_exact);
  g_assert_cmpfloat (d_vec, <, 0.25 * d_wrong);

  /* FBP needs a circular orbit: the calibrated vectors are refused by name,
   * the vectors of the circular scan are accepted (and equal FBP's result). */
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, cal, 1, &error);
  g_assert_no_error (error);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  g_autoptr (CtrVolume) none = ctr_reconstruct (cal, p, &grid, &o, NULL, NULL, NULL, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "not a circular orbit"));
  g_clear_error (&error);
  g_autoptr (CtrGeometry) nv = ctr_geometry_to_vectors (nominal, &error);
  g_autoptr (CtrProjections) pn = ctr_phantom_project (ph, nominal, 1, &error);
  g_autoptr (CtrVolume) a = ctr_reconstruct (nominal, pn, &grid, &o, NULL, NULL, NULL, NULL, &error);
  g_autoptr (CtrVolume) b = ctr_reconstruct (nv, pn, &grid, &o, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ctr_metrics_rmse (a->data, b->data, ctr_grid_size (&grid), NULL), <, 1e-6);
}

/* The SCSR symmetry of a circular orbit is found from its vectors too, and
 * the SCSR reconstructions agree. */
static void
test_scsr_symmetry (void)
{
  g_autoptr (CtrGeometry) f = fan_circular (72, 64);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) fv = ctr_geometry_to_vectors (f, &error);
  const CtrGrid grid = ctr_grid_square (48, 2.5, 1, 1.0);
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_shepp_logan (55.0, 0.02);
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, f, 2, &error);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  o.iterations = 3;
  g_autoptr (CtrReconPlan) pa = ctr_recon_plan_new (f, &grid, &o, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrReconPlan) pb = ctr_recon_plan_new (fv, &grid, &o, NULL, &error);
  g_assert_no_error (error);
  CtrPlanInfo ia, ib;
  ctr_recon_plan_get_info (pa, FALSE, &ia);
  ctr_recon_plan_get_info (pb, FALSE, &ib);
  g_test_message ("symmetry: circular %s (%u stored views), vectors %s (%u)", ia.symmetry, ia.stored_views,
                  ib.symmetry, ib.stored_views);
  g_assert_cmpstr (ia.symmetry, ==, ib.symmetry);
  g_assert_cmpuint (ia.stored_views, ==, ib.stored_views);
  g_assert_cmpuint (ib.stored_views, <, f->n_views);
  g_autoptr (CtrVolume) a = ctr_recon_plan_execute (pa, p, NULL, NULL, NULL, NULL, &error);
  g_autoptr (CtrVolume) b = ctr_recon_plan_execute (pb, p, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ctr_metrics_rmse (a->data, b->data, ctr_grid_size (&grid), NULL), <, 1e-6);
}

/* Cone beam: the matched projector runs on vectors; the calibrated scan
 * (detector rotated 2° about its normal, tilted 3°, shifted 2 mm) projects
 * the phantom as its exact ray integrals do, and FDK refuses it. */
static void
test_cone (void)
{
  g_autoptr (CtrGeometry) c = cone_circular ();
  g_autoptr (CtrGeometry) cal = calibrated (c, 2.0, 2.0 * G_PI / 180.0, 3.0 * G_PI / 180.0);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (40.0, 0.02);
  CtrGrid grid = ctr_grid_square (48, 2.0, 32, 2.0);
  g_autoptr (CtrVolume) vol = ctr_phantom3d_rasterize (ph, &grid, 2, &error);
  g_assert_no_error (error);
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (cal, &grid, &error);
  g_assert_no_error (error);
  const gsize n = (gsize) cal->n_views * cal->n_rows * cal->n_cols;
  g_autofree float *fp = g_new0 (float, n);
  ctr_cone_projector_forward (cp, vol->data, fp);
  g_autoptr (CtrProjections) exact = ctr_phantom3d_project (ph, cal, 2, &error);
  g_assert_no_error (error);
  double num = 0, den = 0;
  for (gsize i = 0; i < n; i++)
    {
      num += (fp[i] - exact->data[i]) * (double) (fp[i] - exact->data[i]);
      den += exact->data[i] * (double) exact->data[i];
    }
  g_test_message ("cone vectors: Joseph projection vs exact integrals, relative RMS %.4f", sqrt (num / den));
  g_assert_cmpfloat (sqrt (num / den), <, 0.05);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FDK);
  g_autoptr (CtrVolume) none = ctr_reconstruct (cal, exact, &grid, &o, NULL, NULL, NULL, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
}

static void
test_json (void)
{
  g_autoptr (CtrGeometry) c = cone_circular ();
  g_autoptr (CtrGeometry) cal = calibrated (c, 1.0, 0.01, 0.02);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) o = ctr_geometry_to_json_object (cal);
  g_autoptr (JsonNode) root = json_node_init_object (json_node_alloc (), o);
  g_autofree char *text = json_to_string (root, FALSE);
  g_autoptr (CtrGeometry) back = ctr_dataset_parse_geometry (text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (ctr_geometry_has_vectors (back));
  g_assert_cmpmem (back->vectors, 12 * sizeof (double) * back->n_views, cal->vectors,
                   12 * sizeof (double) * cal->n_views);

  /* fanflat_vec rows of 6 numbers */
  const char *fan6 = "{\"type\":\"fan\",\"views\":2,\"detector_cols\":8,\"vectors\":"
                     "[[0,-400,0,300,1,0],[400,0,-300,0,0,1]]}";
  g_autoptr (CtrGeometry) f = ctr_dataset_parse_geometry (fan6, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (f->sod_mm, 400, 1e-12);
  g_assert_cmpfloat_with_epsilon (f->sdd_mm, 700, 1e-12);
  g_assert_cmpfloat_with_epsilon (f->angles[1], G_PI_2, 1e-12);

  static const struct { const char *json; int code; const char *words; } bad[] = {
    { "{\"type\":\"fan\",\"views\":2,\"detector_cols\":8,\"vectors\":[[0,-400,0,300,1,0]]}",
      CTR_ERROR_INVALID_GEOMETRY, "has 1 entries" },
    { "{\"type\":\"fan\",\"views\":1,\"detector_cols\":8,\"vectors\":[[0,-400,0,300,0,0]]}",
      CTR_ERROR_INVALID_GEOMETRY, "column step u" },
    { "{\"type\":\"fan\",\"views\":1,\"detector_cols\":8,\"vectors\":[[0,-400,0,-400,1,0]]}",
      CTR_ERROR_INVALID_GEOMETRY, "in front" },
    { "{\"type\":\"fan\",\"views\":1,\"detector_cols\":8,\"vectors\":[[0,-400,0,300,1]]}",
      CTR_ERROR_FORMAT, "6 (or 12)" },
    { "{\"type\":\"cone\",\"views\":1,\"detector_cols\":8,\"detector_rows\":4,\"vectors\":"
      "[[0,-400,0, 0,300,0, 1,0,0, 2,0,0]]}", CTR_ERROR_INVALID_GEOMETRY, "parallel" },
    { "{\"type\":\"cone\",\"views\":1,\"detector_cols\":8,\"detector_rows\":4,\"vectors\":"
      "[[0,-400,0, 0,300,0, 1,0,0, 0,0,\"x\"]]}", CTR_ERROR_FORMAT, "not a number" },
    { "{\"type\":\"parallel\",\"views\":1,\"detector_cols\":8,\"vectors\":[[0,1,0,0,1,0]]}",
      CTR_ERROR_UNSUPPORTED, "parallel" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (CtrGeometry) b = ctr_dataset_parse_geometry (bad[i].json, -1, &e);
      g_assert_null (b);
      g_assert_error (e, CTR_ERROR, bad[i].code);
      if (strstr (e->message, bad[i].words) == NULL)
        g_error ("case %u: “%s” lacks “%s”", i, e->message, bad[i].words);
    }
}

/* The importers without the peers (the peers' own files are checked in
 * tests/peers/): an RTK XML written by RTK 2.7's writer, whose first view's
 * source RTK itself places at (498.10198805, -122.46488022, 858.42982393)
 * in its frame (GetSourcePosition), i.e. (x, -z, y) in ours; ASTRA dicts. */
static void
test_import (void)
{
  static const char rtk[] =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE RTKGEOMETRY>\n<RTKThreeDCircularGeometry version=\"3\">\n"
    "  <SourceToIsocenterDistance>1000</SourceToIsocenterDistance>\n"
    "  <SourceToDetectorDistance>1500</SourceToDetectorDistance>\n"
    "  <Projection>\n    <GantryAngle>30</GantryAngle>\n    <SourceOffsetX>2</SourceOffsetX>\n"
    "    <SourceOffsetY>-1</SourceOffsetY>\n    <ProjectionOffsetX>5</ProjectionOffsetX>\n"
    "    <ProjectionOffsetY>-3</ProjectionOffsetY>\n    <InPlaneAngle>11</InPlaneAngle>\n"
    "    <OutOfPlaneAngle>7</OutOfPlaneAngle>\n    <Matrix>\n 1 2 3 4\n 5 6 7 8\n 9 10 11 12\n    </Matrix>\n"
    "  </Projection>\n  <Projection>\n    <GantryAngle>0</GantryAngle>\n  </Projection>\n"
    "</RTKThreeDCircularGeometry>\n";
  const CtrRtkDetector det = { 64, 48, 2.0, 2.0, NAN, NAN };
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = ctr_geometry_import_rtk (rtk, -1, &det, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g->n_views, ==, 2);
  g_assert_true (ctr_geometry_has_vectors (g));
  const double want[3] = { 498.10198805, -858.42982393, -122.46488022 };
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat_with_epsilon (g->vectors[k], want[k], 1e-6);
  /* view 1: gantry 0, no offsets: source (0, -1000, 0), detector centre
   * (0, 500, 0), u = +x·2 mm, v = +z·2 mm */
  const double v1[12] = { 0, -1000, 0, 0, 500, 0, 2, 0, 0, 0, 0, 2 };
  for (int k = 0; k < 12; k++)
    g_assert_cmpfloat_with_epsilon (g->vectors[12 + k], v1[k], 1e-9);
  g_autoptr (CtrGeometry) none = ctr_geometry_import_rtk ("<RTKThreeDCircularGeometry version=\"3\">"
                                                          "<RadiusCylindricalDetector>800</RadiusCylindricalDetector>"
                                                          "<SourceToIsocenterDistance>1000</SourceToIsocenterDistance>"
                                                          "<SourceToDetectorDistance>1500</SourceToDetectorDistance>"
                                                          "<Projection><GantryAngle>0</GantryAngle></Projection>"
                                                          "</RTKThreeDCircularGeometry>", -1, &det, &error);
  g_assert_null (none);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  g_assert_null (ctr_geometry_import_rtk ("<other/>", -1, &det, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_error (&error);
  g_assert_null (ctr_geometry_import_rtk ("<RTKThreeDCircularGeometry><Projection><GantryAngle>x</GantryAngle>"
                                          "</Projection></RTKThreeDCircularGeometry>", -1, &det, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_error (&error);

  g_autoptr (CtrGeometry) f = ctr_geometry_import_astra (
    "{\"type\":\"fanflat\",\"DetectorWidth\":1.5,\"DetectorCount\":100,\"ProjectionAngles\":[0,0.5,1.0],"
    "\"DistanceOriginSource\":300,\"DistanceOriginDetector\":200}", -1, &error);
  g_assert_no_error (error);
  g_assert_false (ctr_geometry_has_vectors (f));
  g_assert_cmpint (f->beam, ==, CTR_BEAM_FAN);
  g_assert_cmpfloat (f->sod_mm, ==, 300);
  g_assert_cmpfloat (f->sdd_mm, ==, 500);
  g_assert_cmpfloat (f->pitch_u, ==, 1.5);
  g_assert_cmpfloat (f->angles[2], ==, 1.0);
  g_autoptr (CtrGeometry) cv = ctr_geometry_import_astra (
    "{\"type\":\"cone_vec\",\"DetectorRowCount\":4,\"DetectorColCount\":5,\"Vectors\":"
    "[[0,-300,0, 0,200,0, 1,0,0, 0,0,1.2]]}", -1, &error);
  g_assert_no_error (error);
  g_assert_true (ctr_geometry_has_vectors (cv));
  g_assert_cmpfloat (cv->vectors[11], ==, 1.2);
  /* parallel_vec: β = atan2 (u), pitch |u|, offset d·û (a shift along the
   * ray and the ray's sense ignored); angles unwrapped past π. */
  g_autoptr (CtrGeometry) pv = ctr_geometry_import_astra (
    "{\"type\":\"parallel_vec\",\"DetectorCount\":6,\"Vectors\":"
    "[[0,-1, 0.5,7, 2,0], [-1,0, 7,0.5, 0,2], [0,-1, -0.5,3, -2,0], [1,0, -9,-0.5, 0,-2]]}", -1, &error);
  g_assert_no_error (error);
  g_assert_true (pv->beam == CTR_BEAM_PARALLEL && !ctr_geometry_has_vectors (pv));
  g_assert_cmpfloat (pv->pitch_u, ==, 2.0);
  g_assert_cmpfloat (pv->offset_u, ==, 0.5);
  g_assert_cmpfloat_with_epsilon (pv->angles[1], G_PI_2, 1e-12);
  g_assert_cmpfloat_with_epsilon (pv->angles[2], G_PI, 1e-12);
  g_assert_cmpfloat_with_epsilon (pv->angles[3], 3 * G_PI_2, 1e-12);
  static const struct { const char *json; int code; } bad[] = {
    { "{\"type\":\"parallel3d\"}", CTR_ERROR_UNSUPPORTED },
    { "{\"type\":\"parallel_vec\",\"DetectorCount\":6,\"Vectors\":[[0.1,-1, 0,0, 1,0]]}", CTR_ERROR_UNSUPPORTED },
    { "{\"type\":\"parallel_vec\",\"DetectorCount\":6,\"Vectors\":[[0,-1, 0,0, 1,0], [-1,0, 0,0, 0,1.1]]}",
      CTR_ERROR_UNSUPPORTED },
    { "{\"type\":\"parallel_vec\",\"DetectorCount\":6,\"Vectors\":[[0,-1, 0,0, 1,0], [-1,0, 0,0.2, 0,1]]}",
      CTR_ERROR_UNSUPPORTED },
    { "{\"type\":\"parallel_vec\",\"DetectorCount\":6,\"Vectors\":[[0,-1, 0,0, 0,0]]}",
      CTR_ERROR_INVALID_GEOMETRY },
    { "{\"type\":\"fanflat\",\"DetectorWidth\":1,\"DetectorCount\":10,\"ProjectionAngles\":[0]}", CTR_ERROR_FORMAT },
    { "{\"type\":\"fanflat_vec\",\"DetectorCount\":10,\"Vectors\":[[0,-300,0,200,1]]}", CTR_ERROR_FORMAT },
    { "[1,2]", CTR_ERROR_FORMAT },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (CtrGeometry) b = ctr_geometry_import_astra (bad[i].json, -1, &e);
      g_assert_null (b);
      g_assert_error (e, CTR_ERROR, bad[i].code);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/geometry-vectors/round-trip", test_round_trip);
  g_test_add_func ("/ctr/geometry-vectors/calibrated-fan", test_calibrated_fan);
  g_test_add_func ("/ctr/geometry-vectors/scsr-symmetry", test_scsr_symmetry);
  g_test_add_func ("/ctr/geometry-vectors/cone", test_cone);
  g_test_add_func ("/ctr/geometry-vectors/json", test_json);
  g_test_add_func ("/ctr/geometry-vectors/import", test_import);
  return g_test_run ();
}
