/* ctr-calib.h — calibration from the projections themselves: where the
 * rotation axis (parallel beam) or the central ray (fan and cone beam) meets
 * the detector, hence the detector offset along u.
 *
 * Every method here works in detector columns and ignores the offset the
 * geometry states: it finds the continuous 0-based column c at which u = 0
 * must lie for the data to be self-consistent, and the offset follows from
 * FORMAT.md's column rule u_j = (j − (cols − 1)/2)·pitch_u + offset_u:
 *
 *     offset_u = ((cols − 1)/2 − c) · pitch_u         (mm, or rad when curved)
 *
 * Methods (each gives an estimate, a standard uncertainty and a quality):
 *  - CTR_CALIB_MIRROR (parallel beam): the projection at θ and the one at
 *    θ + π are mirror images about the axis, p(θ + π, u) = p(θ, −u).  Every
 *    such pair of views in the scan (exact within 5 % of the angular step)
 *    is registered by cross-correlation over up to 64 detector rows: the
 *    derivatives of the profile at θ and of the flipped one at θ + π
 *    (central differences, so that a constant background such as an open
 *    beam above 0 does not pull the peak towards zero shift), their
 *    cross-power spectra summed, interpolated by zero-padding (a Fourier
 *    shift, exact for band-limited profiles) to 1/16 column of shift, i.e.
 *    1/32 column of c, and the peak refined by a parabola through the three
 *    highest samples.  Quality: the normalised correlation of the
 *    derivatives at the peak (1 = identical mirror images).
 *  - CTR_CALIB_VO (parallel beam): Vo, Drakopoulos, Atwood & Reinhard,
 *    "Reliable method for calculating the center of rotation in
 *    parallel-beam tomography", Opt. Express 22(16) 19078-19086 (2014).  The
 *    180° sinogram and its left-right flip shifted by a candidate amount are
 *    stacked into a 360° sinogram; for the right shift it is the sinogram of
 *    a full turn, whose 2-D Fourier transform (angular frequency k, detector
 *    frequency m, integer indices of an M-view × N-column array) is empty
 *    in the double wedge of high angular and low detector frequency.  The
 *    metric is the mean modulus of the 2-D FFT over the wedge
 *    |m| ≤ round(|k| · (M − 1)/(2π M) · N / r), r = 6, leaving out the
 *    angular frequencies |k| ≤ min(20, ⌈0.05 M⌉) and |m| ≤ 1 (the mask and
 *    its parameters as in the authors' published implementation; the
 *    paper's equation numbers were not checked here).  The flipped rows are
 *    shifted by a Fourier shift, padded with their end values.  It is
 *    minimised over shifts of whole columns (c in half-column steps) on up
 *    to 16 rows, then over 0.05-column steps of c around the best, with a
 *    parabola through the minimum.  Quality: 1 − minimum / median of the
 *    coarse curve.
 *  - CTR_CALIB_CONJUGATE (fan and cone beam): the ray (β, γ) and the ray
 *    (β + π − 2γ, −γ) are the same line (FORMAT.md: γ grows with u; flat
 *    detector γ = atan(u / SDD), curved γ = u).  The mean squared difference
 *    of every measured ray and its conjugate, read by linear interpolation
 *    along β and along the row, is minimised over c (steps of 0.5 then 0.05
 *    column, a parabola through the minimum).  Fan stacks use up to 16
 *    rows; cone beam the central row (v = 0, interpolated between the two
 *    nearest rows), where the conjugate rays lie in the plane of the orbit.
 *    Quality: the correlation of the rays with their conjugates at c.
 *  - CTR_CALIB_ENTROPY, the cross-check (every beam): FBP images (ramp
 *    filter, at most 256 × 256 pixels over the field of view) of up to 4
 *    slices (the rows whose sinograms vary most; a cone beam's central row
 *    as a fan) for candidate centres 0.25 column apart within ± 3 columns
 *    of the answer; the histogram entropy of each image (256 bins over the
 *    range of the middle candidate's image, its 0.5 %…99.5 % quantiles
 *    widened by a quarter; the disc of 90 % of the field of view) is least
 *    where the image is sharpest and free of the arcs a wrong centre draws
 *    (the entropy criterion of Donath, Beckmann & Schreyer, "Automated
 *    determination of the center of rotation in tomography data", J. Opt.
 *    Soc. Am. A 23(5) 1048-1057, 2006).  Quality: 1 − minimum / maximum.
 *
 * Uncertainty: a delete-one-block jackknife (Efron & Tibshirani, "An
 * Introduction to the Bootstrap", 1993, §11.2): the data are split into up
 * to 8 blocks (groups of detector rows; with one row, groups of view pairs
 * or views), the estimate is made again without each block, and
 * σ² = (B − 1)/B · Σ (ĉ₍b₎ − ĉ₍·₎)².  It measures how much the answer
 * depends on which part of the data was used, not a model bias; NaN when
 * fewer than two blocks exist (one row for CTR_CALIB_VO).
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"

G_BEGIN_DECLS

typedef enum {
  CTR_CALIB_MIRROR,
  CTR_CALIB_VO,
  CTR_CALIB_CONJUGATE,
  CTR_CALIB_ENTROPY,
  CTR_CALIB_N_METHODS
} CtrCalibMethod;

/* The short name of @m: "mirror", "vo", "conjugate", "entropy". */
const char *ctr_calib_method_name (CtrCalibMethod m);

/**
 * CtrCalibEstimate:
 * @method: which method.
 * @cross_check: a check of the answer (entropy), not part of it.
 * @ok: the method ran and found an interior minimum; FALSE: @note says why
 *   (not applicable to these views, the minimum at the edge of the search).
 * @centre_col: the 0-based continuous detector column of the rotation axis
 *   (parallel) or of the central ray (fan, cone).
 * @sigma_col: its standard uncertainty, columns (jackknife; NaN: unknown).
 * @quality: 0…1, larger is better (see the methods above).
 * @used: view pairs (mirror), sinogram rows (vo), rays (conjugate) used.
 * @slope, @sigma_slope: mirror only, with rows in at least 3 blocks: how
 *   the centre column moves per detector row (columns per row), tan t ·
 *   pitch_v / pitch_u (sign flipped when rows run against v) for the
 *   detector tilt t that best registers each pair's first view with its
 *   second reflected about the leaning axis, in 2-D (ctr-calib-tilt.c,
 *   started from the line through each row block's own centre, which
 *   structure along z biases towards 0 and which is kept, with a note,
 *   when the 2-D registration finds no minimum), and its jackknife
 *   uncertainty over row blocks; NaN otherwise.
 * @note: a sentence for the user, empty when there is nothing to say.
 * @curve_n, @curve_x0, @curve_dx, @curve_y: the search's cost over the
 *   whole data at @curve_n (≤ CTR_CALIB_CURVE_MAX; 0: no search was made)
 *   candidate centre columns @curve_x0 + i·@curve_dx, smallest at the best
 *   candidate, for a plot: mirror 1 − the normalised correlation of the
 *   mirrored views' derivatives (over the search range, every k-th of its
 *   1/32-column lags); vo the Fourier metric of the coarse search (binned
 *   columns); conjugate the mean squared difference of conjugate rays
 *   (coarse search); entropy the summed entropy of the slices (bits).
 *   Finer searches around the best are not kept: @centre_col comes from
 *   them, and may lie between two samples.
 */
#define CTR_CALIB_CURVE_MAX 320

typedef struct {
  CtrCalibMethod method;
  gboolean cross_check;
  gboolean ok;
  double centre_col;
  double sigma_col;
  double quality;
  guint64 used;
  double slope, sigma_slope;
  char note[256];
  guint curve_n;
  double curve_x0, curve_dx;
  double curve_y[CTR_CALIB_CURVE_MAX];
} CtrCalibEstimate;

/**
 * CtrCalibOptions:
 * @search_cols: the search covers c within ± this many columns of the
 *   detector's middle column (cols − 1)/2; 0: cols/4.
 * @no_cross_check: skip the entropy cross-check.
 */
typedef struct {
  double search_cols;
  gboolean no_cross_check;
} CtrCalibOptions;

/**
 * CtrCalibResult:
 * @estimates: one per method that applies to the beam (parallel: mirror and
 *   vo; fan and cone: conjugate), in that order; @n_estimates of them.
 * @centre_col, @sigma_col: the combined answer: the inverse-variance mean of
 *   the methods that succeeded (the plain mean when an uncertainty is
 *   unknown), its uncertainty at least half their spread.
 * @offset_u, @sigma_offset_u: the same as FORMAT.md's detector_offset_u, in
 *   the geometry's unit (mm; rad for a curved detector).
 * @estimates: then, when the others found an answer, the entropy
 *   cross-check (cross_check TRUE), which does not enter the answer.
 * @disagree: two methods differ by more than 0.25 column and by more than
 *   twice their combined uncertainty, or the cross-check lies more than
 *   0.5 column and twice the combined uncertainty from the answer.
 * @stated_centre_col: the column the input geometry's offset puts u = 0 at.
 * @tilt_rad, @sigma_tilt_rad: the detector's in-plane tilt from the
 *   mirror slope: the angle, in the (u, v) plane, of the axis's image from
 *   the +v direction, positive when it leans towards +u as v grows:
 *   atan(slope · pitch_u / pitch_v), the sign flipped when rows run
 *   against v; NaN when not measured (one row, fan and cone beam).
 *   It is the tilt left in the loaded data (the loader has already
 *   resampled by a stated "detector_tilt_rad", data/ctr-detector-tilt.h);
 *   `ctrecon-cli calibrate` writes the stated plus this one when it
 *   exceeds twice its uncertainty.
 */
typedef struct {
  guint n_estimates;
  CtrCalibEstimate estimates[CTR_CALIB_N_METHODS];
  double centre_col;
  double sigma_col;
  double offset_u;
  double sigma_offset_u;
  gboolean disagree;
  double stated_centre_col;
  double tilt_rad, sigma_tilt_rad;
} CtrCalibResult;

/**
 * ctr_calib_mirror:
 * ctr_calib_vo:
 * ctr_calib_conjugate:
 * @g: the geometry (parallel for mirror and vo; fan or cone, flat or curved,
 *   circular, for conjugate).
 * @p: line integrals [view][row][col] matching @g's sizes.
 * @opt: (nullable): the search range; NULL: defaults.
 * @out: filled in every case; @out->ok says whether it found an answer.
 * The methods above.  They do not fail on data they cannot use (too few
 * views, a minimum at the edge): @out->ok is FALSE with @out->note.
 * Returns: FALSE only with CTR_ERROR_OUT_OF_MEMORY or G_IO_ERROR_CANCELLED.
 */
gboolean ctr_calib_mirror (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt,
                           CtrCalibEstimate *out, GCancellable *cancellable, GError **error);
gboolean ctr_calib_vo (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt,
                       CtrCalibEstimate *out, GCancellable *cancellable, GError **error);
gboolean ctr_calib_conjugate (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt,
                              CtrCalibEstimate *out, GCancellable *cancellable, GError **error);

/**
 * ctr_calib_entropy:
 * The cross-check above on @g and @p (parallel, fan or cone) over candidate
 * centres @centre ± @half_range columns.
 * Returns: FALSE with ctr_fbp_run()'s errors (CTR_ERROR_OUT_OF_MEMORY,
 *   G_IO_ERROR_CANCELLED, …); @out->ok FALSE when the least entropy lies at
 *   the edge of the candidates.
 */
gboolean ctr_calib_entropy (const CtrGeometry *g, const CtrProjections *p, double centre, double half_range,
                            CtrCalibEstimate *out, GCancellable *cancellable, GError **error);

/**
 * ctr_calibrate:
 * Runs the methods that apply to @g's beam on @p and combines them into
 * @result.
 * Returns: FALSE with CTR_ERROR_UNSUPPORTED (per-view vectors or a helical
 *   scan: no single detector offset), CTR_ERROR_INVALID_GEOMETRY (@g fails
 *   ctr_geometry_validate), CTR_ERROR_INVALID_DATA (@p is not line
 *   integrals of @g's shape, fewer than 8 columns, or no method could use
 *   the views: "too few views for a 180° pair …", with each method's
 *   reason), CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 */
gboolean ctr_calibrate (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt,
                        CtrCalibResult *result, GCancellable *cancellable, GError **error);

/* The warning `ctrecon-cli calibrate` prints and the window shows when
 * @r->disagree ("the methods disagree by more than their uncertainty:
 * check the result"); NULL when the methods agree. */
const char *ctr_calib_disagreement (const CtrCalibResult *r);

/* The column at which @g's stated offset puts u = 0: (cols − 1)/2 − offset_u / pitch_u. */
double ctr_calib_stated_centre (const CtrGeometry *g);

G_END_DECLS
