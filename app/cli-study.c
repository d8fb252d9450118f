/* cli-study.c — `ctrecon-cli study STUDY.json --output DIR`: a dose study
 * (core/study/ctr-study.h) run on a worker thread (Ctrl-C cancels), one line
 * per run on stderr, then DIR/study.csv and DIR/study.png
 * (core/study/ctr-study-plot.h); with --images also every run's image,
 * DIR/run-NN.tif (NN = its row of study.csv, from 01; float32, 1/mm).  A
 * cancelled or failed study still writes the runs that finished.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"
#include "study/ctr-study-plot.h"
#include "study/ctr-equal-dose.h"

typedef struct {
  CtrStudy *study;
  CtrDataset *dataset;
  const char *csv;
  const char *images;   /* folder for run-NN.tif, or NULL */
  const char *study_path;
  gboolean ok;
  GError *error;
  GError *image_error;  /* the first image that could not be written */
} Job;

/* study.csv with the rows finished so far, rewritten after each run, so
 * that a killed study keeps them; marked incomplete until the end. */
static void
write_rows (Job *job, guint done, guint total)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *note = g_strdup_printf ("incomplete: %u of %u runs (the study is running or was stopped)", done,
                                           total);
  if (!ctr_study_write_csv_note (job->study, job->csv, note, &error))
    fprintf (stderr, "ctrecon-cli: warning: %s\n", error->message);
}

/* DIR/run-NN.tif of the run that just finished (never over an input). */
static void
write_image (Job *job, const CtrStudyProgress *p)
{
  if (job->images == NULL || p->image == NULL || job->image_error != NULL)
    return;
  g_autofree char *name = g_strdup_printf ("run-%02u.tif", p->run + 1);
  g_autofree char *path = g_build_filename (job->images, name, NULL);
  const char *others[] = { job->study_path, NULL };
  if (ctr_output_path_check (path, CTR_OUTPUT_FILE, job->dataset, others, &job->image_error)
      && ctr_tiff_write_volume (path, p->image, &job->image_error))
    fprintf (stderr, "  wrote %s\n", path);
}

static void
on_progress (const CtrStudyProgress *p, gpointer data)
{
  if (p->row != NULL)
    {
      const CtrStudyRow *r = p->row;
      write_rows (data, p->run + 1, p->n_runs);  /* on disk before the line says the run is done */
      GString *line = g_string_new (NULL);
      g_string_append_printf (line, "[%u/%u] dose %g  %s", p->run + 1, p->n_runs, r->dose, r->label);
      if (ctr_study_get_realisations (((Job *) data)->study) > 1)
        g_string_append_printf (line, "  realisation %u", r->realisation + 1);
      g_string_append (line, ": ");
      if (isfinite (r->rmse))
        g_string_append_printf (line, "RMSE %.1f HU  SSIM %.4f  ", r->hu_rmse, r->ssim);
      if (isfinite (r->noise_sd_hu))
        g_string_append_printf (line, "noise %.1f HU  ", r->noise_sd_hu);
      if (isfinite (r->nps_noise_hu))
        g_string_append_printf (line, "NPS noise %.1f HU  ", r->nps_noise_hu);
      if (isfinite (r->dprime_npw))
        g_string_append_printf (line, "d′ NPW %.3g NPWE %.3g  ", r->dprime_npw, r->dprime_npwe);
      g_string_append_printf (line, "%u it  %.2f s", r->iterations, r->seconds);
      fprintf (stderr, "%s\n", line->str);
      g_string_free (line, TRUE);
      write_image (data, p);
    }
  else if (p->notes != NULL)
    for (guint i = 0; p->notes[i] != NULL; i++)
      fprintf (stderr, "  %s\n", p->notes[i]);
  else if (p->iteration == NULL && p->stage != NULL)
    fprintf (stderr, "%s…\n", p->stage);
}

/* A warning per insert whose TTF was measured below TG-233's CNR. */
static void
warn_low_cnr (const CtrStudy *study)
{
  for (guint i = 0; i < ctr_study_get_n_iq_inserts (study); i++)
    {
      double lo, hi;
      if (ctr_study_get_iq_insert_cnr (study, i, &lo, &hi) && lo < CTR_TTF_MIN_CNR)
        fprintf (stderr, "warning: insert “%s”: its TTF's CNR is %.1f–%.1f on one slice, below the %.0f "
                 "that TG-233 asks: its f50%s vary from run to run\n", ctr_study_get_iq_insert_name (study, i),
                 lo, hi, CTR_TTF_MIN_CNR, ctr_study_has_iq_task (study) ? " (and d′ when the task uses it)" : "");
    }
}

/* One stderr line per configuration and observer: its equal-d′ dose. */
static gboolean
print_equal_dose (const CtrStudy *study, GError **error)
{
  const guint n = ctr_study_get_n_methods (study);
  guint reference;
  if (!ctr_study_get_reference (study, &reference, error))
    return FALSE;
  g_autofree CtrEqualDose *e = g_new0 (CtrEqualDose, n);
  static const char *const names[CTR_EQUAL_DOSE_N_OBSERVERS] = { "NPW", "NPWE", "NPW, pooled TTF",
                                                                   "NPWE, pooled TTF" };
  for (int o = 0; o < CTR_EQUAL_DOSE_N_OBSERVERS; o++)
    {
      if (!ctr_study_equal_dose (study, o, e, error))
        return FALSE;
      fprintf (stderr, "equal-d′ dose (%s): d′ of %s at dose 1 = %.4g", names[o],
               ctr_study_get_method_label (study, reference), e[reference].target);
      if (e[reference].target_se > 0)
        fprintf (stderr, " ± %.2g (standard error)", e[reference].target_se);
      fprintf (stderr, "\n");
      for (guint m = 0; m < n; m++)
        {
          const char *label = ctr_study_get_method_label (study, m);
          if (m == reference || e[m].status != CTR_EQUAL_DOSE_REACHED)
            fprintf (stderr, "  %s: %s\n", label, ctr_equal_dose_status_name (&e[m], m == reference));
          else if (isfinite (e[m].dose_se))
            fprintf (stderr, "  %s: %.3g ± %.2g (between doses %g and %g)\n", label, e[m].dose, e[m].dose_se,
                     e[m].dose_low, e[m].dose_high);
          else
            fprintf (stderr, "  %s: %.3g (between doses %g and %g; no uncertainty: one realisation)\n", label,
                     e[m].dose, e[m].dose_low, e[m].dose_high);
        }
    }
  return TRUE;
}

static void
work (gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  job->ok = ctr_study_run (job->study, job->dataset, on_progress, job, cancellable, &job->error);
}

int
ctr_cli_study (int argc, char **argv)
{
  g_autofree char *output = NULL;
  int width = 1400, height = 620;
  gboolean images = FALSE;
  GOptionEntry entries[] = {
    { "images", 0, 0, G_OPTION_ARG_NONE, &images, "also write every run's image as DIR/run-NN.tif (NN: its row of study.csv, from 01; float32, 1/mm)", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "folder for study.csv and study.png (created when missing)", "DIR" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "width of study.png in pixels (default 1400)", "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "height of study.png in pixels (default 620)", "H" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("STUDY.json — run a dose study: doses × methods × parameters on one dataset");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "STUDY.json names the dataset, the dose fractions, the methods with their parameters (one\n"
      "value or a list each: every combination runs) and optional ROIs; see README.md, \"Dose studies\".\n"
      "Writes DIR/study.csv (one row per run) and DIR/study.png (RMSE and SSIM against dose);\n"
      "with an \"iq\" task also DIR/equal-dose.csv: the dose at which each method's d′ equals the\n"
      "reference's at dose 1, with its standard error over \"realisations\" (docs/study.md).\n"
      "Ctrl-C cancels; the runs that finished are still written.");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2 || output == NULL)
    {
      fprintf (stderr, "ctrecon-cli study: give one STUDY.json and --output DIR\n");
      return 2;
    }
  if (width < 200 || height < 200 || width > 8000 || height > 8000)
    {
      fprintf (stderr, "ctrecon-cli study: --width and --height must be 200 to 8000\n");
      return 2;
    }

  g_autoptr (GError) error = NULL;
  g_autoptr (CtrStudy) study = ctr_study_new_from_file (argv[1], &error);
  if (study == NULL)
    return ctr_cli_fail (error);
  const char *variant = NULL;
  const char *path = ctr_study_get_dataset (study, &variant);
  if (g_mkdir_with_parents (output, 0755) != 0)
    {
      fprintf (stderr, "ctrecon-cli study: cannot create folder %s: %s\n", output, g_strerror (errno));
      return 1;
    }
  g_autofree char *csv = g_build_filename (output, "study.csv", NULL);
  g_autofree char *png = g_build_filename (output, "study.png", NULL);
  g_autofree char *equal = ctr_study_has_iq_task (study) ? g_build_filename (output, "equal-dose.csv", NULL) : NULL;
  fprintf (stderr, "loading %s…\n", path);
  g_autoptr (CtrDataset) dataset = ctr_dataset_load (path, variant, NULL, &error);
  if (dataset == NULL)
    return ctr_cli_fail (error);
  ctr_cli_print_warnings (dataset);
  /* study.csv and study.png never replace an input (the dataset's files, the
   * STUDY.json), nor a FIFO or a device node; their folder is writable:
   * checked before the first run (io/ctr-output-set.h). */
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (dataset);
  ctr_output_set_add_input (outputs, argv[1]);
  ctr_output_set_add (outputs, csv, CTR_OUTPUT_FILE, "--output");
  ctr_output_set_add (outputs, png, CTR_OUTPUT_FILE, "--output");
  if (equal != NULL)
    ctr_output_set_add (outputs, equal, CTR_OUTPUT_FILE, "--output");
  if (!ctr_output_set_check (outputs, &error))
    return ctr_cli_fail (error);
  fprintf (stderr, "%u dose(s) × %u method configuration(s) × %u realisation(s) on %s\n",
           ctr_study_get_n_doses (study), ctr_study_get_n_methods (study), ctr_study_get_realisations (study),
           dataset->name);

  Job job = { study, dataset, csv, images ? output : NULL, argv[1], FALSE, NULL, NULL };
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  ctr_cli_run_cancellable ("study", work, &job, cancellable);

  int status = job.ok ? 0 : ctr_cli_fail (job.error);
  guint n_rows = 0;
  ctr_study_get_rows (study, &n_rows);
  const guint n_runs = ctr_study_get_n_runs (study);
  g_autofree char *note = job.ok ? NULL
    : g_strdup_printf ("incomplete: %u of %u runs (%s)", n_rows, n_runs,
                       g_error_matches (job.error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ? "cancelled" : "failed");
  g_clear_error (&job.error);
  if (job.image_error != NULL && status == 0)
    status = ctr_cli_fail (job.image_error);
  g_clear_error (&job.image_error);
  if (n_rows > 0 || job.ok)
    {
      if (!ctr_study_write_csv_note (study, csv, note, &error)
          || !ctr_study_plot_write_png (study, png, width, height, &error))
        return ctr_cli_fail (error);
      fprintf (stderr, "wrote %s and %s (%u run%s%s)\n", csv, png, n_rows, n_rows == 1 ? "" : "s",
               job.ok ? "" : ", incomplete");
      warn_low_cnr (study);
    }
  if (job.ok && equal != NULL)
    {
      if (!print_equal_dose (study, &error) || !ctr_study_write_equal_dose_csv (study, equal, &error))
        return ctr_cli_fail (error);
      fprintf (stderr, "wrote %s\n", equal);
    }
  return status;
}
