/* cli-reconstruct.c — `ctrecon-cli reconstruct GEOMETRY.json ...`.
 *
 * Loads a dataset, chooses the grid (the dataset reference's grid when it has
 * one, else the field of view at the detector's resolution), makes a plan
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
  /* outputs */
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
  if (s->has_reference)
    g_string_append_printf (line, "  RMSE %.4e  PSNR %.2f dB  SSIM %.4f", s->rmse, s->psnr, s->ssim);
  fprintf (stderr, "%s\n", line->str);
  g_string_free (line, TRUE);
  if (s->stopped)
    fprintf (stderr, "%s stopped at iteration %u of %u: the data residual reached the noise level or stopped falling\n",
             ctr_method_name (s->method), s->iteration, s->n_iterations);
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

/* Every rank: the run split across the ranks (mpi/ctr-mpi.h); rank 0 has
 * the inputs and prints. */
static void
work_mpi (Job *job, GCancellable *cancellable)
{
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
  ctr_mpi_reconstruct (have ? &in : NULL, g_steal_pointer (&job->input_error), on_iteration, on_note, job,
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

/* A reference given as a bare TIFF has no grid: it must match the output grid. */
static CtrVolume *
load_reference_tiff (const char *path, const CtrGrid *grid, GError **error)
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

/* Runs the job (a worker thread, Ctrl-C cancels) and frees it; rank 0 (or a
 * plain run) writes the image and the metrics.  Returns the exit status. */
static int
run_job (Job *job, const char *output, const char *format, const char *metrics)
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
  else
    {
      if (!write_output (output, format, job->result, &job->options, job->dataset->name, job->dataset->geometry,
                         &error))
        status = ctr_cli_fail (error);
      else if (metrics != NULL && !g_file_set_contents (metrics, job->csv->str, -1, &error))
        status = ctr_cli_fail (error);
      else
        {
          fprintf (stderr, "wrote %s (%u × %u × %u, %s)\n", output, job->grid.nx, job->grid.ny,
                   job->grid.nz, job->result->unit ? job->result->unit : "1/mm");
          if (job->last.has_reference)
            fprintf (stderr, "against the reference: RMSE %.4e  PSNR %.2f dB  SSIM %.4f\n",
                     job->last.rmse, job->last.psnr, job->last.ssim);
        }
    }

  g_clear_error (&job->error);
  g_clear_error (&job->input_error);
  g_clear_pointer (&job->result, ctr_volume_unref);
  g_clear_pointer (&job->reference, ctr_volume_unref);
  g_clear_object (&job->cancellable);
  g_string_free (job->csv, TRUE);
  g_clear_pointer (&job->dataset, ctr_dataset_free);
  return status;
}

/* Rank 0 could not make the inputs: under mpirun the other ranks must hear
 * it (they are waiting in the run's first round); else print and fail. */
static int
fail_inputs (Job *job, GError *error, const char *output, const char *format, const char *metrics)
{
  if (!ctr_cli_mpi_running ())
    {
      int status = ctr_cli_fail (error);
      g_error_free (error);
      g_clear_pointer (&job->dataset, ctr_dataset_free);
      g_clear_pointer (&job->reference, ctr_volume_unref);
      return status;
    }
  job->input_error = error;
  return run_job (job, output, format, metrics);
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

/* "FIRST:LAST:STEP" (mm). */
static gboolean
parse_z_range (const char *text, double out[3])
{
  g_auto (GStrv) parts = g_strsplit (text, ":", -1);
  gboolean ok = g_strv_length (parts) == 3;
  for (guint i = 0; ok && i < 3; i++)
    {
      char *end = NULL;
      out[i] = g_ascii_strtod (parts[i], &end);
      ok = end != parts[i] && *end == '\0' && isfinite (out[i]);
    }
  ok = ok && out[2] > 0 && out[1] >= out[0];
  if (!ok)
    fprintf (stderr, "ctrecon-cli reconstruct: --z-range takes FIRST:LAST:STEP in mm with FIRST <= LAST and "
             "STEP > 0, got '%s'\n", text);
  return ok;
}

/* The slices of a helical scan: --z-range, else the reference's slices, else
 * the fully sampled range of the rebinning at the nominal slice width (table
 * positions on multiples of it). */
static gboolean
helical_grid (const CtrDataset *d, const CtrReconOptions *o, const double *range, guint size, double pixel_mm,
              gboolean use_reference, CtrGrid *grid, GError **error)
{
  const CtrGeometry *g = d->geometry;
  if (range != NULL)
    return ctr_helix_grid (g, size, pixel_mm, range[0], range[1], range[2], grid, error);
  if (use_reference)
    {
      *grid = ctr_dataset_default_grid (d);
      return TRUE;
    }
  if (g->source_z_mm == NULL)   /* an axial multi-row scan: its rows' slices */
    {
      *grid = ctr_grid_default (g, size, pixel_mm);
      return TRUE;
    }
  double lo, hi;
  if (!ctr_helix_z_coverage (g, o->rebin == CTR_REBIN_180LI, &lo, &hi))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "the scan samples no z range fully (less than a rotation?); give the slices with --z-range");
      return FALSE;
    }
  const double w = ctr_geometry_slice_width_mm (g);
  const double t0 = MIN (ctr_geometry_table_mm (g, lo), ctr_geometry_table_mm (g, hi));
  const double t1 = MAX (ctr_geometry_table_mm (g, lo), ctr_geometry_table_mm (g, hi));
  double first = ceil (t0 / w - 1e-9) * w, last = floor (t1 / w + 1e-9) * w;
  if (last < first)
    first = last = 0.5 * (t0 + t1);
  return ctr_helix_grid (g, size, pixel_mm, first, last, w, grid, error);
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

int
ctr_cli_reconstruct (int argc, char **argv)
{
  g_autofree char *method = NULL, *output = NULL, *reference = NULL, *metrics = NULL;
  g_autofree char *format = NULL, *variant = NULL, *backend = NULL, *z_range = NULL, *rebin = NULL;
  double range[3] = { 0, 0, 0 };
  int size = 0;
  g_autofree char *size_str = NULL, *voxel_str = NULL;
  double dims_n[3] = { 0, 0, 0 }, dims_d[3] = { 0, 0, 0 };
  guint n_dims_n = 0, n_dims_d = 0;
  double pixel_size = 0, metrics_radius = -1;
  gboolean no_reference = FALSE, allow_negative = FALSE;
  GOptionEntry entries[] = {
    { "method", 'm', 0, G_OPTION_ARG_STRING, &method, "fbp, art, part, sart, sirt or fdk (cone beam: fdk, sart, sirt; default fbp, fdk for cone beam)", "M" },
    { "size", 's', 0, G_OPTION_ARG_STRING, &size_str, "image of N × N pixels, or a volume of NX × NY × NZ voxels (default: cover the field of view)", "N|NXxNYxNZ" },
    { "voxel-size", 0, 0, G_OPTION_ARG_STRING, &voxel_str, "voxel size in mm, DXxDYxDZ or one value for all three (volumes; default: the detector pitch at the isocentre)", "DXxDYxDZ" },
    { "pixel-size", 'p', 0, G_OPTION_ARG_DOUBLE, &pixel_size, "pixel size in mm (default: detector pitch at the isocentre)", "MM" },
    { "reference", 'r', 0, G_OPTION_ARG_FILENAME, &reference, "reference image (float32 TIFF on the output grid); default: the dataset's", "REF.tif" },
    { "no-reference", 0, 0, G_OPTION_ARG_NONE, &no_reference, "do not compare with the dataset's reference", NULL },
    { "metrics", 0, 0, G_OPTION_ARG_FILENAME, &metrics, "write per-iteration residual/RMSE/PSNR/SSIM as CSV", "OUT.csv" },
    { "metrics-radius", 0, 0, G_OPTION_ARG_DOUBLE, &metrics_radius, "metrics inside this radius (mm); default the field of view, 0 = whole image", "MM" },
    { "variant", 0, 0, G_OPTION_ARG_STRING, &variant, "load this entry of the dataset's \"variants\" (e.g. noiseless)", "NAME" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "where the method runs: best (default: cuda when a device answers, else cpu), cpu, cuda or cusparse (cuSPARSE baseline, part only)", "B" },
    { "allow-negative", 0, 0, G_OPTION_ARG_NONE, &allow_negative, "do not clip the image at 0 (--nonnegative no)", NULL },
    { "z-range", 0, 0, G_OPTION_ARG_STRING, &z_range, "helical scans: slices at FIRST, FIRST+STEP, … up to LAST, mm in the scan's own table coordinate (DICOM-CT-PD: DetectorFocalCenterAxialPosition); default: the dataset reference's slices, else the fully sampled range at the nominal slice width", "FIRST:LAST:STEP" },
    { "rebin", 0, 0, G_OPTION_ARG_STRING, &rebin, "helical scans: 180li (default: direct and conjugate rays), 360li (direct rays), or none (the cone-beam projector on the slab; sart, sirt, cgls, pwls, asd-pocs)", "MODE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "tiff (default: float32 stack) or dicom (a CT image series in HU, one file per slice, in the folder --output)", "F" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "output image, float32 TIFF (pages = slices from the lowest z)", "OUT.tif" },
    { NULL }
  };
  g_autoptr (CtrCliParams) params = ctr_cli_params_new (NULL);
  g_autoptr (GOptionContext) ctx = g_option_context_new ("GEOMETRY.json|DICOM — reconstruct a dataset (a geometry.json, or a DICOM file or folder: a DICOM-CT-PD series, axial or helical)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_main_entries (ctx, ctr_cli_params_entries (params), NULL);
  g_option_context_set_description (ctx,
      "Progress and one line per iteration go to standard error. Ctrl-C cancels between views.\n"
      "Under mpirun (a build with MPI) the work is split across the ranks: slice blocks (fan, parallel beam),\n"
      "iFDK view groups x z-slabs (FDK), z-slabs with halo slices (cone SART/SIRT); rank 0 reads and writes.\n"
      "Output is in 1/mm (1/pixel when the dataset's pixel size is unknown), row 0 = +y, column 0 = -x.");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2)
    {
      fprintf (stderr, "ctrecon-cli reconstruct: give exactly one GEOMETRY.json (got %d arguments)\n", argc - 1);
      return 2;
    }
  if (output == NULL)
    {
      fprintf (stderr, "ctrecon-cli reconstruct: --output OUT.tif is required\n");
      return 2;
    }
  if (format != NULL && !g_str_equal (format, "tiff") && !g_str_equal (format, "dicom"))
    {
      fprintf (stderr, "ctrecon-cli reconstruct: unknown --format '%s' (tiff or dicom)\n", format);
      return 2;
    }

  g_autoptr (GError) error = NULL;
  CtrMethod m = CTR_METHOD_FBP;
  if (method && !ctr_method_from_name (method, &m, &error))
    return ctr_cli_fail (error);
  Job job = { 0 };
  ctr_recon_options_init (&job.options, m);
  if ((size_str != NULL && !parse_dims (size_str, "--size", TRUE, dims_n, &n_dims_n))
      || (voxel_str != NULL && !parse_dims (voxel_str, "--voxel-size", FALSE, dims_d, &n_dims_d)))
    return 2;
  size = (int) dims_n[0];
  if (!ctr_cli_params_apply (params, &job.options, "reconstruct"))
    return 2;
  if (allow_negative)
    job.options.nonnegative = FALSE;
  if (backend)
    {
      /* Options hold a static string (ctr-recon-types.h). */
      static const char *const names[] = { "best", "cpu", "cuda", "cusparse" };
      job.options.backend = NULL;
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        if (g_str_equal (backend, names[i]))
          job.options.backend = names[i];
      if (job.options.backend == NULL)
        {
          fprintf (stderr, "ctrecon-cli reconstruct: unknown --backend '%s' (best, cpu, cuda or cusparse)\n", backend);
          return 2;
        }
    }
  if (pixel_size < 0 || !isfinite (pixel_size))
    {
      fprintf (stderr, "ctrecon-cli reconstruct: --pixel-size must be positive\n");
      return 2;
    }
  if (rebin != NULL && !ctr_rebin_mode_from_name (rebin, &job.options.rebin, &error))
    return ctr_cli_fail (error);
  if (z_range != NULL && !parse_z_range (z_range, range))
    return 2;
  if (!ctr_recon_options_validate (&job.options, &error))
    return ctr_cli_fail (error);

#ifdef CTR_HAVE_MPI
  if (ctr_cli_mpi_running () && ctr_mpi_rank () != 0)
    return run_job (&job, output, format, metrics);  /* rank 0 reads and sends */
#endif
  fprintf (stderr, "loading %s…\n", argv[1]);
  if (variant == NULL && ctr_dicom_is_dicom (argv[1]))
    {
      /* DICOM: which series, stated with its report (missing views); a
       * choice or missing geometry is an error saying what to do */
      g_autoptr(CtrDicomResolution) r = ctr_dicom_resolve (argv[1], NULL, NULL, NULL, &error);
      if (r != NULL && r->report != NULL && r->outcome == CTR_DICOM_OUTCOME_DATASET)
        fprintf (stderr, "DICOM: %s\n", r->report);
      job.dataset = r != NULL ? ctr_dicom_resolution_take_dataset (r, &error) : NULL;
    }
  else
    job.dataset = ctr_dataset_load (argv[1], variant, NULL, &error);
  if (job.dataset == NULL)
    return fail_inputs (&job, g_steal_pointer (&error), output, format, metrics);
  if (job.dataset->warnings != NULL)
    for (guint i = 0; job.dataset->warnings[i] != NULL; i++)
      fprintf (stderr, "ctrecon-cli: warning: %s\n", job.dataset->warnings[i]);
  {
    g_autofree char *coverage = ctr_geometry_coverage_note (job.dataset->geometry);
    if (coverage != NULL)
      fprintf (stderr, "ctrecon-cli: warning: %s\n", coverage);
  }
  /* Outputs never replace inputs, nor each other, nor special files: decided
   * before the run (ctr-output-path.h). */
  {
    const gboolean dicom = format != NULL && g_str_equal (format, "dicom");
    const char *others_out[3] = { NULL }, *others_csv[3] = { NULL };
    guint n_out = 0, n_csv = 0;
    if (reference != NULL)
      others_out[n_out++] = others_csv[n_csv++] = reference;
    if (metrics != NULL)
      others_out[n_out++] = metrics;
    others_csv[n_csv++] = output;
    const char *option = "--output";
    gboolean ok = ctr_output_path_check (output, dicom ? CTR_OUTPUT_FOLDER : CTR_OUTPUT_FILE, job.dataset,
                                         others_out, &error);
    if (ok && metrics != NULL)
      {
        option = "--metrics";
        ok = ctr_output_path_check (metrics, CTR_OUTPUT_FILE, job.dataset, others_csv, &error);
      }
    if (!ok)
      {
        g_prefix_error (&error, "%s: ", option);
        return fail_inputs (&job, g_steal_pointer (&error), output, format, metrics);
      }
  }
  const CtrGeometry *g = job.dataset->geometry;
  const gboolean helical = ctr_helix_applies (g);
  if (method == NULL && g->beam == CTR_BEAM_CONE && !helical)  /* FDK is the analytic method for cone beam */
    job.options.method = m = CTR_METHOD_FDK;
  if ((z_range != NULL || rebin != NULL) && !helical)
    {
      error = g_error_new (G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "reconstruct: --z-range and --rebin are for "
                           "helical (and curved multi-row) cone-beam scans; %s is not one", argv[1]);
      return fail_inputs (&job, g_steal_pointer (&error), output, format, metrics);
    }
  if (helical && (n_dims_n == 3 || n_dims_d == 3))
    {
      error = g_error_new_literal (G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "reconstruct: a helical scan's slices "
                                   "come from --z-range; give --size N and --pixel-size MM for the image");
      return fail_inputs (&job, g_steal_pointer (&error), output, format, metrics);
    }
  {
    g_autofree char *desc = ctr_geometry_describe (g);
    fprintf (stderr, "%s: %s\n", job.dataset->name, desc);
  }

  /* Grid: explicit options win; else the reference's grid; else the field of view. */
  const CtrVolume *dref = no_reference ? NULL : job.dataset->reference;
  if (helical)
    {
      /* The reference's slices unless the image differs from it in-plane. */
      const gboolean ref_plane = dref != NULL && n_dims_d == 0 && (size == 0 || (guint) size == dref->grid.nx)
        && (pixel_size == 0 || fabs (pixel_size - dref->grid.dx) <= 1e-6 * dref->grid.dx);
      if (!helical_grid (job.dataset, &job.options, z_range ? range : NULL, (guint) size,
                         pixel_size > 0 ? pixel_size : dims_d[0], ref_plane, &job.grid, &error))
        return fail_inputs (&job, g_steal_pointer (&error), output, format, metrics);
      if (dref != NULL && reference == NULL && !reference_covers (dref, &job.grid))
        {
          fprintf (stderr, "the dataset's reference (z %.2f … %.2f mm) does not hold every slice: no metrics "
                   "against it\n", ctr_grid_z (&dref->grid, 0), ctr_grid_z (&dref->grid, dref->grid.nz - 1));
          dref = NULL;
        }
      const double ta = ctr_geometry_table_mm (g, ctr_grid_z (&job.grid, 0));
      const double tb = ctr_geometry_table_mm (g, ctr_grid_z (&job.grid, job.grid.nz - 1));
      fprintf (stderr, "%u slice%s at table %.3f … %.3f mm, step %.4g mm, %s\n", job.grid.nz,
               job.grid.nz == 1 ? "" : "s", MIN (ta, tb), MAX (ta, tb), job.grid.dz,
               job.options.rebin == CTR_REBIN_NONE ? "no rebinning (helical cone-beam projector)"
                                                   : ctr_rebin_mode_name (job.options.rebin));
    }
  else if (size == 0 && pixel_size == 0 && n_dims_d == 0 && dref != NULL)
    job.grid = ctr_dataset_default_grid (job.dataset);
  else
    job.grid = ctr_grid_default (g, (guint) size, pixel_size > 0 ? pixel_size : dims_d[0]);
  if (n_dims_n == 3)  /* --size NXxNYxNZ */
    {
      job.grid.ny = (guint) dims_n[1];
      job.grid.nz = (guint) dims_n[2];
    }
  if (n_dims_d >= 1)  /* --voxel-size */
    {
      job.grid.dx = dims_d[0];
      job.grid.dy = n_dims_d == 3 ? dims_d[1] : dims_d[0];
      job.grid.dz = n_dims_d == 3 ? dims_d[2] : dims_d[0];
    }
  job.options.metrics_radius_mm = metrics_radius >= 0 ? metrics_radius : ctr_geometry_fov_radius_mm (g);

  if (reference != NULL)
    {
      job.reference = load_reference_tiff (reference, &job.grid, &error);
      if (job.reference == NULL)
        return fail_inputs (&job, g_steal_pointer (&error), output, format, metrics);
    }
  else if (dref != NULL)
    job.reference = ctr_volume_ref ((CtrVolume *) dref);

  fprintf (stderr, "%s on %u × %u pixels of %.4g mm, %u slice%s%s\n", ctr_method_label (m),
           job.grid.nx, job.grid.ny, job.grid.dx, job.grid.nz, job.grid.nz == 1 ? "" : "s",
           job.reference ? ", metrics against the reference" : "");

  return run_job (&job, output, format, metrics);
}
