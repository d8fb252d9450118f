/* ctr-compare-page-private.h — what ctr-compare-page.c (the tiles) and
 * ctr-compare-menu.c (the "Runs" menu and the "Difference" drop-downs)
 * share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-compare-page.h"
#include "ctr-slice-plane.h"

G_BEGIN_DECLS

struct _CtrComparePage
{
  GtkWidget      parent_instance;

  CtrSession    *session;
  GPtrArray     *views;          /* CtrSliceView*, in the grid's order */
  gboolean       linking;
  char          *preset;         /* the Run page's window preset (ctr-hu-preset.h) */
  CtrRoiSet     *roi_set;        /* the window's ROIs, drawn on every tile */
  double         roi_mu_water;   /* its μ_water the captions were made with */

  /* what is shown */
  GArray        *chosen;         /* guint run numbers; NULL: the newest three */
  gboolean       show_reference;
  guint          diff_a;         /* 0: automatic; G_MAXUINT: none */
  guint          diff_b;         /* 0: the reference */

  /* the plane and position of volume tiles (ctr-compare-place.c) */
  gboolean       have_place;
  CtrSliceOrientation plane;
  double         place_mm[3];    /* x, y, z */
  gboolean       setting_place;  /* while the controls are set from the state */

  /* the menu's state (ctr-compare-menu.c) */
  gboolean       updating;       /* while the controls are set from the state */
  char          *menu_key;       /* the results the menu was built for */
  GArray        *a_numbers;      /* guint: what each "Difference" entry means */
  GArray        *b_numbers;

  /* template children */
  GtkWidget     *content;
  GtkLabel      *compare_label;
  GtkMenuButton *runs_button;
  GtkDropDown   *diff_a_drop;
  GtkDropDown   *diff_b_drop;
  GtkGrid       *compare_grid;
  GtkWidget     *place_bar;
  GtkDropDown   *plane_drop;
  GtkAdjustment *slice_adj;
};

/* ctr-compare-page.c: (transfer none) (nullable) the result of run @number. */
CtrRun *_ctr_compare_page_find_result (CtrComparePage *self,
                                       guint           number);
/* The run numbers shown now, in order (transfer full). */
GArray *_ctr_compare_page_shown_runs  (CtrComparePage *self);

/* ctr-compare-menu.c: sets the menu and drop-downs from the page's state,
 * rebuilding them when the results changed. */
void    _ctr_compare_menu_sync        (CtrComparePage *self);
/* Connects the drop-downs (once, at init). */
void    _ctr_compare_menu_init        (CtrComparePage *self);

/* ctr-compare-page.c: the tiles' captions anew (the difference's RMS is
 * of the plane shown); emits "place-changed". */
void    _ctr_compare_page_update_captions (CtrComparePage *self);
void    _ctr_compare_page_place_changed   (CtrComparePage *self);

/* ctr-compare-place.c: the slice of @image a tile shows at the page's
 * plane and position (set the tile's orientation to self->plane first);
 * the Plane and Slice controls from the tiles; their signals (at init). */
guint   _ctr_compare_place_slice      (CtrComparePage  *self,
                                       const CtrVolume *image);
void    _ctr_compare_place_sync       (CtrComparePage  *self);
void    _ctr_compare_place_init       (CtrComparePage  *self);

G_END_DECLS
