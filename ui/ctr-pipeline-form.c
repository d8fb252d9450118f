/* ctr-pipeline-form.c — the Projections page's pipeline form (see the
 * header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "ctr-pipeline-form.h"
#include "preprocess/ctr-outliers.h"
#include "preprocess/ctr-rings.h"
#include "preprocess/ctr-stripes.h"

struct _CtrPipelineForm
{
  AdwBin          parent_instance;

  AdwExpanderRow *outliers_row;
  GtkSpinButton  *threshold;
  AdwExpanderRow *rings_row;
  AdwComboRow    *method_row;
  GtkSpinButton  *size;
  GtkSpinButton  *snr;
  AdwActionRow   *snr_row;
  GtkLabel       *others_label;
  JsonArray      *others;      /* the dataset's steps other than outliers and rings; nullable */
  gboolean        quiet;       /* filling the form: one "changed" at the end */
};

G_DEFINE_FINAL_TYPE (CtrPipelineForm, ctr_pipeline_form, ADW_TYPE_BIN)

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const methods[] = { "sorting", "large", "dead", NULL };

static void
emit_changed (CtrPipelineForm *self)
{
  if (!self->quiet)
    g_signal_emit (self, signals[CHANGED], 0);
}

/* A method's own defaults (ctr-rings.h, ctr-stripes.h). */
static void
method_defaults (CtrPipelineForm *self)
{
  guint m = adw_combo_row_get_selected (self->method_row);

  self->quiet = TRUE;
  gtk_spin_button_set_value (self->size, m == CTR_RINGS_SORTING ? CTR_RINGS_DEFAULT_SIZE : CTR_STRIPES_DEFAULT_SIZE);
  gtk_spin_button_set_value (self->snr, m == CTR_RINGS_DEAD ? CTR_STRIPES_DEFAULT_SNR_DEAD
                                                           : CTR_STRIPES_DEFAULT_SNR_LARGE);
  self->quiet = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->snr_row), m != CTR_RINGS_SORTING);
}

static void
on_method (CtrPipelineForm *self)
{
  if (!self->quiet)
    method_defaults (self);
  gtk_widget_set_sensitive (GTK_WIDGET (self->snr_row), adw_combo_row_get_selected (self->method_row) != CTR_RINGS_SORTING);
  emit_changed (self);
}

static GtkSpinButton *
spin_row (AdwExpanderRow *parent, const char *title, const char *name, double lo, double hi, double step,
          guint digits, AdwActionRow **row_out)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkSpinButton *spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (lo, hi, step));

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_spin_button_set_digits (spin, digits);
  gtk_widget_set_valign (GTK_WIDGET (spin), GTK_ALIGN_CENTER);
  gtk_widget_set_name (GTK_WIDGET (spin), name);
  adw_action_row_add_suffix (row, GTK_WIDGET (spin));
  adw_expander_row_add_row (parent, GTK_WIDGET (row));
  if (row_out != NULL)
    *row_out = row;
  return spin;
}

static AdwExpanderRow *
step_row (AdwPreferencesGroup *group, const char *title, const char *subtitle, const char *name)
{
  AdwExpanderRow *row = ADW_EXPANDER_ROW (adw_expander_row_new ());

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_expander_row_set_subtitle (row, subtitle);
  adw_expander_row_set_show_enable_switch (row, TRUE);
  adw_expander_row_set_enable_expansion (row, FALSE);
  gtk_widget_set_name (GTK_WIDGET (row), name);
  adw_preferences_group_add (group, GTK_WIDGET (row));
  return row;
}

static void
ctr_pipeline_form_dispose (GObject *object)
{
  CtrPipelineForm *self = CTR_PIPELINE_FORM (object);

  g_clear_pointer (&self->others, json_array_unref);
  G_OBJECT_CLASS (ctr_pipeline_form_parent_class)->dispose (object);
}

static void
ctr_pipeline_form_class_init (CtrPipelineFormClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ctr_pipeline_form_dispose;
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
ctr_pipeline_form_init (CtrPipelineForm *self)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  GtkBox *box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 6));
  const char *const labels[] = { "Sorting (small stripes)", "Large stripes", "Dead stripes", NULL };

  adw_preferences_group_set_title (group, "Pipeline");
  adw_preferences_group_set_description (group, "Run on the shown row only");
  self->outliers_row = step_row (group, "Outliers", "Zingers: a median filter, a robust-SD threshold", "outliers");
  self->threshold = spin_row (self->outliers_row, "Threshold (robust SD)", "threshold", 0.5, 100, 0.5, 1, NULL);
  gtk_spin_button_set_value (self->threshold, CTR_OUTLIERS_DEFAULT_THRESHOLD);
  self->rings_row = step_row (group, "Rings", "Stripe removal, Vo et al. 2018", "rings");
  self->method_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->method_row), "Method");
  adw_combo_row_set_model (self->method_row, G_LIST_MODEL (gtk_string_list_new (labels)));
  gtk_widget_set_name (GTK_WIDGET (self->method_row), "method");
  adw_expander_row_add_row (self->rings_row, GTK_WIDGET (self->method_row));
  self->size = spin_row (self->rings_row, "Size (columns)", "size", 3, 1001, 2, 0, NULL);
  self->snr = spin_row (self->rings_row, "SNR threshold", "snr", 0.5, 100, 0.5, 1, &self->snr_row);
  method_defaults (self);
  self->others_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->others_label, TRUE);
  gtk_label_set_xalign (self->others_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->others_label), "dim-label");
  gtk_widget_set_visible (GTK_WIDGET (self->others_label), FALSE);
  gtk_box_append (box, GTK_WIDGET (group));
  gtk_box_append (box, GTK_WIDGET (self->others_label));
  adw_bin_set_child (ADW_BIN (self), GTK_WIDGET (box));

  g_signal_connect_swapped (self->outliers_row, "notify::enable-expansion", G_CALLBACK (emit_changed), self);
  g_signal_connect_swapped (self->rings_row, "notify::enable-expansion", G_CALLBACK (emit_changed), self);
  g_signal_connect_swapped (self->threshold, "value-changed", G_CALLBACK (emit_changed), self);
  g_signal_connect_swapped (self->size, "value-changed", G_CALLBACK (emit_changed), self);
  g_signal_connect_swapped (self->snr, "value-changed", G_CALLBACK (emit_changed), self);
  g_signal_connect_swapped (self->method_row, "notify::selected", G_CALLBACK (on_method), self);
}

GtkWidget *
ctr_pipeline_form_new (void)
{
  return g_object_new (CTR_TYPE_PIPELINE_FORM, NULL);
}

static guint
method_index (const char *name)
{
  for (guint k = 0; methods[k] != NULL; k++)
    if (name != NULL && g_str_equal (name, methods[k]))
      return k;
  return CTR_RINGS_SORTING;
}

/* Fills the ring rows from a "rings" step object. */
static void
fill_rings (CtrPipelineForm *self, JsonObject *o)
{
  adw_combo_row_set_selected (self->method_row, method_index (json_object_get_string_member_with_default (o, "method", NULL)));
  method_defaults (self);
  if (json_object_has_member (o, "size"))
    gtk_spin_button_set_value (self->size, json_object_get_double_member_with_default (o, "size", 21));
  if (json_object_has_member (o, "snr"))
    gtk_spin_button_set_value (self->snr, json_object_get_double_member_with_default (o, "snr", 20));
  adw_expander_row_set_enable_expansion (self->rings_row, TRUE);
}

void
ctr_pipeline_form_set_steps (CtrPipelineForm *self, JsonNode *steps)
{
  JsonArray *array = steps != NULL && JSON_NODE_HOLDS_ARRAY (steps) ? json_node_get_array (steps) : NULL;
  g_autoptr (GString) names = g_string_new (NULL);

  g_return_if_fail (CTR_IS_PIPELINE_FORM (self));
  self->quiet = TRUE;
  g_clear_pointer (&self->others, json_array_unref);
  self->others = json_array_new ();
  adw_expander_row_set_enable_expansion (self->outliers_row, FALSE);
  adw_expander_row_set_enable_expansion (self->rings_row, FALSE);
  gtk_spin_button_set_value (self->threshold, CTR_OUTLIERS_DEFAULT_THRESHOLD);
  adw_combo_row_set_selected (self->method_row, CTR_RINGS_SORTING);
  method_defaults (self);
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *op = o != NULL ? json_object_get_string_member_with_default (o, "op", "") : "";

      if (g_str_equal (op, "outliers"))
        {
          gtk_spin_button_set_value (self->threshold, json_object_get_double_member_with_default (
                                                        o, "threshold", CTR_OUTLIERS_DEFAULT_THRESHOLD));
          adw_expander_row_set_enable_expansion (self->outliers_row, TRUE);
        }
      else if (g_str_equal (op, "rings"))
        fill_rings (self, o);
      else
        {
          json_array_add_element (self->others, json_node_copy (node));
          g_string_append_printf (names, "%s%s", names->len ? ", " : "", op);
        }
    }
  if (names->len > 0)
    {
      g_autofree char *text = g_strdup_printf ("Also the dataset's own: %s", names->str);
      gtk_label_set_text (self->others_label, text);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->others_label), names->len > 0);
  self->quiet = FALSE;
  emit_changed (self);
}

void
ctr_pipeline_form_set_rings (CtrPipelineForm *self, gboolean on, const char *method, guint size)
{
  g_return_if_fail (CTR_IS_PIPELINE_FORM (self));
  self->quiet = TRUE;
  adw_combo_row_set_selected (self->method_row, method_index (method));
  method_defaults (self);
  self->quiet = TRUE;
  if (size > 0)
    gtk_spin_button_set_value (self->size, size);
  adw_expander_row_set_enable_expansion (self->rings_row, on);
  adw_expander_row_set_expanded (self->rings_row, on);
  self->quiet = FALSE;
  emit_changed (self);
}

void
ctr_pipeline_form_set_outliers (CtrPipelineForm *self, gboolean on, double threshold)
{
  g_return_if_fail (CTR_IS_PIPELINE_FORM (self));
  self->quiet = TRUE;
  gtk_spin_button_set_value (self->threshold, threshold);
  adw_expander_row_set_enable_expansion (self->outliers_row, on);
  self->quiet = FALSE;
  emit_changed (self);
}

static const char *
op_of (JsonNode *node)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return "";
  return json_object_get_string_member_with_default (json_node_get_object (node), "op", "");
}

JsonNode *
ctr_pipeline_form_to_json (CtrPipelineForm *self)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  guint n_others = self->others != NULL ? json_array_get_length (self->others) : 0;

  json_builder_begin_array (b);
  for (guint i = 0; i < n_others; i++)   /* a drifting source first: the others assume a steady one */
    if (g_str_equal (op_of (json_array_get_element (self->others, i)), "flux"))
      json_builder_add_value (b, json_node_copy (json_array_get_element (self->others, i)));
  if (adw_expander_row_get_enable_expansion (self->outliers_row))
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, "outliers");
      json_builder_set_member_name (b, "threshold");
      json_builder_add_double_value (b, gtk_spin_button_get_value (self->threshold));
      json_builder_end_object (b);
    }
  if (adw_expander_row_get_enable_expansion (self->rings_row))
    {
      guint m = adw_combo_row_get_selected (self->method_row);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, "rings");
      json_builder_set_member_name (b, "method");
      json_builder_add_string_value (b, methods[MIN (m, 2u)]);
      json_builder_set_member_name (b, "size");
      json_builder_add_int_value (b, gtk_spin_button_get_value_as_int (self->size));
      if (m != CTR_RINGS_SORTING)
        {
          json_builder_set_member_name (b, "snr");
          json_builder_add_double_value (b, gtk_spin_button_get_value (self->snr));
        }
      json_builder_end_object (b);
    }
  for (guint i = 0; i < n_others; i++)
    if (!g_str_equal (op_of (json_array_get_element (self->others, i)), "flux"))
      json_builder_add_value (b, json_node_copy (json_array_get_element (self->others, i)));
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

CtrPipeline *
ctr_pipeline_form_build (CtrPipelineForm *self, GError **error)
{
  g_autoptr (JsonNode) node = NULL;

  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), NULL);
  node = ctr_pipeline_form_to_json (self);
  return ctr_pipeline_from_json (node, "the pipeline form", error);
}
