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
#include "ctr-projection-page.h"

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
  char                 *session_path;  /* the session last saved or opened; nullable */
  char                 *saving_path;   /* the session being saved; nullable */
  gboolean              close_confirmed; /* closing despite unsaved runs */
  gboolean              close_after_save; /* Save… answered the question before closing */
  gboolean              discarded;     /* the runs were discarded: no last session kept */

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
  CtrProjectionPage    *projection_page;  /* not a template child */
};

/* ctr-window-actions.c */
void _ctr_window_class_actions_init (CtrWindowClass *klass);
void _ctr_window_update_actions     (CtrWindow      *self);

/* The folder a save or export chooser starts in: the last one used, else
 * the dataset's folder when it is writable, else the user's @fallback
 * folder (Pictures, Documents), else home.  Transfer full. */
char *_ctr_window_save_folder       (CtrWindow      *self,
                                     GUserDirectory  fallback);

/* A file chooser: opening starts in the loaded dataset's folder; saving in
 * _ctr_window_save_folder (@fallback). */
GtkFileChooserNative *_ctr_window_new_chooser (CtrWindow           *self,
                                               const char          *title,
                                               GtkFileChooserAction action,
                                               const char          *accept,
                                               GUserDirectory       fallback);

/* ctr-window-session.c */
void     _ctr_window_session_actions_init (CtrWindowClass *klass);
/* Opens the session folder @path (ctr-session-file.h): its runs replace
 * the window's (asked first when they are unsaved), its ROIs and
 * calibration come back, its dataset loads. */
void     _ctr_window_open_session      (CtrWindow      *self,
                                        const char     *path);
/* Saves the session as @path (".ctrsession" appended when missing). */
void     _ctr_window_save_session      (CtrWindow      *self,
                                        const char     *path);
/* TRUE when closing waits for the user's answer (unsaved runs). */
gboolean _ctr_window_ask_before_close  (CtrWindow      *self);
/* On close: the runs kept as the last session (unless discarded). */
void     _ctr_window_keep_last_session (CtrWindow      *self);
/* The empty page's Restore Last Session, shown when there is one. */
void     _ctr_window_offer_last_session (CtrWindow     *self);

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
