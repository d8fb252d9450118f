/* ctr-variant-row.c — see ctr-variant-row.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-run-page"

#include "ctr-variant-row.h"

#define DEFAULT_ENTRY "projections (default)"

static void
on_selected (AdwComboRow *row, GParamSpec *pspec, gpointer data)
{
  GListModel *model = adw_combo_row_get_model (row);
  guint i = adw_combo_row_get_selected (row);
  const char *loaded = g_object_get_data (G_OBJECT (row), "ctr-loaded");
  const char *name;

  if (g_object_get_data (G_OBJECT (row), "ctr-updating") != NULL || model == NULL ||
      i >= g_list_model_get_n_items (model))
    return;
  name = i == 0 ? "" : gtk_string_list_get_string (GTK_STRING_LIST (model), i);
  if (g_strcmp0 (name, loaded ? loaded : "") == 0)
    return;
  gtk_widget_activate_action (GTK_WIDGET (row), "win.open-variant", "s", name);
}

void
ctr_variant_row_init (AdwComboRow *row)
{
  g_return_if_fail (ADW_IS_COMBO_ROW (row));
  g_signal_connect (row, "notify::selected", G_CALLBACK (on_selected), NULL);
}

void
ctr_variant_row_sync (AdwComboRow *row, const CtrDataset *dataset)
{
  g_autoptr(GtkStringList) list = gtk_string_list_new (NULL);
  guint selected = 0;

  g_return_if_fail (ADW_IS_COMBO_ROW (row));
  gtk_widget_set_visible (GTK_WIDGET (row), dataset != NULL && dataset->variants != NULL);
  g_object_set_data_full (G_OBJECT (row), "ctr-loaded", dataset ? g_strdup (dataset->variant) : NULL, g_free);
  if (dataset == NULL || dataset->variants == NULL)
    return;
  gtk_string_list_append (list, DEFAULT_ENTRY);
  for (guint i = 0; dataset->variants[i] != NULL; i++)
    {
      gtk_string_list_append (list, dataset->variants[i]);
      if (g_strcmp0 (dataset->variants[i], dataset->variant) == 0)
        selected = i + 1;
    }
  g_object_set_data (G_OBJECT (row), "ctr-updating", GINT_TO_POINTER (1));
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  adw_combo_row_set_selected (row, selected);
  g_object_set_data (G_OBJECT (row), "ctr-updating", NULL);
}
