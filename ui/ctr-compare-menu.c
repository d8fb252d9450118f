/* ctr-compare-menu.c — the Compare page's choice: the "Runs" menu (a check
 * per result and one for the reference, "Newest three", and the runs
 * shown opened in the image-quality panel) and the
 * "Difference" drop-downs (automatic, none, or run A minus run B or the
 * reference).  The controls only set the page's state
 * (ctr_compare_page_choose_runs/_difference); _ctr_compare_menu_sync sets
 * them back from it after every change.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-compare-page"

#include "ctr-compare-page-private.h"
#include "ctr-iq-panel.h"

static GtkWidget *
menu_box (CtrComparePage *self)
{
  GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (self->runs_button));
  return popover ? gtk_popover_get_child (GTK_POPOVER (popover)) : NULL;
}

static void
on_check_toggled (GtkCheckButton *check, CtrComparePage *self)
{
  g_autoptr(GArray) numbers = g_array_new (FALSE, FALSE, sizeof (guint));
  gboolean reference = self->show_reference;

  if (self->updating)
    return;
  for (GtkWidget *c = gtk_widget_get_first_child (menu_box (self)); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      guint number = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (c), "ctr-run-number"));
      if (!GTK_IS_CHECK_BUTTON (c))
        continue;
      if (number > 0 && gtk_check_button_get_active (GTK_CHECK_BUTTON (c)))
        g_array_append_val (numbers, number);
      else if (g_strcmp0 (gtk_widget_get_name (c), "compare-reference") == 0)
        reference = gtk_check_button_get_active (GTK_CHECK_BUTTON (c));
    }
  ctr_compare_page_choose_runs (self, (const guint *) numbers->data, numbers->len, reference);
}

static void
on_newest (GtkButton *button, CtrComparePage *self)
{
  ctr_compare_page_choose_runs (self, NULL, 0, self->show_reference);
}

static void
on_difference_selected (GtkDropDown *drop, GParamSpec *pspec, CtrComparePage *self)
{
  guint ia = gtk_drop_down_get_selected (self->diff_a_drop);
  guint ib = gtk_drop_down_get_selected (self->diff_b_drop);
  guint a, b;

  if (self->updating || ia >= self->a_numbers->len)
    return;
  a = g_array_index (self->a_numbers, guint, ia);
  b = ib < self->b_numbers->len ? g_array_index (self->b_numbers, guint, ib) : 0;
  ctr_compare_page_choose_difference (self, a, b);
}

/* "3:label|4:label|ref" — the menu is rebuilt when this changes. */
static char *
menu_key (GListModel *results, gboolean have_reference)
{
  GString *key = g_string_new (have_reference ? "ref" : "");

  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      g_string_append_printf (key, "|%u:%s", ctr_run_get_number (run), ctr_run_get_label (run));
    }
  return g_string_free (key, FALSE);
}

static void
add_number (GArray *numbers, guint number)
{
  g_array_append_val (numbers, number);
}

/* The image-quality panel with the runs shown here ticked. */
static void
on_image_quality (GtkButton *button, CtrComparePage *self)
{
  g_autoptr(GArray) shown = _ctr_compare_page_shown_runs (self);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  CtrIqPanel *panel;

  gtk_menu_button_popdown (self->runs_button);
  if (!GTK_IS_WINDOW (root) || self->session == NULL || self->roi_set == NULL)
    return;
  panel = ctr_iq_panel_present (GTK_WINDOW (root), self->session, self->roi_set);
  if (shown->len > 0)
    ctr_iq_panel_choose_runs (panel, (const guint *) shown->data, shown->len);
}

static void
rebuild (CtrComparePage *self, GListModel *results, gboolean have_reference)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *heading = gtk_label_new ("Show on Compare");
  GtkWidget *newest = gtk_button_new_with_label ("Newest Three");
  g_autoptr(GtkStringList) a_list = gtk_string_list_new (NULL);
  g_autoptr(GtkStringList) b_list = gtk_string_list_new (NULL);

  gtk_widget_add_css_class (heading, "heading");
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_box_append (GTK_BOX (box), heading);
  g_array_set_size (self->a_numbers, 0);
  g_array_set_size (self->b_numbers, 0);
  gtk_string_list_append (a_list, "Automatic");
  add_number (self->a_numbers, 0);
  gtk_string_list_append (a_list, "None");
  add_number (self->a_numbers, G_MAXUINT);
  if (have_reference)
    {
      gtk_string_list_append (b_list, "reference");
      add_number (self->b_numbers, 0);
    }

  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      guint number = ctr_run_get_number (run);
      GtkWidget *check = gtk_check_button_new_with_label (ctr_run_get_label (run));
      g_autofree char *name = g_strdup_printf ("compare-run-%u", number);

      gtk_widget_set_name (check, name);
      g_object_set_data (G_OBJECT (check), "ctr-run-number", GUINT_TO_POINTER (number));
      g_signal_connect (check, "toggled", G_CALLBACK (on_check_toggled), self);
      gtk_box_append (GTK_BOX (box), check);
      gtk_string_list_append (a_list, ctr_run_get_label (run));
      add_number (self->a_numbers, number);
      gtk_string_list_append (b_list, ctr_run_get_label (run));
      add_number (self->b_numbers, number);
    }
  if (have_reference)
    {
      GtkWidget *check = gtk_check_button_new_with_label ("Reference");
      gtk_widget_set_name (check, "compare-reference");
      g_signal_connect (check, "toggled", G_CALLBACK (on_check_toggled), self);
      gtk_box_append (GTK_BOX (box), check);
    }
  gtk_widget_set_name (newest, "compare-newest");
  gtk_widget_set_tooltip_text (newest, "Show the three newest runs, following new ones");
  gtk_widget_set_margin_top (newest, 6);
  g_signal_connect (newest, "clicked", G_CALLBACK (on_newest), self);
  gtk_box_append (GTK_BOX (box), newest);
  {
    GtkWidget *iq = gtk_button_new_with_label ("Image Quality of These Runs");
    gtk_widget_set_name (iq, "compare-image-quality");
    gtk_widget_set_tooltip_text (iq, "Their noise power spectra, task transfer functions and detectability d′");
    g_signal_connect (iq, "clicked", G_CALLBACK (on_image_quality), self);
    gtk_box_append (GTK_BOX (box), iq);
  }
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_menu_button_set_popover (self->runs_button, popover);

  gtk_drop_down_set_model (self->diff_a_drop, G_LIST_MODEL (a_list));
  gtk_drop_down_set_model (self->diff_b_drop, G_LIST_MODEL (b_list));
}

static guint
index_of (GArray *numbers, guint number)
{
  for (guint i = 0; i < numbers->len; i++)
    if (g_array_index (numbers, guint, i) == number)
      return i;
  return 0;
}

void
_ctr_compare_menu_sync (CtrComparePage *self)
{
  GListModel *results;
  CtrDataset *d;
  g_autofree char *key = NULL;
  g_autoptr(GArray) shown = NULL;
  g_autofree char *label = NULL;

  if (self->session == NULL)
    return;
  results = ctr_session_get_open_results (self->session);
  d = ctr_session_get_dataset (self->session);
  key = menu_key (results, d != NULL && d->reference != NULL);
  self->updating = TRUE;
  if (g_strcmp0 (key, self->menu_key) != 0)
    {
      rebuild (self, results, d != NULL && d->reference != NULL);
      g_free (self->menu_key);
      self->menu_key = g_steal_pointer (&key);
    }

  shown = _ctr_compare_page_shown_runs (self);
  for (GtkWidget *c = gtk_widget_get_first_child (menu_box (self)); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      guint number = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (c), "ctr-run-number"));
      gboolean on = FALSE;

      if (!GTK_IS_CHECK_BUTTON (c))
        continue;
      if (number == 0)
        on = self->show_reference;
      for (guint i = 0; number > 0 && i < shown->len; i++)
        on |= g_array_index (shown, guint, i) == number;
      gtk_check_button_set_active (GTK_CHECK_BUTTON (c), on);
    }
  gtk_drop_down_set_selected (self->diff_a_drop, index_of (self->a_numbers, self->diff_a));
  gtk_drop_down_set_selected (self->diff_b_drop, index_of (self->b_numbers, self->diff_b));
  gtk_widget_set_sensitive (GTK_WIDGET (self->diff_b_drop), self->diff_a != 0 && self->diff_a != G_MAXUINT);
  label = self->chosen == NULL ? g_strdup ("Runs: Newest") : g_strdup_printf ("Runs: %u Chosen", shown->len);
  gtk_menu_button_set_label (self->runs_button, label);
  gtk_widget_set_sensitive (GTK_WIDGET (self->runs_button), g_list_model_get_n_items (results) > 0);
  self->updating = FALSE;
}

void
_ctr_compare_menu_init (CtrComparePage *self)
{
  g_signal_connect (self->diff_a_drop, "notify::selected", G_CALLBACK (on_difference_selected), self);
  g_signal_connect (self->diff_b_drop, "notify::selected", G_CALLBACK (on_difference_selected), self);
}
