/* ctr-dataset.h — a dataset described by a geometry.json (FORMAT.md).
 *
 * ctr_dataset_load() reads the JSON (json-glib), builds the CtrGeometry, loads
 * the projections of the chosen layout (sinogram, view_pages,
 * one_file_per_view, "dicom": a folder read by ctr-dicom.h, or "nexus": an
 * NXtomo file read by ctr-nexus.h, its median flat and dark used unless the
 * JSON names a "flat" or "dark"),
 * converts counts to line integrals (flat/dark or I0, dead-pixel mask) and loads
 * the reference image when the file names one.  Unknown keys are ignored.
 * Beside line integrals an "I0" key (in the projection spec or at the top)
 * states the photons per bin of the scan behind them; it ends up in
 * projections->i0 for the noise model (ctr-noise.h) and dose simulation
 * (ctr-dose.h), as DICOM-CT-PD's PhotonStatistics does.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "preprocess/ctr-preprocess.h"

G_BEGIN_DECLS

/* The axis a part of the projections is cut along. */
typedef enum {
  CTR_DATASET_ROWS,   /* detector rows: every view, rows first .. first + count − 1 */
  CTR_DATASET_VIEWS   /* views first .. first + count − 1, every row */
} CtrDatasetAxis;

/* A part of a dataset's projections (ctr_dataset_load_part): @count rows or
 * views from @first; @count 0: none (the geometry, reference and checks of
 * the JSON only). */
typedef struct {
  CtrDatasetAxis axis;
  guint first, count;
} CtrDatasetPart;

typedef struct {
  char *name;                  /* "name" key, or the file's basename */
  char *path;                  /* absolute path of the JSON file */
  CtrGeometry *geometry;       /* owned */
  CtrProjections *projections; /* owned; line integrals after loading */
  CtrVolume *reference;        /* owned, NULL when the file names none */
  char **variants;             /* NULL-terminated names of "variants", may be NULL */
  char *variant;               /* the variant that was loaded, NULL = "projections" */
  /* μ_water (1/mm) the data state for HU: the key "mu_water_per_mm", or
   * DICOM-CT-PD's HUCalibrationFactor (0018,0061); 0 when they state none
   * (callers then use CTR_MU_WATER_PER_MM, ctr-hu.h). */
  double mu_water;
  char **inputs;               /* NULL-terminated absolute paths of every file read: the
                                * JSON, projections, flat, dark, reference; the DICOM
                                * files (ctr_output_path_check keeps outputs off them) */
  char **warnings;             /* NULL-terminated: what the loader noticed and the user
                                * must see (DICOM views missing, ...); may be NULL */
  /* A TIFF opened without its geometry.json (ctr_dataset_load_bare_tiff) or
   * a geometry.json with a wrong geometry (ctr_dataset_load_draft):
   * @geometry is a draft the user completes; for the TIFF @projection_spec
   * holds the "kind" and "projections" keys (JSON text) that read the file
   * again, for the geometry.json the user saves (NULL otherwise). */
  gboolean geometry_missing;
  char *projection_spec;
  /* ctr_dataset_load_part: @projections hold @part only (@geometry is the
   * whole scan's; NULL projections for a part of count 0); @split when only
   * the part's strips were read, else the whole was read and cut (@read_note
   * says why); @bytes_read: the stored bytes of projection pixels decoded;
   * @claims_pending: the claims check (ctr_dataset_check_claims) needs every
   * part and was not run (ctr_dataset_claims_sample, ctr_dataset_claims_judge);
   * @masked_fraction: of the whole detector (counts with a flat), for it. */
  gboolean partial, split, claims_pending;
  CtrDatasetPart part;
  guint64 bytes_read;
  char *read_note;
  double masked_fraction;
} CtrDataset;

/**
 * ctr_dataset_load:
 * @path: a geometry.json file, a folder holding one (the dataset's folder),
 *   a DICOM file or folder of DICOM files (detected by the DICM preamble;
 *   read by ctr_dicom_load_dataset()), or a NeXus, Nikon or SkyScan scan
 *   file (ctr_dataset_load_foreign()).
 * @variant: (nullable): the name of an entry of "variants" to load instead of
 *   "projections" (e.g. "noiseless"); NULL for the default.
 * @cancellable: (nullable): checked between files.
 *
 * Returns: (transfer full): the dataset, or NULL with
 *   CTR_ERROR_IO (missing or unreadable file, with its path),
 *   CTR_ERROR_FORMAT (invalid JSON, missing or mistyped key, TIFF shape that
 *     disagrees with views/rows/cols),
 *   CTR_ERROR_INVALID_GEOMETRY (zero views, negative distances, angle count
 *     that differs from "views", ...),
 *   CTR_ERROR_INVALID_DATA (NaN or Inf in the projections),
 *   CTR_ERROR_OUT_OF_MEMORY (the sizes the file states need more memory
 *     than the machine has: refused before anything is allocated, with both
 *     figures in the message; ctr-memory.h),
 *   CTR_ERROR_UNSUPPORTED (valid input this version cannot read: helical
 *     DICOM-CT-PD, ...),
 *   G_IO_ERROR_CANCELLED.
 * The reference becomes a CtrVolume on its own grid (pixel_size_mm,
 * center_mm; 1/pixel when "pixel_size_known" is false).
 */
CtrDataset *ctr_dataset_load (const char *path, const char *variant,
                              GCancellable *cancellable, GError **error);

/**
 * ctr_dataset_load_foreign:
 * @path: a scan file of a format other than geometry.json: a NeXus NXtomo
 *   file (HDF5 signature, or .nxs/.nx5/.h5/.hdf5/.hdf; ctr-nexus.h), a Nikon
 *   .xtekct or a Bruker SkyScan .log (ctr-vendor.h).
 * @handled: (out): FALSE when @path is none of them (then NULL, no error).
 * Returns: (transfer full): the dataset, or NULL with the format reader's
 *   errors (CTR_ERROR_UNSUPPORTED for NeXus in a build without libhdf5).
 * ctr_dataset_load() calls it first; docs/readers.md maps each format's
 * keys onto FORMAT.md's geometry.
 */
CtrDataset *ctr_dataset_load_foreign (const char *path, gboolean *handled, GCancellable *cancellable,
                                      GError **error);

/**
 * ctr_dataset_load_preprocessed:
 * As ctr_dataset_load(), with @replace: (nullable) run on the line integrals
 * instead of the file's own "preprocess" pipeline (which is still checked);
 * NULL runs the file's (ctr-preprocess.h).  A DICOM input has no pipeline
 * of its own: @replace is run on it.  Each step's effect becomes a sentence
 * of ->warnings ("outliers: 412 pixels replaced (0.10 %; …)").
 * Returns: as ctr_dataset_load(); CTR_ERROR_FORMAT also for a "preprocess"
 *   key that ctr_pipeline_from_json() refuses (an unknown op or parameter,
 *   named), and a step's error (ctr_pipeline_apply()).
 */
CtrDataset *ctr_dataset_load_preprocessed (const char *path, const char *variant, const CtrPipeline *replace,
                                           GCancellable *cancellable, GError **error);

/**
 * ctr_dataset_load_part:
 * As ctr_dataset_load_preprocessed(), keeping only @part (nullable: all) of
 * the projections: its rows of every view or its views of every row
 * (->projections part->count rows or views; ->geometry the whole scan; the
 * mask, flat and dark the part's rows).  For a TIFF layout ("sinogram",
 * "view_pages", "one_file_per_view") with nothing that needs other rows or
 * views (no "preprocess" pipeline or @replace with steps, no
 * "detector_tilt_rad" for a part of rows) only the part is read: the pages
 * and the strips that hold its lines (->split; ->read_note "read rows 32-63
 * of 64: N bytes of pixel data"); the checks then give what the whole read
 * gives (shapes, sample types, finite values, the open beam of the whole
 * detector), except the claims check, left to ctr_dataset_claims_judge over
 * every part's sample (->claims_pending).  Otherwise (DICOM, NeXus, vendor
 * files, a pipeline, a tilt) the whole is read, corrected and checked, then
 * cut (->read_note says why).  The dataset's warnings are then the whole
 * read's, or (split) those of the JSON and the part.
 * Returns: as ctr_dataset_load_preprocessed(); CTR_ERROR_INVALID_ARGUMENT
 *   when @part lies outside the scan's rows or views.
 */
CtrDataset *ctr_dataset_load_part (const char *path, const char *variant, const CtrPipeline *replace,
                                   const CtrDatasetPart *part, GCancellable *cancellable, GError **error);

/**
 * ctr_dataset_claims_sample:
 * The line integrals the claims check (ctr_dataset_check_claims) samples
 * that lie in @d's projections (a part or all) and in rows or views (along
 * d->part.axis; whole datasets: views) @own_first .. @own_first +
 * @own_count − 1: the samples of the whole scan at the same indices, so
 * that the samples of parts that cover the scan once together are the
 * whole read's.  *@n: how many.
 * Returns: (transfer full) (nullable): the values (NULL when none or out of
 *   memory: no sample, no warning).
 */
float *ctr_dataset_claims_sample (const CtrDataset *d, guint own_first, guint own_count, gsize *n);

/* The claims check of @d on @sample (@n values, sorted here: every part's
 * ctr_dataset_claims_sample together) and d->masked_fraction: warnings
 * added to @d as ctr_dataset_check_claims adds them. */
void ctr_dataset_claims_judge (CtrDataset *d, float *sample, gsize n);

/* Runs @pl on d->projections (line integrals), each step's effect added to
 * d->warnings.  Errors: ctr_pipeline_apply()'s. */
gboolean ctr_dataset_apply_pipeline (CtrDataset *d, const CtrPipeline *pl, GError **error);

/**
 * ctr_dataset_load_bare_tiff:
 * A TIFF opened without a geometry.json: one page is a sinogram (a line per
 * view, a sample per detector column, one detector row), several pages one
 * page per view (a line per detector row).  Float samples are line
 * integrals; integer samples are counts, turned into line integrals with the
 * brightest sample as the open beam I0 (said in ->warnings).  The geometry
 * is a draft for the user to complete (->geometry_missing): fan beam, flat
 * detector, views evenly over 360°, and SOD, SDD and column pitch 0, which
 * ctr_geometry_validate() refuses, so nothing reconstructs before they are
 * given.  No reference.
 * Returns: (transfer full): the dataset, or NULL with ctr_tiff_read()'s
 *   errors, CTR_ERROR_FORMAT (too small to be projections),
 *   CTR_ERROR_INVALID_DATA (NaN or Inf), CTR_ERROR_OUT_OF_MEMORY,
 *   G_IO_ERROR_CANCELLED.
 */
CtrDataset *ctr_dataset_load_bare_tiff (const char *path, GCancellable *cancellable, GError **error);

/**
 * ctr_dataset_geometry_problems:
 * Every problem of the geometry keys of the geometry.json at @path, one
 * sentence each ("the column pitch (“detector_pitch_u_mm”) must be
 * positive, got -0.4"), where ctr_dataset_load() stops at the first.
 * Returns: (transfer full) (nullable): NULL-terminated sentences; NULL when
 *   the geometry has none, @path is not a JSON object, or the geometry is
 *   given as per-view "vectors" (the loader's message names the problem).
 */
char **ctr_dataset_geometry_problems (const char *path);

/**
 * ctr_dataset_load_draft:
 * The dataset of a geometry.json whose geometry is wrong, with the file's
 * geometry kept as it is (->geometry_missing: a draft for the user to fix;
 * it fails ctr_geometry_validate()) and everything else loaded as
 * ctr_dataset_load() does.  The views, columns and rows must be usable.
 * Returns: (transfer full): the dataset, or NULL with ctr_dataset_load()'s
 *   errors, CTR_ERROR_INVALID_GEOMETRY when the data's shape is unknown, or
 *   CTR_ERROR_OUT_OF_MEMORY when the draft's angles cannot be allocated.
 */
CtrDataset *ctr_dataset_load_draft (const char *path, GCancellable *cancellable, GError **error);

/* Parses only the geometry part of a geometry.json held in memory.
 * Errors as ctr_dataset_load. */
CtrGeometry *ctr_dataset_parse_geometry (const char *json_text, gssize length,
                                         GError **error);

/**
 * ctr_dataset_read_geometry:
 * @path: a geometry.json (its projections are neither read nor checked).
 * Reads only the geometry part of the file, with the loader's checks and
 * messages (naming @path).
 * Returns: (transfer full): the geometry (ctr_geometry_free), or NULL with
 *   CTR_ERROR_IO (unreadable, not a regular file), CTR_ERROR_FORMAT (not
 *   JSON, a missing or mistyped key), CTR_ERROR_INVALID_GEOMETRY
 *   (ctr_geometry_validate's message) or CTR_ERROR_OUT_OF_MEMORY.
 */
CtrGeometry *ctr_dataset_read_geometry (const char *path, GError **error);

/**
 * ctr_dataset_default_grid:
 * The grid a reconstruction of @d gets when the user names none: the
 * reference's grid when the dataset has one (fan and parallel beam: its x/y
 * grid with one slice per detector row, ctr_geometry_slice_row order; cone
 * beam: the reference's 3-D grid), else ctr_grid_default (geometry, 0, 0):
 * ctr_grid_for_scan with no request, the rule every entry point shares
 * (data/ctr-grid.h).
 */
CtrGrid ctr_dataset_default_grid (const CtrDataset *d);
/**
 * ctr_dataset_named_files:
 * The files a geometry.json at @path names, without reading them: the
 * file itself (absolute), then the projections' "file" or "folder", the
 * existing files of a one-file-per-view "pattern", "flat", "dark" and the
 * reference's "file", of every variant (relative names resolved against the
 * JSON's folder).  What a command that writes keeps off limits when it is
 * given the geometry only (ctr-output-path.h); ctr_dataset_load() records
 * the same files in ->inputs.  A file that is not JSON yields itself only.
 * Returns: (transfer full): NULL-terminated paths, or NULL with
 *   CTR_ERROR_IO when @path cannot be read.
 */
char **ctr_dataset_named_files (const char *path, GError **error);

/**
 * ctr_dataset_check_claims:
 * The one check of a loaded dataset against what its files claim, run by
 * every loader (ctr_dataset_load, the DICOM reader, the bare TIFF): what may
 * still be a scan but probably is not becomes a sentence of d->warnings with
 * the figure that gave it away: more than 1 % of the detector pixels masked
 * (flat − dark ≤ 0); line integrals whose 1st percentile lies below −0.5
 * (more than 1.65× the open beam: negated, or a flat field too low); whose
 * 99th percentile exceeds both 20 (a transmission of e^-20, not measurable)
 * and 3 μ_water × the field of view's diameter (counts stated as line
 * integrals, a scale).  (What cannot be a scan is refused by the loaders.)
 */
void ctr_dataset_check_claims (CtrDataset *d);

/* Adds @path (made absolute) to d->inputs. */
void ctr_dataset_add_input (CtrDataset *d, const char *path);
/* Adds a warning (printf-style) to d->warnings. */
void ctr_dataset_add_warning (CtrDataset *d, const char *format, ...) G_GNUC_PRINTF (2, 3);

void ctr_dataset_free (CtrDataset *d);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrDataset, ctr_dataset_free)

G_END_DECLS
