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

G_BEGIN_DECLS

struct _CtrWindow
{
  AdwApplicationWindow  parent_instance;

  CtrSession           *session;
  GCancellable         *cancellable;   /* the window's jobs; cancelled on close */
  GSettings            *settings;      /* nullable: no schema installed */
  GMenu                *recent_section;

  /* template children */
  AdwToastOverlay      *toast_overlay;
  AdwSplitButton       *open_button;
  AdwViewSwitcherTitle *window_title;
  AdwViewStack         *stack;
  CtrRunPage           *run_page;
  CtrGeometryPanel     *geometry_panel;
  CtrProfilePage       *profile_page;
  CtrComparePage       *compare_page;
};

/* ctr-window-actions.c */
void _ctr_window_class_actions_init (CtrWindowClass *klass);
void _ctr_window_update_actions     (CtrWindow      *self);

/* ctr-window.c */
void _ctr_window_toast              (CtrWindow      *self,
                                     const char     *message);
void _ctr_window_show_error         (CtrWindow      *self,
                                     const char     *heading,
                                     const char     *message);
/* Loads @path (a file or folder) or the dropped DICOM @files. */
void _ctr_window_load               (CtrWindow      *self,
                                     const char     *path,
                                     const char *const *files);

G_END_DECLS
