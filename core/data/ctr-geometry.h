/* ctr-geometry.h — acquisition geometry (parallel, fan, cone; helical cone).
 *
 * Conventions are those of shared/data/FORMAT.md (restated here so the code is
 * self-contained):
 *
 *            +y (detector side at beta = 0)
 *             ^          detector, u along (cos b, sin b)
 *             |        ===========+===========>  u
 *             |              \    |    /
 *             |               \   |   /   rays
 *             o----> +x        \  |  /
 *         isocentre             \ | /
 *                                 S  source at (R sin b, -R cos b), R = SOD
 *
 *  - World frame in mm, z = rotation axis, right-handed.  beta (radians) turns
 *    the source counter-clockwise seen from +z.
 *  - Column j sits at u_j = (j - (cols-1)/2) * pitch_u + offset_u; row i at
 *    v_i = (i - (rows-1)/2) * pitch_v + offset_v (sign flipped when
 *    rows_increase_with_v is FALSE).
 *  - Flat detector: a plane perpendicular to the central ray at SDD from the
 *    source, u and pitch_u in mm.  Curved detector: a cylinder arc centred on the
 *    source; u and pitch_u are the ray's angle gamma from the central ray in
 *    radians, the ray direction is cos(gamma) d0 + sin(gamma) e_u.
 *  - Parallel beam: no source; rays travel along d0 = (-sin b, cos b) at signed
 *    distance u from the axis along e_u = (cos b, sin b).
 *
 * Helical scans are cone beam whose source moves along z: @source_z_mm holds
 * the z of every view's focal centre (the detector moves with it), and a
 * flying focal spot moves the source itself by @focal_shift; ctr-helix.h has
 * the rays, the z coverage and the table coordinate of such a geometry.
 *
 * Magic values are never used to encode a kind: parallel beam is
 * CTR_BEAM_PARALLEL, not "SDD = 0".
 */
#pragma once

#include <glib.h>
#include "data/ctr-volume.h"

G_BEGIN_DECLS

typedef enum {
  CTR_BEAM_PARALLEL,
  CTR_BEAM_FAN,
  CTR_BEAM_CONE   /* circular orbit, flat panel (FDK, ctr-fdk.h) */
} CtrBeam;

typedef enum {
  CTR_DETECTOR_FLAT,
  CTR_DETECTOR_CURVED  /* equiangular: pitch_u and offset_u in radians */
} CtrDetectorShape;

/**
 * CtrGeometry:
 * @beam: parallel, fan or cone.
 * @shape: flat or curved (ignored for parallel beam).
 * @sod_mm: source to isocentre distance, mm (fan/cone; 0 for parallel).
 * @sdd_mm: source to detector distance, mm (fan/cone; 0 for parallel).
 * @n_views: number of views (> 0); @angles has this many entries.
 * @n_rows: detector rows (>= 1); for parallel and fan beam every row is an
 *   independent slice.
 * @n_cols: detector columns (>= 1).
 * @pitch_u: column pitch, mm (flat, parallel) or radians (curved).
 * @pitch_v_mm: row pitch, mm.
 * @offset_u: detector offset along u, same unit as @pitch_u.
 * @offset_v_mm: detector offset along v, mm.
 * @rows_increase_with_v: row index grows with v (default TRUE).
 * @angles: (array length=n_views): view angles beta in radians, acquisition order,
 *   any values (not necessarily uniform or sorted).  Owned by the geometry.
 * @pixel_size_known: FALSE when the dataset's "mm" are really detector pixels
 *   (reconstructions are then in 1/pixel).
 * @source_z_mm: (array length=n_views) (nullable): cone beam only: z of the
 *   focal centre of each view, mm (a helical scan, or an axial scan away from
 *   z = 0).  The detector is centred on the focal centre: view k sees the
 *   circular-orbit detector shifted by source_z_mm[k] along z.  NULL: every
 *   view at z = 0 (a circular orbit).  Owned.
 * @focal_shift: (array length=3·n_views) (nullable): cone beam only: a flying
 *   focal spot, the source of view k displaced from its focal centre by
 *   [3k] an angle (rad, the sense of beta), [3k+1] a distance along z (mm)
 *   and [3k+2] a distance away from the axis (mm); the detector stays with
 *   the focal centre (DICOM-CT-PD (7033,100B..100D)).  NULL: no shift.  Owned.
 * @table_reversed: the data's own table coordinate is −z (DICOM-CT-PD's
 *   DetectorFocalCenterAxialPosition z_pd = −z); FALSE: it is z.  Only
 *   labels positions for the user (ctr_geometry_table_mm).
 *   A geometry has either per-view vectors or these helical fields, never
 *   both (ctr_geometry_validate refuses the pair).
 * @vectors: (nullable) (array length=n_views*12): per-view vectors (source,
 *   detector centre, u and v steps, mm; ctr-geometry-vectors.h), or NULL for
 *   a circular orbit.  When set, the rays come from them and the circular
 *   fields above are their per-view means (a summary).  Owned.
 *
 * Plain data, owned by whoever created it; copy with
 * ctr_geometry_try_copy() (ctr_geometry_copy() aborts: for tests).
 */
typedef struct {
  CtrBeam beam;
  CtrDetectorShape shape;
  double sod_mm;
  double sdd_mm;
  guint n_views;
  guint n_rows;
  guint n_cols;
  double pitch_u;
  double pitch_v_mm;
  double offset_u;
  double offset_v_mm;
  gboolean rows_increase_with_v;
  double *angles;
  gboolean pixel_size_known;
  double *source_z_mm;
  double *focal_shift;
  gboolean table_reversed;
  double *vectors;
} CtrGeometry;

/* The plausible ranges ctr_geometry_validate() enforces: beyond them a
 * finite number is a typing or unit error, not an acquisition (SOD and SDD
 * of 1 µm to 1 km; flat and parallel pitches of 1 nm to 10 m; a curved
 * detector's pitch from 1 nrad; angles within ±10⁴ rad, about 1600 turns;
 * on a circular orbit at one z (no source z per view) the angles span at
 * most CTR_GEOMETRY_MAX_CIRCULAR_TURNS turns: more are degrees taken for
 * radians). */
#define CTR_GEOMETRY_MIN_DISTANCE_MM 1e-3
#define CTR_GEOMETRY_MAX_DISTANCE_MM 1e6
#define CTR_GEOMETRY_MIN_PITCH_MM 1e-6
#define CTR_GEOMETRY_MAX_PITCH_MM 1e4
#define CTR_GEOMETRY_MIN_PITCH_RAD 1e-9
#define CTR_GEOMETRY_MAX_ANGLE_RAD 1e4
#define CTR_GEOMETRY_MAX_CIRCULAR_TURNS 2

/* Doubles per view in CtrGeometry.vectors (S, D, u, v: ctr-geometry-vectors.h). */
#define CTR_GEOMETRY_VECTOR_LEN 12

/* Unit normal @n (3 doubles) of the detector of one view's vectors @w
 * (12 doubles), pointing away from the source; for fan beam the in-plane
 * normal to u. */
void ctr_geometry_vectors_normal (CtrBeam beam, const double *w, double n[3]);

/* Allocates a geometry with @n_views zeroed angles and neutral defaults
 * (rows_increase_with_v = TRUE, pixel_size_known = TRUE).  Free with
 * ctr_geometry_free().  GLib aborts when the angles cannot be had: for
 * view counts the code fixes (tests, the device self-check); core, the
 * CLI, the window and Python use ctr_geometry_try_new. */
CtrGeometry *ctr_geometry_new (CtrBeam beam, guint n_views);
/* As ctr_geometry_new() for a view count that comes from a file: NULL with
 * CTR_ERROR_OUT_OF_MEMORY (and the figures) when the angles alone exceed
 * the machine's memory (ctr-memory.h), instead of aborting. */
CtrGeometry *ctr_geometry_try_new (CtrBeam beam, guint n_views, GError **error);
/* A deep copy of @g; GLib aborts when its per-view arrays cannot be had
 * (for tests; core, the window and Python copy with
 * ctr_geometry_try_copy). */
CtrGeometry *ctr_geometry_copy (const CtrGeometry *g);
/* A deep copy of @g: NULL with CTR_ERROR_OUT_OF_MEMORY naming the per-view
 * array (angles, source z, focal-spot shifts or vectors) and its size when
 * it cannot be allocated (ctr-memory.h), instead of aborting. */
CtrGeometry *ctr_geometry_try_copy (const CtrGeometry *g, GError **error);
/**
 * ctr_geometry_select_views:
 * Views @first .. @first+@count−1 of @g as a geometry of their own (angles,
 * vectors, source z and focal-spot shifts; everything else copied).  @first + @count <= n_views.
 * Returns: (transfer full): the subset, or NULL with CTR_ERROR_OUT_OF_MEMORY
 *   naming the per-view array and its size when it cannot be allocated.
 */
CtrGeometry *ctr_geometry_select_views (const CtrGeometry *g, guint first, guint count, GError **error);
void ctr_geometry_free (CtrGeometry *g);

/* Fills @g->angles with start + k * step, k = 0 .. n_views-1 (radians). */
void ctr_geometry_set_uniform_angles (CtrGeometry *g, double start_rad, double step_rad);

/* Gives @g a source z per view (allocated when absent): start + k · step, mm.
 * FALSE with CTR_ERROR_OUT_OF_MEMORY (@g unchanged) when the per-view
 * array cannot be allocated. */
gboolean ctr_geometry_set_source_z (CtrGeometry *g, double start_mm, double step_mm, GError **error);


/**
 * ctr_geometry_validate:
 * Checks every field: positive sizes; SOD > 0 and SDD > SOD for fan/cone; a
 * curved fan narrower than pi, the detector's rays not passing behind the
 * source; and plausibility, since a finite but absurd number reconstructs
 * to an all-zero, NaN or garbage image: distances, pitches and offsets in
 * the CTR_GEOMETRY_* ranges above, angles finite, within
 * ±CTR_GEOMETRY_MAX_ANGLE_RAD and distinct (no two views at the same angle:
 * "angle_step_rad": 0 puts every view there).  Per-view vectors instead:
 * every number finite, sources and detector centres within the distance
 * range, u (and for cone beam v) steps of a plausible pitch and not
 * parallel, each source in front of its detector plane, fan-beam vectors
 * in the plane z = 0.  Source z and focal-spot shifts: cone beam only,
 * finite, a radial shift within half the SOD, not with per-view vectors; a
 * helical scan's angles strictly monotonic.  (That the field of view
 * covers at least a pixel of the image is the plan's check, ctr-recon-plan.h.)
 * O(n_views log n_views).
 * Returns FALSE with CTR_ERROR_INVALID_GEOMETRY and a message naming the
 * field and its value.
 */
gboolean ctr_geometry_validate (const CtrGeometry *g, GError **error);

/* u of column @col (continuous index allowed): mm, or rad for curved. */
double ctr_geometry_col_u (const CtrGeometry *g, double col);
/* Continuous column index of detector coordinate @u (inverse of col_u). */
double ctr_geometry_u_col (const CtrGeometry *g, double u);
/* v of row @row in mm, honouring rows_increase_with_v. */
double ctr_geometry_row_v (const CtrGeometry *g, double row);

/**
 * ctr_geometry_slice_row:
 * Detector row that holds reconstruction slice @slice, for parallel and fan
 * beam stacks whose slices run from the lowest z up (FORMAT.md: pages = slices
 * from lowest z).  Slice 0 is the row with the smallest v.
 */
guint ctr_geometry_slice_row (const CtrGeometry *g, guint slice);

/**
 * ctr_geometry_ray:
 * The ray of (@view, continuous column @col) in the plane of rotation:
 * @origin (2 doubles, mm) is the source for fan beam, or the ray's point closest
 * to the axis for parallel beam; @dir (2 doubles) is the unit direction of
 * travel towards the detector.  Fan and parallel beam (and, for the field of
 * view, the central row of cone-beam vectors projected onto z = 0).  With
 * per-view vectors the ray runs from S through D + (col − (cols−1)/2)·u.
 */
void ctr_geometry_ray (const CtrGeometry *g, guint view, double col,
                       double origin[2], double dir[2]);

/**
 * ctr_cone_ray:
 * Source position @origin and unit direction @dir (3 doubles each, mm) of
 * the cone-beam ray through the continuous detector position (@col, @row) of
 * @view (ctr_geometry_col_u / ctr_geometry_row_v conventions): per-view
 * vectors, or the circular orbit with a flat or curved detector, helical
 * source z and flying focal spot included (frame of ctr-helix.h: the
 * detector is centred on the view's focal centre, the ray starts at the
 * source, ctr_geometry_source).
 */
void ctr_cone_ray (const CtrGeometry *g, guint view, double col, double row,
                   double origin[3], double dir[3]);

/**
 * ctr_cone_ray_ends:
 * The two ends of ctr_cone_ray's ray: the source @origin and the detector
 * point @point of (@col, @row) (3 doubles each, mm); ctr_cone_ray's @dir is
 * (point − origin) normalised.  For every geometry ctr_cone_ray serves, the
 * point is affine in @row (rows are straight lines on the detector: flat
 * panel, cylinder about z, per-view vectors), which the GPU's cone
 * projector relies on (gpu/ctr-cuda-cone.c checks it).
 */
void ctr_cone_ray_ends (const CtrGeometry *g, guint view, double col, double row,
                        double origin[3], double point[3]);

/* ---- helical scans (the rays and coverage: ctr-helix.h) ---- */

/* TRUE for a cone-beam geometry whose source z (source_z_mm) moves by more
 * than 1 µm over the views: a helical scan. */
gboolean ctr_geometry_is_helical (const CtrGeometry *g);

/* z of the focal centre of @view, mm (0 without source_z_mm). */
static inline double
ctr_geometry_source_z (const CtrGeometry *g, guint view)
{
  return g->source_z_mm != NULL ? g->source_z_mm[view] : 0.0;
}

/* The position (mm) of the source of @view, flying focal spot included
 * (circular orbit fields; per-view vectors: their source). */
void ctr_geometry_source (const CtrGeometry *g, guint view, double s[3]);

/* The data's own table coordinate of z (and back: the map is its own
 * inverse): −z when @g->table_reversed (DICOM-CT-PD), else z.  mm. */
static inline double
ctr_geometry_table_mm (const CtrGeometry *g, double z)
{
  return g->table_reversed ? -z : z;
}

/* The nominal slice width, mm: the row pitch seen at the isocentre for cone
 * beam (pitch_v·SOD/SDD), the row pitch for fan and parallel stacks. */
double ctr_geometry_slice_width_mm (const CtrGeometry *g);

/* The table feed per rotation, mm: the source's z motion per 2π of view
 * angle, signed (> 0 when z grows as the views go on); 0 when not helical. */
double ctr_helix_feed_mm (const CtrGeometry *g);

/* The pitch factor: |feed| / (n_rows · slice width); 0 when not helical. */
double ctr_helix_pitch (const CtrGeometry *g);


/**
 * ctr_geometry_projection_matrix:
 * The 3×4 projection matrix of cone-beam view @view (flat panel), after iFDK
 * (Chen et al., SC19) Eqs. 1-3, written for world coordinates: for a point
 * (x, y, z) in mm (FORMAT.md frame),
 *   (h0, h1, h2)ᵀ = P · (x, y, z, 1)ᵀ,   column = h0 / h2,   row = h1 / h2,
 * where column and row are continuous detector indices (ctr_geometry_col_u /
 * ctr_geometry_row_v conventions, offsets and rows_increase_with_v included)
 * and h2 = (X - S)·d0 is the point's depth along the central ray from the
 * source, mm (h2 <= 0: at or behind the source).  The FDK distance weight is
 * 1/U² = (SOD / h2)².  @P is row-major: P[4 r + c].  Meaningful for
 * CTR_BEAM_CONE (and, ignoring the row, flat fan beam).  With per-view
 * vectors P is the pinhole matrix of the view's S, D, u, v (h2 = depth along
 * the detector normal, mm), exact for any orientation.
 */
void ctr_geometry_projection_matrix (const CtrGeometry *g, guint view, double P[12]);

/**
 * ctr_geometry_fov_radius_mm:
 * Radius (mm) of the circle around the isocentre that every view's detector
 * covers: min(|u_first|, |u_last|) pushed to the isocentre (fan: SOD·sin(gamma),
 * flat: SOD·sin(atan(u/SDD)); parallel: |u|).  Half a column is added at each
 * end (the bins' outer edges).
 */
double ctr_geometry_fov_radius_mm (const CtrGeometry *g);

/* Detector pitch seen at the isocentre, mm (parallel: pitch_u; flat fan:
 * pitch_u·SOD/SDD; curved fan: pitch_u·SOD). */
double ctr_geometry_pitch_at_iso_mm (const CtrGeometry *g);


/* Span of the view angles as scanned: for sorted-by-step acquisitions
 * |beta_last - beta_first| + one mean step, radians. */
double ctr_geometry_angular_range (const CtrGeometry *g);

/* Half fan angle (radians) of the outermost detector column edge; 0 for parallel. */
double ctr_geometry_half_fan_angle (const CtrGeometry *g);

/**
 * ctr_geometry_coverage_note:
 * Whether the views of a circular scan cover what an exact reconstruction
 * needs: 180° for parallel beam, 180° plus the fan angle for fan and cone
 * beam (a short scan, Parker 1982; Kak & Slaney §3.5).  Returns NULL when
 * they do (or for a helical or per-view-vector geometry, whose coverage is
 * not a circle's), else a sentence for the user (g_free): "the views cover
 * 20.0° of the 200.6° (180° + the 20.6° fan) complete data need: a
 * limited-angle scan; analytic images will show streaks along the missing
 * directions, iterative ones fewer".  One mean view step of slack.
 */
char *ctr_geometry_coverage_note (const CtrGeometry *g);

/* Short human-readable description ("fan, curved, 720 views x 736 cols, ..."); free with g_free. */
char *ctr_geometry_describe (const CtrGeometry *g);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrGeometry, ctr_geometry_free)

G_END_DECLS
