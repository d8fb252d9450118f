/* ctr-volume.h — reconstruction grids and images.
 *
 * A CtrVolume is float32 [z][y][x], x fastest.  Row 0 is +y (top of the
 * displayed image), column 0 is -x, slice 0 the lowest z (FORMAT.md).  A 2-D
 * image is a volume with nz = 1.  Voxel (ix, iy, iz) has its centre at
 *   x = cx + (ix - (nx-1)/2)·dx,  y = cy + ((ny-1)/2 - iy)·dy,
 *   z = cz + (iz - (nz-1)/2)·dz        (mm).
 * Volumes are reference counted; the data belong to the volume.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * CtrGrid:
 * Sizes (voxels), voxel spacing (mm) and centre (mm) of a reconstruction grid.
 * Plain value type.
 */
typedef struct {
  guint nx, ny, nz;
  double dx, dy, dz;
  double cx, cy, cz;
} CtrGrid;

typedef struct {
  /*< private >*/
  gint ref_count;
  /*< public >*/
  CtrGrid grid;
  float *data;      /* nx·ny·nz floats, [z][y][x] */
  char *unit;       /* "1/mm", "1/pixel", ...; may be NULL */
} CtrVolume;

/* A square nz-slice grid of n×n pixels of @pixel_mm, centred on the isocentre. */
CtrGrid ctr_grid_square (guint n, double pixel_mm, guint nz, double dz_mm);
gboolean ctr_grid_validate (const CtrGrid *grid, GError **error);
gboolean ctr_grid_equal (const CtrGrid *a, const CtrGrid *b);
static inline gsize ctr_grid_slice_size (const CtrGrid *g) { return (gsize) g->nx * g->ny; }
static inline gsize ctr_grid_size (const CtrGrid *g) { return (gsize) g->nx * g->ny * g->nz; }
/* Centre of column ix / row iy / slice iz, mm. */
static inline double ctr_grid_x (const CtrGrid *g, double ix) { return g->cx + (ix - (g->nx - 1) * 0.5) * g->dx; }
static inline double ctr_grid_y (const CtrGrid *g, double iy) { return g->cy + ((g->ny - 1) * 0.5 - iy) * g->dy; }
static inline double ctr_grid_z (const CtrGrid *g, double iz) { return g->cz + (iz - (g->nz - 1) * 0.5) * g->dz; }

/* Zero-filled volume; returns NULL with CTR_ERROR_OUT_OF_MEMORY or
 * CTR_ERROR_INVALID_ARGUMENT (bad grid).  Transfer full. */
CtrVolume *ctr_volume_new (const CtrGrid *grid, GError **error);
CtrVolume *ctr_volume_copy (const CtrVolume *v);
CtrVolume *ctr_volume_ref (CtrVolume *v);
void ctr_volume_unref (CtrVolume *v);
void ctr_volume_set_unit (CtrVolume *v, const char *unit);
static inline float *ctr_volume_slice (const CtrVolume *v, guint z) { return v->data + (gsize) z * ctr_grid_slice_size (&v->grid); }
/* Minimum and maximum over all voxels (NaN-free data assumed). */
void ctr_volume_range (const CtrVolume *v, float *min, float *max);

/* Bilinear sample of an nx × ny image [y][x] at the continuous index
 * (fx, fy); neighbours outside the image count as 0. */
double ctr_image_sample_bilinear (const float *img, guint nx, guint ny, double fx, double fy);

/* How ctr_volume_resample() maps the slices of the source onto the target. */
typedef enum {
  /* Slice by slice, z by index (the slices of a fan/parallel-beam stack, one
   * per detector row): the source has the target's number of slices, or one
   * slice that serves every target slice.  Bilinear in x and y. */
  CTR_RESAMPLE_SLICES,
  /* By position in mm: trilinear (a source of one slice serves every z). */
  CTR_RESAMPLE_VOLUME
} CtrResampleMode;

/**
 * ctr_volume_resample:
 * @src: the volume to resample (a reference image, typically).
 * @grid: the target grid.
 * @mode: see #CtrResampleMode.
 * Samples @src at the voxel centres of @grid; neighbours outside @src count
 * as 0.  A source already on @grid is copied.
 * Returns: (transfer full): the resampled volume with @src's unit, or NULL
 *   with CTR_ERROR_INVALID_ARGUMENT (CTR_RESAMPLE_SLICES and the slice counts
 *   disagree) or CTR_ERROR_OUT_OF_MEMORY.
 */
CtrVolume *ctr_volume_resample (const CtrVolume *src, const CtrGrid *grid, CtrResampleMode mode,
                                GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrVolume, ctr_volume_unref)

G_END_DECLS
