/* ctr-window-private.h — what ctr-window.c and ctr-window-actions.c share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-window.h"
#include "ctr-compare-page.h"
#include "ctr-geometry-panel.h"
#include "ctr-profile-page.h"
#include "ctr-run-page.h"
#include "ctr-study-page.h"

G_BEGIN_DECLS

struct _CtrWindow
{
  AdwApplicationWindow  parent_instance;

  CtrSession           *session;
  GCancellable         *cancellable;   /* the window's jobs; cancelled on close */
  GSettings            *settings;      /* nullable: no schema installed */
  GMenu                *recent_section;
  char                 *last_folder;   /* where the last save or export went; nullable */
  CtrRoiSet            *roi_set;       /* ROIs, ruler and μ_water of every slice view */

  /* template children */
  AdwToastOverlay      *toast_overlay;
  AdwSplitButton       *open_button;
  AdwViewSwitcherTitle *window_title;
  GtkStack             *content_stack;   /* "empty" (AdwStatusPage) until a dataset is open, then "pages" */
  AdwViewStack         *stack;
  CtrRunPage           *run_page;
  CtrGeometryPanel     *geometry_panel;
  CtrProfilePage       *profile_page;
  CtrComparePage       *compare_page;
  CtrStudyPage         *study_page;
};

/* ctr-window-actions.c */
void _ctr_window_class_actions_init (CtrWindowClass *klass);
void _ctr_window_update_actions     (CtrWindow      *self);

/* The folder a save or export chooser starts in: the last one used, else
 * the dataset's folder when it is writable, else the user's @fallback
 * folder (Pictures, Documents), else home.  Transfer full. */
char *_ctr_window_save_folder       (CtrWindow      *self,
                                     GUserDirectory  fallback);

/* ctr-window.c */
void _ctr_window_toast              (CtrWindow      *self,
                                     const char     *message);
void _ctr_window_show_error         (CtrWindow      *self,
                                     const char     *heading,
                                     const char     *message);
/* Loads the open dataset's @variant ("" or NULL: its default projections). */
void _ctr_window_load_variant       (CtrWindow      *self,
                                     const char     *variant);
/* Loads @path (a file or folder) or the dropped DICOM @files. */
void _ctr_window_load               (CtrWindow      *self,
                                     const char     *path,
                                     const char *const *files);

G_END_DECLS
