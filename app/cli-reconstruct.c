/* cli-reconstruct.c — `ctrecon-cli reconstruct GEOMETRY.json ...`.
 *
 * Loads a dataset, chooses the grid by the rule the window shares
 * (ctr_grid_for_scan, data/ctr-grid.h: the slices asked for, else the
 * dataset reference's grid, else the field of view at the detector's
 * resolution) and prints it ("grid: ..."; --dry-run stops there), makes a plan
 * (ctr-recon-plan.h) and prints its notes, executes it on a worker thread
 * while the main thread waits for Ctrl-C (which cancels between views),
 * prints one line per iteration on stderr and writes the image (float32
 * TIFF) and optionally the metrics (CSV), both atomically.  The method's
 * parameters are options made from the parameter table (cli-params.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "cli-params.h"
#ifdef CTR_HAVE_MPI
#include "ctr-mpi.h"
#endif

typedef struct {
  /* inputs */
  CtrDataset *dataset;
  CtrGrid grid;
  CtrReconOptions options;
  CtrVolume *reference;
  GCancellable *cancellable;
  /* under mpirun: rank 0's failure before the run (the other ranks hear
   * of it in the run's first round) */
  GError *input_error;
  /* under mpirun with more than one rank: every rank reads its share of
   * @path's projections (CtrMpiReader) instead of rank 0 sending them */
  gboolean read_shares;
  const char *path, *variant;
  CtrPipeline *pipeline;   /* --preprocess, every rank's */
  /* outputs: checked before the run, committed together (rank 0 only) */
  CtrOutputSet *outputs;
  guint out_image, out_metrics;
  GString *csv;
  CtrVolume *result;
  GError *error;
  CtrIterStats last;
} Job;

static void
on_iteration (const CtrIterStats *s, gpointer data)
{
  Job *job = data;
  job->last = *s;
  job->last.image = NULL;
  GString *line = g_string_new (NULL);
  g_string_append_printf (line, "%s iteration %u/%u  %.2f s (%.3f s/it)", ctr_method_name (s->method),
                          s->iteration, s->n_iterations, s->elapsed_s, s->iteration_s);
  if (isfinite (s->residual))
    g_string_append_printf (line, "  residual %.4e", s->residual);
  else if (s->iteration == 1 && s->n_iterations > 1)
    fprintf (stderr, "%s: the data residual is computed after the last iteration only (it costs one more forward "
             "projection an iteration; --residual-every or --metrics for every iteration)\n",
             ctr_method_name (s->method));
  if (s->has_reference)
    g_string_append_printf (line, "  RMSE %.4e  PSNR %.2f dB  SSIM %.4f", s->rmse, s->psnr, s->ssim);
  fprintf (stderr, "%s\n", line->str);
  g_string_free (line, TRUE);
  if (s->stopped)
    fprintf (stderr, "%s stopped at iteration %u of %u: the data residual reached the noise level or stopped falling\n",
             ctr_method_name (s->method), s->iteration, s->n_iterations);
  else if (s->iteration == s->n_iterations && ctr_iter_stats_below_noise (s))
    fprintf (stderr, "%s: the data residual %.4e lies below the noise level's %.4e (estimated from the data): the last "
             "iterations fitted the noise and the image's error may have grown with them (semi-convergence); "
             "--stop auto ends the run where the residual reaches that level (the discrepancy principle)\n",
             ctr_method_name (s->method), s->residual, s->noise_residual);
  g_string_append_printf (job->csv, "%u,%.6f,%.6f,%.8g,%.8g,%.8g,%.8g\n", s->iteration, s->elapsed_s,
                          s->iteration_s, s->residual, s->rmse, s->psnr, s->ssim);
}

static void
print_notes (CtrReconPlan *plan, guint from)
{
  const char *const *notes = ctr_recon_plan_get_notes (plan);
  for (guint i = from; notes[i] != NULL; i++)
    fprintf (stderr, "%s\n", notes[i]);
}

#ifdef CTR_HAVE_MPI
static void
on_note (const char *line, gpointer data)
{
  fprintf (stderr, "%s\n", line);
}

/* Every rank's share of the projections (CtrMpiReader). */
static CtrDataset *
read_share (const CtrDatasetPart *part, gpointer data, GError **error)
{
  Job *job = data;
  return ctr_dataset_load_part (job->path, job->variant, job->pipeline, part, NULL, error);
}

/* Every rank: the run split across the ranks (mpi/ctr-mpi.h); rank 0 has
 * the inputs and prints. */
static void
work_mpi (Job *job, GCancellable *cancellable)
{
  const CtrMpiReader reader = { read_share, job };
  CtrMpiInput in = { 0 };
  const gboolean have = job->dataset != NULL && job->input_error == NULL;
  if (have)
    {
      in.geometry = job->dataset->geometry;
      in.projections = job->dataset->projections;
      in.grid = job->grid;
      in.options = job->options;
      in.reference = job->reference;
    }
  ctr_mpi_reconstruct (have ? &in : NULL, job->read_shares ? &reader : NULL, g_steal_pointer (&job->input_error), on_iteration, on_note, job,
                       cancellable, &job->result, &job->error);
}
#endif

static void
work (gpointer data, GCancellable *cancellable)
{
  Job *job = data;
#ifdef CTR_HAVE_MPI
  if (ctr_cli_mpi_running ())
    {
      work_mpi (job, cancellable);
      return;
    }
#endif
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (job->dataset->geometry, &job->grid, &job->options,
                                                      cancellable, &job->error);
  if (plan != NULL)
    {
      print_notes (plan, 0);
      const guint n_before = g_strv_length ((char **) ctr_recon_plan_get_notes (plan));
      job->result = ctr_recon_plan_execute (plan, job->dataset->projections, job->reference, on_iteration,
                                            job, cancellable, &job->error);
      print_notes (plan, n_before);   /* a fall-back during the run */
    }
}

/* A reference given as a bare TIFF has no grid: it must match the output
 * grid.  When it has the shape of the dataset's reference (@dataset_ref,
 * nullable) its pixels are taken to be that reference's: a grid on other
 * pixels is refused rather than measured against it, which would compare
 * 1.006 mm pixels with 0.957 mm ones and report a wrong RMSE. */
static CtrVolume *
load_reference_tiff (const char *path, const CtrGrid *grid, const CtrGrid *dataset_ref, GError **error)
{
  CtrTiffInfo info;
  g_autofree float *data = ctr_tiff_read (path, &info, error);
  if (data == NULL)
    return NULL;
  if (info.width != grid->nx || info.height != grid->ny || (info.pages != 1 && info.pages != grid->nz))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "reference %s is %u × %u × %u; the reconstruction grid is %u × %u × %u "
                   "(give --size and --pixel-size to match it)",
                   path, info.width, info.height, info.pages, grid->nx, grid->ny, grid->nz);
      return NULL;
    }
  if (dataset_ref != NULL && info.width == dataset_ref->nx && info.height == dataset_ref->ny
      && (fabs (grid->dx - dataset_ref->dx) > 1e-6 * dataset_ref->dx
          || fabs (grid->dy - dataset_ref->dy) > 1e-6 * dataset_ref->dy))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "reference %s has the shape of the dataset's reference (%u × %u pixels of %.6g mm), but the "
                   "reconstruction grid has pixels of %.6g mm: metrics would compare different pixels. Leave "
                   "out --pixel-size (the reference's grid is the default) or give --pixel-size %.9g; for a "
                   "reference of its own on %.6g mm pixels add --no-reference",
                   path, dataset_ref->nx, dataset_ref->ny, dataset_ref->dx, grid->dx, dataset_ref->dx, grid->dx);
      return NULL;
    }
  if (dataset_ref == NULL)  /* nothing to check it against: say what is assumed */
    fprintf (stderr, "reference %s carries no grid: taken to be on the reconstruction grid (%u × %u pixels of "
             "%.6g mm); give --pixel-size if it is not\n", path, grid->nx, grid->ny, grid->dx);
  CtrGrid rg = *grid;
  rg.nz = info.pages;
  CtrVolume *v = ctr_volume_new (&rg, error);
  if (v == NULL)
    return NULL;
  memcpy (v->data, data, ctr_grid_size (&rg) * sizeof (float));
  return v;
}

/* A helical scan's pages: in increasing table coordinate, each page's
 * position in its description. */
static gboolean
write_helical_tiff (const char *output, const CtrVolume *v, const CtrGeometry *g, GError **error)
{
  const guint nz = v->grid.nz;
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (guint p = 0; p < nz; p++)
    {
      const double z = ctr_grid_z (&v->grid, g->table_reversed ? nz - 1 - p : p);
      char b1[G_ASCII_DTOSTR_BUF_SIZE], b2[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (b1, sizeof b1, "%.4f", ctr_geometry_table_mm (g, z));
      g_ascii_formatd (b2, sizeof b2, "%.4f", z);
      g_ptr_array_add (texts, g_strdup_printf ("table_mm=%s\nz_mm=%s\n", b1, b2));
    }
  g_ptr_array_add (texts, NULL);
  return ctr_tiff_write_volume_pages (output, v, g->table_reversed, (const char *const *) texts->pdata, error);
}

/* --format tiff: a float32 TIFF stack; dicom: a CT series in the folder @output,
 * its DerivationDescription naming the method and its parameters. */
static gboolean
write_output (const char *output, const char *format, const CtrVolume *v, const CtrReconOptions *o,
              const char *name, const CtrGeometry *g, GError **error)
{
  const gboolean helical = g->source_z_mm != NULL;
  if ((format == NULL || g_str_equal (format, "tiff")) && helical)
    return write_helical_tiff (output, v, g, error);
  if (format == NULL || g_str_equal (format, "tiff"))
    return ctr_tiff_write_volume (output, v, error);
  g_autofree char *method = ctr_method_is_iterative (o->method)
    ? g_strdup_printf ("%s, %u iterations, relaxation %g, %s", ctr_method_label (o->method), o->iterations,
                       o->relaxation, o->nonnegative ? "non-negative" : "signed")
    : g_strdup_printf ("%s, %s window, cut-off %g", ctr_method_label (o->method), ctr_filter_window_name (o->window),
                       o->cutoff);
  g_autofree char *derivation = ctr_helix_applies (g)
    ? g_strdup_printf ("%s; %s", method, o->rebin == CTR_REBIN_NONE ? "helical cone-beam projector"
                                                                    : o->rebin == CTR_REBIN_180LI ? "180LI rebinning"
                                                                                                  : "360LI rebinning")
    : g_strdup (method);
  if (v->unit != NULL && strstr (v->unit, "pixel") != NULL)
    fprintf (stderr, "ctrecon-cli: warning: the image is in %s (the dataset's pixel size is unknown); "
             "its HU assume 1/mm with mu_water %g\n", v->unit, CTR_MU_WATER_PER_MM);
  g_autofree char *description = g_strdup_printf ("%s (ctrecon %s)", name, ctr_method_name (o->method));
  CtrDicomExportOptions eo;
  ctr_dicom_export_options_init (&eo);
  eo.derivation = derivation;
  eo.series_description = description;
  eo.table_coordinate = helical;
  eo.table_reversed = g->table_reversed;
  return ctr_dicom_export_series (v, output, &eo, error);
}

/* The image and the metrics written to their staged names, then committed
 * together (io/ctr-output-set.h): a failure of either replaces neither. */
static gboolean
write_outputs (Job *job, const char *format, GError **error)
{
  const char *stage = ctr_output_set_stage (job->outputs, job->out_image, error);
  gboolean ok = stage != NULL
    && write_output (stage, format, job->result, &job->options, job->dataset->name, job->dataset->geometry, error);
  if (ok && job->out_metrics != G_MAXUINT)
    ok = ctr_output_set_write_text (job->outputs, job->out_metrics, job->csv->str, -1, error);
  ok = ok && ctr_output_set_commit (job->outputs, error);
  if (!ok)
    ctr_output_set_explain (job->outputs, *error);
  return ok;
}

/* Runs the job (a worker thread, Ctrl-C cancels) and frees it; rank 0 (or a
 * plain run) writes the image and the metrics.  Returns the exit status. */
static int
run_job (Job *job, const char *output, const char *format)
{
  g_autoptr (GError) error = NULL;
  job->csv = g_string_new ("iteration,elapsed_s,iteration_s,residual,rmse,psnr,ssim\n");
  job->cancellable = g_cancellable_new ();
  ctr_cli_run_cancellable ("reconstruct", work, job, job->cancellable);

  int status = 0;
  if (job->error != NULL)
    status = ctr_cli_fail (job->error);
  else if (job->result == NULL)
    status = ctr_cli_mpi_running () ? 0 : ctr_cli_fail (NULL);  /* under mpirun: a rank other than 0 */
  else if (!write_outputs (job, format, &error))
    status = ctr_cli_fail (error);
  else
    {
      fprintf (stderr, "wrote %s (%u × %u × %u, %s)\n", output, job->grid.nx, job->grid.ny,
               job->grid.nz, job->result->unit ? job->result->unit : "1/mm");
      if (job->last.has_reference)
        fprintf (stderr, "against the reference: RMSE %.4e  PSNR %.2f dB  SSIM %.4f\n",
                 job->last.rmse, job->last.psnr, job->last.ssim);
    }

  g_clear_error (&job->error);
  g_clear_error (&job->input_error);
  g_clear_pointer (&job->result, ctr_volume_unref);
  g_clear_pointer (&job->reference, ctr_volume_unref);
  g_clear_object (&job->cancellable);
  g_string_free (job->csv, TRUE);
  g_clear_pointer (&job->outputs, ctr_output_set_free);
  g_clear_pointer (&job->dataset, ctr_dataset_free);
  g_clear_pointer (&job->pipeline, ctr_pipeline_free);
  return status;
}

/* Rank 0 could not make the inputs: under mpirun the other ranks must hear
 * it (they are waiting in the run's first round); else print and fail. */
static int
fail_inputs (Job *job, GError *error, const char *output, const char *format)
{
  if (!ctr_cli_mpi_running ())
    {
      int status = ctr_cli_fail (error);
      g_error_free (error);
      g_clear_pointer (&job->dataset, ctr_dataset_free);
      g_clear_pointer (&job->reference, ctr_volume_unref);
      g_clear_pointer (&job->outputs, ctr_output_set_free);
      return status;
    }
  job->input_error = error;
  return run_job (job, output, format);
}

/* The name of --output agrees with --format: a DICOM series is a folder
 * (not "x.dcm", which would otherwise hold a TIFF), a TIFF is not written
 * as a folder named "x.tif". */
static gboolean
check_format_name (const char *output, const char *format)
{
  const gboolean dicom = format != NULL && g_str_equal (format, "dicom");
  g_autofree char *lower = g_ascii_strdown (output, -1);
  if (!dicom && (g_str_has_suffix (lower, ".dcm") || g_str_has_suffix (lower, ".dicom")))
    {
      fprintf (stderr, "ctrecon-cli reconstruct: --output %s names a DICOM file, but the image is written as a "
               "float32 TIFF; give --format dicom and a folder for the series, or a .tif name\n", output);
      return FALSE;
    }
  if (dicom && (g_str_has_suffix (lower, ".tif") || g_str_has_suffix (lower, ".tiff")))
    {
      fprintf (stderr, "ctrecon-cli reconstruct: --format dicom writes a series into the folder --output, "
               "not the TIFF file %s; give a folder name, or leave out --format dicom\n", output);
      return FALSE;
    }
  return TRUE;
}

/* "N" or "NXxNYxNZ" (sizes, @integers) or "D" / "DXxDYxDZ" (mm): 1 or 3
 * positive finite numbers into @out; *@n_out = how many were given. */
static gboolean
parse_dims (const char *text, const char *option, gboolean integers, double out[3], guint *n_out)
{
  g_auto (GStrv) parts = g_strsplit_set (text, "xX", -1);
  guint n = g_strv_length (parts);
  if (n == 1 || n == 3)
    {
      for (guint i = 0; i < n; i++)
        {
          char *end = NULL;
          out[i] = g_ascii_strtod (parts[i], &end);
          if (end == parts[i] || *end != '\0' || !isfinite (out[i]) || out[i] <= 0
              || (integers && (out[i] != floor (out[i]) || out[i] > 65536)))
            n = 0;
        }
    }
  if (n != 1 && n != 3)
    {
      fprintf (stderr, "ctrecon-cli reconstruct: %s takes %s, got '%s'\n", option,
               integers ? "N or NXxNYxNZ (positive integers)" : "MM or DXxDYxDZ (positive mm)", text);
      return FALSE;
    }
  *n_out = n;
  return TRUE;
}

/* "FIRST:LAST:STEP" (mm): the one parser and message (ctr_grid_parse_z_range). */
static gboolean
parse_z_range (const char *text, double out[3])
{
  g_autoptr (GError) error = NULL;
  if (ctr_grid_parse_z_range (text, out, &error))
    return TRUE;
  fprintf (stderr, "ctrecon-cli reconstruct: %s\n", error->message);
  return FALSE;
}

/* Whether every slice of @grid lies within the reference's slices (half a
 * slice of slack): outside them the resampled reference is 0, and metrics
 * against it would be meaningless. */
static gboolean
reference_covers (const CtrVolume *ref, const CtrGrid *grid)
{
  const double lo = MIN (ctr_grid_z (&ref->grid, 0), ctr_grid_z (&ref->grid, ref->grid.nz - 1));
  const double hi = MAX (ctr_grid_z (&ref->grid, 0), ctr_grid_z (&ref->grid, ref->grid.nz - 1));
  const double slack = 0.5 * fabs (ref->grid.dz) + 1e-6;
  for (guint k = 0; k < grid->nz; k++)
    {
      const double z = ctr_grid_z (grid, k);
      if (z < lo - slack || z > hi + slack)
        return FALSE;
    }
  return TRUE;
}

/* The command line, every option's value. */
typedef struct {
  char *method, *output, *reference, *metrics, *format, *variant, *backend, *z_range, *rebin;
  char *preprocess;   /* --preprocess FILE.json */
  char *size_str, *voxel_str;
  double pixel_size, metrics_radius;
  gboolean no_reference, allow_negative, dry_run, residual_every;
  CtrCliParams *params;
  /* parsed from the strings above */
  double range[3];
  double dims_n[3], dims_d[3];   /* --size, --voxel-size */
  guint n_dims_n, n_dims_d;
  int size;
} Args;

static void
args_clear (Args *a)
{
  g_free (a->method);
  g_free (a->output);
  g_free (a->reference);
  g_free (a->metrics);
  g_free (a->format);
  g_free (a->variant);
  g_free (a->preprocess);
  g_free (a->backend);
  g_free (a->z_range);
  g_free (a->rebin);
  g_free (a->size_str);
  g_free (a->voxel_str);
  g_clear_pointer (&a->params, ctr_cli_params_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Args, args_clear)

/* The help of --method, from the method table: every method, those a
 * circular cone beam takes (ctr_method_fits_geometry), the defaults. */
static char *
method_help (void)
{
  CtrGeometry cone = { 0 };
  cone.beam = CTR_BEAM_CONE;
  guint cone_mask = 0;
  for (guint m = 0; m < CTR_N_METHODS; m++)
    if (ctr_method_fits_geometry (m, &cone))
      cone_mask |= 1u << m;
  g_autofree char *all = ctr_method_names_joined (0, "or");
  g_autofree char *cone_names = ctr_method_names_joined (cone_mask, "and");
  return g_strdup_printf ("%s (circular cone beam: %s; default %s, %s for cone beam); "
                          "'ctrecon-cli methods' lists them with their parameters",
                          all, cone_names, ctr_method_name (CTR_METHOD_FBP), ctr_method_name (CTR_METHOD_FDK));
}

/* The options and the method's options (job->options), checked before any
 * file is read.  Returns -1 to go on, else the exit status. */
static int
parse_args (Args *a, Job *job, int *argc, char ***argv)
{
  a->metrics_radius = -1;
  g_autofree char *method_text = method_help ();
  GOptionEntry entries[] = {
    { "method", 'm', 0, G_OPTION_ARG_STRING, &a->method, method_text, "M" },
    { "size", 's', 0, G_OPTION_ARG_STRING, &a->size_str, "image of N × N pixels, or a volume of NX × NY × NZ voxels (default: the dataset reference's grid, else cover the field of view)", "N|NXxNYxNZ" },
    { "voxel-size", 0, 0, G_OPTION_ARG_STRING, &a->voxel_str, "voxel size in mm, DXxDYxDZ or one value for all three (volumes; default: the detector pitch at the isocentre)", "DXxDYxDZ" },
    { "pixel-size", 'p', 0, G_OPTION_ARG_DOUBLE, &a->pixel_size, "pixel size in mm (default: the dataset reference's pixel when --size is left out or is its size, else the detector pitch at the isocentre)", "MM" },
    { "reference", 'r', 0, G_OPTION_ARG_FILENAME, &a->reference, "reference image (float32 TIFF on the output grid; one of the dataset reference's shape must be on its pixels); default: the dataset's", "REF.tif" },
    { "no-reference", 0, 0, G_OPTION_ARG_NONE, &a->no_reference, "do not compare with the dataset's reference", NULL },
    { "metrics", 0, 0, G_OPTION_ARG_FILENAME, &a->metrics, "write per-iteration residual/RMSE/PSNR/SSIM as CSV", "OUT.csv" },
    { "residual-every", 0, 0, G_OPTION_ARG_NONE, &a->residual_every, "report the data residual after every iteration (the default reports it after the last, and after the others where it costs nothing: SIRT, CGLS; art, part, sart, pwls and asd-pocs pay one more forward projection per iteration for it); implied by --metrics and --stop auto", NULL },
    { "metrics-radius", 0, 0, G_OPTION_ARG_DOUBLE, &a->metrics_radius, "metrics inside this radius (mm); default the field of view, 0 = whole image", "MM" },
    { "variant", 0, 0, G_OPTION_ARG_STRING, &a->variant, "load this entry of the dataset's \"variants\" (e.g. noiseless)", "NAME" },
    { "preprocess", 0, 0, G_OPTION_ARG_FILENAME, &a->preprocess, "corrections of the line integrals, run instead of the dataset's \"preprocess\" key: a JSON list of steps, or an object with \"preprocess\"; ops flux, outliers, rings, beam-hardening, truncation (e.g. [{\"op\": \"flux\"}, {\"op\": \"outliers\", \"threshold\": 5}, {\"op\": \"rings\", \"size\": 21}, {\"op\": \"beam-hardening\", \"spectrum\": \"120kvp\"}, {\"op\": \"truncation\"}])", "FILE.json" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &a->backend, "where the method runs: best (default: cuda when a device answers, else cpu), cpu, cuda or cusparse (cuSPARSE baseline, part only)", "B" },
    { "allow-negative", 0, 0, G_OPTION_ARG_NONE, &a->allow_negative, "do not clip the image at 0 (--nonnegative no)", NULL },
    { "z-range", 0, 0, G_OPTION_ARG_STRING, &a->z_range, "helical scans: slices at FIRST, FIRST+STEP, … up to LAST, mm in the scan's own table coordinate (DICOM-CT-PD: DetectorFocalCenterAxialPosition); default: the dataset reference's slices, else the fully sampled range at the nominal slice width", "FIRST:LAST:STEP" },
    { "rebin", 0, 0, G_OPTION_ARG_STRING, &a->rebin, "helical scans: 180li (default: direct and conjugate rays), 360li (direct rays), or none (the cone-beam projector on the slab; sart, sirt, cgls, pwls, asd-pocs)", "MODE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &a->format, "tiff (default: float32 stack) or dicom (a CT image series in HU, one file per slice, in the folder --output)", "F" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &a->output, "output image, float32 TIFF (pages = slices from the lowest z)", "OUT.tif" },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &a->dry_run, "load and check the dataset and the outputs, print the grid (the line \"grid: …\"), the memory estimate and the matrix choice, and stop: nothing is reconstructed or written (--output may be left out)", NULL },
    { NULL }
  };
  a->params = ctr_cli_params_new (NULL);
  g_autoptr (GOptionContext) ctx = g_option_context_new ("GEOMETRY.json|DICOM — reconstruct a dataset (a geometry.json, or a DICOM file or folder: a DICOM-CT-PD series, axial or helical)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_main_entries (ctx, ctr_cli_params_entries (a->params), NULL);
  g_option_context_set_description (ctx,
      "Progress and one line per iteration go to standard error. Ctrl-C cancels between views.\n"
      "Under mpirun (a build with MPI) the work is split across the ranks: slice blocks (fan, parallel beam),\n"
      "iFDK view groups x z-slabs (FDK), z-slabs with halo slices (cone SART/SIRT); rank 0 reads and writes.\n"
      "Output is in 1/mm (1/pixel when the dataset's pixel size is unknown), row 0 = +y, column 0 = -x.");
  if (!ctr_cli_parse (ctx, argc, argv))
    return 2;
  if (*argc != 2)
    {
      fprintf (stderr, "ctrecon-cli reconstruct: give exactly one GEOMETRY.json (got %d arguments)\n", *argc - 1);
      return 2;
    }
  if (a->output == NULL && !a->dry_run)
    {
      fprintf (stderr, "ctrecon-cli reconstruct: --output OUT.tif is required\n");
      return 2;
    }
  if (a->dry_run && ctr_cli_mpi_running ())
    {
      fprintf (stderr, "ctrecon-cli reconstruct: --dry-run is for one process, not under mpirun\n");
      return 2;
    }
  if (a->format != NULL && !g_str_equal (a->format, "tiff") && !g_str_equal (a->format, "dicom"))
    {
      fprintf (stderr, "ctrecon-cli reconstruct: unknown --format '%s' (tiff or dicom)\n", a->format);
      return 2;
    }
  if (a->output != NULL && !check_format_name (a->output, a->format))
    return 2;

  g_autoptr (GError) error = NULL;
  CtrMethod m = CTR_METHOD_FBP;
  if (a->method && !ctr_method_from_name (a->method, &m, &error))
    return ctr_cli_fail (error);
  ctr_recon_options_init (&job->options, m);
  if ((a->size_str != NULL && !parse_dims (a->size_str, "--size", TRUE, a->dims_n, &a->n_dims_n))
      || (a->voxel_str != NULL && !parse_dims (a->voxel_str, "--voxel-size", FALSE, a->dims_d, &a->n_dims_d)))
    return 2;
  a->size = (int) a->dims_n[0];
  if (!ctr_cli_params_apply (a->params, &job->options, "reconstruct"))
    return 2;
  if (a->allow_negative)
    job->options.nonnegative = FALSE;
  /* The exact residual of every iteration where something shows it whole
   * (the metrics file, the stopping rule: the driver's own), else of the
   * last iteration and of those where it is free (ctr-recon-types.h). */
  job->options.residual = a->residual_every || a->metrics != NULL ? CTR_RESIDUAL_EVERY : CTR_RESIDUAL_FINAL;
  if (a->backend)
    {
      /* Options hold a static string (ctr-recon-types.h). */
      static const char *const names[] = { "best", "cpu", "cuda", "cusparse" };
      job->options.backend = NULL;
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        if (g_str_equal (a->backend, names[i]))
          job->options.backend = names[i];
      if (job->options.backend == NULL)
        {
          fprintf (stderr, "ctrecon-cli reconstruct: unknown --backend '%s' (best, cpu, cuda or cusparse)\n", a->backend);
          return 2;
        }
    }
  if (a->pixel_size < 0 || !isfinite (a->pixel_size))
    {
      fprintf (stderr, "ctrecon-cli reconstruct: --pixel-size must be positive\n");
      return 2;
    }
  if (a->rebin != NULL && !ctr_rebin_mode_from_name (a->rebin, &job->options.rebin, &error))
    return ctr_cli_fail (error);
  if (a->z_range != NULL && !parse_z_range (a->z_range, a->range))
    return 2;
  if (!ctr_recon_options_validate (&job->options, &error))
    return ctr_cli_fail (error);
  return -1;
}

/* --preprocess FILE.json into *@pl (NULL without one). */
static gboolean
load_pipeline (const char *preprocess_path, CtrPipeline **pl, GError **error)
{
  *pl = NULL;
  if (preprocess_path == NULL)
    return TRUE;
  *pl = ctr_pipeline_from_file (preprocess_path, error);
  if (*pl == NULL)
    g_prefix_error (error, "--preprocess: ");
  return *pl != NULL;
}

/* A geometry.json (with @variant) or a DICOM file or folder; its warnings
 * and what its views lack go to stderr.  @part (nullable): only that part
 * of the projections (under mpirun: none on rank 0, every rank reads its
 * own share later). */
static CtrDataset *
load_dataset (const char *path, const char *variant, const char *preprocess_path, const CtrDatasetPart *part,
              GError **error)
{
  CtrDataset *d;
  g_autoptr (CtrPipeline) pl = NULL;
  if (!load_pipeline (preprocess_path, &pl, error))
    return NULL;
  fprintf (stderr, "loading %s…\n", path);
  if (variant == NULL && ctr_dicom_is_dicom (path))
    {
      /* DICOM: which series, stated with its report (missing views); a
       * choice or missing geometry is an error saying what to do */
      g_autoptr(CtrDicomResolution) r = ctr_dicom_resolve (path, NULL, NULL, NULL, error);
      if (r != NULL && r->report != NULL && r->outcome == CTR_DICOM_OUTCOME_DATASET)
        fprintf (stderr, "DICOM: %s\n", r->report);
      d = r != NULL ? ctr_dicom_resolution_take_dataset (r, error) : NULL;
      if (d != NULL && pl != NULL && !ctr_dataset_apply_pipeline (d, pl, error))
        g_clear_pointer (&d, ctr_dataset_free);
    }
  else
    d = ctr_dataset_load_part (path, variant, pl, part, NULL, error);
  if (d == NULL)
    return NULL;
  ctr_cli_print_warnings (d);
  g_autofree char *coverage = ctr_geometry_coverage_note (d->geometry);
  if (coverage != NULL)
    fprintf (stderr, "ctrecon-cli: warning: %s\n", coverage);
  return d;
}

/* Outputs never replace inputs (the dataset's files, --reference), nor
 * each other, nor special files; their folders are writable and a DICOM
 * folder holds nothing but a series of ours: all decided before the run
 * (io/ctr-output-set.h).  Nothing to check without --output (--dry-run). */
static gboolean
check_outputs (Job *job, const Args *a, GError **error)
{
  job->out_metrics = G_MAXUINT;
  if (a->output == NULL)
    return TRUE;
  const gboolean dicom = a->format != NULL && g_str_equal (a->format, "dicom");
  job->outputs = ctr_output_set_new (job->dataset);
  ctr_output_set_add_input (job->outputs, a->reference);
  job->out_image = ctr_output_set_add (job->outputs, a->output, dicom ? CTR_OUTPUT_FOLDER : CTR_OUTPUT_FILE,
                                       "--output");
  if (a->metrics != NULL)
    job->out_metrics = ctr_output_set_add (job->outputs, a->metrics, CTR_OUTPUT_FILE, "--metrics");
  return ctr_output_set_check (job->outputs, error);
}

/* The grid (ctr_grid_for_scan, the rule the window shares) with the
 * volume options on top; *@dref: the dataset's reference to measure
 * against, NULL when it does not cover the slices. */
static gboolean
choose_grid (Job *job, const Args *a, const CtrVolume **dref, GError **error)
{
  const CtrGeometry *g = job->dataset->geometry;
  const gboolean helical = ctr_helix_applies (g);
  CtrGridRequest request = {
    .size = (guint) a->size,
    .pixel_mm = a->pixel_size > 0 ? a->pixel_size : a->dims_d[0],
    .z_range = a->z_range != NULL,
    .z_first = a->range[0], .z_last = a->range[1], .z_step = a->range[2],
    .direct_rays_only = job->options.rebin != CTR_REBIN_180LI,
  };
  /* a volume's voxel size is its own request: no reference grid then */
  if (!ctr_grid_for_scan (g, *dref != NULL && a->n_dims_d == 0 ? &(*dref)->grid : NULL, &request, &job->grid, error))
    return FALSE;
  if (helical)
    {
      if (*dref != NULL && a->reference == NULL && !reference_covers (*dref, &job->grid))
        {
          fprintf (stderr, "the dataset's reference (z %.2f … %.2f mm) does not hold every slice: no metrics "
                   "against it\n", ctr_grid_z (&(*dref)->grid, 0), ctr_grid_z (&(*dref)->grid, (*dref)->grid.nz - 1));
          *dref = NULL;
        }
      const double ta = ctr_geometry_table_mm (g, ctr_grid_z (&job->grid, 0));
      const double tb = ctr_geometry_table_mm (g, ctr_grid_z (&job->grid, job->grid.nz - 1));
      fprintf (stderr, "%u slice%s at table %.3f … %.3f mm, step %.4g mm, %s\n", job->grid.nz,
               job->grid.nz == 1 ? "" : "s", MIN (ta, tb), MAX (ta, tb), job->grid.dz,
               job->options.rebin == CTR_REBIN_NONE ? "no rebinning (helical cone-beam projector)"
                                                    : ctr_rebin_mode_name (job->options.rebin));
    }
  if (a->n_dims_n == 3)  /* --size NXxNYxNZ */
    {
      job->grid.ny = (guint) a->dims_n[1];
      job->grid.nz = (guint) a->dims_n[2];
    }
  if (a->n_dims_d >= 1)  /* --voxel-size */
    {
      job->grid.dx = a->dims_d[0];
      job->grid.dy = a->n_dims_d == 3 ? a->dims_d[1] : a->dims_d[0];
      job->grid.dz = a->n_dims_d == 3 ? a->dims_d[2] : a->dims_d[0];
    }
  return TRUE;
}

/* What the helical options allow (before any grid is made): the rule the
 * Python package shares (ctr_grid_check_options), as a usage error. */
static gboolean
check_helical_options (const Args *a, const CtrGeometry *g, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (ctr_grid_check_options (g, a->z_range != NULL, a->rebin != NULL, a->n_dims_n == 3 || a->n_dims_d == 3,
                              &local))
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "reconstruct: %s", local->message);
  return FALSE;
}

int
ctr_cli_reconstruct (int argc, char **argv)
{
  g_auto (Args) a = { 0 };
  Job job = { 0 };
  int status = parse_args (&a, &job, &argc, &argv);
  if (status >= 0)
    return status;

  const CtrDatasetPart no_pixels = { CTR_DATASET_ROWS, 0, 0 };
#ifdef CTR_HAVE_MPI
  /* Every rank reads its own share (CTR_MPI_READ=rank0: rank 0 reads all
   * and sends; DICOM series always). */
  job.read_shares = ctr_cli_mpi_running () && ctr_mpi_size () > 1 && !ctr_dicom_is_dicom (argv[1])
                    && g_strcmp0 (g_getenv ("CTR_MPI_READ"), "rank0") != 0;
  job.path = argv[1];
  job.variant = a.variant;
  if (job.read_shares && !load_pipeline (a.preprocess, &job.pipeline, NULL))
    job.pipeline = NULL;   /* rank 0 says why (its load_dataset) */
  if (ctr_cli_mpi_running () && ctr_mpi_rank () != 0)
    return run_job (&job, a.output, a.format);  /* rank 0 reads (the geometry) and sends */
#endif
  g_autoptr (GError) error = NULL;
  job.dataset = load_dataset (argv[1], a.variant, a.preprocess, job.read_shares ? &no_pixels : NULL, &error);
  if (job.dataset == NULL || !check_outputs (&job, &a, &error))
    return fail_inputs (&job, g_steal_pointer (&error), a.output, a.format);
  const CtrGeometry *g = job.dataset->geometry;
  const gboolean helical = ctr_helix_applies (g);
  if (a.method == NULL && g->beam == CTR_BEAM_CONE && !helical)  /* FDK is the analytic method for cone beam */
    job.options.method = CTR_METHOD_FDK;
  if (!check_helical_options (&a, g, &error))
    return fail_inputs (&job, g_steal_pointer (&error), a.output, a.format);
  {
    g_autofree char *desc = ctr_geometry_describe (g);
    fprintf (stderr, "%s: %s\n", job.dataset->name, desc);
  }

  const CtrVolume *dref = a.no_reference ? NULL : job.dataset->reference;
  if (!choose_grid (&job, &a, &dref, &error))
    return fail_inputs (&job, g_steal_pointer (&error), a.output, a.format);
  job.options.metrics_radius_mm = a.metrics_radius >= 0 ? a.metrics_radius : ctr_geometry_fov_radius_mm (g);
  fprintf (stderr, "grid: %u x %u x %u voxels of %.9g x %.9g x %.9g mm, centre %.9g %.9g %.9g mm\n",
           job.grid.nx, job.grid.ny, job.grid.nz, job.grid.dx, job.grid.dy, job.grid.dz,
           job.grid.cx, job.grid.cy, job.grid.cz);

  if (a.reference != NULL)
    {
      const CtrVolume *own = a.no_reference ? NULL : job.dataset->reference;
      job.reference = load_reference_tiff (a.reference, &job.grid, own != NULL ? &own->grid : NULL, &error);
      if (job.reference == NULL)
        return fail_inputs (&job, g_steal_pointer (&error), a.output, a.format);
    }
  else if (dref != NULL)
    job.reference = ctr_volume_ref ((CtrVolume *) dref);
  job.options.with_reference = job.reference != NULL;  /* the memory estimate counts it */

  fprintf (stderr, "%s on %u × %u pixels of %.4g mm, %u slice%s%s\n", ctr_method_label (job.options.method),
           job.grid.nx, job.grid.ny, job.grid.dx, job.grid.nz, job.grid.nz == 1 ? "" : "s",
           job.reference ? ", metrics against the reference" : "");
  if (a.dry_run)
    {
      g_auto (GStrv) notes = ctr_recon_plan_estimate (g, &job.grid, &job.options, &error);
      if (notes == NULL)
        return fail_inputs (&job, g_steal_pointer (&error), a.output, a.format);
      for (guint i = 0; notes[i] != NULL; i++)
        fprintf (stderr, "%s\n", notes[i]);
      fprintf (stderr, "dry run: nothing reconstructed or written\n");
      g_clear_pointer (&job.reference, ctr_volume_unref);
      g_clear_pointer (&job.outputs, ctr_output_set_free);
      g_clear_pointer (&job.dataset, ctr_dataset_free);
      return 0;
    }
  return run_job (&job, a.output, a.format);
}
