/* ctr-preferences.c — the Preferences window: what a new window starts
 * with (org.ctrecon.CtRecon's keys) and where matrices are cached.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-preferences"

#include "ctr-preferences.h"
#include "ctrecon.h"
#include "ctr-settings.h"

static const char *const backends[] = { "best", "cpu", "cuda", "cusparse", NULL };


/* GSettings string ↔ combo row index, through @names (NULL-terminated). */
static gboolean
index_from_string (GValue *value, GVariant *variant, gpointer names)
{
  const char *s = g_variant_get_string (variant, NULL);
  const char *const *v = names;

  for (guint i = 0; v[i] != NULL; i++)
    if (g_str_equal (v[i], s))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
string_from_index (const GValue *value, const GVariantType *type, gpointer names)
{
  const char *const *v = names;
  guint i = g_value_get_uint (value);
  return i < g_strv_length ((char **) v) ? g_variant_new_string (v[i]) : NULL;
}

static GtkWidget *
combo_row (const char *title, const char *subtitle, const char *const *labels)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  g_autoptr(GtkStringList) model = gtk_string_list_new ((const char *const *) labels);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_combo_row_set_model (row, G_LIST_MODEL (model));
  return GTK_WIDGET (row);
}

/* The header's title without its cross-fade.  With one page the window's
 * AdwViewSwitcherTitle starts on its view switcher and then cross-fades
 * (AdwSqueezer) to the title "Preferences": for the first frames the
 * switcher's "General" button and the title were drawn over each other.
 * Its squeezers switch at once instead (nothing happens where a newer
 * libadwaita has none). */
static void
no_title_crossfade (GtkWidget *widget)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      if (ADW_IS_SQUEEZER (c))
        adw_squeezer_set_transition_type (ADW_SQUEEZER (c), ADW_SQUEEZER_TRANSITION_TYPE_NONE);
      no_title_crossfade (c);
    }
}

GtkWindow *
ctr_preferences_window_new (GtkWindow *parent)
{
  AdwPreferencesWindow *window = ADW_PREFERENCES_WINDOW (adw_preferences_window_new ());
  AdwPreferencesPage *page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  AdwPreferencesGroup *start = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  AdwPreferencesGroup *cache = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  g_autoptr(GSettingsSchema) schema = ctr_settings_schema ();
  const char *backend_labels[G_N_ELEMENTS (backends)];
  /* "auto" first: each dataset's fitting method (ctr-method-panel.h) */
  static const char *method_names[CTR_N_METHODS + 2] = { "auto" };
  static const char *method_labels[CTR_N_METHODS + 2] = { "Fits the dataset (FDK for cone beam, else FBP)" };
  GtkWidget *method, *backend, *iterations;

  for (guint b = 0; b < G_N_ELEMENTS (backends); b++)
    backend_labels[b] = backends[b] != NULL ? ctr_backend_label (backends[b]) : NULL;
  for (guint m = 0; m < CTR_N_METHODS; m++)
    {
      method_names[m + 1] = ctr_method_name (m);
      method_labels[m + 1] = ctr_method_label (m);
    }
  gtk_window_set_title (GTK_WINDOW (window), "Preferences");
  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  adw_preferences_page_set_title (page, "General");
  adw_preferences_page_set_icon_name (page, "preferences-system-symbolic");

  adw_preferences_group_set_title (start, "A New Window Starts With");
  adw_preferences_group_set_description (start, "The last choices on the Run page are kept here too.");
  method = combo_row ("Method", "Reconstruction algorithm", method_labels);
  gtk_widget_set_name (method, "default-method");
  iterations = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (iterations), "Iterations");
  adw_action_row_set_subtitle (ADW_ACTION_ROW (iterations), "0 keeps each method's own default");
  {
    GtkWidget *spin = gtk_spin_button_new_with_range (0, 100000, 1);
    gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
    gtk_widget_set_name (spin, "iterations");
    adw_action_row_add_suffix (ADW_ACTION_ROW (iterations), spin);
    if (schema != NULL)
      {
        g_autoptr(GSettings) settings = g_settings_new_full (schema, NULL, NULL);
        g_settings_bind (settings, "iterations", spin, "value", G_SETTINGS_BIND_DEFAULT);
      }
  }
  backend = combo_row ("Backend", "Where iterative methods and FDK run; a GPU that cannot run falls back to the CPU",
                       backend_labels);
  gtk_widget_set_name (backend, "backend");
  adw_preferences_group_add (start, method);
  adw_preferences_group_add (start, iterations);
  adw_preferences_group_add (start, backend);
  if (schema != NULL)
    {
      g_autoptr(GSettings) settings = g_settings_new_full (schema, NULL, NULL);
      g_settings_bind_with_mapping (settings, "default-method", method, "selected", G_SETTINGS_BIND_DEFAULT,
                                    index_from_string, string_from_index, (gpointer) method_names, NULL);
      g_settings_bind_with_mapping (settings, "backend", backend, "selected", G_SETTINGS_BIND_DEFAULT,
                                    index_from_string, string_from_index, (gpointer) backends, NULL);
    }
  else
    {
      adw_preferences_group_set_description (start, "Not kept: the settings schema org.ctrecon.CtRecon is not "
                                                    "installed.");
      gtk_widget_set_sensitive (method, FALSE);
      gtk_widget_set_sensitive (iterations, FALSE);
      gtk_widget_set_sensitive (backend, FALSE);
    }

  adw_preferences_group_set_title (cache, "System Matrix Cache");
  {
    GtkWidget *row = adw_action_row_new ();
    const char *dir = g_getenv ("CTR_CACHE_DIR");
    g_autofree char *folder = dir != NULL ? g_strdup (dir)
                                          : g_build_filename (g_get_user_cache_dir (), "ctrecon", "matrices", NULL);
    const char *off = g_getenv ("CTR_MATRIX_CACHE");

    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), "Folder");
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), folder);
    adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
    adw_preferences_group_add (cache, row);
    adw_preferences_group_set_description (cache, off != NULL && g_str_equal (off, "0")
      ? "Off (CTR_MATRIX_CACHE=0): every run builds its matrix."
      : "SCSR matrices are kept here and read again by the next run of the same geometry "
        "(CTR_CACHE_DIR moves it, CTR_MATRIX_CACHE=0 turns it off).");
  }
  adw_preferences_page_add (page, start);
  adw_preferences_page_add (page, cache);
  adw_preferences_window_add (window, page);
  no_title_crossfade (GTK_WIDGET (window));
  return GTK_WINDOW (window);
}
