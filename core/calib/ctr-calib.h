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
 *    is registered by cross-correlation over all used detector rows; the
 *    correlation is accumulated as one cross-power spectrum, interpolated by
 *    zero-padding it (a Fourier shift, exact for band-limited profiles) to
 *    1/16 column of shift, i.e. 1/32 column of c, and the peak refined by a
 *    parabola through the three highest samples.  Quality: the normalised
 *    correlation at the peak (1 = identical mirror images).
 *  - CTR_CALIB_VO (parallel beam): Vo, Drakopoulos, Atwood & Reinhard,
 *    "Reliable method for calculating the center of rotation in
 *    parallel-beam tomography", Opt. Express 22(16) 19078-19086 (2014).  The
 *    180° sinogram and its left-right flip shifted by a candidate amount are
 *    stacked into a 360° sinogram; for the right shift it is the sinogram of
 *    a full turn, whose 2-D Fourier transform is empty in the double wedge
 *    of high angular and low detector frequency.  The metric is the mean
 *    modulus of the 2-D FFT inside that wedge (mask of half-width
 *    |f_u| ≤ |f_θ|·(2θ-rows − 1)/(2π · 2θ-rows · r)·cols with r = 6, the
 *    lowest max(…, 5 % of the rows, at most 20) angular frequencies and the
 *    three lowest detector frequencies left out: the parameters of the
 *    authors' published implementation), minimised over whole-column then
 *    0.05-column steps of c with a parabola through the minimum.  Quality:
 *    1 − minimum / median of the whole-column curve.
 *  - CTR_CALIB_CONJUGATE (fan and cone beam): the ray (β, γ) and the ray
 *    (β + π − 2γ, −γ) are the same line (FORMAT.md: γ grows with u; flat
 *    detector γ = atan(u / SDD), curved γ = u).  The mean squared difference
 *    of every measured ray and its conjugate, read by linear interpolation
 *    along β and along the row, is minimised over c (steps of 0.5 then 0.05
 *    column, a parabola through the minimum).  Fan stacks use up to 16
 *    rows; cone beam the central row (v = 0, interpolated between the two
 *    nearest rows), where the conjugate rays lie in the plane of the orbit.
 *    Quality: the correlation of the rays with their conjugates at c.
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
  CTR_CALIB_N_METHODS
} CtrCalibMethod;

/* The short name of @m: "mirror", "vo", "conjugate". */
const char *ctr_calib_method_name (CtrCalibMethod m);

/**
 * CtrCalibEstimate:
 * @method: which method.
 * @ok: the method ran and found an interior minimum; FALSE: @note says why
 *   (not applicable to these views, the minimum at the edge of the search).
 * @centre_col: the 0-based continuous detector column of the rotation axis
 *   (parallel) or of the central ray (fan, cone).
 * @sigma_col: its standard uncertainty, columns (jackknife; NaN: unknown).
 * @quality: 0…1, larger is better (see the methods above).
 * @used: view pairs (mirror), sinogram rows (vo), rays (conjugate) used.
 * @note: a sentence for the user, empty when there is nothing to say.
 */
typedef struct {
  CtrCalibMethod method;
  gboolean ok;
  double centre_col;
  double sigma_col;
  double quality;
  guint64 used;
  char note[256];
} CtrCalibEstimate;

/**
 * CtrCalibOptions:
 * @search_cols: the search covers c within ± this many columns of the
 *   detector's middle column (cols − 1)/2; 0: cols/4.
 */
typedef struct {
  double search_cols;
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
 * @disagree: two methods differ by more than 0.25 column and by more than
 *   twice their combined uncertainty.
 * @stated_centre_col: the column the input geometry's offset puts u = 0 at.
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

/* The column at which @g's stated offset puts u = 0: (cols − 1)/2 − offset_u / pitch_u. */
double ctr_calib_stated_centre (const CtrGeometry *g);

G_END_DECLS
