/* ctr-view-trio.h — three slice views of one volume, as in 3D Slicer: a
 * main view of the chosen plane and two smaller ones of the other planes,
 * linked by one crosshair voxel and one window/level.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a widget: the page that holds the three CtrSliceViews embeds a
 * CtrViewTrio and routes its images, plane and slice through it.  The
 * crosshair is a voxel (i, j, k) of the volume shown; each view shows the
 * slice through it along its own axis (axial k, coronal j, sagittal i) and
 * draws it; a click on any view moves it (the other views' slices follow).
 * The window of one view (a drag, a preset, the automatic one) is every
 * view's.  A 2-D image shows in the main view alone.
 */
#pragma once

#include "ctr-slice-view.h"

G_BEGIN_DECLS

typedef void (*CtrViewTrioFunc) (gpointer data);

typedef struct {
  CtrSliceView       *views[3];  /* [0] the main view, [1] and [2] the other planes */
  CtrVolume          *image;     /* shown, a reference; nullable */
  guint               cross[3];  /* the crosshair voxel (i, j, k) */
  CtrSliceOrientation plane;     /* the main view's */
  gboolean            syncing;
  CtrViewTrioFunc     moved;     /* the main view's slice changed (a click) */
  CtrViewTrioFunc     window;    /* a view's window changed (drag, preset) */
  gpointer            data;
} CtrViewTrio;

/* Links @main, @a and @b (owned by the caller's widget, alive as long as
 * @trio is used); @moved and @window (nullable) are told with @data. */
void     ctr_view_trio_init            (CtrViewTrio         *trio,
                                        CtrSliceView        *main,
                                        CtrSliceView        *a,
                                        CtrSliceView        *b,
                                        CtrViewTrioFunc      moved,
                                        CtrViewTrioFunc      window,
                                        gpointer             data);
/* Drops the image (at the holder's dispose). */
void     ctr_view_trio_clear           (CtrViewTrio         *trio);
/* Shows @image (nullable; a reference is taken) in every view: a volume
 * with the same shape as the one shown keeps the crosshair (a live run
 * pages through its iterates at the chosen slices), another starts at its
 * centre voxel. */
void     ctr_view_trio_set_image       (CtrViewTrio         *trio,
                                        CtrVolume           *image);
/* The main view's plane; the other two show the remaining planes. */
void     ctr_view_trio_set_plane       (CtrViewTrio         *trio,
                                        CtrSliceOrientation  plane);
/* The main view's slice along its axis (clamped): the crosshair moves. */
void     ctr_view_trio_set_slice       (CtrViewTrio         *trio,
                                        guint                slice);
/* Moves the crosshair to voxel @voxel (clamped to the volume). */
void     ctr_view_trio_set_cross       (CtrViewTrio         *trio,
                                        const guint          voxel[3]);
/* The main view's window and HU display become the other two's (after a
 * preset was applied to the main view). */
void     ctr_view_trio_sync_window     (CtrViewTrio         *trio);
/* Every view back to the automatic window (the image's). */
void     ctr_view_trio_reset_window    (CtrViewTrio         *trio);

G_END_DECLS
