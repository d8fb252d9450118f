/* ctr-iq-panel.c — the image-quality panel's form, its runs and its
 * measurements (see ctr-iq-panel.h; the results are shown by
 * ctr-iq-panel-show.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-iq-panel"

#include <math.h>
#include <string.h>

#include <adwaita.h>

#include "ctr-iq-panel-private.h"

G_DEFINE_FINAL_TYPE (CtrIqPanel, ctr_iq_panel, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_BUSY, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void queue_measure (CtrIqPanel *self);

/* ---- the runs ------------------------------------------------------------- */

static gboolean
run_measurable (CtrIqPanel *self, CtrRun *run)
{
  return ctr_run_is_of (run, ctr_session_get_dataset (self->session)) && ctr_run_has_image (run)
         && ctr_run_get_state (run) == CTR_RUN_FINISHED;
}

static void
on_run_toggled (CtrIqPanel *self)
{
  self->chosen = TRUE;
  queue_measure (self);
}

/* One check button per run of the open dataset with an image; the newest
 * two ticked unless the user chose. */
static void
rebuild_runs (CtrIqPanel *self)
{
  GListModel *runs = ctr_session_get_runs (self->session);
  g_autoptr(GHashTable) ticked = g_hash_table_new (NULL, NULL);
  GtkWidget *child;
  guint n = g_list_model_get_n_items (runs), shown = 0;

  while ((child = gtk_widget_get_first_child (self->runs_box)) != NULL)
    {
      if (GTK_IS_CHECK_BUTTON (child) && gtk_check_button_get_active (GTK_CHECK_BUTTON (child)))
        g_hash_table_add (ticked, GUINT_TO_POINTER (ctr_run_get_number (g_object_get_data (G_OBJECT (child), "run"))));
      gtk_box_remove (GTK_BOX (self->runs_box), child);
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      shown += run_measurable (self, run);
    }
  for (guint i = 0, k = 0; i < n; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      if (!run_measurable (self, run))
        continue;
      GtkWidget *check = gtk_check_button_new_with_label (ctr_run_get_label (run));
      g_autofree char *name = g_strdup_printf ("iq-run-%u", ctr_run_get_number (run));
      gtk_widget_set_name (check, name);
      g_object_set_data_full (G_OBJECT (check), "run", g_object_ref (run), g_object_unref);
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), self->chosen
                                   ? g_hash_table_contains (ticked, GUINT_TO_POINTER (ctr_run_get_number (run)))
                                   : k + 2 >= shown);
      g_signal_connect_swapped (check, "toggled", G_CALLBACK (on_run_toggled), self);
      gtk_box_append (GTK_BOX (self->runs_box), check);
      k++;
    }
  if (shown == 0)
    gtk_box_append (GTK_BOX (self->runs_box), gtk_label_new ("No finished run of this dataset yet"));
  queue_measure (self);
}

/* (transfer container): the ticked runs, in the session's order. */
static GPtrArray *
ticked_runs (CtrIqPanel *self)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  for (GtkWidget *c = gtk_widget_get_first_child (self->runs_box); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_CHECK_BUTTON (c) && gtk_check_button_get_active (GTK_CHECK_BUTTON (c)))
      g_ptr_array_add (out, g_object_ref (g_object_get_data (G_OBJECT (c), "run")));
  return out;
}

void
ctr_iq_panel_choose_runs (CtrIqPanel *self, const guint *numbers, guint n)
{
  g_return_if_fail (CTR_IS_IQ_PANEL (self));
  for (GtkWidget *c = gtk_widget_get_first_child (self->runs_box); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_CHECK_BUTTON (c))
      {
        guint number = ctr_run_get_number (g_object_get_data (G_OBJECT (c), "run"));
        gboolean on = FALSE;
        for (guint i = 0; i < n; i++)
          on |= numbers[i] == number;
        gtk_check_button_set_active (GTK_CHECK_BUTTON (c), on);
      }
  self->chosen = TRUE;
}

/* ---- the regions ---------------------------------------------------------- */

/* The circle ROIs of the set: their positions in it. */
static GArray *
circle_rois (CtrIqPanel *self)
{
  GListModel *set = G_LIST_MODEL (self->roi_set);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < g_list_model_get_n_items (set); i++)
    {
      g_autoptr(CtrRoiItem) item = g_list_model_get_item (set, i);
      if (ctr_roi_item_get_roi (item)->shape == CTR_ROI_CIRCLE)
        g_array_append_val (out, i);
    }
  return out;
}

static CtrRoiItem *
roi_at (CtrIqPanel *self, guint position)
{
  return g_list_model_get_item (G_LIST_MODEL (self->roi_set), position);
}

/* The NPS drop-down: the phantom's centre disc, then each circle ROI. */
static void
rebuild_regions (CtrIqPanel *self)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  g_autoptr(GArray) circles = circle_rois (self);
  GtkStringObject *was = gtk_drop_down_get_selected_item (self->nps_drop);
  g_autofree char *old = was != NULL ? g_strdup (gtk_string_object_get_string (was)) : NULL;
  guint keep = 0;

  gtk_string_list_append (names, "Phantom centre");
  for (guint i = 0; i < circles->len; i++)
    {
      g_autoptr(CtrRoiItem) item = roi_at (self, g_array_index (circles, guint, i));
      gtk_string_list_append (names, ctr_roi_item_get_name (item));
      if (old != NULL && g_str_equal (old, ctr_roi_item_get_name (item)))
        keep = i + 1;
    }
  g_signal_handlers_block_by_func (self->nps_drop, queue_measure, self);
  gtk_drop_down_set_model (self->nps_drop, G_LIST_MODEL (names));
  gtk_drop_down_set_selected (self->nps_drop, keep);
  g_signal_handlers_unblock_by_func (self->nps_drop, queue_measure, self);
  queue_measure (self);
}

CtrIqSetup *
ctr_iq_panel_get_setup (CtrIqPanel *self)
{
  CtrIqSetup *s = ctr_iq_setup_new ();
  g_autoptr(GArray) circles = circle_rois (self);
  const double radius = gtk_spin_button_get_value (self->radius_spin);
  guint nps = gtk_drop_down_get_selected (self->nps_drop);
  int nps_position = -1;

  if (nps >= 1 && nps <= circles->len)
    {
      g_autoptr(CtrRoiItem) item = roi_at (self, g_array_index (circles, guint, nps - 1));
      nps_position = (int) g_array_index (circles, guint, nps - 1);
      s->nps_roi = *ctr_roi_item_get_roi (item);
    }
  else /* the uniform disc of radius 0.475·R, less a margin for the blur */
    s->nps_roi = ctr_roi_circle (0, 0, 0.4 * radius);
  if (gtk_drop_down_get_selected (self->inserts_drop) == 1)
    for (guint i = 0; i < circles->len; i++)
      {
        g_autoptr(CtrRoiItem) item = roi_at (self, g_array_index (circles, guint, i));
        if ((int) g_array_index (circles, guint, i) != nps_position)
          ctr_iq_setup_add_insert (s, ctr_roi_item_get_name (item), ctr_roi_item_get_roi (item));
      }
  else
    {
      guint n = 0;
      const CtrIqInsert *ins = ctr_phantom_iq_inserts (&n);
      for (guint i = 0; i < n; i++)
        {
          double x, y;
          ctr_phantom_iq_insert_centre (i, radius, &x, &y);
          CtrRoi roi = ctr_roi_circle (x, y, CTR_IQ_INSERT_RADIUS * radius);
          g_autofree char *name = g_strdup_printf ("%s %+g", ins[i].name, ins[i].hu);
          ctr_iq_setup_add_insert (s, name, &roi);
        }
    }
  s->has_task = gtk_check_button_get_active (self->task_check);
  s->task.diameter_mm = gtk_spin_button_get_value (self->diameter_spin);
  s->task.contrast = gtk_spin_button_get_value (self->contrast_spin);
  s->has_task &= s->task.contrast != 0;
  return s;
}

/* ---- measuring ------------------------------------------------------------ */

/* @status (nullable: the one shown stays) under the form. */
static void
set_busy (CtrIqPanel *self, const char *status)
{
  if (status != NULL)
    gtk_label_set_text (self->status_label, status);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
measured (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(CtrIqPanel) self = data;
  g_autoptr(GError) error = NULL;
  GPtrArray *results = ctr_iq_measure_finish (result, &error);

  if (results == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;   /* a newer measurement replaced it, or the panel went */
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->results, g_ptr_array_unref);
  self->results = results != NULL ? results : g_ptr_array_new ();
  _ctr_iq_panel_show (self);
  set_busy (self, results != NULL ? NULL : error->message);
}

static gboolean
measure_now (gpointer data)
{
  CtrIqPanel *self = data;
  g_autoptr(GPtrArray) runs = ticked_runs (self);
  g_autoptr(CtrIqSetup) setup = ctr_iq_panel_get_setup (self);
  double mu_water = ctr_roi_set_get_mu_water (self->roi_set, NULL);

  self->queued = 0;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (runs->len == 0)
    {
      g_ptr_array_set_size (self->results, 0);
      _ctr_iq_panel_show (self);
      set_busy (self, "Tick the runs to measure (at least two to compare)");
      return G_SOURCE_REMOVE;
    }
  self->cancellable = g_cancellable_new ();
  ctr_iq_measure_async (setup, runs, mu_water, self->cancellable, measured, g_object_ref (self));
  set_busy (self, "Measuring…");
  return G_SOURCE_REMOVE;
}

static void
queue_measure (CtrIqPanel *self)
{
  if (self->queued == 0)
    self->queued = g_idle_add (measure_now, self);
}

gboolean
ctr_iq_panel_get_busy (CtrIqPanel *self)
{
  g_return_val_if_fail (CTR_IS_IQ_PANEL (self), FALSE);
  return self->cancellable != NULL || self->queued != 0;
}

GPtrArray *
ctr_iq_panel_get_results (CtrIqPanel *self)
{
  g_return_val_if_fail (CTR_IS_IQ_PANEL (self), NULL);
  return self->results;
}

/* ---- the widget ----------------------------------------------------------- */

void _ctr_iq_panel_build (CtrIqPanel *self);

static void
ctr_iq_panel_dispose (GObject *object)
{
  CtrIqPanel *self = CTR_IQ_PANEL (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->queued, g_source_remove);
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (ctr_session_get_runs (self->session), self);
    }
  if (self->roi_set != NULL)
    g_signal_handlers_disconnect_by_data (self->roi_set, self);
  g_clear_object (&self->session);
  g_clear_object (&self->roi_set);
  g_clear_pointer (&self->results, g_ptr_array_unref);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (ctr_iq_panel_parent_class)->dispose (object);
}

static void
ctr_iq_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (prop_id == PROP_BUSY)
    g_value_set_boolean (value, ctr_iq_panel_get_busy (CTR_IQ_PANEL (object)));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
ctr_iq_panel_class_init (CtrIqPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ctr_iq_panel_dispose;
  object_class->get_property = ctr_iq_panel_get_property;
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "iqpanel");
}

static void
ctr_iq_panel_init (CtrIqPanel *self)
{
  self->results = g_ptr_array_new ();
  _ctr_iq_panel_build (self);
}

/* The form's widgets measure again on any change. */
static void
connect_form (CtrIqPanel *self)
{
  g_signal_connect_swapped (self->nps_drop, "notify::selected", G_CALLBACK (queue_measure), self);
  g_signal_connect_swapped (self->inserts_drop, "notify::selected", G_CALLBACK (queue_measure), self);
  g_signal_connect_swapped (self->radius_spin, "value-changed", G_CALLBACK (queue_measure), self);
  g_signal_connect_swapped (self->task_check, "toggled", G_CALLBACK (queue_measure), self);
  g_signal_connect_swapped (self->diameter_spin, "value-changed", G_CALLBACK (queue_measure), self);
  g_signal_connect_swapped (self->contrast_spin, "value-changed", G_CALLBACK (queue_measure), self);
  g_signal_connect_swapped (self->ttf_drop, "notify::selected", G_CALLBACK (_ctr_iq_panel_show_ttf), self);
}

GtkWidget *
ctr_iq_panel_new (CtrSession *session, CtrRoiSet *roi_set)
{
  CtrIqPanel *self = g_object_new (CTR_TYPE_IQ_PANEL, NULL);

  self->session = g_object_ref (session);
  self->roi_set = g_object_ref (roi_set);
  connect_form (self);
  g_signal_connect_object (ctr_session_get_runs (session), "items-changed", G_CALLBACK (rebuild_runs), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "notify::dataset", G_CALLBACK (rebuild_runs), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "notify::running", G_CALLBACK (rebuild_runs), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (roi_set, "items-changed", G_CALLBACK (rebuild_regions), self, G_CONNECT_SWAPPED);
  rebuild_regions (self);
  rebuild_runs (self);
  return GTK_WIDGET (self);
}

CtrIqPanel *
ctr_iq_panel_present (GtkWindow *parent, CtrSession *session, CtrRoiSet *roi_set)
{
  GtkWindow *window = g_object_get_data (G_OBJECT (parent), "ctr-iq-window");
  CtrIqPanel *panel;

  if (window == NULL)
    {
      GtkWidget *header = adw_header_bar_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      window = GTK_WINDOW (adw_window_new ());
      gtk_window_set_title (window, "Image Quality");
      gtk_window_set_transient_for (window, parent);
      gtk_window_set_destroy_with_parent (window, TRUE);
      gtk_window_set_hide_on_close (window, TRUE);
      gtk_window_set_default_size (window, 1240, 820);
      gtk_box_append (GTK_BOX (box), header);
      gtk_box_append (GTK_BOX (box), ctr_iq_panel_new (session, roi_set));
      adw_window_set_content (ADW_WINDOW (window), box);
      g_object_set_data (G_OBJECT (parent), "ctr-iq-window", window);
    }
  panel = CTR_IQ_PANEL (gtk_widget_get_last_child (adw_window_get_content (ADW_WINDOW (window))));
  gtk_window_present (window);
  return panel;
}
