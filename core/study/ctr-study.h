/* ctr-study.h — a dose study: one dataset, a grid of doses × methods ×
 * parameters, one row of figures per run.
 *
 * For every dose fraction F the data are brought to F × their dose once per
 * noise realisation (ctr_dose_simulate; realisation r with seed S + r, the
 * same seeds for every dose, so `ctrecon-cli simulate-dose --fraction F
 * --seed S+r` reproduces each scan; the scans are kept while the study
 * runs: doses × realisations × the projections' size).  A dose of 1
 * reconstructed as the data are (see ctr_study_run) is one realisation.  Then every
 * method configuration makes one plan (ctr_recon_plan_new: the operator is
 * built or loaded once, and only one plan is alive at a time) and executes
 * it on the scan of every dose, on the dataset's grid, and the run's
 * figures are taken: RMSE, PSNR and SSIM
 * against the dataset's reference inside the field of view (the solvers'
 * own protocol, ctr-progress.h), the RMSE in HU, the mean/SD of every ROI
 * in HU and its CNR against the background ROI, the noise SD of a uniform
 * region (ctr-roi.h), the iterations run, the iteration with the lowest
 * RMSE, and the method's time.  Methods and parameters are given by name
 * and parsed through the parameter table (ctr-params.h), so a method or a
 * parameter added there is usable here unchanged.
 *
 * A study is built in code (the window) or from a STUDY.json
 * (ctr_study_new_from_file; format in README.md), run on a worker thread
 * with a progress callback and a GCancellable, and written as a CSV table
 * (ctr_study_write_csv) and a figure (ctr-study-plot.h).  The library
 * prints nothing.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "sim/ctr-dose.h"
#include "recon/ctr-progress.h"
#include "recon/ctr-recon-types.h"
#include "quality/ctr-roi.h"
#include "quality/ctr-detectability.h"
#include "io/ctr-dataset.h"

G_BEGIN_DECLS

typedef struct _CtrStudy CtrStudy;

/* What an ROI is for. */
typedef enum {
  CTR_STUDY_ROI_MEASURE,     /* mean, SD and CNR reported */
  CTR_STUDY_ROI_BACKGROUND,  /* the reference of every CNR (at most one); mean and SD reported */
  CTR_STUDY_ROI_NOISE        /* a uniform region: its plane-detrended SD (at most one) */
} CtrStudyRoiRole;

/**
 * CtrStudyRow:
 * The figures of one run (all owned by the study).
 * @dose: F, the fraction of the data's dose.
 * @realisation: the noise realisation, 0 … ctr_study_get_realisations − 1
 *   (seed + @realisation); always 0 for a dose of 1 taken as the data are.
 * @i0: photons per bin at this dose (NaN when the data state none).
 * @method_index: which configuration (ctr_study_get_method_label).
 * @method: the method.
 * @label: "fbp window=hann cutoff=0.5": the method and the parameters the
 *   study sets.
 * @parameters: the same parameters alone, "window=hann;cutoff=0.5".
 * @rmse, @psnr, @ssim: against the reference inside the field of view,
 *   1/mm, dB, 1 (NaN without a reference).
 * @hu_rmse: @rmse in HU (1000·rmse/μ_water).
 * @roi_mean_hu, @roi_sd_hu, @roi_cnr: one entry per ROI in the order
 *   added (CNR NaN for the background, the noise ROI, or without a
 *   background; mean/SD NaN for the noise ROI).
 * @noise_sd_hu: detrended SD of the noise ROI (NaN without one).
 * @iterations: iterations run (1 for FBP/FDK).
 * @best_iteration, @best_rmse: the iteration with the lowest RMSE and that
 *   RMSE (0 and NaN without a reference).
 * @seconds: the method's time as it reports it (operator set-up excluded,
 *   ctr-progress.h).
 * @nps_noise_hu, @nps_f_peak, @nps_f_avg: with task-based image quality
 *   (ctr_study_set_iq_nps): the NPS's noise magnitude (HU) and its peak
 *   and average frequencies (cycles/mm), ctr-nps.h; NaN without.
 * @ttf_f50: one entry per insert (ctr_study_add_iq_insert), its TTF's f50
 *   (cycles/mm, ctr-ttf.h; NaN when the edge cannot be measured).
 * @ttf_f50_pooled, @ttf_cnr_pooled: one entry per insert: the f50 of the
 *   TTF pooled over every noise realisation of this method and dose
 *   (ctr_ttf_pooled about a common centre; the same on each of their
 *   rows) and that pooled ESF's CNR (about one realisation's × √N); NaN
 *   until the last realisation of the method and dose has been measured.
 *   With one realisation they equal its own.
 * @dprime_npw, @dprime_npwe: d′ of the task (ctr_study_set_iq_task),
 *   ctr-detectability.h; NaN without a task.
 * @dprime_npw_pooled, @dprime_npwe_pooled: d′ of the task with this run's
 *   NPS and the task insert's TTF pooled over the method and dose's
 *   realisations (@ttf_f50_pooled's TTF); NaN until the last realisation
 *   is measured, and without a task.  The equal-d′ dose uses @dprime_npw
 *   and @dprime_npwe.
 */
typedef struct {
  double dose;
  guint realisation;
  double i0;
  guint method_index;
  CtrMethod method;
  const char *label;
  const char *parameters;
  double rmse, psnr, ssim, hu_rmse;
  const double *roi_mean_hu, *roi_sd_hu, *roi_cnr;
  double noise_sd_hu;
  guint iterations;
  guint best_iteration;
  double best_rmse;
  double seconds;
  double nps_noise_hu, nps_f_peak, nps_f_avg;
  const double *ttf_f50;
  const double *ttf_f50_pooled, *ttf_cnr_pooled;
  double dprime_npw, dprime_npwe;
  double dprime_npw_pooled, dprime_npwe_pooled;
} CtrStudyRow;

/**
 * CtrStudyProgress:
 * @run: 0-based index of the current run, of @n_runs (doses × methods).
 * @fraction: the whole study's progress in [0, 1].
 * @dose, @label: the current run's dose and method label.
 * @realisation: the current run's noise realisation (0-based).
 * @stage: what is being done, in words ("simulating 0.25 × the dose",
 *   "fbp window=hann at 0.25 × the dose").
 * @iteration: (nullable): the current run's latest iteration (borrowed).
 * @row: (nullable): set once, when a run has finished (borrowed).
 * @image: (nullable): with @row, that run's reconstruction (1/mm, the
 *   study's grid; borrowed: valid during the call only).
 * @notes: (nullable) (array zero-terminated=1): set once per method, when
 *   its plan has been made: what the plan decided and why
 *   (ctr_recon_plan_get_notes; borrowed).
 */
typedef struct {
  guint run, n_runs;
  double fraction;
  double dose;
  guint realisation;
  const char *label;
  const char *stage;
  const CtrIterStats *iteration;
  const CtrStudyRow *row;
  const CtrVolume *image;
  const char *const *notes;
} CtrStudyProgress;

/* Called from the thread that runs the study; copy what you keep. */
typedef void (*CtrStudyProgressFunc) (const CtrStudyProgress *progress, gpointer user_data);

/* An empty study: no doses, methods or ROIs; dose options as
 * ctr_dose_options_init, μ_water the dataset's (else CTR_MU_WATER_PER_MM), the dataset's grid
 * and field of view.  Free with ctr_study_free(). */
CtrStudy *ctr_study_new (void);
void ctr_study_free (CtrStudy *s);

/**
 * ctr_study_new_from_file:
 * Reads a STUDY.json (README.md, "Dose studies").  Every key is checked:
 * methods by name (ctr_method_from_name), their parameters by name and
 * range (ctr_param_find_for, ctr_param_applies, ctr_param_parse), ROIs, doses.
 * The dataset's path is resolved against the file's folder
 * (ctr_study_get_dataset).
 * Returns: (transfer full): the study, or NULL with CTR_ERROR_IO (cannot
 *   read), CTR_ERROR_FORMAT (not JSON, a missing or mistyped key, an
 *   unknown key, method or parameter; the message names the key) or
 *   CTR_ERROR_INVALID_ARGUMENT (a value out of range).
 */
CtrStudy *ctr_study_new_from_file (const char *path, GError **error);

/**
 * ctr_study_new_from_json:
 * @text: a STUDY.json's text (@length bytes, or -1 when NUL-terminated).
 * @base_dir: the folder a relative "dataset" is resolved against.
 * As ctr_study_new_from_file, for a study held in memory (Python's dict);
 * messages name it "study".  Same errors, without CTR_ERROR_IO.
 */
CtrStudy *ctr_study_new_from_json (const char *text, gssize length, const char *base_dir, GError **error);

/* The dataset a STUDY.json names (absolute path; NULL for a study built in
 * code) and its variant (nullable). */
const char *ctr_study_get_dataset (const CtrStudy *s, const char **variant);

/* Adds a dose fraction F (> 0; CTR_ERROR_INVALID_ARGUMENT otherwise, or
 * when already present).  Doses run in the order added. */
gboolean ctr_study_add_dose (CtrStudy *s, double fraction, GError **error);

/**
 * ctr_study_add_method:
 * Adds a configuration: @options (validated, CTR_ERROR_INVALID_ARGUMENT)
 * and the parameters it sets, @parameters ("window=hann;cutoff=0.5", may
 * be NULL or ""), which make its label.  FALSE on error.
 */
gboolean ctr_study_add_method (CtrStudy *s, const CtrReconOptions *options,
                               const char *parameters, GError **error);

/* Adds an ROI; CTR_ERROR_INVALID_ARGUMENT for an invalid ROI, an empty or
 * repeated name, or a second background / noise ROI. */
gboolean ctr_study_add_roi (CtrStudy *s, const char *name, const CtrRoi *roi,
                            CtrStudyRoiRole role, GError **error);

/**
 * ctr_study_set_iq_nps:
 * Turns on task-based image quality (AAPM TG-233): every run's NPS over the
 * @size × @size squares (pixels, >= 4) tiled inside @roi (a uniform region,
 * mm) on the middle slice, in HU (ctr_nps_compute, mean detrended).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (invalid ROI, size < 4).
 */
gboolean ctr_study_set_iq_nps (CtrStudy *s, const CtrRoi *roi, guint size, GError **error);

/**
 * ctr_study_add_iq_insert:
 * A circular insert @name (x, y, radius in mm; radius its nominal edge)
 * whose TTF every run measures (ctr_ttf_insert), column ttf_NAME_f50, and
 * whose TTF is pooled over each method and dose's noise realisations
 * (ctr_ttf_pooled), columns ttf_NAME_f50_pooled and ttf_NAME_cnr_pooled.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (a repeated or empty
 *   name, one with commas or quotes, radius not positive, non-finite centre).
 */
gboolean ctr_study_add_iq_insert (CtrStudy *s, const char *name, double x_mm, double y_mm,
                                  double radius_mm, GError **error);

/**
 * ctr_study_set_iq_task:
 * The detection task of d′ (ctr_dprime_measured, contrast in HU) and the
 * insert whose TTF it uses (@insert: a name given to
 * ctr_study_add_iq_insert; NULL: the first).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (no such insert, none
 *   added yet, a task without positive diameter or with zero contrast).
 */
gboolean ctr_study_set_iq_task (CtrStudy *s, const CtrTask *task, const char *insert, GError **error);

/* Whether a d′ task was set (ctr_study_set_iq_task): the rows then hold d′. */
gboolean ctr_study_has_iq_task (const CtrStudy *s);
guint ctr_study_get_n_iq_inserts (const CtrStudy *s);
const char *ctr_study_get_iq_insert_name (const CtrStudy *s, guint i);
/**
 * ctr_study_get_iq_insert_cnr:
 * The lowest and highest contrast-to-noise ratio of insert @i's TTF
 * (CtrTtf.cnr: one slice, HU) over the runs measured so far; below
 * CTR_TTF_MIN_CNR (AAPM TG-233) its f50 and the d′ that uses it vary from
 * run to run.  Safe while the study runs (the study's lock).
 * Returns: FALSE (@lo, @hi unset) before the first measurement.
 */
gboolean ctr_study_get_iq_insert_cnr (const CtrStudy *s, guint i, double *lo, double *hi);

/* Seed, electronic noise, stated I0 and model of the dose simulation
 * (->fraction is ignored: the study's doses are used). */
void ctr_study_set_dose_options (CtrStudy *s, const CtrDoseOptions *options);
/* μ_water (1/mm, > 0) for HU; unset, the run uses the dataset's
 * (CtrDataset.mu_water) or CTR_MU_WATER_PER_MM. */
void ctr_study_set_mu_water (CtrStudy *s, double mu_water);
/* The reconstruction grid; NULL: ctr_dataset_default_grid. */
void ctr_study_set_grid (CtrStudy *s, const CtrGrid *grid);
/* Radius (mm) of the disc the quality metrics count; < 0 (default): the
 * field of view (ctr_geometry_fov_radius_mm); 0: the whole image. */
void ctr_study_set_metrics_radius (CtrStudy *s, double radius_mm);

/**
 * ctr_study_set_realisations:
 * Noise realisations per dose and method configuration (default 1; STUDY.json
 * "realisations"): realisation r simulates its scans with seed + r.  Their
 * spread gives the equal-d′ dose its uncertainty (study/ctr-equal-dose.h).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT unless 1 <= @n <= 1000.
 */
gboolean ctr_study_set_realisations (CtrStudy *s, guint n, GError **error);
guint ctr_study_get_realisations (const CtrStudy *s);

/* The reference configuration of the equal-d′ dose (STUDY.json
 * "reference"): a method label (ctr_study_get_method_label) or a method
 * name that one configuration has; NULL (default): the first. */
void ctr_study_set_reference (CtrStudy *s, const char *reference);

/* The reference configuration's index into @index (0 when none was set).
 * FALSE with CTR_ERROR_INVALID_ARGUMENT (listing the labels) when the
 * reference names no configuration, or a method name several have. */
gboolean ctr_study_get_reference (const CtrStudy *s, guint *index, GError **error);

/* Runs of the last ctr_study_run: methods × the scans it made (0 before). */
guint ctr_study_get_n_runs (const CtrStudy *s);

guint ctr_study_get_n_doses (const CtrStudy *s);
double ctr_study_get_dose (const CtrStudy *s, guint i);
guint ctr_study_get_n_methods (const CtrStudy *s);
const char *ctr_study_get_method_label (const CtrStudy *s, guint i);
guint ctr_study_get_n_rois (const CtrStudy *s);
const char *ctr_study_get_roi_name (const CtrStudy *s, guint i, CtrStudyRoiRole *role);
double ctr_study_get_mu_water (const CtrStudy *s);
/* The dataset name of the last run ("" before). */
const char *ctr_study_get_title (const CtrStudy *s);

/**
 * ctr_study_run:
 * @d: the dataset (not modified).
 * Runs every method × dose × realisation (earlier rows are dropped first)
 * and keeps the rows, in run order: every dose of the first configuration
 * (each dose's realisations in turn), then of the next.  Progress goes to @progress after every iteration and run.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (no dose or no method, a
 *   study rebuilt from its rows (ctr_study_new_from_rows), an
 *   ROI outside the image), the errors of ctr_dose_simulate (no counts or I0
 *   for a dose other than 1) and of, or G_IO_ERROR_CANCELLED; the rows finished
 *   before the failure are kept.
 * A dose of exactly 1 on data without counts or I0, or without electronic
 * noise to add and with a dose model other than CTR_DOSE_MODEL_RESAMPLE,
 * reconstructs the data as they are (every other dose needs I0), as one
 * realisation: thinning by 1 keeps every count, so further realisations
 * would be the same scan.  With RESAMPLE (noiseless data at a stated I0)
 * dose 1 is re-simulated, one scan per realisation.
 */
gboolean ctr_study_run (CtrStudy *s, const CtrDataset *d, CtrStudyProgressFunc progress,
                        gpointer user_data, GCancellable *cancellable, GError **error);

/* The rows so far, in run order (method-major).  Not while the study runs on
 * another thread (the array grows): take the rows from the progress
 * callback then.  ctr_study_plot_draw and ctr_study_write_csv may be called
 * while it runs (they lock the rows). */
const CtrStudyRow *ctr_study_get_rows (const CtrStudy *s, guint *n_rows);

/**
 * ctr_study_write_csv:
 * The rows as CSV (RFC 4180; a header line; numbers with 8 significant
 * digits; empty fields for NaN): dose, realisation, i0, method, label, parameters, rmse,
 * psnr, ssim, hu_rmse, then per ROI NAME roi_NAME_mean_hu, roi_NAME_sd_hu,
 * roi_NAME_cnr (measure ROIs), the background's mean and SD, noise_sd_hu,
 * iterations, best_iteration, best_rmse, seconds, and with task-based image
 * quality nps_noise_hu, nps_f_peak, nps_f_avg, per insert ttf_NAME_f50,
 * then dprime_npw, dprime_npwe, then per insert ttf_NAME_f50_pooled and
 * ttf_NAME_cnr_pooled (over the realisations), dprime_npw_pooled and
 * dprime_npwe_pooled.  Written to a temporary
 * file and renamed over @path.  CTR_ERROR_IO.
 */
gboolean ctr_study_write_csv (const CtrStudy *s, const char *path, GError **error);

/* The same with a last line "# @note" (nullable: none) saying the rows are
 * incomplete ("incomplete: 3 of 8 runs (cancelled)"); written atomically
 * through ctr_output_write_file (io/ctr-output-set.h). */
gboolean ctr_study_write_csv_note (const CtrStudy *s, const char *path, const char *note, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrStudy, ctr_study_free)

G_END_DECLS
