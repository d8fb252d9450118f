/* ctr-roi-panel.c — the ROI section of the Run page sidebar.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tools (Ctrl+1 … Ctrl+4 anywhere in the window): Window (a drag sets
 * window/level), Circle and Rectangle (a drag draws an ROI, or moves the one
 * it starts in), Ruler.  Delete removes the selected ROI (the one last
 * drawn or moved; action roi.delete-selected).  The table has one block per ROI (its name, size
 * and buttons: background for CNR, water calibration, delete) with a line
 * per image: every result of the open dataset, then its reference.  It is
 * rebuilt from ctr_roi_table_measure() when the set, the results or the
 * μ_water change (once per main-loop turn, however many changes came).
 */
#define G_LOG_DOMAIN "ctr-roi-panel"

#include <math.h>

#include "ctr-roi-panel.h"
#include "ctr-water-store.h"

struct _CtrRoiPanel
{
  GtkWidget       parent_instance;

  CtrRoiSet      *set;
  CtrSession     *session;
  CtrSliceView   *view;
  gboolean        hu;

  GtkToggleButton *tools[4];     /* CtrRoiTool order */
  GtkLabel       *ruler_label;
  GtkLabel       *mu_label;
  GtkButton      *reset_button;
  GtkLabel       *warning_label;
  GtkGrid        *table;
  GtkLabel       *empty_label;
  GtkButton      *export_button;
  GHashTable     *cells;         /* "position\x1fimage\x1fcolumn" → text */
  char           *warning;
  char           *store_problem; /* why the last water calibration was not stored */
  int             table_background;  /* what the table was measured with */
  double          table_mu;
  gpointer        warned_image;  /* what the warning was worked out for (not a reference) */
  double          warned_mu;
  guint           rebuild_id;
  gboolean        syncing;
};

G_DEFINE_FINAL_TYPE (CtrRoiPanel, ctr_roi_panel, GTK_TYPE_WIDGET)

static const char *const tool_labels[] = { "Window", "Circle", "Rectangle", "Ruler" };
static const char *const tool_tips[] = {
  "A drag sets window and level (Ctrl+1)",
  "A drag draws a circular ROI from its centre, or moves the ROI it starts in (Ctrl+2)",
  "A drag draws a rectangular ROI corner to corner, or moves the ROI it starts in (Ctrl+3)",
  "A drag measures a distance (Ctrl+4)",
};

static void rebuild (CtrRoiPanel *self);

static gboolean
rebuild_cb (gpointer data)
{
  CtrRoiPanel *self = data;

  self->rebuild_id = 0;
  rebuild (self);
  return G_SOURCE_REMOVE;
}

static void
queue_rebuild (CtrRoiPanel *self)
{
  if (self->rebuild_id == 0)
    self->rebuild_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, rebuild_cb, self, NULL);
}

static void
flush_rebuild (CtrRoiPanel *self)
{
  if (self->rebuild_id != 0)
    {
      g_clear_handle_id (&self->rebuild_id, g_source_remove);
      rebuild (self);
    }
}

/* ---- the table --------------------------------------------------------------- */

static GtkWidget *
cell (const char *text, float xalign, gboolean dim)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_widget_add_css_class (label, "numeric");
  gtk_widget_add_css_class (label, "caption");
  if (dim)
    gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static void
remember (CtrRoiPanel *self, const CtrRoiRow *row, const char *column, const char *text)
{
  g_hash_table_insert (self->cells, g_strdup_printf ("%u\x1f%s\x1f%s", row->position, row->image, column),
                       g_strdup (text));
}

static void
on_background_toggled (GtkToggleButton *button, CtrRoiPanel *self)
{
  guint position = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "position"));

  if (self->syncing)
    return;
  ctr_roi_set_set_background (self->set, gtk_toggle_button_get_active (button) ? (int) position : -1);
}

static void
on_water_clicked (GtkButton *button, CtrRoiPanel *self)
{
  g_autoptr(GError) error = NULL;

  if (!ctr_roi_panel_calibrate_water (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "position")),
                                      &error))
    {
      g_free (self->warning);
      self->warning = g_strdup_printf ("Water calibration failed: %s", error->message);
      gtk_label_set_label (self->warning_label, self->warning);
      gtk_widget_set_visible (GTK_WIDGET (self->warning_label), TRUE);
    }
}

static void
on_delete_clicked (GtkButton *button, CtrRoiPanel *self)
{
  ctr_roi_set_remove (self->set, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "position")));
}

static GtkWidget *
small_button (const char *label, const char *icon, const char *tooltip, guint position)
{
  GtkWidget *b = icon != NULL ? gtk_button_new_from_icon_name (icon) : gtk_button_new_with_label (label);

  gtk_widget_add_css_class (b, "flat");
  gtk_widget_set_tooltip_text (b, tooltip);
  g_object_set_data (G_OBJECT (b), "position", GUINT_TO_POINTER (position));
  return b;
}

/* The line above an ROI's images: name, size, background, water, delete. */
static GtkWidget *
roi_header (CtrRoiPanel *self, const CtrRoiRow *row)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  const CtrRoi *r = &row->roi;
  g_autofree char *size = r->shape == CTR_ROI_CIRCLE ? g_strdup_printf ("⌀ %.1f mm", 2 * r->radius_mm)
                                                     : g_strdup_printf ("%.1f × %.1f mm", r->width_mm, r->height_mm);
  g_autofree char *title = g_markup_printf_escaped ("<b>%s</b>", row->roi_name);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *bg = gtk_toggle_button_new_with_label ("Bg");
  GtkWidget *water = small_button ("Water", NULL, "Calibrate: this ROI is water (0 HU) in the image shown", row->position);
  GtkWidget *del = small_button (NULL, "user-trash-symbolic", "Delete this ROI", row->position);

  gtk_label_set_markup (GTK_LABEL (name), title);
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), cell (size, 0, TRUE));
  gtk_widget_set_hexpand (gtk_widget_get_last_child (box), TRUE);
  gtk_widget_add_css_class (bg, "flat");
  gtk_widget_set_tooltip_text (bg, "Background ROI: the CNR of every other ROI is against it");
  g_object_set_data (G_OBJECT (bg), "position", GUINT_TO_POINTER (row->position));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (bg), row->background);
  g_signal_connect (bg, "toggled", G_CALLBACK (on_background_toggled), self);
  g_signal_connect (water, "clicked", G_CALLBACK (on_water_clicked), self);
  g_signal_connect (del, "clicked", G_CALLBACK (on_delete_clicked), self);
  gtk_box_append (GTK_BOX (box), bg);
  gtk_box_append (GTK_BOX (box), water);
  gtk_box_append (GTK_BOX (box), del);
  gtk_widget_set_margin_top (box, 6);
  return box;
}

static void
add_row (CtrRoiPanel *self, const CtrRoiRow *row, int y)
{
  g_autofree char *mean = NULL, *sd = NULL, *n = NULL, *cnr = NULL;
  GtkWidget *image = cell (row->image, 0, FALSE);

  gtk_label_set_ellipsize (GTK_LABEL (image), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (image), 14);
  gtk_widget_set_hexpand (image, TRUE);
  gtk_widget_set_tooltip_text (image, row->image);
  if (row->ok)
    {
      mean = self->hu ? g_strdup_printf ("%+.1f", row->stats.mean_hu)
                      : g_strdup_printf ("%+.1f\n%.5g", row->stats.mean_hu, row->stats.mean_mu);
      sd = self->hu ? g_strdup_printf ("%.1f", row->stats.sd_hu)
                    : g_strdup_printf ("%.1f\n%.3g", row->stats.sd_hu, row->stats.sd_mu);
      n = g_strdup_printf ("%" G_GSIZE_FORMAT, row->stats.n_pixels);
    }
  else
    {
      mean = g_strdup ("–");
      sd = g_strdup ("–");
      n = g_strdup ("–");
      gtk_widget_set_tooltip_text (image, row->error);
    }
  cnr = isfinite (row->cnr) ? g_strdup_printf ("%.2f", row->cnr) : g_strdup (row->background ? "bg" : "–");
  remember (self, row, "mean", mean);
  remember (self, row, "sd", sd);
  remember (self, row, "n", n);
  remember (self, row, "cnr", cnr);
  gtk_grid_attach (self->table, image, 0, y, 1, 1);
  gtk_grid_attach (self->table, cell (mean, 1, FALSE), 1, y, 1, 1);
  gtk_grid_attach (self->table, cell (sd, 1, FALSE), 2, y, 1, 1);
  gtk_grid_attach (self->table, cell (n, 1, TRUE), 3, y, 1, 1);
  gtk_grid_attach (self->table, cell (cnr, 1, FALSE), 4, y, 1, 1);
}

static void
update_warning (CtrRoiPanel *self)
{
  gboolean calibrated = FALSE;
  double mu = self->set ? ctr_roi_set_get_mu_water (self->set, &calibrated) : CTR_MU_WATER_PER_MM, median;
  CtrRun *run = self->session != NULL ? ctr_session_get_latest_result (self->session) : NULL;
  CtrVolume *v = run != NULL && ctr_run_is_of (run, ctr_session_get_dataset (self->session)) ? ctr_run_get_result (run)
                                                                                           : NULL;

  if (calibrated || v == NULL || g_strcmp0 (v->unit, "1/mm") != 0)
    v = NULL;
  /* the median takes a sort of the slice: once per image and μ_water */
  if (v != self->warned_image || mu != self->warned_mu)
    {
      self->warned_image = v;
      self->warned_mu = mu;
      g_clear_pointer (&self->warning, g_free);
      if (v != NULL && ctr_roi_water_suspect (v, mu, &median))
        self->warning = g_strdup_printf ("HU may be off: the object reads %+.0f HU (median) with the default "
                                         "μ_water. Draw an ROI in water and press its Water button to calibrate.",
                                         median);
    }
  gtk_label_set_label (self->warning_label, self->warning ? self->warning : "");
  gtk_widget_set_visible (GTK_WIDGET (self->warning_label), self->warning != NULL);
}

static void
rebuild (CtrRoiPanel *self)
{
  g_autoptr(GPtrArray) rows = ctr_roi_panel_measure (self);
  GtkWidget *child;
  int y = 1;

  self->table_background = self->set ? ctr_roi_set_get_background (self->set) : -1;
  self->table_mu = self->set ? ctr_roi_set_get_mu_water (self->set, NULL) : 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))) != NULL)
    gtk_grid_remove (self->table, child);
  g_hash_table_remove_all (self->cells);

  gtk_grid_attach (self->table, cell ("Image", 0, TRUE), 0, 0, 1, 1);
  gtk_grid_attach (self->table, cell (self->hu ? "Mean HU" : "Mean HU\n1/mm", 1, TRUE), 1, 0, 1, 1);
  gtk_grid_attach (self->table, cell (self->hu ? "SD HU" : "SD HU\n1/mm", 1, TRUE), 2, 0, 1, 1);
  gtk_grid_attach (self->table, cell ("n", 1, TRUE), 3, 0, 1, 1);
  gtk_grid_attach (self->table, cell ("CNR", 1, TRUE), 4, 0, 1, 1);
  self->syncing = TRUE;
  for (guint i = 0; i < rows->len; i++)
    {
      const CtrRoiRow *row = g_ptr_array_index (rows, i);
      if (i == 0 || row->position != ((CtrRoiRow *) g_ptr_array_index (rows, i - 1))->position)
        gtk_grid_attach (self->table, roi_header (self, row), 0, y++, 5, 1);
      add_row (self, row, y++);
    }
  self->syncing = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->table), rows->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->empty_label), rows->len == 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), rows->len > 0);
  update_warning (self);
}

/* ---- the set: tools, ruler, μ_water -------------------------------------------- */

static void
on_set_changed (CtrRoiPanel *self)
{
  CtrRoiTool tool = ctr_roi_set_get_tool (self->set);
  g_autofree char *ruler = self->view != NULL ? ctr_slice_view_describe_ruler (self->view) : NULL;
  g_autofree char *ruler_text = g_strdup_printf ("Ruler: %s", ruler ? ruler : "drag with the Ruler tool");
  g_autofree char *mu = ctr_roi_set_describe_mu_water (self->set);
  gboolean calibrated = FALSE;

  ctr_roi_set_get_mu_water (self->set, &calibrated);
  self->syncing = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (self->tools); i++)
    gtk_toggle_button_set_active (self->tools[i], i == tool);
  self->syncing = FALSE;
  gtk_label_set_label (self->ruler_label, ruler_text);
  if (self->store_problem != NULL)
    {
      g_autofree char *both = g_strdup_printf ("%s\n%s", mu, self->store_problem);
      gtk_label_set_label (self->mu_label, both);
    }
  else
    gtk_label_set_label (self->mu_label, mu);
  gtk_widget_set_visible (GTK_WIDGET (self->reset_button), calibrated);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "roi.delete-selected", ctr_roi_set_get_selected (self->set) >= 0);
  /* the ruler and the tool leave the table as it is */
  if (ctr_roi_set_get_background (self->set) != self->table_background ||
      ctr_roi_set_get_mu_water (self->set, NULL) != self->table_mu)
    queue_rebuild (self);
}

static void
on_tool_toggled (GtkToggleButton *button, CtrRoiPanel *self)
{
  if (self->syncing || !gtk_toggle_button_get_active (button) || self->set == NULL)
    return;
  ctr_roi_set_set_tool (self->set, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "tool")));
}

static void
delete_selected_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrRoiPanel *self = CTR_ROI_PANEL (widget);
  int selected = self->set != NULL ? ctr_roi_set_get_selected (self->set) : -1;

  if (selected >= 0)
    ctr_roi_set_remove (self->set, selected);
}

static gboolean
tool_shortcut (GtkWidget *widget, GVariant *args, gpointer data)
{
  CtrRoiPanel *self = CTR_ROI_PANEL (widget);

  if (self->set != NULL)
    ctr_roi_set_set_tool (self->set, GPOINTER_TO_UINT (data));
  return TRUE;
}

/* ---- the session: a dataset's stored calibration ------------------------------ */

static void
on_dataset (CtrRoiPanel *self)
{
  CtrDataset *d = ctr_session_get_dataset (self->session);
  double mu;

  if (d == NULL || self->set == NULL)
    return;
  g_clear_pointer (&self->store_problem, g_free);
  if (ctr_water_store_lookup (d->path, &mu))
    ctr_roi_set_set_mu_water (self->set, mu, TRUE);
  else if (d->mu_water > 0)   /* the data's own (DICOM HUCalibrationFactor, "mu_water_per_mm") */
    ctr_roi_set_set_mu_water (self->set, d->mu_water, TRUE);
  else
    ctr_roi_set_set_mu_water (self->set, CTR_MU_WATER_PER_MM, FALSE);
  queue_rebuild (self);
}

/* ---- public ---------------------------------------------------------------------- */

void
ctr_roi_panel_set_roi_set (CtrRoiPanel *self, CtrRoiSet *set)
{
  g_return_if_fail (CTR_IS_ROI_PANEL (self));
  if (self->set != NULL)
    g_signal_handlers_disconnect_by_data (self->set, self);
  g_set_object (&self->set, set);
  if (set != NULL)
    {
      g_signal_connect_swapped (set, "changed", G_CALLBACK (on_set_changed), self);
      g_signal_connect_swapped (set, "items-changed", G_CALLBACK (queue_rebuild), self);
      on_set_changed (self);
    }
}

void
ctr_roi_panel_set_session (CtrRoiPanel *self, CtrSession *session)
{
  g_return_if_fail (CTR_IS_ROI_PANEL (self));
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (ctr_session_get_open_results (self->session), self);
    }
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      g_signal_connect_swapped (session, "notify::dataset", G_CALLBACK (on_dataset), self);
      g_signal_connect_swapped (ctr_session_get_open_results (session), "items-changed", G_CALLBACK (queue_rebuild), self);
    }
  queue_rebuild (self);
}

void
ctr_roi_panel_set_view (CtrRoiPanel *self, CtrSliceView *view)
{
  g_return_if_fail (CTR_IS_ROI_PANEL (self));
  g_set_object (&self->view, view);
}

void
ctr_roi_panel_set_hu (CtrRoiPanel *self, gboolean hu)
{
  g_return_if_fail (CTR_IS_ROI_PANEL (self));
  if (self->hu == !!hu)
    return;
  self->hu = !!hu;
  queue_rebuild (self);
}

GPtrArray *
ctr_roi_panel_measure (CtrRoiPanel *self)
{
  g_return_val_if_fail (CTR_IS_ROI_PANEL (self), NULL);
  if (self->set == NULL)
    return g_ptr_array_new ();
  return ctr_roi_table_measure (self->set, self->session ? ctr_session_get_open_results (self->session) : NULL,
                                self->session ? ctr_session_get_dataset (self->session) : NULL);
}

char *
ctr_roi_panel_get_cell (CtrRoiPanel *self, guint position, const char *image, const char *column)
{
  g_autofree char *key = g_strdup_printf ("%u\x1f%s\x1f%s", position, image, column);

  g_return_val_if_fail (CTR_IS_ROI_PANEL (self), NULL);
  flush_rebuild (self);
  return g_strdup (g_hash_table_lookup (self->cells, key));
}

gboolean
ctr_roi_panel_calibrate_water (CtrRoiPanel *self, guint position, GError **error)
{
  CtrVolume *v = self->view != NULL ? ctr_slice_view_get_image (self->view) : NULL;
  CtrDataset *d = self->session != NULL ? ctr_session_get_dataset (self->session) : NULL;
  g_autoptr(CtrRoiItem) item = NULL;
  g_autoptr(GError) store_error = NULL;
  double mu;

  g_return_val_if_fail (CTR_IS_ROI_PANEL (self), FALSE);
  if (self->set != NULL)
    item = g_list_model_get_item (G_LIST_MODEL (self->set), position);
  if (v == NULL || item == NULL || g_strcmp0 (v->unit, "1/mm") != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   item == NULL ? "No such ROI" : "A water calibration needs an image in 1/mm");
      return FALSE;
    }
  if (!ctr_roi_water_calibration (v, v->grid.nz / 2, ctr_roi_item_get_roi (item), &mu, error))
    return FALSE;
  g_clear_pointer (&self->store_problem, g_free);
  ctr_roi_set_set_mu_water (self->set, mu, TRUE);
  /* kept for the dataset; a failure to store does not undo the calibration,
   * it is said under the μ_water */
  if (d != NULL && !ctr_water_store_save (d->path, mu, &store_error))
    {
      self->store_problem = g_strdup_printf ("Not kept for the next session: %s", store_error->message);
      on_set_changed (self);
    }
  return TRUE;
}

void
ctr_roi_panel_reset_water (CtrRoiPanel *self)
{
  CtrDataset *d = self->session != NULL ? ctr_session_get_dataset (self->session) : NULL;

  g_return_if_fail (CTR_IS_ROI_PANEL (self));
  if (self->set != NULL)
    ctr_roi_set_set_mu_water (self->set, CTR_MU_WATER_PER_MM, FALSE);
  if (d != NULL)
    ctr_water_store_save (d->path, 0, NULL);
}

gboolean
ctr_roi_panel_write_csv (CtrRoiPanel *self, const char *path, GError **error)
{
  g_autoptr(GPtrArray) rows = NULL;
  gboolean calibrated = FALSE;
  double mu;

  g_return_val_if_fail (CTR_IS_ROI_PANEL (self), FALSE);
  rows = ctr_roi_panel_measure (self);
  if (rows->len == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "No ROI measured yet: draw one with the Circle or Rectangle tool");
      return FALSE;
    }
  mu = ctr_roi_set_get_mu_water (self->set, &calibrated);
  return ctr_roi_table_write_csv (rows, mu, calibrated, path, error);
}

const char *
ctr_roi_panel_get_warning (CtrRoiPanel *self)
{
  g_return_val_if_fail (CTR_IS_ROI_PANEL (self), NULL);
  flush_rebuild (self);
  return self->warning;
}

/* ---- the widget ------------------------------------------------------------------ */

static void
ctr_roi_panel_dispose (GObject *object)
{
  CtrRoiPanel *self = CTR_ROI_PANEL (object);
  GtkWidget *child;

  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  ctr_roi_panel_set_session (self, NULL);
  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  ctr_roi_panel_set_roi_set (self, NULL);
  g_clear_object (&self->view);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (ctr_roi_panel_parent_class)->dispose (object);
}

static void
ctr_roi_panel_finalize (GObject *object)
{
  CtrRoiPanel *self = CTR_ROI_PANEL (object);

  g_hash_table_unref (self->cells);
  g_free (self->warning);
  g_free (self->store_problem);
  G_OBJECT_CLASS (ctr_roi_panel_parent_class)->finalize (object);
}

static void
ctr_roi_panel_class_init (CtrRoiPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_roi_panel_dispose;
  object_class->finalize = ctr_roi_panel_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_install_action (widget_class, "roi.delete-selected", NULL, delete_selected_action);
}

static GtkLabel *
caption_label (gboolean dim)
{
  GtkLabel *label = GTK_LABEL (gtk_label_new (NULL));

  gtk_label_set_xalign (label, 0);
  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_wrap_mode (label, PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (GTK_WIDGET (label), "caption");
  if (dim)
    gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
  return label;
}

static void
ctr_roi_panel_init (CtrRoiPanel *self)
{
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *tools = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *mu_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkEventController *shortcuts = gtk_shortcut_controller_new ();

  self->cells = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), "ROIs and Ruler");
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         "Measured on every run at once (a volume: its middle slice)");
  gtk_widget_set_parent (group, GTK_WIDGET (self));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), box);

  /* not homogeneous: four buttons as wide as "Rectangle" (432 px) made the
   * sidebar, and so the window, wider than a 1280 px screen; each button
   * expands so that the row still fills the sidebar */
  gtk_widget_add_css_class (tools, "linked");
  for (guint i = 0; i < G_N_ELEMENTS (self->tools); i++)
    {
      self->tools[i] = GTK_TOGGLE_BUTTON (gtk_toggle_button_new_with_label (tool_labels[i]));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->tools[i]), tool_tips[i]);
      gtk_widget_set_hexpand (GTK_WIDGET (self->tools[i]), TRUE);
      g_object_set_data (G_OBJECT (self->tools[i]), "tool", GUINT_TO_POINTER (i));
      if (i > 0)
        gtk_toggle_button_set_group (self->tools[i], self->tools[0]);
      g_signal_connect (self->tools[i], "toggled", G_CALLBACK (on_tool_toggled), self);
      gtk_box_append (GTK_BOX (tools), GTK_WIDGET (self->tools[i]));
      gtk_shortcut_controller_add_shortcut (
        GTK_SHORTCUT_CONTROLLER (shortcuts),
        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_1 + i, GDK_CONTROL_MASK),
                          gtk_callback_action_new (tool_shortcut, GUINT_TO_POINTER (i), NULL)));
    }
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Delete, 0),
                                                          gtk_named_action_new ("roi.delete-selected")));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "roi.delete-selected", FALSE);
  gtk_toggle_button_set_active (self->tools[0], TRUE);
  gtk_widget_set_name (tools, "roi-tools");
  gtk_box_append (GTK_BOX (box), tools);
  gtk_shortcut_controller_set_scope (GTK_SHORTCUT_CONTROLLER (shortcuts), GTK_SHORTCUT_SCOPE_GLOBAL);
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  self->ruler_label = caption_label (FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->ruler_label));

  self->mu_label = caption_label (FALSE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->mu_label), TRUE);
  gtk_box_append (GTK_BOX (mu_box), GTK_WIDGET (self->mu_label));
  self->reset_button = GTK_BUTTON (gtk_button_new_with_label ("Default"));
  gtk_widget_add_css_class (GTK_WIDGET (self->reset_button), "flat");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->reset_button), "Forget this dataset’s water calibration");
  gtk_widget_set_visible (GTK_WIDGET (self->reset_button), FALSE);
  g_signal_connect_swapped (self->reset_button, "clicked", G_CALLBACK (ctr_roi_panel_reset_water), self);
  gtk_box_append (GTK_BOX (mu_box), GTK_WIDGET (self->reset_button));
  gtk_box_append (GTK_BOX (box), mu_box);

  self->warning_label = caption_label (FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->warning_label), "warning");
  gtk_widget_set_visible (GTK_WIDGET (self->warning_label), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->warning_label));

  self->empty_label = caption_label (TRUE);
  gtk_label_set_label (self->empty_label, "No ROI yet: choose Circle or Rectangle and drag on the image.");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->empty_label));

  self->table = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->table, 8);
  gtk_grid_set_row_spacing (self->table, 2);
  gtk_widget_set_name (GTK_WIDGET (self->table), "roi-table");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->table));

  self->export_button = GTK_BUTTON (gtk_button_new_with_label ("Export ROI CSV…"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->export_button), "win.export-roi-csv");
  gtk_widget_set_halign (GTK_WIDGET (self->export_button), GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->export_button));
  rebuild (self);
}

GtkWidget *
ctr_roi_panel_new (void)
{
  return g_object_new (CTR_TYPE_ROI_PANEL, NULL);
}
