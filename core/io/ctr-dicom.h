/* ctr-dicom.h — DICOM input (DICOM-CT-PD projections, X-ray angiography
 * multi-frame) and output (CT Image Storage series).
 *
 * DCMTK sits behind a private C shim (ctr-dicom-shim.h); this header is plain
 * C and GLib.  Reading turns every supported object into the project's own
 * CtrGeometry + CtrProjections in the conventions of shared/data/FORMAT.md
 * (each reader's docstring states its mapping).
 *
 * Typical use (CLI and window):
 *   - ctr_dicom_resolve() turns a file, a folder or a list of dropped files
 *     into one of three outcomes: the loaded dataset, the projection series
 *     to choose from, or X-ray angiography frames whose geometry the file
 *     lacks (ask the user, ctr_dicom_xa_complete(), then
 *     ctr_dicom_resolution_take_dataset()).  The window asks; the CLI
 *     reports the choice as an error.
 *   - ctr_dataset_load() accepts a DICOM file or folder directly (it calls
 *     ctr_dicom_load_dataset(): resolve, and any question is an error).
 *   - ctr_dicom_scan() lists what a folder holds (series, view counts,
 *     missing/duplicate views).
 *   - ctr_dicom_export_series() writes a reconstruction as CT images.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "io/ctr-dataset.h"

G_BEGIN_DECLS

typedef enum {
  CTR_DICOM_KIND_CTPD,   /* DICOM-CT-PD projections: one file per view */
  CTR_DICOM_KIND_XA,     /* X-ray angiography (XA, Enhanced XA) multi-frame: one frame per view */
  CTR_DICOM_KIND_IMAGE,  /* any other image (e.g. CT slices): not projection data */
  CTR_DICOM_KIND_OTHER   /* no pixel data (structured reports, ...) */
} CtrDicomKind;

/**
 * CtrDicomSeries:
 * One series of a folder scan: the files that share a Series Instance UID.
 * @files: (array zero-terminated=1): absolute paths, sorted by view
 *   (DICOM-CT-PD: InstanceNumber, then focal-spot angle; others: InstanceNumber).
 * @n_views: views the series holds (files for DICOM-CT-PD, frames for XA).
 * @n_missing: views missing from the InstanceNumber sequence (DICOM-CT-PD),
 *   saturated at G_MAXUINT.
 * @n_duplicates: files whose InstanceNumber another file of the series has.
 * @report: one human-readable line: kind, views, missing and duplicate
 *   instance numbers (at most 10 listed).
 */
typedef struct {
  char *series_uid;
  char *description;     /* SeriesDescription, or the first file's name */
  char *modality;        /* (0008,0060), may be NULL */
  CtrDicomKind kind;
  char **files;
  guint n_files;
  guint n_views;
  guint n_missing;
  guint n_duplicates;
  char *report;
} CtrDicomSeries;

void ctr_dicom_series_free (CtrDicomSeries *s);

/* Bounds on what a file may claim: views missing from a series (gaps in
 * InstanceNumber) beyond which the numbers cannot be the views of one scan;
 * frames of one object: CTR_DICOM_MAX_FRAMES (ctr-dicom-shim.h). */
#define CTR_DICOM_MAX_MISSING 100000u

/* TRUE when @path is a DICOM Part 10 file ("DICM" after the 128-byte
 * preamble) or a folder holding at least one. */
gboolean ctr_dicom_is_dicom (const char *path);

/**
 * ctr_dicom_scan:
 * @path: a DICOM file (its folder is not scanned) or a folder (not recursive;
 *   files without the DICM preamble and hidden files are skipped).
 * Groups the files by Series Instance UID.
 * Returns: (transfer full) (element-type CtrDicomSeries): the series, sorted
 *   by UID; NULL with CTR_ERROR_IO (unreadable folder), CTR_ERROR_FORMAT (no
 *   DICOM file there, a file that does not parse, an InstanceNumber that is
 *   not an integer of the IS range -2³¹ … 2³¹ - 1; the message names the
 *   file), G_IO_ERROR_CANCELLED.
 */
GPtrArray *ctr_dicom_scan (const char *path, GCancellable *cancellable, GError **error);

/* As ctr_dicom_scan for an explicit list of files (drag and drop). */
GPtrArray *ctr_dicom_scan_files (const char *const *paths, GCancellable *cancellable, GError **error);

typedef enum {
  CTR_DICOM_MISSING_NONE = 0,
  CTR_DICOM_MISSING_SOD = 1 << 0,           /* source to isocentre */
  CTR_DICOM_MISSING_SDD = 1 << 1,           /* source to detector */
  CTR_DICOM_MISSING_PIXEL_SPACING = 1 << 2, /* detector pitch */
  CTR_DICOM_MISSING_ANGLES = 1 << 3         /* per-view angles */
} CtrDicomMissing;

/**
 * CtrDicomProjections:
 * Projection data read from DICOM.  @geometry is complete and validated when
 * @missing is 0; otherwise the fields named by @missing hold placeholders
 * (0) and must be supplied (ctr_dicom_xa_complete).  @description names the
 * source ("DICOM-CT-PD, 720 views, ...").
 */
typedef struct {
  CtrGeometry *geometry;
  CtrProjections *projections;
  CtrDicomMissing missing;
  char *description;
  double mu_water;   /* DICOM-CT-PD HUCalibrationFactor (0018,0061), 1/mm; 0 when absent */
  char *note;        /* nullable: what the reader assumed where the files are silent (a
                      * DetectorShape taken as cylindrical); becomes a dataset warning */
} CtrDicomProjections;

void ctr_dicom_projections_free (CtrDicomProjections *p);

typedef enum {
  CTR_DICOM_CTPD_DEFAULT = 0,
  /* A multi-row (cone-beam) axial scan: keep only the central detector row
   * and return a 2-D fan-beam geometry. */
  CTR_DICOM_CTPD_CENTRAL_ROW = 1 << 0
} CtrDicomCtpdFlags;

/**
 * ctr_dicom_ctpd_load:
 * Reads a DICOM-CT-PD series (Mayo Clinic / TCIA LDCT-and-Projection-data
 * format, dictionary v8; one file per view) into line integrals.
 *
 * Mapping onto FORMAT.md (see ctr-dicom-ctpd.c for the derivation):
 *   beta = phi - pi, unwrapped to a continuous sequence starting
 *   in [0, 2 pi) (phi = DetectorFocalCenterAngularPosition (7031,1001);
 *   DICOM-CT-PD's left-handed frame has the source at (-rho sin phi,
 *   rho cos phi));  FORMAT column j = cols - k (k = 1-based DICOM-CT-PD
 *   channel = DICOM image row + 1);  offset_u = (c - (cols + 1)/2) · pitch
 *   with c = DetectorCentralElement[0];  SOD = (7031,1003), SDD = (7031,1031);
 *   CYLINDRICAL (also when DetectorShape is absent) → curved with pitch_u =
 *   transverse spacing / SDD (rad); FLAT → flat, pitch_u in mm.
 *   One detector row → fan beam; several → cone beam (rows_increase_with_v
 *   FALSE: DICOM-CT-PD's z axis is FORMAT's -z), or the central row as fan
 *   beam with CTR_DICOM_CTPD_CENTRAL_ROW.  LogFlag YES or absent → line
 *   integrals as stored; NO → counts with I0 from
 *   PhotonStatistics (7033,1065); when present, PhotonStatistics' mean also
 *   fills projections->i0, and values that differ per channel (or per
 *   channel and row, in the image's [channel][row] order) fill
 *   projections->flat ([row][col], FORMAT order).
 *   A focal centre that moves along z (TypeofProjectionData HELICAL, or any
 *   motion of DetectorFocalCenterAxialPosition (7031,1002)): cone beam with
 *   source_z_mm[k] = −z_pd and table_reversed (the series' own table
 *   coordinate is z_pd); SourceAngular/Axial/RadialDistanceShift
 *   (7033,100B/100C/100D) fill focal_shift (angle as is, z negated).
 *
 * Errors: CTR_ERROR_FORMAT (a file does not parse, a required tag is missing
 *   or views disagree in size, detector, distance or TypeofProjectionData —
 *   a mixed series; PhotonStatistics of another length; the message names the
 *   file and the tag), CTR_ERROR_UNSUPPORTED (the central row of a helix; a
 *   FlyingFocalSpotMode without per-view shifts; shifts on a single-row axial
 *   scan; varying source distance), CTR_ERROR_INVALID_DATA (duplicate views),
 *   CTR_ERROR_INVALID_GEOMETRY (an inconsistent feed: TableFeedPerRotation
 *   (0018,9310) or SpiralPitchFactor (0018,9311) against the motion, a view
 *   off the steady helix, a focal centre that moves back; HELICAL without
 *   motion), G_IO_ERROR_CANCELLED.
 */
CtrDicomProjections *ctr_dicom_ctpd_load (const CtrDicomSeries *series, CtrDicomCtpdFlags flags,
                                          GCancellable *cancellable, GError **error);

/**
 * ctr_dicom_xa_load:
 * Reads an X-ray angiography multi-frame file (XA Image Storage or Enhanced
 * XA; one frame per view of a rotational run).  Frames are taken as line
 * integrals when PixelIntensityRelationship (0028,1040) is LOG, else as
 * counts with I0 = the largest pixel value of the run (stated in
 * ->description) and converted to line integrals -ln(I / I0).
 *
 * Geometry (cone beam, flat detector): beta_k = primary angle of frame k
 * (PositionerPrimaryAngle (0018,1510) + PositionerPrimaryAngleIncrement
 * (0018,1520)[k], the increments taken relative to the first frame's angle;
 * Enhanced XA: per-frame (0018,1510)), in radians; FORMAT's frame is x =
 * patient right, y = anterior, z = head, so LAO (positive primary angle) turns
 * the source counter-clockwise seen from the head as FORMAT's beta does.  A
 * constant secondary (cranial/caudal) angle only tilts the orbit and is
 * ignored; a varying one gives CTR_ERROR_UNSUPPORTED.  SOD =
 * DistanceSourceToPatient (0018,1111) (Enhanced XA: DistanceSourceToIsocenter
 * (0018,9402)), SDD = DistanceSourceToDetector
 * (0018,1110), pitch = ImagerPixelSpacing (0018,1164) (row spacing = pitch_v,
 * column spacing = pitch_u).  Image columns run against u and rows against v
 * (the conventional display: patient's right on the viewer's left, head up)
 * unless PatientOrientation (0020,0020) says otherwise ("R" first: columns
 * along u; "H" second: rows along v).  Enhanced XA attributes are looked up
 * in the frame's Per-frame Functional Groups, then the Shared ones, then the
 * top level of the data set.
 *
 * Missing SOD, SDD, pixel spacing or angles are not an error: they are
 * flagged in ->missing (ask the user, then ctr_dicom_xa_complete).
 * Errors: CTR_ERROR_IO, CTR_ERROR_FORMAT (not XA, malformed), CTR_ERROR_UNSUPPORTED.
 */
CtrDicomProjections *ctr_dicom_xa_load (const char *path, GError **error);

/**
 * ctr_dicom_xa_complete:
 * Fills the geometry fields ->missing names (arguments for fields that are
 * not missing are ignored; pass 0 for them): SOD and SDD in mm, detector
 * pixel pitches in mm, and for missing angles a uniform sweep
 * start_rad + k·step_rad.  Validates the geometry; clears ->missing.
 * CTR_ERROR_INVALID_GEOMETRY.
 */
gboolean ctr_dicom_xa_complete (CtrDicomProjections *p, double sod_mm, double sdd_mm,
                                double pitch_u_mm, double pitch_v_mm, double start_rad,
                                double step_rad, GError **error);

/**
 * CtrDicomOutcome:
 * @CTR_DICOM_OUTCOME_DATASET: ->dataset holds the loaded series.
 * @CTR_DICOM_OUTCOME_CHOOSE_SERIES: ->series lists several projection series
 *   (DICOM-CT-PD or XA); resolve again with the chosen one's UID.
 * @CTR_DICOM_OUTCOME_GEOMETRY_MISSING: ->frames holds X-ray angiography
 *   frames whose file lacks what ->frames->missing names; complete them
 *   (ctr_dicom_xa_complete), then ctr_dicom_resolution_take_dataset().
 */
typedef enum {
  CTR_DICOM_OUTCOME_DATASET,
  CTR_DICOM_OUTCOME_CHOOSE_SERIES,
  CTR_DICOM_OUTCOME_GEOMETRY_MISSING
} CtrDicomOutcome;

/**
 * CtrDicomResolution:
 * What a DICOM file, folder or set of files holds, resolved as far as the
 * files allow (ctr_dicom_resolve).  Owns everything it points to.
 * @dataset: (nullable): the dataset (DATASET).
 * @series: (nullable) (element-type CtrDicomSeries): the projection series
 *   to choose from, sorted by UID (CHOOSE_SERIES).
 * @frames: (nullable): the XA frames, ->missing != 0 (GEOMETRY_MISSING).
 * @report: (nullable): the chosen series' report (CtrDicomSeries.report;
 *   for XA with the file's geometry, a second line says how counts became
 *   line integrals); missing views are stated here, not logged.
 * @path: absolute: the folder the series lies in, or the XA file.
 * @name: (nullable): the chosen series' description: the dataset's name.
 */
typedef struct {
  CtrDicomOutcome outcome;
  CtrDataset *dataset;
  GPtrArray *series;
  CtrDicomProjections *frames;
  char *report;
  char *path;
  char *name;
} CtrDicomResolution;

void ctr_dicom_resolution_free (CtrDicomResolution *r);

/**
 * ctr_dicom_resolve:
 * @path: (nullable): a DICOM file or folder; NULL when @files is given.  A
 *   single file of a DICOM-CT-PD series stands for its whole series in that
 *   folder (the folder is scanned, that series chosen).
 * @files: (nullable) (array zero-terminated=1): files dropped together,
 *   grouped by series as a folder's would be (the first one's folder is
 *   ->path).
 * @series_uid: (nullable): the series to load (a CHOOSE_SERIES answer);
 *   NULL picks the only projection series, or asks.
 * Scans, chooses and loads (may take seconds: call it from a worker thread).
 * Returns: (transfer full): the outcome; NULL with the errors of
 *   ctr_dicom_scan / ctr_dicom_ctpd_load / ctr_dicom_xa_load, or
 *   CTR_ERROR_FORMAT (no projection series, the message lists what is
 *   there; no series @series_uid; the series is not projection data),
 *   CTR_ERROR_INVALID_DATA (duplicate views: the series' report),
 *   CTR_ERROR_UNSUPPORTED (an XA series of several files),
 *   G_IO_ERROR_CANCELLED.
 */
CtrDicomResolution *ctr_dicom_resolve (const char *path, const char *const *files,
                                       const char *series_uid, GCancellable *cancellable,
                                       GError **error);

/**
 * ctr_dicom_resolution_take_dataset:
 * The dataset of @r, taken from it: ->dataset for DATASET; for
 * GEOMETRY_MISSING once ->frames is complete (->missing == 0), the frames
 * as a dataset named ->name at ->path.  Otherwise NULL with
 * CTR_ERROR_FORMAT (CHOOSE_SERIES: the message lists the series with their
 * UIDs) or CTR_ERROR_INVALID_GEOMETRY (the geometry is still incomplete: the
 * message names the missing attributes).  Transfer full.
 */
CtrDataset *ctr_dicom_resolution_take_dataset (CtrDicomResolution *r, GError **error);

/**
 * ctr_dicom_load_dataset:
 * @path: a DICOM file or a folder of DICOM files.  A single file of a
 *   DICOM-CT-PD series stands for its whole series in that folder.
 * @series_uid: (nullable): the series to load when the folder holds several;
 *   NULL loads the only projection series there.
 * ctr_dicom_resolve() where every question is an error.
 * Returns a CtrDataset like a geometry.json gives (no reference, no variants;
 *   name = SeriesDescription or the folder's name; path = the series' folder
 *   (absolute), or the XA file; inputs = the series' files; a warning naming
 *   the missing views when InstanceNumbers have gaps).
 * Errors: those of ctr_dicom_resolve; CTR_ERROR_FORMAT when the folder holds
 *   several projection series and @series_uid is NULL (the message lists
 *   them) or none, or an InstanceNumber is not an integer of the IS range;
 *   CTR_ERROR_INVALID_DATA when more than CTR_DICOM_MAX_MISSING views are
 *   missing;
 *   CTR_ERROR_INVALID_GEOMETRY when an XA file lacks geometry tags (the
 *   message names them; use ctr_dicom_resolve, ctr_dicom_xa_complete).
 */
CtrDataset *ctr_dicom_load_dataset (const char *path, const char *series_uid,
                                    GCancellable *cancellable, GError **error);

/**
 * ctr_dicom_dataset_from_projections:
 * Wraps complete projections (->missing == 0, e.g. after
 * ctr_dicom_xa_complete) as a CtrDataset, stealing ->geometry and
 * ->projections from @p (free @p afterwards as usual).  @name: (nullable):
 * the dataset's name, default @path's basename.  Transfer full.
 */
CtrDataset *ctr_dicom_dataset_from_projections (CtrDicomProjections *p, const char *path,
                                                const char *name);

/**
 * ctr_dicom_load_projections:
 * The line integrals of the only projection series at @path (file or folder),
 * for a geometry.json whose projections have "layout": "dicom": the JSON's
 * geometry @expect wins over the DICOM's; the shapes must agree
 * (CTR_ERROR_FORMAT naming both).  The rows are put in @expect's order
 * (rows_increase_with_v: DICOM-CT-PD's rows run along −z); a flying focal
 * spot @expect does not state is refused (CTR_ERROR_UNSUPPORTED).  Other
 * errors as ctr_dicom_load_dataset.
 */
CtrProjections *ctr_dicom_load_projections (const char *path, const CtrGeometry *expect,
                                            GCancellable *cancellable, GError **error);

/**
 * CtrDicomExportOptions:
 * @mu_water: attenuation of water in the volume's unit (1/mm), for
 *   HU = 1000 (mu - mu_water) / mu_water; e.g. 0.0192 /mm (about 70 keV).
 * @series_description: (nullable): SeriesDescription (0008,103E).
 * @derivation: (nullable): DerivationDescription (0008,2111): method and
 *   parameters ("FBP, Hann window, cut-off 1.0").
 * @patient_name, @patient_id: (nullable): empty when NULL.
 * @study_uid: (nullable): join an existing study; NULL makes a new one.
 * @series_number: SeriesNumber (0020,0011).
 * @table_coordinate: SliceLocation (0020,1041) is the scan's own table
 *   coordinate (z, or −z with @table_reversed; ctr_geometry_table_mm) and
 *   the files and InstanceNumbers run in increasing table coordinate; FALSE
 *   (default): SliceLocation is the patient Z (−z) and CT0001 the lowest z.
 *   ImagePositionPatient is the slice's position in both cases.
 * @table_reversed: see @table_coordinate (DICOM-CT-PD input: TRUE).
 * @window_center_hu, @window_width_hu: WindowCenter (0028,1050) and
 *   WindowWidth (0028,1051) in HU, the window a viewer opens the series
 *   with: the one the user looked at (default 40 / 400, a soft-tissue
 *   window); a width that is not finite and positive, or a centre that is
 *   not finite, writes the default.
 */
typedef struct {
  double mu_water;
  const char *series_description;
  const char *derivation;
  const char *patient_name;
  const char *patient_id;
  const char *study_uid;
  guint series_number;
  gboolean table_coordinate;
  gboolean table_reversed;
  double window_center_hu;
  double window_width_hu;
} CtrDicomExportOptions;

/* Defaults: mu_water 0.0192, series number 1, window 40 / 400 HU,
 * everything else NULL. */
void ctr_dicom_export_options_init (CtrDicomExportOptions *o);

/**
 * ctr_dicom_export_series:
 * Writes @v as a CT Image Storage series into @folder (created if needed):
 * one file per z slice, "CT%04u.dcm" numbered from 1 (slice 0 = lowest z;
 * in increasing table coordinate with @options->table_coordinate),
 * signed 16-bit HU (RescaleSlope 1, RescaleIntercept 0, rounded; values
 * beyond the int16 range are clipped), PixelSpacing dy\dx,
 * ImageOrientationPatient 1\0\0\0\1\0 and ImagePositionPatient of the first
 * pixel, new Study (unless given), Series, SOP and Frame of Reference UIDs.
 * Patient frame (LPS) from FORMAT's: X = x, Y = -y, Z = -z, so the image as
 * stored (row 0 = +y = anterior, column 0 = -x = patient right) is the
 * standard radiological axial view.
 *
 * All or nothing: the series is written into a temporary folder beside
 * @folder, every file verified (DCMTK's status, write(2)'s errno, the size
 * on disk after fsync), then swapped in as a whole; a previous series in
 * @folder is replaced only once the new one is complete.  @folder must not
 * exist, be empty, or hold only a series of ours
 * (ctr_dicom_export_check_folder, by content): other files there are
 * refused, not deleted.  ctr_output_path_check()
 * (CTR_OUTPUT_FOLDER) refuses a folder that holds the run's inputs.
 * Errors: CTR_ERROR_IO (a full disk says "No space left on device", and
 * the folder is left as it was), CTR_ERROR_INVALID_ARGUMENT (mu_water <= 0,
 * a folder holding other files).
 */
gboolean ctr_dicom_export_series (const CtrVolume *v, const char *folder,
                                  const CtrDicomExportOptions *options, GError **error);

/**
 * ctr_dicom_export_check_folder:
 * Whether a series may replace the content of @folder: TRUE when it does
 * not exist, is empty, or holds one series of ours only.  "Ours" is decided
 * by each file's content, never by its name alone: a regular file (not a
 * link) named "CT<digits>.dcm" that is DICOM with SoftwareVersions
 * "ctrecon", our DerivationDescription, and the Series Instance UID of the
 * folder's other files.  Anything else (another scanner's CT000001.dcm, a
 * note, a second series) is refused, never deleted.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT naming the first file that
 *   is not ours, or CTR_ERROR_IO when the folder cannot be read.
 */
gboolean ctr_dicom_export_check_folder (const char *folder, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrDicomSeries, ctr_dicom_series_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrDicomProjections, ctr_dicom_projections_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrDicomResolution, ctr_dicom_resolution_free)

G_END_DECLS
