/* test-report-image.c — what an iterative run's reports carry
 * (CtrReconOptions.report_image, issue 37): the whole image, one slice, or
 * none before the last report, on the CPU's fan-beam slice stack (its
 * native image is not the natural one: the slice comes out of the whole
 * image).  Every slice reported is, bit for bit, that slice of the image
 * the volume report of the same iteration carries, on the slice's plane
 * (nz = 1, its z); the last report and the result are the whole image, the
 * same bit for bit in every mode; the residuals are the same (the report
 * changes what is copied, never the iteration).  The device's side (only
 * the slice copied back) is tests/test-gpu-vecops.c's. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "solve/ctr-report-planes.h"

#define N 32
#define SLICES 3
#define ITERATIONS 3

static CtrGeometry *
fan_stack (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, 40);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 250;
  g->sdd_mm = 500;
  g->n_cols = 48;
  g->n_rows = SLICES;
  g->pitch_u = 2 * asin (30.0 / 250) / 48;
  ctr_geometry_set_uniform_angles (g, 0.1, 2 * G_PI / 40);
  return g;
}

/* Smooth line integrals, a different pattern in each row (slice): the
 * property tested is what the reports carry, not the image's accuracy. */
static CtrProjections *
scan (const CtrGeometry *g)
{
  CtrProjections *p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, NULL);
  for (guint v = 0; v < g->n_views; v++)
    for (guint r = 0; r < g->n_rows; r++)
      for (guint c = 0; c < g->n_cols; c++)
        {
          const double u = (c - 0.5 * g->n_cols) / (0.4 * g->n_cols);
          ctr_projections_view (p, v)[r * g->n_cols + c] =
            fabs (u) < 1.0 ? (float) ((r + 1) * sqrt (1.0 - u * u) * (1.0 + 0.2 * sin (0.3 * v + r))) : 0.f;
        }
  return p;
}

typedef struct {
  GPtrArray *images;   /* a copy of each report's image (NULL: none) */
  GPtrArray *planes;   /* a copy of each report's three planes (NULL: none) */
  GArray *residuals;
} Reports;

static void
on_report (const CtrIterStats *s, gpointer data)
{
  Reports *r = data;
  g_ptr_array_add (r->images, s->image != NULL ? ctr_volume_copy (s->image) : NULL);
  for (guint k = 0; k < 3; k++)
    g_ptr_array_add (r->planes, s->planes[k] != NULL ? ctr_volume_copy (s->planes[k]) : NULL);
  g_array_append_val (r->residuals, s->residual);
}

/* The fan stack's grid (N × N × SLICES, off centre) and SIRT options on
 * the CPU for @iterations, reports under @mode. */
static const CtrGrid stack_grid = { N, N, SLICES, 1.2, 1.2, 1.0, 0.4, -0.3, 0.0 };

static void
sirt_options (CtrReconOptions *o, guint iterations, CtrReportImage mode)
{
  ctr_recon_options_init (o, CTR_METHOD_SIRT);
  o->iterations = iterations;
  o->backend = "cpu";
  o->report_image = mode;
}

/* CTR_REPORT_PLANES: the voxel's column and row */
static guint report_x, report_y;

static void
volume_unref0 (gpointer v)
{
  if (v != NULL)
    ctr_volume_unref (v);
}

static CtrVolume *
run (CtrReportImage mode, guint slice, Reports *r)
{
  g_autoptr (CtrGeometry) g = fan_stack ();
  g_autoptr (CtrProjections) p = scan (g);
  g_autoptr (GError) e = NULL;
  CtrReconOptions o;
  sirt_options (&o, ITERATIONS, mode);
  o.report_slice = slice;
  o.report_x = report_x;
  o.report_y = report_y;
  r->images = g_ptr_array_new_with_free_func (volume_unref0);
  r->planes = g_ptr_array_new_with_free_func (volume_unref0);
  r->residuals = g_array_new (FALSE, FALSE, sizeof (double));
  CtrVolume *v = ctr_reconstruct (g, p, &stack_grid, &o, NULL, on_report, r, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpuint (r->images->len, ==, ITERATIONS);
  return v;
}

static void
reports_clear (Reports *r)
{
  g_ptr_array_unref (r->images);
  g_ptr_array_unref (r->planes);
  g_array_unref (r->residuals);
}

static void
test_modes (void)
{
  Reports vol, sl, far, none;
  g_autoptr (CtrVolume) v = run (CTR_REPORT_VOLUME, 0, &vol);
  g_autoptr (CtrVolume) s = run (CTR_REPORT_SLICE, 1, &sl);
  g_autoptr (CtrVolume) f = run (CTR_REPORT_SLICE, 99, &far);   /* clamped: the last slice */
  g_autoptr (CtrVolume) n = run (CTR_REPORT_NONE, 0, &none);
  const CtrGrid *grid = &v->grid;
  const gsize plane = (gsize) grid->nx * grid->ny;
  g_assert_cmpuint (grid->nz, ==, SLICES);
  for (guint i = 0; i < ITERATIONS; i++)
    {
      const gboolean last = i + 1 == ITERATIONS;
      const CtrVolume *w = vol.images->pdata[i];
      g_assert_nonnull (w);
      g_assert_true (ctr_grid_equal (&w->grid, grid));
      const struct { Reports *r; guint z; } cases[] = { { &sl, 1 }, { &far, SLICES - 1 } };
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        {
          const CtrVolume *x = cases[c].r->images->pdata[i];
          g_assert_nonnull (x);
          g_assert_cmpstr (x->unit, ==, w->unit);
          if (last)
            {
              g_assert_true (ctr_grid_equal (&x->grid, grid));
              g_assert_cmpmem (x->data, plane * SLICES * sizeof (float), w->data, plane * SLICES * sizeof (float));
              continue;
            }
          g_assert_cmpuint (x->grid.nz, ==, 1);
          g_assert_cmpuint (x->grid.nx, ==, grid->nx);
          g_assert_cmpfloat (x->grid.cz, ==, ctr_grid_z (grid, cases[c].z));
          g_assert_cmpfloat (x->grid.cx, ==, grid->cx);
          /* that slice of the whole image, and not another */
          g_assert_cmpmem (x->data, plane * sizeof (float), w->data + cases[c].z * plane, plane * sizeof (float));
          g_assert_true (memcmp (x->data, w->data + ((cases[c].z + 1) % SLICES) * plane, plane * sizeof (float)) != 0);
        }
      g_assert_true (last ? none.images->pdata[i] != NULL : none.images->pdata[i] == NULL);
      const double r = g_array_index (vol.residuals, double, i);
      g_assert_true (isfinite (r));
      g_assert_cmpfloat (g_array_index (sl.residuals, double, i), ==, r);
      g_assert_cmpfloat (g_array_index (none.residuals, double, i), ==, r);
    }
  const gsize bytes = plane * SLICES * sizeof (float);
  g_assert_cmpmem (s->data, bytes, v->data, bytes);
  g_assert_cmpmem (f->data, bytes, v->data, bytes);
  g_assert_cmpmem (n->data, bytes, v->data, bytes);
  reports_clear (&vol);
  reports_clear (&sl);
  reports_clear (&far);
  reports_clear (&none);
}

/* The three planes through a voxel (CTR_REPORT_PLANES), the voxel clamped
 * ((40, 7, 99) → (31, 7, 2)): each report's planes are, bit for bit, the
 * volume report's voxels there on the plane's own grid; before the last
 * report the image is the axial plane, the last and the result are the
 * whole image; the residuals are the same. */
static void
test_planes (void)
{
  Reports vol, pl;
  g_autoptr (CtrVolume) v = run (CTR_REPORT_VOLUME, 0, &vol);
  report_x = 40;
  report_y = 7;
  g_autoptr (CtrVolume) p = run (CTR_REPORT_PLANES, 99, &pl);
  report_x = report_y = 0;
  const CtrGrid *g = &v->grid;
  const guint i = N - 1, j = 7, k = SLICES - 1;
  g_assert_cmpuint (pl.planes->len, ==, 3 * ITERATIONS);
  for (guint it = 0; it < ITERATIONS; it++)
    {
      const gboolean last = it + 1 == ITERATIONS;
      const CtrVolume *w = vol.images->pdata[it], *x = pl.images->pdata[it];
      const CtrVolume *ax = pl.planes->pdata[3 * it], *co = pl.planes->pdata[3 * it + 1],
                      *sa = pl.planes->pdata[3 * it + 2];
      g_assert_true (ax != NULL && co != NULL && sa != NULL);
      g_assert_null (vol.planes->pdata[3 * it]);
      g_assert_true (last ? ctr_grid_equal (&x->grid, g) : ctr_grid_equal (&x->grid, &ax->grid));
      g_assert_cmpmem (x->data, ctr_grid_size (&x->grid) * sizeof (float), last ? w->data : ax->data,
                       ctr_grid_size (&x->grid) * sizeof (float));
      g_assert_true (ax->grid.nx == N && ax->grid.ny == N && ax->grid.nz == 1);
      g_assert_true (co->grid.nx == N && co->grid.ny == 1 && co->grid.nz == SLICES);
      g_assert_true (sa->grid.nx == 1 && sa->grid.ny == N && sa->grid.nz == SLICES);
      g_assert_cmpfloat (ax->grid.cz, ==, ctr_grid_z (g, k));
      g_assert_cmpfloat (co->grid.cy, ==, ctr_grid_y (g, j));
      g_assert_cmpfloat (sa->grid.cx, ==, ctr_grid_x (g, i));
      g_assert_cmpfloat (co->grid.cz, ==, g->cz);
      g_assert_cmpstr (sa->unit, ==, w->unit);
      for (guint y = 0; y < N; y++)
        for (guint q = 0; q < N; q++)
          g_assert_cmpfloat (ax->data[q + N * y], ==, w->data[q + N * (y + N * k)]);
      for (guint z = 0; z < SLICES; z++)
        for (guint q = 0; q < N; q++)
          {
            g_assert_cmpfloat (co->data[q + N * z], ==, w->data[q + N * (j + N * z)]);
            g_assert_cmpfloat (sa->data[q + N * z], ==, w->data[i + N * (q + N * z)]);
          }
      g_assert_cmpfloat (g_array_index (pl.residuals, double, it), ==, g_array_index (vol.residuals, double, it));
      /* written back where they lie (ctr_report_planes_paste): the voxel
       * found, the volume's voxels there, zeros elsewhere */
      g_autoptr (CtrVolume) back = ctr_volume_new (g, NULL);
      const CtrVolume *const three[3] = { ax, co, sa };
      guint at[3];
      g_assert_true (ctr_report_planes_paste (three, back, at));
      g_assert_true (at[0] == i && at[1] == j && at[2] == k);
      for (guint z = 0; z < SLICES; z++)
        for (guint y = 0; y < N; y++)
          for (guint q = 0; q < N; q++)
            {
              const gsize v = q + N * (y + (gsize) N * z);
              g_assert_cmpfloat (back->data[v], ==, q == i || y == j || z == k ? w->data[v] : 0.f);
            }
      CtrVolume shifted = *co;
      shifted.grid.cy += 0.5 * g->dy;   /* between two rows: lies nowhere */
      const CtrVolume *const off[3] = { ax, &shifted, sa };
      g_assert_false (ctr_report_planes_paste (off, back, NULL));
    }
  const gsize bytes = ctr_grid_size (g) * sizeof (float);
  g_assert_cmpmem (p->data, bytes, v->data, bytes);
  reports_clear (&vol);
  reports_clear (&pl);
}

/* A cursor moved during the run (CtrReconOptions.report_cursor, the
 * window's crosshair): each report's planes pass through its voxel at that
 * report, equal to the volume report's voxels there. */
typedef struct {
  CtrReportCursor *cursor;
  guint n;
  guint at[ITERATIONS][3];        /* where each report's planes lie */
  CtrVolume *planes[ITERATIONS][3];
} FollowReports;

static void
on_follow_report (const CtrIterStats *s, gpointer data)
{
  FollowReports *r = data;
  static const guint moves[ITERATIONS][3] = { { N - 3, 2, 0 }, { 5, N - 1, 2 }, { 0, 0, 0 } };
  if (r->n >= ITERATIONS || s->planes[0] == NULL)
    return;
  for (guint k = 0; k < 3; k++)
    r->planes[r->n][k] = ctr_volume_copy (s->planes[k]);
  /* the crosshair moves after this report */
  ctr_report_cursor_set (r->cursor, moves[r->n][0], moves[r->n][1], moves[r->n][2]);
  r->n++;
}

static void
test_planes_follow (void)
{
  Reports vol;
  g_autoptr (CtrVolume) v = run (CTR_REPORT_VOLUME, 0, &vol);
  g_autoptr (CtrGeometry) g = fan_stack ();
  g_autoptr (CtrProjections) p = scan (g);
  g_autoptr (GError) e = NULL;
  CtrReportCursor cursor;
  FollowReports r = { &cursor };
  CtrReconOptions o;
  static const guint want[ITERATIONS][3] = { { 1, 2, 1 }, { N - 3, 2, 0 }, { 5, N - 1, 2 } };
  sirt_options (&o, ITERATIONS, CTR_REPORT_PLANES);
  o.report_x = o.report_y = o.report_slice = 0;   /* unused: the cursor's */
  o.report_cursor = &cursor;
  ctr_report_cursor_set (&cursor, 1, 2, 1);
  g_autoptr (CtrVolume) x = ctr_reconstruct (g, p, &stack_grid, &o, NULL, on_follow_report, &r, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpuint (r.n, ==, ITERATIONS);
  for (guint it = 0; it < ITERATIONS; it++)
    {
      const CtrVolume *w = vol.images->pdata[it];
      g_autoptr (CtrVolume) back = ctr_volume_new (&w->grid, NULL);
      guint at[3];
      g_assert_true (ctr_report_planes_paste ((const CtrVolume *const *) r.planes[it], back, at));
      g_assert_cmpuint (at[0], ==, want[it][0]);
      g_assert_cmpuint (at[1], ==, want[it][1]);
      g_assert_cmpuint (at[2], ==, want[it][2]);
      for (gsize q = 0; q < ctr_grid_size (&w->grid); q++)
        {
          const guint i = q % N, j = (q / N) % N, k = q / (N * N);
          g_assert_cmpfloat (back->data[q], ==, i == at[0] || j == at[1] || k == at[2] ? w->data[q] : 0.f);
        }
      for (guint k = 0; k < 3; k++)
        ctr_volume_unref (r.planes[it][k]);
    }
  reports_clear (&vol);
}

/* A run cancelled from its second report: under CTR_REPORT_VOLUME nothing
 * more (the caller has the image of every report); under the other modes
 * one extra report (CtrIterStats.cancelled, not partial: the cancellation
 * is seen between iterations) carrying the whole image of iteration 2, bit
 * for bit the volume report's, and under CTR_REPORT_PLANES its planes. */
typedef struct {
  GCancellable *cancel;
  guint n;                 /* reports */
  CtrIterStats last;       /* the last report's numbers */
  CtrVolume *image;        /* its image (a copy) */
  CtrVolume *planes[3];
} CancelReports;

static void
on_cancel_report (const CtrIterStats *s, gpointer data)
{
  CancelReports *r = data;
  r->n++;
  r->last = *s;
  g_clear_pointer (&r->image, ctr_volume_unref);
  r->image = s->image != NULL ? ctr_volume_copy (s->image) : NULL;
  for (guint k = 0; k < 3; k++)
    {
      g_clear_pointer (&r->planes[k], ctr_volume_unref);
      r->planes[k] = s->planes[k] != NULL ? ctr_volume_copy (s->planes[k]) : NULL;
    }
  if (s->iteration == 2 && !s->cancelled)
    g_cancellable_cancel (r->cancel);
}

/* SIRT on the fan stack under @mode (planes through (4, 9, 1)) against
 * @reference (nullable), cancelled from its second report: its reports
 * into @r; the run's error asserted to be G_IO_ERROR_CANCELLED. */
static void
run_cancelled (CtrReportImage mode, const CtrVolume *reference, CancelReports *r)
{
  g_autoptr (CtrGeometry) g = fan_stack ();
  g_autoptr (CtrProjections) p = scan (g);
  g_autoptr (GError) e = NULL;
  CtrReconOptions o;
  sirt_options (&o, ITERATIONS + 2, mode);
  o.report_x = 4;
  o.report_y = 9;
  o.report_slice = 1;
  g_autoptr (CtrVolume) none = ctr_reconstruct (g, p, &stack_grid, &o, reference, on_cancel_report, r, r->cancel, &e);
  g_assert_null (none);
  g_assert_error (e, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Reports of planes that carried the whole image all the same (a
 * reference measured on the host): a cancellation adds no report, so a
 * caller keeps the last whole iterate (before, a cancellation within an
 * iteration replaced it with the image as it stood, labelled with the
 * iteration before: the window kept that under ASan). */
static void
test_cancelled_whole (void)
{
  Reports vol;
  g_autoptr (CtrVolume) ref = run (CTR_REPORT_VOLUME, 0, &vol);
  reports_clear (&vol);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  CancelReports r = { cancel };
  run_cancelled (CTR_REPORT_PLANES, ref, &r);
  g_assert_cmpuint (r.n, ==, 2);
  g_assert_false (r.last.cancelled);
  g_assert_nonnull (r.image);
  g_assert_cmpuint (r.image->grid.nz, ==, SLICES);
  g_clear_pointer (&r.image, ctr_volume_unref);
  for (guint k = 0; k < 3; k++)
    g_clear_pointer (&r.planes[k], ctr_volume_unref);
}

static void
test_cancelled (void)
{
  Reports vol;
  g_autoptr (CtrVolume) v = run (CTR_REPORT_VOLUME, 0, &vol);
  const CtrVolume *second = vol.images->pdata[1];
  const gsize bytes = ctr_grid_size (&second->grid) * sizeof (float);
  const CtrReportImage modes[] = { CTR_REPORT_VOLUME, CTR_REPORT_SLICE, CTR_REPORT_NONE, CTR_REPORT_PLANES };
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr (GCancellable) cancel = g_cancellable_new ();
      CancelReports r = { cancel };
      run_cancelled (modes[m], NULL, &r);
      if (modes[m] == CTR_REPORT_VOLUME)
        {
          g_assert_cmpuint (r.n, ==, 2);
          g_assert_false (r.last.cancelled);
        }
      else
        {
          g_assert_cmpuint (r.n, ==, 3);
          g_assert_true (r.last.cancelled);
          g_assert_false (r.last.partial);
          g_assert_cmpuint (r.last.iteration, ==, 2);
          g_assert_true (isnan (r.last.residual));
          g_assert_nonnull (r.image);
          g_assert_true (ctr_grid_equal (&r.image->grid, &second->grid));
          g_assert_cmpmem (r.image->data, bytes, second->data, bytes);
          for (guint k = 0; k < 3; k++)
            g_assert_true ((r.planes[k] != NULL) == (modes[m] == CTR_REPORT_PLANES));
          if (modes[m] == CTR_REPORT_PLANES)
            {
              /* the sagittal plane through column 4: the image's voxels */
              for (guint z = 0; z < SLICES; z++)
                for (guint y = 0; y < N; y++)
                  g_assert_cmpfloat (r.planes[2]->data[y + N * z], ==, second->data[4 + N * (y + N * z)]);
            }
        }
      g_clear_pointer (&r.image, ctr_volume_unref);
      for (guint k = 0; k < 3; k++)
        g_clear_pointer (&r.planes[k], ctr_volume_unref);
    }
  reports_clear (&vol);
}

/* An unknown mode is refused with the option's name. */
static void
test_invalid (void)
{
  CtrReconOptions o;
  g_autoptr (GError) e = NULL;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.report_image = (CtrReportImage) 7;
  g_assert_false (ctr_recon_options_validate (&o, &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (e->message, "report image"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/report-image/modes", test_modes);
  g_test_add_func ("/report-image/planes", test_planes);
  g_test_add_func ("/report-image/planes-follow", test_planes_follow);
  g_test_add_func ("/report-image/cancelled", test_cancelled);
  g_test_add_func ("/report-image/cancelled-whole", test_cancelled_whole);
  g_test_add_func ("/report-image/invalid", test_invalid);
  return g_test_run ();
}
