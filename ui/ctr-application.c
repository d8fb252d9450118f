/* ctr-application.c — the GUI application: windows and accelerators.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `ctrecon [FILE …]` opens each dataset (a geometry.json, a DICOM file or
 * folder) in a window: an idle window without a dataset is reused, others
 * get a window of their own.  Quitting closes every window, which cancels
 * its work.
 */
#define G_LOG_DOMAIN "ctr-application"

#include "ctr-application.h"
#include "ctr-window.h"

struct _CtrApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (CtrApplication, ctr_application, ADW_TYPE_APPLICATION)

static void
ctr_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (ctr_window_new (GTK_APPLICATION (app)));
  gtk_window_present (window);
}

/* An open window with nothing loaded and nothing running. */
static gboolean
is_idle_and_empty (GtkWindow *window)
{
  CtrSession *session;

  if (window == NULL || !CTR_IS_WINDOW (window))
    return FALSE;
  session = ctr_window_get_session (CTR_WINDOW (window));
  return ctr_session_get_dataset (session) == NULL && !ctr_session_get_busy (session);
}

static void
ctr_application_open (GApplication  *app,
                      GFile        **files,
                      int            n_files,
                      const char    *hint)
{
  for (int i = 0; i < n_files; i++)
    {
      GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));
      CtrWindow *window = is_idle_and_empty (active) ? CTR_WINDOW (active)
                                                     : ctr_window_new (GTK_APPLICATION (app));

      ctr_window_open (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
}

static void
ctr_application_startup (GApplication *app)
{
  static const char *reconstruct_accels[] = { "<Ctrl>r", NULL };
  static const char *cancel_accels[] = { "Escape", NULL };
  static const char *open_accels[] = { "<Ctrl>o", NULL };
  static const char *quit_accels[] = { "<Ctrl>q", NULL };

  G_APPLICATION_CLASS (ctr_application_parent_class)->startup (app);

  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.reconstruct", reconstruct_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.cancel-reconstruction", cancel_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open", open_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (user_data));

  /* Closing each window cancels its work (close-request). */
  for (GList *l = windows; l != NULL; )
    {
      GtkWindow *window = l->data;
      l = l->next;
      gtk_window_close (window);
    }
}

static void
ctr_application_class_init (CtrApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = ctr_application_activate;
  app_class->open = ctr_application_open;
  app_class->startup = ctr_application_startup;
}

static void
ctr_application_init (CtrApplication *self)
{
  static const GActionEntry app_actions[] = {
    { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
}

CtrApplication *
ctr_application_new (void)
{
  return g_object_new (CTR_TYPE_APPLICATION,
                       "application-id", "org.ctrecon.CtRecon",
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/org/ctrecon/CtRecon",
                       NULL);
}
