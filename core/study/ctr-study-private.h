/* ctr-study-private.h — the study's insides, shared by ctr-study.c,
 * ctr-study-json.c, ctr-study-plot.c and ctr-montage.c. */
#pragma once

#include <cairo.h>
#include "study/ctr-study.h"
#include "quality/ctr-detectability.h"

/* @surface as a PNG at @path: written to a temporary file beside it and
 * renamed over it (mode 0644).  CTR_ERROR_IO.  For the study's figure and
 * the montage (ctr-montage.h). */
gboolean ctr_study_write_surface_png (cairo_surface_t *surface, const char *path, GError **error);

typedef struct {
  char *label;
  char *parameters;
  CtrReconOptions options;
} StudyMethod;

typedef struct {
  char *name;
  CtrRoi roi;
  CtrStudyRoiRole role;
} StudyRoi;

typedef struct {
  char *name;
  CtrRoi roi;                   /* a circle: the insert's nominal centre and radius */
  double cnr_lo, cnr_hi;        /* the TTF's CNR over the runs measured so far (under the lock) */
  guint cnr_n;                  /* how many: 0 before the first */
} StudyInsert;

/* Task-based image quality (STUDY.json "iq", ctr_study_set_iq*). */
typedef struct {
  gboolean on;                  /* any of the three was set: the CSV has the columns */
  gboolean has_nps;
  CtrRoi nps_roi;
  guint nps_size;               /* side of the NPS squares, pixels */
  GArray *inserts;              /* StudyInsert */
  gboolean has_task;
  CtrTask task;
  guint task_insert;            /* index into inserts: the TTF d′ uses */
} StudyIq;

/* The task-based figures of @img (slice nz/2) into @row (allocates
 * row->ttf_f50): NPS, TTF f50 per insert (its CNR into the insert's range,
 * under s->lock), d′.  A TTF or d′ that cannot be
 * measured on this image (CTR_ERROR_INVALID_DATA: no edge found in the
 * noise) is NaN; FALSE with CTR_ERROR_INVALID_ARGUMENT when the NPS ROI
 * holds no square or an insert lies outside the image.  ctr-study-iq.c. */
gboolean ctr_study_measure_iq (CtrStudy *s, const CtrVolume *img, CtrStudyRow *row, GError **error);

/* Slice nz/2 of @img in HU (nx·ny floats, a new array), the image the
 * task-based figures are measured on; NULL with CTR_ERROR_OUT_OF_MEMORY.
 * ctr-study-iq.c. */
float *ctr_study_iq_slice (const CtrStudy *s, const CtrVolume *img, GError **error);

/* The TTF of every insert pooled over the @n HU slices @slices (nx·ny of
 * @grid each: one method and dose's realisations, ctr_study_iq_slice)
 * into ttf_f50_pooled and ttf_cnr_pooled of @n rows from @first of
 * s->rows (under s->lock), and with a task and an NPS each row's d′ with
 * its own NPS and the task insert's pooled TTF (dprime_*_pooled).  A TTF
 * or d′ that cannot be measured is NaN; FALSE with CTR_ERROR_OUT_OF_MEMORY
 * (or the NPS's other errors).  ctr-study-iq.c. */
gboolean ctr_study_pool_iq (CtrStudy *s, const CtrGrid *grid, const float *const *slices, guint n, guint first,
                            GError **error);

struct _CtrStudy {
  char *dataset, *variant;      /* from STUDY.json; NULL when built in code */
  GArray *doses;                /* double */
  GArray *methods;              /* StudyMethod */
  GArray *rois;                 /* StudyRoi */
  GArray *rows;                 /* CtrStudyRow; its strings and arrays owned here */
  CtrDoseOptions dose;
  double mu_water;               /* the run's μ_water */
  gboolean mu_water_set;         /* given (STUDY.json, ctr_study_set_mu_water): wins over the data's */
  gboolean has_grid;
  CtrGrid grid;
  guint grid_size;              /* STUDY.json "grid": the size and pixel asked of the grid rule, ctr_grid_for_scan (0: default) */
  double grid_pixel_mm;
  double metrics_radius_mm;
  StudyIq iq;
  guint realisations;           /* noise realisations per dose (>= 1; dose 1 as the data are: one) */
  char *reference;              /* the equal-d′ dose's reference: a label or method name; NULL: the first */
  guint n_runs;                 /* runs of the last ctr_study_run (0 before) */
  char *title;
  gboolean rebuilt;             /* from rows (ctr-study-rows.h): no parameters, never run */
  GMutex lock;                  /* guards rows, title, mu_water while a run appends: the figure may be drawn live */
};
