/* ctr-study.c — the dose study: model, run, CSV (see ctr-study.h).
 * STUDY.json is read in ctr-study-json.c, the figure drawn in
 * ctr-study-plot.c. */
#include "study/ctr-study.h"
#include "data/ctr-grid.h"
#include "study/ctr-study-private.h"
#include "base/ctr-error.h"
#include "base/ctr-hu.h"
#include "plan/ctr-recon-plan.h"
#include "io/ctr-output-set.h"

#include <math.h>
#include <string.h>

static void
row_clear (CtrStudyRow *r)
{
  g_free ((char *) r->label);
  g_free ((char *) r->parameters);
  g_free ((double *) r->roi_mean_hu);
  g_free ((double *) r->roi_sd_hu);
  g_free ((double *) r->roi_cnr);
  g_free ((double *) r->ttf_f50);
  g_free ((double *) r->ttf_f50_pooled);
  g_free ((double *) r->ttf_cnr_pooled);
}

static void
method_clear (StudyMethod *m)
{
  g_free (m->label);
  g_free (m->parameters);
}

static void
roi_clear (StudyRoi *r)
{
  g_free (r->name);
}

static void
insert_clear (StudyInsert *r)
{
  g_free (r->name);
}

CtrStudy *
ctr_study_new (void)
{
  CtrStudy *s = g_new0 (CtrStudy, 1);
  s->doses = g_array_new (FALSE, FALSE, sizeof (double));
  s->methods = g_array_new (FALSE, TRUE, sizeof (StudyMethod));
  g_array_set_clear_func (s->methods, (GDestroyNotify) method_clear);
  s->rois = g_array_new (FALSE, TRUE, sizeof (StudyRoi));
  g_array_set_clear_func (s->rois, (GDestroyNotify) roi_clear);
  s->rows = g_array_new (FALSE, TRUE, sizeof (CtrStudyRow));
  g_array_set_clear_func (s->rows, (GDestroyNotify) row_clear);
  s->iq.inserts = g_array_new (FALSE, TRUE, sizeof (StudyInsert));
  g_array_set_clear_func (s->iq.inserts, (GDestroyNotify) insert_clear);
  ctr_dose_options_init (&s->dose);
  s->mu_water = CTR_MU_WATER_PER_MM;
  s->metrics_radius_mm = -1;
  s->realisations = 1;
  s->title = g_strdup ("");
  g_mutex_init (&s->lock);
  return s;
}

void
ctr_study_free (CtrStudy *s)
{
  if (s == NULL)
    return;
  g_array_unref (s->doses);
  g_array_unref (s->methods);
  g_array_unref (s->rois);
  g_array_unref (s->rows);
  g_array_unref (s->iq.inserts);
  g_free (s->dataset);
  g_free (s->variant);
  g_free (s->reference);
  g_free (s->title);
  g_mutex_clear (&s->lock);
  g_free (s);
}

const char *
ctr_study_get_dataset (const CtrStudy *s, const char **variant)
{
  g_return_val_if_fail (s != NULL, NULL);
  if (variant != NULL)
    *variant = s->variant;
  return s->dataset;
}

gboolean
ctr_study_add_dose (CtrStudy *s, double fraction, GError **error)
{
  g_return_val_if_fail (s != NULL, FALSE);
  if (!(isfinite (fraction) && fraction > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "a dose fraction must be a positive number, got %g", fraction);
      return FALSE;
    }
  for (guint i = 0; i < s->doses->len; i++)
    if (g_array_index (s->doses, double, i) == fraction)
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "the dose %g is listed twice", fraction);
        return FALSE;
      }
  g_array_append_val (s->doses, fraction);
  return TRUE;
}

gboolean
ctr_study_add_method (CtrStudy *s, const CtrReconOptions *options, const char *parameters,
                      GError **error)
{
  g_return_val_if_fail (s != NULL && options != NULL, FALSE);
  if (!ctr_recon_options_validate (options, error))
    return FALSE;
  StudyMethod m = { 0 };
  m.options = *options;
  m.parameters = g_strdup (parameters != NULL ? parameters : "");
  g_autofree char *spaced = g_strdelimit (g_strdup (m.parameters), ";", ' ');
  m.label = *spaced ? g_strdup_printf ("%s %s", ctr_method_name (options->method), spaced)
                    : g_strdup (ctr_method_name (options->method));
  g_array_append_val (s->methods, m);
  return TRUE;
}

gboolean
ctr_study_add_roi (CtrStudy *s, const char *name, const CtrRoi *roi, CtrStudyRoiRole role,
                   GError **error)
{
  g_return_val_if_fail (s != NULL && roi != NULL, FALSE);
  if (!ctr_roi_validate (roi, error))
    {
      g_prefix_error (error, "ROI “%s”: ", name ? name : "");
      return FALSE;
    }
  if (name == NULL || *name == '\0' || strpbrk (name, ",\"\n\r") != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "an ROI needs a name without commas, quotes or line breaks, got “%s”", name ? name : "");
      return FALSE;
    }
  for (guint i = 0; i < s->rois->len; i++)
    {
      const StudyRoi *r = &g_array_index (s->rois, StudyRoi, i);
      if (g_str_equal (r->name, name))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "two ROIs are named “%s”", name);
          return FALSE;
        }
      if (role != CTR_STUDY_ROI_MEASURE && r->role == role)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "ROI “%s”: there is already a %s ROI (“%s”)", name,
                       role == CTR_STUDY_ROI_BACKGROUND ? "background" : "noise", r->name);
          return FALSE;
        }
    }
  StudyRoi r = { g_strdup (name), *roi, role };
  g_array_append_val (s->rois, r);
  return TRUE;
}

void
ctr_study_set_dose_options (CtrStudy *s, const CtrDoseOptions *options)
{
  g_return_if_fail (s != NULL && options != NULL);
  s->dose = *options;
}

void
ctr_study_set_mu_water (CtrStudy *s, double mu_water)
{
  g_return_if_fail (s != NULL && isfinite (mu_water) && mu_water > 0);
  s->mu_water = mu_water;
  s->mu_water_set = TRUE;
}

void
ctr_study_set_grid (CtrStudy *s, const CtrGrid *grid)
{
  g_return_if_fail (s != NULL);
  s->has_grid = grid != NULL;
  if (grid != NULL)
    s->grid = *grid;
}

void
ctr_study_set_metrics_radius (CtrStudy *s, double radius_mm)
{
  g_return_if_fail (s != NULL);
  s->metrics_radius_mm = radius_mm;
}

gboolean
ctr_study_set_realisations (CtrStudy *s, guint n, GError **error)
{
  g_return_val_if_fail (s != NULL, FALSE);
  if (n < 1 || n > 1000)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the number of noise realisations must be 1 to 1000, got %u", n);
      return FALSE;
    }
  s->realisations = n;
  return TRUE;
}

void
ctr_study_set_reference (CtrStudy *s, const char *reference)
{
  g_return_if_fail (s != NULL);
  g_free (s->reference);
  s->reference = g_strdup (reference);
}

gboolean
ctr_study_get_reference (const CtrStudy *s, guint *index, GError **error)
{
  g_return_val_if_fail (s != NULL && index != NULL, FALSE);
  *index = 0;
  if (s->reference == NULL)
    return TRUE;
  guint by_name = 0, n_by_name = 0;
  for (guint j = 0; j < s->methods->len; j++)
    {
      const StudyMethod *m = &g_array_index (s->methods, StudyMethod, j);
      if (g_str_equal (m->label, s->reference))
        {
          *index = j;
          return TRUE;
        }
      if (g_str_equal (ctr_method_name (m->options.method), s->reference) && n_by_name++ == 0)
        by_name = j;
    }
  if (n_by_name == 1)
    {
      *index = by_name;
      return TRUE;
    }
  g_autoptr (GString) labels = g_string_new (NULL);
  for (guint j = 0; j < s->methods->len; j++)
    g_string_append_printf (labels, "%s“%s”", j ? ", " : "", g_array_index (s->methods, StudyMethod, j).label);
  if (n_by_name > 1)
    g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "“%s” names %u configurations: give a label (%s)",
                 s->reference, n_by_name, labels->str);
  else
    g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "“%s” is no configuration of the study (%s)",
                 s->reference, labels->str);
  return FALSE;
}

guint ctr_study_get_realisations (const CtrStudy *s) { return s->realisations; }
guint ctr_study_get_n_runs (const CtrStudy *s) { return s->n_runs; }
guint ctr_study_get_n_doses (const CtrStudy *s) { return s->doses->len; }
double ctr_study_get_dose (const CtrStudy *s, guint i) { return g_array_index (s->doses, double, i); }
guint ctr_study_get_n_methods (const CtrStudy *s) { return s->methods->len; }
guint ctr_study_get_n_rois (const CtrStudy *s) { return s->rois->len; }
double ctr_study_get_mu_water (const CtrStudy *s) { return s->mu_water; }
const char *ctr_study_get_title (const CtrStudy *s) { return s->title; }

const char *
ctr_study_get_method_label (const CtrStudy *s, guint i)
{
  g_return_val_if_fail (s != NULL && i < s->methods->len, NULL);
  return g_array_index (s->methods, StudyMethod, i).label;
}

const char *
ctr_study_get_roi_name (const CtrStudy *s, guint i, CtrStudyRoiRole *role)
{
  g_return_val_if_fail (s != NULL && i < s->rois->len, NULL);
  const StudyRoi *r = &g_array_index (s->rois, StudyRoi, i);
  if (role != NULL)
    *role = r->role;
  return r->name;
}

const CtrStudyRow *
ctr_study_get_rows (const CtrStudy *s, guint *n_rows)
{
  g_return_val_if_fail (s != NULL, NULL);
  if (n_rows != NULL)
    *n_rows = s->rows->len;
  return s->rows->len > 0 ? &g_array_index (s->rows, CtrStudyRow, 0) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                   */

typedef struct {
  CtrStudyProgressFunc func;
  gpointer user_data;
  CtrStudyProgress progress;
  guint best_iteration;
  double best_rmse;
  CtrIterStats last;
  gboolean have_last;
} RunState;

static void
on_iteration (const CtrIterStats *st, gpointer data)
{
  RunState *rs = data;
  rs->last = *st;
  rs->last.image = NULL;
  rs->have_last = TRUE;
  if (st->has_reference && isfinite (st->rmse) && !(st->rmse >= rs->best_rmse))
    {
      rs->best_rmse = st->rmse;
      rs->best_iteration = st->iteration;
    }
  if (rs->func != NULL)
    {
      CtrStudyProgress p = rs->progress;
      p.iteration = st;
      p.fraction = (p.run + (double) st->iteration / MAX (st->n_iterations, 1)) / p.n_runs;
      rs->func (&p, rs->user_data);
    }
}

static void
report_stage (RunState *rs, const char *stage)
{
  rs->progress.stage = stage;
  rs->progress.fraction = (double) rs->progress.run / rs->progress.n_runs;
  if (rs->func != NULL)
    rs->func (&rs->progress, rs->user_data);
}

/* The ROI figures of one reconstruction into @row (allocates its arrays). */
static gboolean
measure (const CtrStudy *s, const CtrVolume *img, CtrStudyRow *row, GError **error)
{
  const guint n = s->rois->len;
  double *mean = g_new (double, MAX (n, 1)), *sd = g_new (double, MAX (n, 1)), *cnr = g_new (double, MAX (n, 1));
  row->roi_mean_hu = mean;
  row->roi_sd_hu = sd;
  row->roi_cnr = cnr;
  row->noise_sd_hu = NAN;
  /* Slice of the ROIs: the middle one (a single-slice study has only one). */
  const guint z = img->grid.nz / 2;
  g_autofree CtrRoiStats *st = g_new0 (CtrRoiStats, MAX (n, 1));
  const CtrRoiStats *bg = NULL;
  for (guint i = 0; i < n; i++)
    {
      const StudyRoi *r = &g_array_index (s->rois, StudyRoi, i);
      mean[i] = sd[i] = cnr[i] = NAN;
      if (r->role == CTR_STUDY_ROI_NOISE)
        {
          if (!ctr_roi_noise_sd (img, z, &r->roi, s->mu_water, &row->noise_sd_hu, error))
            {
              g_prefix_error (error, "noise ROI “%s”: ", r->name);
              return FALSE;
            }
          continue;
        }
      if (!ctr_roi_stats (img, z, &r->roi, s->mu_water, &st[i], error))
        {
          g_prefix_error (error, "ROI “%s”: ", r->name);
          return FALSE;
        }
      mean[i] = st[i].mean_hu;
      sd[i] = st[i].sd_hu;
      if (r->role == CTR_STUDY_ROI_BACKGROUND)
        bg = &st[i];
    }
  for (guint i = 0; i < n; i++)
    if (bg != NULL && g_array_index (s->rois, StudyRoi, i).role == CTR_STUDY_ROI_MEASURE)
      cnr[i] = ctr_roi_cnr (&st[i], bg);
  return TRUE;
}

static gboolean
check_cancelled (GCancellable *c, GError **error)
{
  return g_cancellable_set_error_if_cancelled (c, error);
}

/* Mean open-beam photons per bin of @p (its flat − dark, or its I0, else
 * @i0_given) into @out; NaN when none is known.  FALSE with
 * CTR_ERROR_OUT_OF_MEMORY (the open-beam plane). */
static gboolean
data_photons (const CtrProjections *p, double i0_given, double *out, GError **error)
{
  g_autofree double *open = NULL;
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  double sum = 0;
  gsize n = 0;

  *out = NAN;
  if (p->flat == NULL && !(isfinite (p->i0) && p->i0 > 0))
    {
      *out = i0_given > 0 ? i0_given : NAN;
      return TRUE;
    }
  g_autoptr (GError) open_error = NULL;
  open = ctr_projections_open_beam (p, &open_error);
  if (open_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&open_error));
      return FALSE;
    }
  for (gsize i = 0; open != NULL && i < plane; i++)
    if (open[i] > 0)
      {
        sum += open[i];
        n++;
      }
  *out = n > 0 ? sum / n : NAN;
  return TRUE;
}

/* The scans of every dose and noise realisation, kept for the whole study,
 * dose-major: dose k's realisations r = 0 … n_real[k]−1 (seed + r) follow
 * each other.  A dose of 1 reconstructed as the data are (below) has one
 * realisation whatever s->realisations.  @i0 gets each scan's photons per
 * bin (NaN when the data state none), @n_real each dose's count. */
static GPtrArray *
simulate_doses (const CtrStudy *s, const CtrDataset *d, RunState *rs, GArray *i0, GArray *n_real,
                GCancellable *cancellable, GError **error)
{
  const gboolean have_stats = d->projections->flat != NULL
                              || (isfinite (d->projections->i0) && d->projections->i0 > 0) || s->dose.i0 > 0;
  g_autoptr (GPtrArray) scans = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_projections_unref);
  for (guint k = 0; k < s->doses->len; k++)
    {
      const double F = g_array_index (s->doses, double, k);
      /* the data as they are: thinning by 1 keeps every count (so the
       * study's full-dose figures are the Run page's and the CLI's), and
       * every realisation would be the same scan; asked to re-sample
       * (noiseless data), dose 1 is simulated as every other dose */
      const gboolean as_is = F == 1.0 && (!have_stats || (s->dose.electronic_sd == 0
                                                           && s->dose.model != CTR_DOSE_MODEL_RESAMPLE));
      const guint nr = as_is ? 1 : s->realisations;
      g_array_append_val (n_real, nr);
      for (guint r = 0; r < nr; r++)
        {
          if (check_cancelled (cancellable, error))
            return NULL;
          rs->progress.dose = F;
          rs->progress.realisation = r;
          rs->progress.label = NULL;
          g_autofree char *stage = nr > 1 ? g_strdup_printf ("simulating %g × the dose, realisation %u", F, r + 1)
                                          : g_strdup_printf ("simulating %g × the dose", F);
          report_stage (rs, stage);
          double photons = NAN;
          CtrProjections *p;
          if (as_is)
            {
              p = ctr_projections_ref (d->projections);
              if (have_stats && !data_photons (d->projections, s->dose.i0, &photons, error))
                {
                  ctr_projections_unref (p);
                  return NULL;
                }
            }
          else
            {
              CtrDoseOptions o = s->dose;
              o.fraction = F;
              o.seed = s->dose.seed + r;
              CtrDoseReport report;
              p = ctr_dose_simulate (d->projections, &o, &report, NULL, error);
              if (p == NULL)
                {
                  g_prefix_error (error, "dose %g: ", F);
                  return NULL;
                }
              photons = report.i0_out;
              ctr_dose_report_clear (&report);
            }
          g_ptr_array_add (scans, p);
          g_array_append_val (i0, photons);
        }
    }
  return g_steal_pointer (&scans);
}

/* STUDY.json's "grid" size and pixel through the one grid rule
 * (ctr_grid_for_scan): the reference's grid when they are its own; a
 * helical scan that samples no z range fully gets ctr_grid_default's. */
static CtrGrid
study_grid (const CtrDataset *d, guint size, double pixel_mm)
{
  const CtrGridRequest request = { .size = size, .pixel_mm = pixel_mm };
  CtrGrid grid;
  if (!ctr_grid_for_scan (d->geometry, d->reference != NULL ? &d->reference->grid : NULL, &request, &grid, NULL))
    grid = ctr_grid_default (d->geometry, size, pixel_mm);
  return grid;
}

gboolean
ctr_study_run (CtrStudy *s, const CtrDataset *d, CtrStudyProgressFunc progress, gpointer user_data,
               GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (s != NULL && d != NULL && d->geometry != NULL && d->projections != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (s->rebuilt)
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                           "a study rebuilt from its rows holds no method parameters: it cannot be run again");
      return FALSE;
    }
  if (s->doses->len == 0 || s->methods->len == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "a study needs at least one dose and one method (it has %u and %u)",
                   s->doses->len, s->methods->len);
      return FALSE;
    }
  g_mutex_lock (&s->lock);
  g_array_set_size (s->rows, 0);
  for (guint i = 0; i < s->iq.inserts->len; i++)
    g_array_index (s->iq.inserts, StudyInsert, i).cnr_n = 0;
  g_free (s->title);
  s->title = g_strdup (d->name != NULL ? d->name : "");
  if (!s->mu_water_set)
    s->mu_water = d->mu_water > 0 ? d->mu_water : CTR_MU_WATER_PER_MM;
  g_mutex_unlock (&s->lock);

  const CtrGeometry *g = d->geometry;
  const CtrGrid grid = s->has_grid ? s->grid
                       : s->grid_size > 0 || s->grid_pixel_mm > 0 ? study_grid (d, s->grid_size, s->grid_pixel_mm)
                       : ctr_dataset_default_grid (d);
  const double radius = s->metrics_radius_mm >= 0 ? s->metrics_radius_mm : ctr_geometry_fov_radius_mm (g);
  const guint n_doses = s->doses->len;

  RunState rs = { .func = progress, .user_data = user_data };
  /* until the scans are made, the count without dose 1's exception */
  rs.progress.n_runs = s->n_runs = n_doses * s->realisations * s->methods->len;
  g_autoptr (GArray) i0 = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) n_real = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) scans = simulate_doses (s, d, &rs, i0, n_real, cancellable, error);
  if (scans == NULL)
    return FALSE;
  const guint n_scans = scans->len;
  rs.progress.n_runs = s->n_runs = n_scans * s->methods->len;

  for (guint j = 0; j < s->methods->len; j++)
    {
      const StudyMethod *m = &g_array_index (s->methods, StudyMethod, j);
      CtrReconOptions o = m->options;
      o.metrics_radius_mm = radius;
      o.with_reference = d->reference != NULL;  /* the memory estimate counts it */
      rs.progress.run = j * n_scans;
      rs.progress.label = m->label;
      g_autofree char *planning = g_strdup_printf ("planning %s", m->label);
      report_stage (&rs, planning);
      g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, cancellable, error);
      if (plan == NULL)
        {
          if (!g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_prefix_error (error, "%s: ", m->label);
          return FALSE;
        }
      rs.progress.notes = ctr_recon_plan_get_notes (plan);
      report_stage (&rs, planning);
      rs.progress.notes = NULL;
      /* this method and dose's realisations in HU, for the pooled TTF */
      g_autoptr (GPtrArray) group = g_ptr_array_new_with_free_func (g_free);

      for (guint q = 0, k = 0, r = 0; q < n_scans; q++)
        {
          const double F = g_array_index (s->doses, double, k);
          if (check_cancelled (cancellable, error))
            return FALSE;
          rs.progress.run = j * n_scans + q;
          rs.progress.dose = F;
          rs.progress.realisation = r;
          rs.progress.row = NULL;
          rs.best_rmse = INFINITY;
          rs.best_iteration = 0;
          rs.have_last = FALSE;
          g_autofree char *what = g_array_index (n_real, guint, k) > 1
            ? g_strdup_printf ("%s at %g × the dose, realisation %u", m->label, F, r + 1)
            : g_strdup_printf ("%s at %g × the dose", m->label, F);
          report_stage (&rs, what);

          g_autoptr (CtrVolume) img = ctr_recon_plan_execute (plan, g_ptr_array_index (scans, q), d->reference,
                                                              on_iteration, &rs, cancellable, error);
          if (img == NULL)
            {
              if (!g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                g_prefix_error (error, "%s: ", what);
              return FALSE;
            }

          CtrStudyRow row = { 0 };
          row.label = g_strdup (m->label);
          row.parameters = g_strdup (m->parameters);
          row.dose = F;
          row.realisation = r;
          row.i0 = g_array_index (i0, double, q);
          row.method_index = j;
          row.method = o.method;
          row.rmse = rs.have_last ? rs.last.rmse : NAN;
          row.psnr = rs.have_last ? rs.last.psnr : NAN;
          row.ssim = rs.have_last ? rs.last.ssim : NAN;
          row.hu_rmse = 1000.0 * row.rmse / s->mu_water;
          row.iterations = rs.have_last ? rs.last.iteration : 0;
          row.best_iteration = rs.best_iteration;
          row.best_rmse = isfinite (rs.best_rmse) ? rs.best_rmse : NAN;
          row.seconds = rs.have_last ? rs.last.elapsed_s : NAN;
          float *hu = NULL;
          if (!measure (s, img, &row, error) || !ctr_study_measure_iq (s, img, &row, error)
              || (s->iq.inserts->len > 0 && (hu = ctr_study_iq_slice (s, img, error)) == NULL))
            {
              row_clear (&row);
              return FALSE;
            }
          if (hu != NULL)
            g_ptr_array_add (group, hu);
          g_mutex_lock (&s->lock);
          g_array_append_val (s->rows, row);
          rs.progress.row = &g_array_index (s->rows, CtrStudyRow, s->rows->len - 1);
          g_mutex_unlock (&s->lock);
          rs.progress.iteration = NULL;
          rs.progress.fraction = (rs.progress.run + 1.0) / rs.progress.n_runs;
          rs.progress.stage = what;
          rs.progress.image = img;
          if (progress != NULL)
            progress (&rs.progress, user_data);
          rs.progress.row = NULL;
          rs.progress.image = NULL;
          if (++r == g_array_index (n_real, guint, k))
            {
              if (group->len > 0
                  && !ctr_study_pool_iq (s, &img->grid, (const float *const *) group->pdata, group->len,
                                         s->rows->len - group->len, error))
                return FALSE;
              g_ptr_array_set_size (group, 0);
              r = 0;
              k++;
            }
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                       */

static void
csv_number (GString *out, double v)
{
  g_string_append_c (out, ',');
  if (isfinite (v))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.8g", v));
    }
}

static void
csv_text (GString *out, const char *text)
{
  g_string_append_c (out, ',');
  if (strpbrk (text, ",\"\n\r") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *c = text; *c; c++)
    {
      if (*c == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *c);
    }
  g_string_append_c (out, '"');
}

gboolean
ctr_study_write_csv (const CtrStudy *s, const char *path, GError **error)
{
  return ctr_study_write_csv_note (s, path, NULL, error);
}

gboolean
ctr_study_write_csv_note (const CtrStudy *s, const char *path, const char *note, GError **error)
{
  g_return_val_if_fail (s != NULL && path != NULL, FALSE);
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new ((GMutex *) &s->lock);
  g_autoptr (GString) out = g_string_new ("dose,realisation,i0,method,label,parameters,rmse,psnr,ssim,hu_rmse");
  for (guint i = 0; i < s->rois->len; i++)
    {
      const StudyRoi *r = &g_array_index (s->rois, StudyRoi, i);
      if (r->role == CTR_STUDY_ROI_NOISE)
        continue;
      g_string_append_printf (out, ",roi_%s_mean_hu,roi_%s_sd_hu", r->name, r->name);
      if (r->role == CTR_STUDY_ROI_MEASURE)
        g_string_append_printf (out, ",roi_%s_cnr", r->name);
    }
  g_string_append (out, ",noise_sd_hu,iterations,best_iteration,best_rmse,seconds");
  if (s->iq.on)
    {
      g_string_append (out, ",nps_noise_hu,nps_f_peak,nps_f_avg");
      for (guint i = 0; i < s->iq.inserts->len; i++)
        g_string_append_printf (out, ",ttf_%s_f50", g_array_index (s->iq.inserts, StudyInsert, i).name);
      g_string_append (out, ",dprime_npw,dprime_npwe");
      for (guint i = 0; i < s->iq.inserts->len; i++)
        g_string_append_printf (out, ",ttf_%s_f50_pooled,ttf_%s_cnr_pooled",
                                g_array_index (s->iq.inserts, StudyInsert, i).name,
                                g_array_index (s->iq.inserts, StudyInsert, i).name);
      g_string_append (out, ",dprime_npw_pooled,dprime_npwe_pooled");
    }
  g_string_append_c (out, '\n');
  for (guint k = 0; k < s->rows->len; k++)
    {
      const CtrStudyRow *r = &g_array_index (s->rows, CtrStudyRow, k);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.8g", r->dose));
      g_string_append_printf (out, ",%u", r->realisation);
      csv_number (out, r->i0);
      csv_text (out, ctr_method_name (r->method));
      csv_text (out, r->label);
      csv_text (out, r->parameters);
      csv_number (out, r->rmse);
      csv_number (out, r->psnr);
      csv_number (out, r->ssim);
      csv_number (out, r->hu_rmse);
      for (guint i = 0; i < s->rois->len; i++)
        {
          CtrStudyRoiRole role = g_array_index (s->rois, StudyRoi, i).role;
          if (role == CTR_STUDY_ROI_NOISE)
            continue;
          csv_number (out, r->roi_mean_hu[i]);
          csv_number (out, r->roi_sd_hu[i]);
          if (role == CTR_STUDY_ROI_MEASURE)
            csv_number (out, r->roi_cnr[i]);
        }
      csv_number (out, r->noise_sd_hu);
      g_string_append_printf (out, ",%u,%u", r->iterations, r->best_iteration);
      csv_number (out, r->best_rmse);
      csv_number (out, r->seconds);
      if (s->iq.on)
        {
          csv_number (out, r->nps_noise_hu);
          csv_number (out, r->nps_f_peak);
          csv_number (out, r->nps_f_avg);
          for (guint i = 0; i < s->iq.inserts->len; i++)
            csv_number (out, r->ttf_f50[i]);
          csv_number (out, r->dprime_npw);
          csv_number (out, r->dprime_npwe);
          for (guint i = 0; i < s->iq.inserts->len; i++)
            {
              csv_number (out, r->ttf_f50_pooled[i]);
              csv_number (out, r->ttf_cnr_pooled[i]);
            }
          csv_number (out, r->dprime_npw_pooled);
          csv_number (out, r->dprime_npwe_pooled);
        }
      g_string_append_c (out, '\n');
    }
  if (note != NULL)
    g_string_append_printf (out, "# %s\n", note);
  g_clear_pointer (&locker, g_mutex_locker_free);
  return ctr_output_write_file (path, out->str, (gssize) out->len, error);
}
