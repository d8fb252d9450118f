/* ctr-run-list.c — the session's runs as a list to rename and delete (see
 * ctr-run-list.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-run-list"

#include "ctr-run-list.h"
#include "ctr-plot-draw.h"

static void
toast (GtkWidget *widget, const char *message)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY);
  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (message));
}

static void
on_apply (AdwEntryRow *row, CtrRun *run)
{
  ctr_run_set_label (run, gtk_editable_get_text (GTK_EDITABLE (row)));
  /* an empty name is ignored: show the label kept */
  gtk_editable_set_text (GTK_EDITABLE (row), ctr_run_get_label (run));
}

static void
on_delete (GtkButton *button, CtrRun *run)
{
  CtrSession *session = g_object_get_data (G_OBJECT (button), "ctr-session");
  g_autoptr(GError) error = NULL;

  if (session != NULL && !ctr_session_remove_run (session, run, &error))
    toast (GTK_WIDGET (button), error->message);
}

/* The label follows renames made elsewhere (and " (cancelled)"). */
static void
on_label (CtrRun *run, GParamSpec *pspec, AdwEntryRow *row)
{
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (row)), ctr_run_get_label (run)) != 0)
    gtk_editable_set_text (GTK_EDITABLE (row), ctr_run_get_label (run));
}

/* The run's colour, as on the plots (picked, or the palette's). */
static void
draw_swatch (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  GdkRGBA color;

  ctr_plot_color_of_run (data, &color);
  gdk_cairo_set_source_rgba (cr, &color);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
}

static void
on_color_set (GtkColorButton *button, CtrRun *run)
{
  GdkRGBA c;
  g_autofree char *hex = NULL;

  gtk_color_chooser_get_rgba (GTK_COLOR_CHOOSER (button), &c);
  hex = g_strdup_printf ("#%02x%02x%02x", (guint) CLAMP (c.red * 255 + 0.5, 0, 255),
                         (guint) CLAMP (c.green * 255 + 0.5, 0, 255), (guint) CLAMP (c.blue * 255 + 0.5, 0, 255));
  ctr_run_set_color (run, hex);
}

static void
on_hide_toggled (GtkToggleButton *button, CtrRun *run)
{
  gboolean hidden = gtk_toggle_button_get_active (button);

  ctr_run_set_hidden (run, hidden);
  gtk_button_set_icon_name (GTK_BUTTON (button), hidden ? "view-conceal-symbolic" : "view-reveal-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (button), hidden ? "Hidden from the plots and Profile: show it"
                                                           : "Hide from the plots and Profile");
}

static GtkWidget *
make_row (gpointer item, gpointer session)
{
  CtrRun *run = item;
  AdwEntryRow *row = ADW_ENTRY_ROW (adw_entry_row_new ());
  GtkWidget *swatch = gtk_drawing_area_new ();
  GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
  GtkWidget *hide = gtk_toggle_button_new ();
  GtkWidget *pick;
  g_autofree char *title = g_strdup_printf ("Run %u", ctr_run_get_number (run));
  g_autofree char *entry_name = g_strdup_printf ("run-%u-label", ctr_run_get_number (run));
  g_autofree char *delete_name = g_strdup_printf ("run-%u-delete", ctr_run_get_number (run));
  g_autofree char *hide_name = g_strdup_printf ("run-%u-hide", ctr_run_get_number (run));
  g_autofree char *color_name = g_strdup_printf ("run-%u-color", ctr_run_get_number (run));
  GdkRGBA color;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_editable_set_text (GTK_EDITABLE (row), ctr_run_get_label (run));
  adw_entry_row_set_show_apply_button (row, TRUE);
  gtk_widget_set_name (GTK_WIDGET (row), entry_name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row), ctr_run_get_derivation (run));
  g_signal_connect_object (row, "apply", G_CALLBACK (on_apply), run, 0);
  g_signal_connect_object (run, "notify::label", G_CALLBACK (on_label), row, 0);

  /* the run's colour, as on the plots; a colour button picks another */
  gtk_widget_set_size_request (swatch, 6, 24);
  gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_swatch, g_object_ref (run), g_object_unref);
  g_signal_connect_object (run, "notify::color", G_CALLBACK (gtk_widget_queue_draw), swatch, G_CONNECT_SWAPPED);
  adw_entry_row_add_prefix (row, swatch);
  ctr_plot_color_of_run (run, &color);
  pick = gtk_color_button_new_with_rgba (&color);
  gtk_color_chooser_set_use_alpha (GTK_COLOR_CHOOSER (pick), FALSE);
  gtk_color_button_set_title (GTK_COLOR_BUTTON (pick), "Colour of the Run");
  gtk_widget_set_name (pick, color_name);
  gtk_widget_set_valign (pick, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (pick, "Its colour on the plots");
  g_signal_connect_object (pick, "color-set", G_CALLBACK (on_color_set), run, 0);
  adw_entry_row_add_suffix (row, pick);

  gtk_widget_set_name (hide, hide_name);
  gtk_widget_set_valign (hide, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (hide, "flat");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (hide), ctr_run_get_hidden (run));
  g_signal_connect_object (hide, "toggled", G_CALLBACK (on_hide_toggled), run, 0);
  on_hide_toggled (GTK_TOGGLE_BUTTON (hide), run);
  adw_entry_row_add_suffix (row, hide);

  gtk_widget_set_name (remove, delete_name);
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (remove, "Delete this run (its numbers and image)");
  gtk_widget_add_css_class (remove, "flat");
  g_object_set_data (G_OBJECT (remove), "ctr-session", session);
  g_object_set_data_full (G_OBJECT (row), "ctr-run", g_object_ref (run), g_object_unref);
  g_signal_connect_object (remove, "clicked", G_CALLBACK (on_delete), run, 0);
  adw_entry_row_add_suffix (row, remove);
  return GTK_WIDGET (row);
}

/* A header above the first run of each dataset (and dose). */
static void
update_header (GtkListBoxRow *row, GtkListBoxRow *before, gpointer data)
{
  CtrRun *run = g_object_get_data (G_OBJECT (row), "ctr-run");
  CtrRun *prev = before ? g_object_get_data (G_OBJECT (before), "ctr-run") : NULL;
  GtkWidget *header;
  g_autofree char *name = NULL;

  if (run == NULL || (prev != NULL && g_strcmp0 (ctr_run_get_dataset (prev), ctr_run_get_dataset (run)) == 0))
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  header = gtk_label_new (ctr_run_get_dataset (run));
  name = g_strdup_printf ("runs-header-%u", ctr_run_get_number (run));
  gtk_widget_set_name (header, name);
  gtk_label_set_xalign (GTK_LABEL (header), 0);
  gtk_label_set_ellipsize (GTK_LABEL (header), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_top (header, 6);
  gtk_widget_set_margin_bottom (header, 6);
  gtk_widget_add_css_class (header, "caption-heading");
  gtk_widget_add_css_class (header, "dim-label");
  gtk_list_box_row_set_header (row, header);
}

void
ctr_run_list_bind (GtkListBox *box, CtrSession *session)
{
  g_return_if_fail (GTK_IS_LIST_BOX (box));
  gtk_list_box_set_header_func (box, session ? update_header : NULL, NULL, NULL);
  gtk_list_box_bind_model (box, session ? ctr_session_get_runs (session) : NULL, session ? make_row : NULL,
                           session, NULL);
}
