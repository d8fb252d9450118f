/* ctr-test-dicom.c — a scripted DICOM session of the real window, for UI tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Like ctr-test-driver.c: each step acts through the window's public API or
 * the dialog's, waits for what a user would wait for, and checks widgets.
 * The folder it opens holds two projection series (run-ui-test.sh links
 * gel-fan's 72 DICOM-CT-PD views and part of head-fan-lowdose's, with views
 * left out), so the series dialog has to appear and state the gap.
 */
#define G_LOG_DOMAIN "ctr-test-dicom"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ctr-test-driver.h"
#include "ctr-dicom-open.h"

typedef struct {
  CtrWindow *window;
  char      *out_dir;
  void     (*done) (int, gpointer);
  gpointer   user_data;
  int        failures;
  int        checks;
  guint      step;
  guint      frames;
  guint      polls;
  gint64     t0;
  gboolean   xa;        /* the XA session: geometry dialog */
  char     **gel_files; /* the 72 views of gel-fan's series, for the drop */
} Session;

static void next_step (Session *s);

static void
check (Session *s, gboolean ok, const char *format, ...)
{
  va_list args;
  g_autofree char *what = NULL;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  s->checks++;
  if (!ok)
    s->failures++;
  g_print ("%s %s\n", ok ? "ok  " : "FAIL", what);
}

static void
finish (Session *s)
{
  g_print ("%d of %d checks failed\n", s->failures, s->checks);
  s->done (s->failures, s->user_data);
}

typedef struct {
  Session   *s;
  GtkWidget *widget;
  char      *name;
} Shot;

static gboolean
shot_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Shot *shot = data;
  Session *s = shot->s;

  if (++s->frames < 4)
    return G_SOURCE_CONTINUE;
  {
    g_autofree char *path = g_build_filename (s->out_dir, shot->name, NULL);
    check (s, ctr_test_driver_save_png (widget, path), "screenshot %s", path);
  }
  g_free (shot->name);
  g_free (shot);
  next_step (s);
  return G_SOURCE_REMOVE;
}

static void
screenshot_then_next (Session *s, GtkWidget *widget, const char *name)
{
  Shot *shot = g_new0 (Shot, 1);

  shot->s = s;
  shot->widget = widget;
  shot->name = g_strdup (name);
  s->frames = 0;
  gtk_widget_queue_draw (widget);
  gtk_widget_add_tick_callback (widget, shot_tick, shot, NULL);
}

/* Step 1 waits for the series dialog (the scan runs in the loading thread). */
static gboolean
poll_dialog (gpointer data)
{
  Session *s = data;

  if (ctr_window_get_dialog (s->window) != NULL)
    {
      next_step (s);
      return G_SOURCE_REMOVE;
    }
  if (++s->polls > 1200) /* 60 s */
    {
      check (s, FALSE, "the series dialog appeared within 60 s");
      finish (s);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
on_loaded (CtrWindow *window, const GError *error, Session *s)
{
  if (s->step != 2 && s->step != 5)
    {
      check (s, FALSE, "dataset-loaded only after the series was chosen (step %u)%s%s", s->step,
             error ? ": " : "", error ? error->message : "");
      return;
    }
  check (s, error == NULL, "%s loaded in %.2f s%s%s", s->step == 2 ? "the chosen series" : "the dropped files",
         (g_get_monotonic_time () - s->t0) / 1e6, error ? ": " : "", error ? error->message : "");
  if (error != NULL)
    {
      finish (s);
      return;
    }
  g_idle_add_once ((GSourceOnceFunc) next_step, s);
}

static void
on_finished (CtrWindow *window, const GError *error, Session *s)
{
  check (s, error == NULL, "SIRT on the DICOM series finished in %.2f s%s%s",
         (g_get_monotonic_time () - s->t0) / 1e6, error ? ": " : "", error ? error->message : "");
  if (error != NULL)
    {
      finish (s);
      return;
    }
  g_idle_add_once ((GSourceOnceFunc) next_step, s);
}

static guint
count_files (const char *dir, const char *suffix)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, suffix))
      n++;
  return n;
}

/* The XA session: an X-ray angiography file without SOD, SDD, pixel
 * spacing and angles; the dialog refuses bad values with the reason, then
 * loads with the typed ones. */
static void
next_xa_step (Session *s)
{
  CtrWindow *w = s->window;
  GtkWidget *dialog = ctr_window_get_dialog (w);

  switch (s->step)
    {
    case 1:
      {
        const char *r;

        check (s, !ctr_window_has_dataset (w) && !ctr_dicom_xa_dialog_can_load (dialog),
               "the geometry dialog is shown, Load disabled while the fields are empty");
        r = ctr_dicom_xa_dialog_set_text (dialog, "sod", "75o");
        check (s, r && strstr (r, "not a number"), "SOD “75o” refused: “%s”", r ? r : "(no field)");
        r = ctr_dicom_xa_dialog_set_text (dialog, "sod", "750");
        check (s, r && *r == '\0', "SOD 750 mm accepted");
        r = ctr_dicom_xa_dialog_set_text (dialog, "sdd", "500");
        check (s, r && strstr (r, "exceed"), "SDD 500 mm (< SOD) refused: “%s”", r ? r : "(no field)");
        ctr_dicom_xa_dialog_set_text (dialog, "sdd", "1200");
        r = ctr_dicom_xa_dialog_set_text (dialog, "pitch-u", "-0.3");
        check (s, r && strstr (r, "positive"), "pixel width −0.3 mm refused: “%s”", r ? r : "(no field)");
        ctr_dicom_xa_dialog_set_text (dialog, "pitch-u", "0.6");
        ctr_dicom_xa_dialog_set_text (dialog, "pitch-v", "0.6");
        ctr_dicom_xa_dialog_set_text (dialog, "start", "0");
        r = ctr_dicom_xa_dialog_set_text (dialog, "step", "0");
        check (s, r && *r != '\0', "angle step 0 refused: “%s”", r ? r : "(no field)");
        ctr_dicom_xa_dialog_set_text (dialog, "step", "10");
        check (s, ctr_dicom_xa_dialog_can_load (dialog), "all fields valid: Load enabled");
        screenshot_then_next (s, dialog, "ui-dicom-xa.png");
      }
      break;

    case 2:
      s->t0 = g_get_monotonic_time ();
      ctr_dicom_xa_dialog_confirm (dialog);
      check (s, ctr_window_is_busy (w), "Load starts loading the frames");
      break; /* on_loaded goes on */

    case 3:
      {
        const char *summary = ctr_window_get_summary (w);
        g_print ("     summary: %s\n", summary ? summary : "(none)");
        check (s, summary && strstr (summary, "cone") && strstr (summary, "SOD 750") &&
                  strstr (summary, "SDD 1200") && strstr (summary, "36 views"),
               "the summary shows a cone beam of 36 views with SOD 750 and SDD 1200 mm");
        check (s, ctr_window_can_reconstruct (w), "Reconstruct is enabled");
        finish (s);
      }
      break;

    default:
      finish (s);
      break;
    }
}

static void
next_step (Session *s)
{
  CtrWindow *w = s->window;
  GtkWidget *dialog = ctr_window_get_dialog (w);

  s->step++;
  if (s->xa)
    {
      next_xa_step (s);
      return;
    }
  switch (s->step)
    {
    case 1: /* the series dialog: both series with their reports */
      {
        const CtrDicomSeries *a = ctr_dicom_series_dialog_get_series (dialog, 0);
        const CtrDicomSeries *b = ctr_dicom_series_dialog_get_series (dialog, 1);
        gboolean gap = (a && a->n_missing > 0 && strstr (a->report, "missing")) ||
                       (b && b->n_missing > 0 && strstr (b->report, "missing"));

        check (s, !ctr_window_has_dataset (w) && !ctr_window_is_busy (w),
               "waiting for the choice: no dataset, not busy");
        check (s, a && b && !ctr_dicom_series_dialog_get_series (dialog, 2),
               "the dialog lists the 2 projection series");
        if (a && b)
          g_print ("     series 1: %s\n     series 2: %s\n", a->report, b->report);
        check (s, gap, "one report states the missing views");
        screenshot_then_next (s, dialog, "ui-dicom-series.png");
      }
      break;

    case 2: /* choose gel-fan's series (72 views) */
      {
        int pick = -1;
        for (guint i = 0; i < 2; i++)
          {
            const CtrDicomSeries *x = ctr_dicom_series_dialog_get_series (dialog, i);
            if (x && x->n_views == 72 && x->n_missing == 0)
              {
                pick = i;
                g_strfreev (s->gel_files);
                s->gel_files = g_strdupv (x->files);
              }
          }
        check (s, pick >= 0, "gel-fan's 72-view series is offered");
        if (pick < 0)
          {
            finish (s);
            return;
          }
        s->t0 = g_get_monotonic_time ();
        ctr_dicom_series_dialog_choose (dialog, pick);
        check (s, ctr_window_is_busy (w), "choosing the series starts loading it");
      }
      break; /* on_loaded goes on */

    case 3: /* the summary, recent files, then SIRT */
      {
        const char *summary = ctr_window_get_summary (w);
        check (s, summary && strstr (summary, "DICOM") && strstr (summary, "72 views"),
               "the summary shows the DICOM report (72 views)");
        check (s, ctr_window_get_n_recent (w) >= 1, "the folder is in the recent files (%u entries)",
               ctr_window_get_n_recent (w));
        check (s, ctr_window_can_reconstruct (w), "Reconstruct is enabled");
        ctr_method_panel_set_method (ctr_window_get_method_panel (w), CTR_METHOD_SIRT);
        ctr_method_panel_set_param (ctr_window_get_method_panel (w), "iterations", 5, NULL);
        s->t0 = g_get_monotonic_time ();
        gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
      }
      break; /* on_finished goes on */

    case 4: /* the result: HU read-out, HU preset, DICOM export */
      {
        CtrVolume *v = ctr_window_get_result (w);
        g_autofree char *folder = g_build_filename (s->out_dir, "dicom-export", NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(GPtrArray) back = NULL;
        gboolean hu_unit = v && g_strcmp0 (v->unit, "1/mm") == 0;

        check (s, v != NULL && ctr_window_get_n_runs (w) == 1, "one result");
        if (v == NULL)
          {
            finish (s);
            return;
          }
        {
          guint ix = v->grid.nx / 2, iy = v->grid.ny / 2;
          g_autofree char *info = ctr_window_describe_pixel (w, ix, iy);
          float mu = v->data[(gsize) iy * v->grid.nx + ix];
          double hu = 1000.0 * (mu - 0.0192) / 0.0192;
          g_autofree char *expect = g_strdup_printf ("%+.0f HU", hu);

          g_print ("     pointer read-out at the centre: %s\n", info ? info : "(none)");
          if (hu_unit)
            check (s, info && strstr (info, expect) && strstr (info, "0.0192"),
                   "the read-out states %s with μ_water 0.0192 /mm", expect);
          else
            check (s, info && !strstr (info, "HU"), "no HU for an image in %s", v->unit ? v->unit : "no unit");
        }
        check (s, ctr_window_apply_preset (w, "hu") == hu_unit,
               "the HU preset %s", hu_unit ? "applies" : "is refused for this unit");

        {
          /* a fresh folder: leftovers of an earlier run would be counted */
          g_autoptr(GDir) d = g_dir_open (folder, 0, NULL);
          const char *name;
          while (d != NULL && (name = g_dir_read_name (d)) != NULL)
            {
              g_autofree char *f = g_build_filename (folder, name, NULL);
              g_remove (f);
            }
        }
        check (s, ctr_window_export_dicom (w, folder, &error), "DICOM series exported to %s%s%s", folder,
               error ? ": " : "", error ? error->message : "");
        g_clear_error (&error);
        back = ctr_dicom_scan (folder, NULL, &error);
        check (s, back && back->len == 1 && ((CtrDicomSeries *) back->pdata[0])->kind == CTR_DICOM_KIND_IMAGE &&
                  ((CtrDicomSeries *) back->pdata[0])->n_files == v->grid.nz &&
                  count_files (folder, ".dcm") == v->grid.nz,
               "it scans back as one image series of %u file(s)%s%s", v->grid.nz, error ? ": " : "",
               error ? error->message : "");
        screenshot_then_next (s, GTK_WIDGET (w), "ui-dicom.png");
      }
      break;

    case 5: /* drag and drop of many files: every other view of gel-fan */
      {
        g_autoptr(GPtrArray) half = g_ptr_array_new ();
        for (guint i = 0; s->gel_files && s->gel_files[i]; i += 2)
          g_ptr_array_add (half, s->gel_files[i]);
        g_ptr_array_add (half, NULL);
        check (s, half->len == 37, "36 of the 72 files to drop");
        s->t0 = g_get_monotonic_time ();
        ctr_window_open_files (w, (const char *const *) half->pdata);
        check (s, ctr_window_is_busy (w), "the dropped files are loading");
      }
      break; /* on_loaded goes on */

    case 6:
      {
        const char *summary = ctr_window_get_summary (w);
        check (s, summary && strstr (summary, "36 files, 36 views") && strstr (summary, "missing"),
               "the summary reports 36 views and the missing ones");
        g_print ("     summary: %s\n", summary ? summary : "(none)");
        finish (s);
      }
      break;

    default:
      finish (s);
      break;
    }
}

static void
session_free (gpointer data)
{
  Session *s = data;
  g_free (s->out_dir);
  g_strfreev (s->gel_files);
  g_free (s);
}

void
ctr_test_dicom_start (CtrWindow  *window,
                      gboolean    xa,
                      const char *out_dir,
                      void      (*done) (int failures, gpointer user_data),
                      gpointer    user_data)
{
  Session *s = g_new0 (Session, 1);

  s->window = window;
  s->xa = xa;
  s->out_dir = g_strdup (out_dir);
  s->done = done;
  s->user_data = user_data;
  g_object_set_data_full (G_OBJECT (window), "ctr-test-dicom", s, session_free);
  g_signal_connect (window, "dataset-loaded", G_CALLBACK (on_loaded), s);
  g_signal_connect (window, "reconstruction-finished", G_CALLBACK (on_finished), s);
  g_timeout_add (50, poll_dialog, s);
}
