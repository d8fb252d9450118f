/* ctr-study-page-dose.c — the Dose study page's I0 row: the photons per
 * bin of the open dataset before any run (ctr-study-page-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stated I0 (an "I0" key, DICOM photon statistics) and a flat field are
 * shown at once.  Line integrals that state neither are estimated from the
 * sinogram's noise (ctr_noise_estimate_i0, as ctrecon-cli noise): tens of
 * milliseconds on a 720-view scan, so it runs in a GTask thread on a
 * reference of the projections (the session may replace or free its
 * dataset meanwhile) instead of in the page's notify::dataset handler, where
 * it held the main thread while the window laid out the new dataset.  The
 * row says "Estimating…" meanwhile and Run waits unless an I0 is typed.  A
 * new dataset, or the page going away, cancels the estimate: a result that
 * arrives for an earlier dataset is dropped, never shown.  A value typed
 * while the estimate ran is kept; the estimate is then only stated.  The
 * task holds no reference to the page (a weak one, as the study's job): its
 * last reference may be dropped in the worker thread, and a widget must
 * not be finalized there.
 */
#define G_LOG_DOMAIN "ctr-study-page"

#include <math.h>

#include "ctr-study-page-private.h"

typedef struct {
  CtrProjections *projections;   /* a reference, released when the task ends */
} Request;

typedef struct {
  double  i0;        /* the estimate; +Inf: noiseless; NaN: none, @problem says why */
  char   *problem;
} Estimate;

static void
request_free (gpointer data)
{
  Request *r = data;

  ctr_projections_unref (r->projections);
  g_free (r);
}

static void
estimate_free (gpointer data)
{
  Estimate *e = data;

  g_free (e->problem);
  g_free (e);
}

/* Worker thread: only the request's own projections are read. */
static void
estimate_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Request *r = task_data;
  Estimate *e = g_new0 (Estimate, 1);
  g_autoptr(GError) error = NULL;

  e->i0 = ctr_noise_estimate_i0 (r->projections, &error);
  if (error != NULL)
    e->problem = g_strdup (error->message);
  g_task_return_pointer (task, e, estimate_free);
}

static void
set_subtitle (CtrStudyPage *self, const char *subtitle)
{
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (self->i0_spin), ADW_TYPE_ACTION_ROW);

  if (row != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
}

/* Main thread: the estimate of the dataset still open (a cancelled task,
 * i.e. one for an earlier dataset or a page being disposed, is dropped). */
static void
estimate_done (GObject *source, GAsyncResult *result, gpointer data)
{
  GWeakRef *page = data;
  g_autoptr(CtrStudyPage) self = g_weak_ref_get (page);
  GTask *task = G_TASK (result);
  g_autoptr(GError) error = NULL;
  Estimate *e = g_task_propagate_pointer (task, &error);
  g_autofree char *subtitle = NULL;
  gboolean typed;

  g_weak_ref_clear (page);
  g_free (page);
  if (e == NULL || self == NULL || g_task_get_cancellable (task) != self->dose_cancellable)
    {
      g_clear_pointer (&e, estimate_free);
      return;
    }
  g_clear_object (&self->dose_cancellable);
  typed = gtk_spin_button_get_value (self->i0_spin) > 0;
  if (isfinite (e->i0) && e->i0 > 0)
    {
      double i0 = round (e->i0);
      if (!typed)
        gtk_spin_button_set_value (self->i0_spin, i0);
      subtitle = g_strdup_printf ("Estimated from the sinogram's noise: %.0f photons per bin (the data state "
                                  "no I0; ctrecon-cli noise gives the same estimate)%s",
                                  i0, typed ? "; the value typed is used" : "");
    }
  else if (isinf (e->i0))
    subtitle = g_strdup ("The sinogram shows no noise (noiseless data): type the I0 they stand for");
  else
    subtitle = g_strdup_printf ("Unknown (%s): type the data's I0", e->problem != NULL ? e->problem : "no estimate");
  set_subtitle (self, subtitle);
  estimate_free (e);
  _ctr_study_page_set_estimating (self, FALSE);
}

void
_ctr_study_page_stop_dose (CtrStudyPage *self)
{
  if (self->dose_cancellable != NULL)
    {
      g_cancellable_cancel (self->dose_cancellable);
      g_clear_object (&self->dose_cancellable);
    }
  _ctr_study_page_set_estimating (self, FALSE);
}

void
_ctr_study_page_show_dose (CtrStudyPage *self, const CtrDataset *d)
{
  const CtrProjections *p = d->projections;
  g_autoptr(GTask) task = NULL;
  GWeakRef *page;
  Request *r;

  _ctr_study_page_stop_dose (self);
  if (p == NULL || (isfinite (p->i0) && p->i0 > 0) || p->flat != NULL || p->kind == CTR_PROJ_COUNTS)
    {
      g_autofree char *subtitle = NULL;
      double i0 = 0;

      if (p == NULL)
        subtitle = g_strdup ("No projections");
      else if (isfinite (p->i0) && p->i0 > 0)
        {
          i0 = p->i0;
          subtitle = g_strdup_printf ("%.0f photons per bin, as the data state", i0);
        }
      else
        subtitle = g_strdup ("0: from the data's open-beam (flat) counts");
      gtk_spin_button_set_value (self->i0_spin, i0);
      set_subtitle (self, subtitle);
      return;
    }

  /* 0 ("as the data state") until the estimate comes */
  gtk_spin_button_set_value (self->i0_spin, 0);
  set_subtitle (self, "Estimating the dose from the sinogram's noise…");
  self->dose_cancellable = g_cancellable_new ();
  r = g_new0 (Request, 1);
  r->projections = ctr_projections_ref ((CtrProjections *) p);
  page = g_new (GWeakRef, 1);
  g_weak_ref_init (page, self);
  task = g_task_new (NULL, self->dose_cancellable, estimate_done, page);
  g_task_set_source_tag (task, _ctr_study_page_show_dose);
  g_task_set_task_data (task, r, request_free);
  _ctr_study_page_set_estimating (self, TRUE);
  g_task_run_in_thread (task, estimate_thread);
}
