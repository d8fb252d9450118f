/* ctr-grid.h — the reconstruction grid a scan gets: the one rule that every
 * entry point uses (ctrecon-cli reconstruct, the window's Geometry page, the
 * dose study, scripts).  The grid type itself (CtrGrid: sizes, spacing and
 * centre in mm, slice 0 the lowest z) is ctr-volume.h's.
 *
 * The rule, in the order it is applied (ctr_grid_for_scan):
 *   1. slices asked for (a helical scan's z range: table positions, mm);
 *   2. the dataset's reference, when the request keeps its plane (fan and
 *      parallel beam: its x/y, one slice per detector row; cone beam and
 *      helical: its whole 3-D grid);
 *   3. otherwise the field of view at the detector's resolution
 *      (ctr_grid_default's x/y): in z one slice per detector row (fan,
 *      parallel), the panel's rows at the isocentre (cone beam), or, for a
 *      helical scan, slices on multiples of the nominal slice width over the
 *      range the scan samples fully (ctr_helix_z_coverage) for the
 *      rebinning: with the conjugate rays for 180LI (the default), with the
 *      direct rays alone for 360LI and no rebinning.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"

G_BEGIN_DECLS

/**
 * CtrGridRequest:
 * @size: n × n pixels; 0 covers the field of view
 * @pixel_mm: pixel size, mm; 0 is the detector pitch at the isocentre
 * @z_range: helical scans: TRUE when @z_first, @z_last, @z_step are given
 * @z_first: first slice, mm in the scan's table coordinate (ctr_geometry_table_mm)
 * @z_last: last slice, mm (table coordinate), >= @z_first
 * @z_step: slice spacing, mm, > 0
 * @direct_rays_only: helical scans: the fully sampled range of the direct
 *   rays alone (360LI rebinning, or the cone-beam projector without
 *   rebinning); FALSE counts the conjugate rays too (180LI, the default)
 *
 * What a user asked of the grid; all zero is "the default grid".
 */
typedef struct {
  guint size;
  double pixel_mm;
  gboolean z_range;
  double z_first, z_last, z_step;
  gboolean direct_rays_only;
} CtrGridRequest;

/**
 * ctr_grid_default:
 * The grid a user expects for @g: n×n pixels whose pixel size is the
 * detector pitch seen at the isocentre (ctr_geometry_pitch_at_iso_mm) and
 * that cover the field-of-view disc (ctr_geometry_fov_radius_mm), centred on
 * the isocentre.  @size (> 0) and @pixel_mm (> 0) override the size and the
 * pixel (with only one given, the other is chosen to cover the field of
 * view).  A size that does not fit a guint (a tiny @pixel_mm) saturates at
 * G_MAXUINT, which ctr_grid_validate() refuses as too large: check the
 * grid before use.  In z: fan and parallel beam, one slice per detector row at
 * pitch_v_mm; cone beam, n_rows slices of pitch_v·SOD/SDD centred where the
 * panel's centre projects (offset_v·SOD/SDD); a helical scan, the slices of
 * ctr_grid_helical_range over the range the direct rays sample fully (valid
 * for every rebinning and for none) when it has one.  ctr_grid_for_scan is
 * the same rule with a reference and a rebinning (its default, 180LI,
 * counts the conjugate rays too, a wider range).
 */
CtrGrid ctr_grid_default (const CtrGeometry *g, guint size, double pixel_mm);

/**
 * ctr_helix_grid:
 * A grid of slices at the table positions @first, @first + @step, … up to
 * @last (mm in the data's table coordinate, ctr_geometry_table_mm; @step > 0,
 * @last >= @first; a last position within 1e-6·step of @last counts), with
 * the x/y size and pixel of ctr_grid_default (@size, @pixel_mm: 0 for the
 * default).  The grid's slices run from the lowest z up (ctr-volume.h), so
 * with a reversed table coordinate slice 0 is the position @last.  dz = @step.
 * Returns FALSE with CTR_ERROR_INVALID_ARGUMENT (a step that is not positive,
 * @last < @first, not finite, or more than 100000 slices).
 */
gboolean ctr_helix_grid (const CtrGeometry *g, guint size, double pixel_mm, double first, double last,
                         double step, CtrGrid *grid, GError **error);

/**
 * ctr_grid_parse_z_range:
 * @text: "FIRST:LAST:STEP": three numbers (C locale), mm in the scan's table
 *   coordinate (ctr_geometry_table_mm), FIRST <= LAST, STEP > 0
 * @out: (out) (array fixed-size=3): FIRST, LAST, STEP; untouched on failure
 *
 * The slices a user asks of a helical scan, as `ctrecon-cli reconstruct
 * --z-range` and the Python package's z_range take them (for
 * CtrGridRequest's @z_first, @z_last, @z_step): one syntax and one message
 * for every entry point.  The count of slices is checked later
 * (ctr_helix_grid).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT ("--z-range takes
 *   FIRST:LAST:STEP in mm with FIRST <= LAST and STEP > 0, got '@text'").
 */
gboolean ctr_grid_parse_z_range (const char *text, double out[3], GError **error);

/**
 * ctr_grid_check_options:
 * @g: the scan's geometry
 * @z_range: a z range of slices was given (`--z-range`, Python's z_range)
 * @rebin: a rebinning was given (`--rebin`, Python's rebin)
 * @z_size: the image's z extent was given (`--size NXxNYxNZ`,
 *   `--voxel-size DXxDYxDZ`, Python's size=(NX, NY, NZ))
 *
 * What the grid options allow for @g, checked before a grid is made, one
 * rule and one message for the CLI and the Python package: a z range and a
 * rebinning only for a helical (or curved multi-row) cone-beam scan
 * (ctr_helix_applies), and no z extent for one (its slices come from the z
 * range, or the range it samples fully).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT ("--z-range and --rebin are
 *   for helical …" or "a helical scan's slices come from --z-range; …").
 */
gboolean ctr_grid_check_options (const CtrGeometry *g, gboolean z_range, gboolean rebin, gboolean z_size,
                                 GError **error);

/**
 * ctr_grid_helical_range:
 * The default slices of helical scan @g: table positions (mm,
 * ctr_geometry_table_mm) on multiples of the nominal slice width
 * (ctr_geometry_slice_width_mm) inside the z range the scan samples fully
 * (ctr_helix_z_coverage; @complementary: conjugate rays count, as 180LI
 * rebinning uses them); when no multiple falls inside, the range's middle.
 * Returns: FALSE (outputs untouched) when @g has no source z per view or
 *   samples no z range fully.
 */
gboolean ctr_grid_helical_range (const CtrGeometry *g, gboolean complementary, double *first, double *last,
                                 double *step);

/**
 * ctr_grid_for_scan:
 * @g: a valid geometry
 * @reference: (nullable): the grid of the dataset's reference image, if any
 * @request: (nullable): what the user asked; NULL: the default grid
 * @grid: (out): the grid
 *
 * The reconstruction grid of a scan by the rule at the top of this file.
 * The reference's grid is used when the request leaves its plane, for
 * every beam: @request's size is 0 or the reference's nx and its pixel 0
 * or the reference's dx (within 1e-6 relative).  So a size alone that is
 * the reference's keeps the reference's pixel (not the detector's pitch at
 * the isocentre), and metrics against the reference compare like pixels.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (a bad z range, see
 *   ctr_helix_grid) or CTR_ERROR_INVALID_GEOMETRY (a helical scan that
 *   samples no z range fully and no range was given).
 */
gboolean ctr_grid_for_scan (const CtrGeometry *g, const CtrGrid *reference, const CtrGridRequest *request,
                            CtrGrid *grid, GError **error);

G_END_DECLS
