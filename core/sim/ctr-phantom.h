/* ctr-phantom.h — analytic phantoms: exact images and exact line integrals.
 *
 * A phantom is a sum of uniform ellipses (value in 1/mm added inside each).
 * Line integrals are computed in closed form (chord length of a line through
 * an ellipse), never by sampling an image, so they are an independent truth
 * for tests and a realistic default scan for the main job.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "base/ctr-spectrum.h"

G_BEGIN_DECLS

/**
 * CtrEllipse:
 * Centre (@x_mm, @y_mm), semi-axes @a_mm (along the ellipse's own x axis,
 * after rotation by @phi_rad counter-clockwise) and @b_mm, and @value (1/mm),
 * added to whatever lies beneath.
 */
typedef struct {
  double x_mm, y_mm;
  double a_mm, b_mm;
  double phi_rad;
  double value;
} CtrEllipse;

typedef struct {
  guint n;
  CtrEllipse *e;  /* n ellipses, owned */
} CtrPhantom;

CtrPhantom *ctr_phantom_new (guint n);
void ctr_phantom_free (CtrPhantom *ph);
/* One uniform disc of @radius_mm and attenuation @mu (1/mm), centred at (x, y). */
CtrPhantom *ctr_phantom_new_disc (double x_mm, double y_mm, double radius_mm, double mu);
/* The Shepp-Logan head (Shepp & Logan 1974) with Toft's higher-contrast values
 * scaled so the skull is @mu_scale (1/mm), fitted into a disc of @radius_mm
 * (the classic semi-axes 0.69 × 0.92 of a unit disc). */
CtrPhantom *ctr_phantom_new_shepp_logan (double radius_mm, double mu_scale);
/* A head of realistic attenuation for the default scan: skull (bone, 0.038 /mm),
 * brain (0.0202 /mm ≈ 50 HU), ventricles (CSF 0.0194), low-contrast lesions of
 * ±10-30 HU and a dense insert, inside @radius_mm. mu_water = 0.0192 /mm. */
CtrPhantom *ctr_phantom_new_head (double radius_mm);

/**
 * CtrIqInsert:
 * One insert of the image-quality phantom: @name (for CSV columns and
 * labels) and its CT number @hu (HU = 1000·(μ − μ_water)/μ_water,
 * μ_water = CTR_MU_WATER_PER_MM).
 */
typedef struct {
  const char *name;
  double hu;
} CtrIqInsert;

/* Insert radius as a fraction of the phantom's radius: 12.5 mm (25 mm
 * diameter) for radius 100 mm. */
#define CTR_IQ_INSERT_RADIUS 0.125

/* The image-quality phantom's inserts, in order (static; @n receives their
 * count): ldpe −100 (lung/fat-like), polystyrene −35 (fat-like), tissue
 * +20, acrylic +120, delrin +340 (bone-like), teflon +990 HU (dense bone):
 * the nominal values of the Catphan CTP404 module, plus a +20 HU tissue. */
const CtrIqInsert *ctr_phantom_iq_inserts (guint *n);
/* Centre (mm) of insert @i for a phantom of @radius_mm: on the ring of
 * radius 0.6·@radius_mm, at i·60° counter-clockwise from +x. */
void ctr_phantom_iq_insert_centre (guint i, double radius_mm, double *x_mm, double *y_mm);
/**
 * ctr_phantom_new_iq:
 * A task-based image-quality phantom (AAPM TG-233): a water cylinder
 * (CTR_MU_WATER_PER_MM, 0 HU) of @radius_mm with the circular inserts of
 * ctr_phantom_iq_inserts, each of radius CTR_IQ_INSERT_RADIUS·@radius_mm
 * (25 mm diameter at 100 mm) centred on the ring of 0.6·@radius_mm; the
 * disc of radius 0.6 − 0.125 = 0.475·@radius_mm about the centre is uniform
 * water, for the NPS.  Free with ctr_phantom_free().
 */
CtrPhantom *ctr_phantom_new_iq (double radius_mm);

/* The head-iq phantom's insert radius as a fraction of the head's radius:
 * 5 mm (10 mm diameter) for radius 100 mm. */
#define CTR_HEAD_IQ_INSERT_RADIUS 0.05

/* Centre (mm) of insert @i of the head-iq phantom for a head of
 * @radius_mm: on the ring of radius 0.45·@radius_mm about the brain's
 * centre (0, −0.02·@radius_mm), at i·60° counter-clockwise from +x. */
void ctr_phantom_head_iq_insert_centre (guint i, double radius_mm, double *x_mm, double *y_mm);

/* The CT number (HU) of the head phantom's brain, the background of the
 * head-iq phantom's inserts: 1000·(0.0202 − μ_water)/μ_water ≈ 52.1. */
double ctr_phantom_head_brain_hu (void);

/**
 * ctr_phantom_new_head_iq:
 * The inserts of the image-quality phantom (ctr_phantom_iq_inserts: the
 * same CT numbers, −100 … +990 HU) placed into the brain of the head
 * phantom (ctr_phantom_new_head, without its four lesions: the inserts are
 * the task's objects), each of radius CTR_HEAD_IQ_INSERT_RADIUS·@radius_mm
 * at ctr_phantom_head_iq_insert_centre: a clinical-looking task (AAPM
 * TG-233) behind the skull.  Each insert lies 13.5 mm or more (at radius
 * 100 mm) from the ventricles, the skull and the other inserts, so a TTF's
 * background ring (ctr-ttf.h) sees brain only.  Free with ctr_phantom_free().
 */
CtrPhantom *ctr_phantom_new_head_iq (double radius_mm);

/* Exact image: each pixel the mean of @supersample² point samples (>= 1). */
CtrVolume *ctr_phantom_rasterize (const CtrPhantom *ph, const CtrGrid *grid,
                                  guint supersample, GError **error);

/**
 * ctr_phantom_project:
 * Exact line integrals of @ph for fan or parallel geometry @g (every detector
 * row gets the same 2-D sinogram), each bin the mean of @rays_per_bin rays
 * spread uniformly over the bin's width (>= 1), OpenMP over views.
 * Returns: (transfer full): line integrals [view][row][col], or NULL with
 *   CTR_ERROR_INVALID_GEOMETRY / CTR_ERROR_OUT_OF_MEMORY.
 */
CtrProjections *ctr_phantom_project (const CtrPhantom *ph, const CtrGeometry *g,
                                     guint rays_per_bin, GError **error);

/**
 * ctr_phantom_project_spectrum:
 * As ctr_phantom_project(), through the polychromatic spectrum @spectrum
 * (base/ctr-spectrum.h) in the single-material (water) model: every ellipse
 * is water at the density value/CTR_MU_WATER_PER_MM, so a ray whose
 * monochromatic line integral is s has the water path L = s/CTR_MU_WATER_PER_MM
 * and the line integral ctr_spectrum_water_line_integral(@spectrum, L)
 * (before the mean over the bin's rays).  Exact for the water disc; for
 * phantoms of several materials it is water's beam hardening only.
 * Returns: as ctr_phantom_project().
 */
CtrProjections *ctr_phantom_project_spectrum (const CtrPhantom *ph, const CtrGeometry *g, guint rays_per_bin,
                                              const CtrSpectrum *spectrum, GError **error);

/* Exact length (mm) of the line origin + t·dir (unit dir) inside ellipse @e. */
double ctr_ellipse_chord (const CtrEllipse *e, const double origin[2], const double dir[2]);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrPhantom, ctr_phantom_free)

G_END_DECLS
