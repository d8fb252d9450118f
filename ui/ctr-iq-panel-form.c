/* ctr-iq-panel-form.c — the image-quality panel's widgets: the form on the
 * left (runs, regions, task), the NPS and TTF plots and the table of
 * numbers on the right.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-iq-panel"

#include <adwaita.h>

#include "ctr-iq-panel-private.h"

void _ctr_iq_panel_build (CtrIqPanel *self);

/* A row titled @title (and @subtitle) holding @suffix. */
static GtkWidget *
row_with (const char *title, const char *subtitle, GtkWidget *suffix)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_widget_set_valign (suffix, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), suffix);
  return row;
}

static GtkSpinButton *
spin (double lo, double hi, double step, double value, guint digits, const char *name)
{
  GtkWidget *s = gtk_spin_button_new_with_range (lo, hi, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (s), digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (s), value);
  gtk_widget_set_name (s, name);
  return GTK_SPIN_BUTTON (s);
}

static GtkWidget *
group (const char *title, const char *description)
{
  GtkWidget *g = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (g), title);
  if (description != NULL)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (g), description);
  return g;
}

static GtkWidget *
build_form (CtrIqPanel *self)
{
  GtkWidget *form = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  GtkWidget *runs = group ("Runs", "The runs of the open dataset to measure on their middle slice");
  GtkWidget *regions = group ("Regions", "Draw circle ROIs on the image (ROI tool) to use your own");
  GtkWidget *task = group ("Detection task", "d′ of a disc, with the TTF of the insert of nearest contrast");
  const char *inserts[] = { "Phantom's six", "Drawn circles", NULL };

  self->runs_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (runs), self->runs_box);
  self->nps_drop = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  gtk_widget_set_name (GTK_WIDGET (self->nps_drop), "iq-nps-roi");
  self->inserts_drop = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (inserts));
  gtk_widget_set_name (GTK_WIDGET (self->inserts_drop), "iq-inserts");
  self->radius_spin = spin (5, 1000, 5, 100, 0, "iq-radius");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (regions),
                             row_with ("NPS region", "A uniform area", GTK_WIDGET (self->nps_drop)));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (regions),
                             row_with ("TTF inserts", "The other circles", GTK_WIDGET (self->inserts_drop)));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (regions),
                             row_with ("Phantom radius (mm)", "Places the iq phantom's regions",
                                       GTK_WIDGET (self->radius_spin)));
  self->task_check = GTK_CHECK_BUTTON (gtk_check_button_new ());
  gtk_check_button_set_active (self->task_check, TRUE);
  self->diameter_spin = spin (0.5, 100, 0.5, 5, 1, "iq-diameter");
  self->contrast_spin = spin (-2000, 3000, 10, 120, 0, "iq-contrast");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (task), row_with ("d′", "NPW and NPWE", GTK_WIDGET (self->task_check)));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (task),
                             row_with ("Disc diameter (mm)", NULL, GTK_WIDGET (self->diameter_spin)));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (task),
                             row_with ("Contrast (HU)", NULL, GTK_WIDGET (self->contrast_spin)));
  self->status_label = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_wrap (self->status_label, TRUE);
  gtk_label_set_xalign (self->status_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "dim-label");
  gtk_box_append (GTK_BOX (form), runs);
  gtk_box_append (GTK_BOX (form), regions);
  gtk_box_append (GTK_BOX (form), task);
  gtk_box_append (GTK_BOX (form), GTK_WIDGET (self->status_label));
  return form;
}

static GtkWidget *
build_results (CtrIqPanel *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *plots = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *scroll = gtk_scrolled_window_new ();

  self->nps_plot = CTR_IQ_PLOT (ctr_iq_plot_new ("<b>Noise power spectrum</b> (radial)", "NPS (HU²·mm²)",
                                                 "<small>Tick runs on the left</small>"));
  self->ttf_plot = CTR_IQ_PLOT (ctr_iq_plot_new ("<b>Task transfer function</b>", "TTF",
                                                 "<small>No insert measured</small>"));
  ctr_iq_plot_set_guides (self->ttf_plot, (const double[]) { 0.5, 0.1 }, 2);
  self->ttf_drop = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  gtk_widget_set_name (GTK_WIDGET (self->ttf_drop), "iq-ttf-insert");
  gtk_box_append (GTK_BOX (bar), gtk_label_new ("TTF of the insert"));
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->ttf_drop));
  gtk_widget_set_halign (bar, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (plots), GTK_WIDGET (self->nps_plot));
  gtk_box_append (GTK_BOX (plots), GTK_WIDGET (self->ttf_plot));
  gtk_widget_set_vexpand (plots, TRUE);

  self->table = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->table, 24);
  gtk_grid_set_row_spacing (self->table, 3);
  gtk_widget_set_name (GTK_WIDGET (self->table), "iq-table");
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), GTK_WIDGET (self->table));
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_box_append (GTK_BOX (box), bar);
  gtk_box_append (GTK_BOX (box), plots);
  gtk_box_append (GTK_BOX (box), scroll);
  return box;
}

void
_ctr_iq_panel_build (CtrIqPanel *self)
{
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  GtkWidget *form = build_form (self);
  GtkWidget *results = build_results (self);

  gtk_widget_set_margin_start (form, 12);
  gtk_widget_set_margin_end (form, 12);
  gtk_widget_set_margin_top (form, 12);
  gtk_widget_set_margin_bottom (form, 12);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), form);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroll), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (scroll, 340, -1);
  gtk_widget_set_margin_start (results, 12);
  gtk_widget_set_margin_end (results, 12);
  gtk_widget_set_margin_top (results, 12);
  gtk_widget_set_margin_bottom (results, 12);
  gtk_paned_set_start_child (GTK_PANED (paned), scroll);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_end_child (GTK_PANED (paned), results);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_vexpand (paned, TRUE);
  self->box = paned;
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_parent (paned, GTK_WIDGET (self));
}
