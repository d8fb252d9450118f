/* ctr-pipeline-form.c — the Projections page's pipeline list (see the
 * header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The steps are JSON objects; the rows are rebuilt from them when a step
 * is added, removed, moved or its ring method changes, and a field edits
 * its step's object in place (so typing keeps the focus).  The fields' own
 * defaults are the core's constants.
 */
#include "ctr-pipeline-form.h"
#include "preprocess/ctr-outliers.h"
#include "preprocess/ctr-rings.h"
#include "preprocess/ctr-rings-wavelet.h"
#include "preprocess/ctr-stripes.h"
#include "preprocess/ctr-beamhard.h"
#include "preprocess/ctr-truncation.h"

typedef struct {
  JsonObject     *o;     /* the step as it will be written */
  gboolean        on;    /* switched on: in the list written */
  AdwExpanderRow *row;   /* its row, while shown */
} Step;

struct _CtrPipelineForm
{
  AdwBin          parent_instance;

  GtkListBox     *list;
  GtkLabel       *empty;
  GtkDropDown    *add_op;
  GPtrArray      *steps;       /* Step */
  char           *own;         /* the dataset's own list, as text */
  gboolean        quiet;       /* filling the fields: no "changed" */
  GPtrArray      *retired;     /* rows taken out, kept until idle: a row's own button may be in its signal */
  guint           retire_id;
};

G_DEFINE_FINAL_TYPE (CtrPipelineForm, ctr_pipeline_form, ADW_TYPE_BIN)

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const ops[] = { "flux", "outliers", "rings", "beam-hardening", "truncation", NULL };
static const char *const op_titles[] = { "Flux", "Outliers", "Rings", "Beam hardening", "Truncation", NULL };
static const char *const op_notes[] = {
  "A drifting source: each view over its air columns",
  "Zingers: a median filter, a robust-SD threshold",
  "Stripe removal (Vo et al. 2018; Münch et al. 2009)",
  "Water pre-correction, Herman 1979",
  "Cut rows extended by water cylinders, Hsieh et al. 2004",
};
static const char *const methods[] = { "sorting", "large", "dead", "wavelet-fft", NULL };
static const char *const wavelets[] = { "db1", "db2", "db3", "db4", "db5", "db6", "db7", "db8", "db9", "db10", NULL };

static void rebuild (CtrPipelineForm *self);

static void
step_free (gpointer data)
{
  Step *st = data;

  json_object_unref (st->o);
  g_free (st);
}

static const char *
step_op (const Step *st)
{
  return json_object_get_string_member_with_default (st->o, "op", "");
}

static const char *
step_method (const Step *st)
{
  JsonNode *m = json_object_get_member (st->o, "method");

  return m != NULL && JSON_NODE_HOLDS_VALUE (m) && json_node_get_value_type (m) == G_TYPE_STRING
         ? json_node_get_string (m) : "sorting";
}

static void
emit_changed (CtrPipelineForm *self)
{
  if (!self->quiet)
    g_signal_emit (self, signals[CHANGED], 0);
}

/* "size 21, method sorting" — what the step states; "defaults" for none. */
static void
show_summary (Step *st)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autoptr (GList) names = json_object_get_members (st->o);

  if (st->row == NULL)
    return;
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *n = json_object_get_member (st->o, l->data);
      g_autofree char *v = NULL;
      if (g_str_equal (l->data, "op"))
        continue;
      v = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
          ? g_strdup (json_node_get_string (n)) : json_to_string (n, FALSE);
      g_string_append_printf (s, "%s%s %s", s->len ? ", " : "", (const char *) l->data, v);
    }
  adw_expander_row_set_subtitle (st->row, s->len ? s->str : "defaults");
}

/* ---- fields ---------------------------------------------------------------- */

typedef enum { F_INT, F_NUMBER, F_AUTO, F_BOOL, F_CHOICE, F_RANGES, F_NUMBERS, F_NAME } FieldKind;

typedef struct {
  CtrPipelineForm *form;
  Step            *step;
  char             key[24];
  FieldKind        kind;
} Field;

static Field *
field_new (CtrPipelineForm *self, Step *st, const char *key, FieldKind kind, GtkWidget *w)
{
  Field *f = g_new0 (Field, 1);

  f->form = self;
  f->step = st;
  f->kind = kind;
  g_strlcpy (f->key, key, sizeof f->key);
  gtk_widget_set_name (w, key);
  g_object_set_data_full (G_OBJECT (w), "ctr-field", f, g_free);
  return f;
}

static void
edited (Field *f)
{
  show_summary (f->step);
  emit_changed (f->form);
}

static void
on_spin (GtkSpinButton *spin, Field *f)
{
  double v = gtk_spin_button_get_value (spin);

  if (f->form->quiet)
    return;
  if (f->kind == F_AUTO && v == 0)
    json_object_remove_member (f->step->o, f->key);
  else if (gtk_spin_button_get_digits (spin) > 0)
    json_object_set_double_member (f->step->o, f->key, v);
  else
    json_object_set_int_member (f->step->o, f->key, gtk_spin_button_get_value_as_int (spin));
  edited (f);
}

static void
on_switch (GtkSwitch *sw, GParamSpec *pspec, Field *f)
{
  if (f->form->quiet)
    return;
  json_object_set_boolean_member (f->step->o, f->key, gtk_switch_get_active (sw));
  edited (f);
}

static gboolean
rebuild_idle (gpointer data)
{
  CtrPipelineForm *self = data;

  if (self->steps != NULL)   /* not disposed */
    rebuild (self);
  return G_SOURCE_REMOVE;
}

static void
on_choice (AdwComboRow *row, GParamSpec *pspec, Field *f)
{
  const char *const *names = g_object_get_data (G_OBJECT (row), "ctr-names");
  guint k = adw_combo_row_get_selected (row);

  if (f->form->quiet || k >= g_strv_length ((char **) names))
    return;
  if (g_str_equal (f->key, "method"))
    {
      /* another method takes other parameters: its own defaults */
      JsonObject *o = json_object_new ();
      json_object_set_string_member (o, "op", "rings");
      json_object_set_string_member (o, "method", names[k]);
      json_object_unref (f->step->o);
      f->step->o = o;
      emit_changed (f->form);
      /* the rows again, with that method's fields: once this row's signal is over */
      g_idle_add_full (G_PRIORITY_HIGH_IDLE, rebuild_idle, g_object_ref (f->form), g_object_unref);
      return;
    }
  json_object_set_string_member (f->step->o, f->key, names[k]);
  edited (f);
}

/* "0-9, 118-127" as [[0, 9], [118, 127]]; NULL when it is not that. */
static JsonNode *
parse_ranges (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  JsonArray *a = json_array_new ();

  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint64 lo, hi;
      char *end;
      JsonArray *pair;

      g_strstrip (parts[i]);
      lo = g_ascii_strtoull (parts[i], &end, 10);
      if (end == parts[i] || *end != '-' || !g_ascii_isdigit (end[1]))
        goto bad;
      hi = g_ascii_strtoull (end + 1, &end, 10);
      if (*end != '\0')
        goto bad;
      pair = json_array_new ();
      json_array_add_int_element (pair, (gint64) lo);
      json_array_add_int_element (pair, (gint64) hi);
      json_array_add_array_element (a, pair);
    }
  {
    JsonNode *n = json_node_new (JSON_NODE_ARRAY);
    json_node_take_array (n, a);
    return n;
  }
bad:
  json_array_unref (a);
  return NULL;
}

/* "0.1, 0.02" as [0.1, 0.02]; NULL when it is not numbers. */
static JsonNode *
parse_numbers (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  JsonArray *a = json_array_new ();
  JsonNode *n;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end;
      double v;

      g_strstrip (parts[i]);
      v = g_ascii_strtod (parts[i], &end);
      if (end == parts[i] || *end != '\0')
        {
          json_array_unref (a);
          return NULL;
        }
      json_array_add_double_element (a, v);
    }
  n = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (n, a);
  return n;
}

static void
on_entry (GtkEditable *entry, Field *f)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (entry)));
  JsonNode *n = NULL;

  if (f->form->quiet)
    return;
  if (*text == '\0')
    {
      json_object_remove_member (f->step->o, f->key);
      edited (f);
      return;
    }
  if (f->kind == F_RANGES)
    n = parse_ranges (text);
  else if (f->kind == F_NUMBERS)
    n = parse_numbers (text);
  if (n == NULL)   /* a name, or text that is not what the key takes: the core's parser says why */
    {
      n = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (n, text);
    }
  json_object_set_member (f->step->o, f->key, n);
  edited (f);
}

static double
number_of (Step *st, const char *key, double fallback)
{
  JsonNode *n = json_object_get_member (st->o, key);

  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) != G_TYPE_STRING
         && json_node_get_value_type (n) != G_TYPE_BOOLEAN ? json_node_get_double (n) : fallback;
}

static void
spin_field (CtrPipelineForm *self, Step *st, const char *key, const char *title, double lo, double hi, double inc,
            double def, FieldKind kind)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkSpinButton *spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (lo, hi, inc));

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_spin_button_set_digits (spin, inc >= 1 ? 0 : inc < 0.01 ? 4 : 1);
  gtk_spin_button_set_value (spin, number_of (st, key, def));
  gtk_widget_set_valign (GTK_WIDGET (spin), GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (row, GTK_WIDGET (spin));
  adw_expander_row_add_row (st->row, GTK_WIDGET (row));
  g_signal_connect (spin, "value-changed", G_CALLBACK (on_spin), field_new (self, st, key, kind, GTK_WIDGET (spin)));
}

static void
switch_field (CtrPipelineForm *self, Step *st, const char *key, const char *title, gboolean def)
{
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());
  GtkSwitch *sw = GTK_SWITCH (gtk_switch_new ());
  JsonNode *n = json_object_get_member (st->o, key);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_switch_set_active (sw, n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN
                             ? json_node_get_boolean (n) : def);
  gtk_widget_set_valign (GTK_WIDGET (sw), GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (row, GTK_WIDGET (sw));
  adw_action_row_set_activatable_widget (row, GTK_WIDGET (sw));
  adw_expander_row_add_row (st->row, GTK_WIDGET (row));
  g_signal_connect (sw, "notify::active", G_CALLBACK (on_switch), field_new (self, st, key, F_BOOL, GTK_WIDGET (sw)));
}

static void
choice_field (CtrPipelineForm *self, Step *st, const char *key, const char *title, const char *const *names,
              const char *current)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  guint k = 0;

  while (names[k] != NULL && g_strcmp0 (names[k], current) != 0)
    k++;
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (row, G_LIST_MODEL (gtk_string_list_new (names)));
  adw_combo_row_set_selected (row, names[k] != NULL ? k : 0);
  g_object_set_data (G_OBJECT (row), "ctr-names", (gpointer) names);
  adw_expander_row_add_row (st->row, GTK_WIDGET (row));
  g_signal_connect (row, "notify::selected", G_CALLBACK (on_choice),
                    field_new (self, st, key, F_CHOICE, GTK_WIDGET (row)));
}

/* The stated value as the entry shows it: "0-9, 118-127", "0.1, 0.02", a name. */
static char *
entry_text (Step *st, const char *key, FieldKind kind)
{
  JsonNode *n = json_object_get_member (st->o, key);
  g_autoptr (GString) s = g_string_new (NULL);
  JsonArray *a;

  if (n == NULL)
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  if (!JSON_NODE_HOLDS_ARRAY (n) || kind == F_NAME)
    return json_to_string (n, FALSE);
  a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      g_autofree char *t = NULL;
      if (kind == F_RANGES && JSON_NODE_HOLDS_ARRAY (e) && json_array_get_length (json_node_get_array (e)) == 2)
        t = g_strdup_printf ("%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT,
                             json_array_get_int_element (json_node_get_array (e), 0),
                             json_array_get_int_element (json_node_get_array (e), 1));
      else
        t = json_to_string (e, FALSE);
      g_string_append_printf (s, "%s%s", i ? ", " : "", t);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
entry_field (CtrPipelineForm *self, Step *st, const char *key, const char *title, FieldKind kind)
{
  AdwEntryRow *row = ADW_ENTRY_ROW (adw_entry_row_new ());
  g_autofree char *text = entry_text (st, key, kind);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_editable_set_text (GTK_EDITABLE (row), text);
  adw_expander_row_add_row (st->row, GTK_WIDGET (row));
  g_signal_connect (row, "changed", G_CALLBACK (on_entry), field_new (self, st, key, kind, GTK_WIDGET (row)));
}

/* The fields of @st's op, each showing its value or the core's default. */
static void
add_fields (CtrPipelineForm *self, Step *st)
{
  const char *op = step_op (st);
  GtkWidget *note = gtk_label_new (NULL);

  for (guint i = 0; ops[i] != NULL; i++)
    if (g_str_equal (ops[i], op))
      gtk_label_set_text (GTK_LABEL (note), op_notes[i]);
  gtk_label_set_wrap (GTK_LABEL (note), TRUE);
  gtk_label_set_xalign (GTK_LABEL (note), 0);
  gtk_widget_add_css_class (note, "dim-label");
  gtk_widget_set_margin_start (note, 12);
  gtk_widget_set_margin_end (note, 12);
  gtk_widget_set_margin_top (note, 6);
  gtk_widget_set_margin_bottom (note, 6);
  adw_expander_row_add_row (st->row, note);

  if (g_str_equal (op, "flux"))
    entry_field (self, st, "columns", "Air columns (e.g. 0-9, 118-127; empty: found at the edges)", F_RANGES);
  else if (g_str_equal (op, "outliers"))
    {
      spin_field (self, st, "threshold", "Threshold (robust SD)", 0.5, 100, 0.5, CTR_OUTLIERS_DEFAULT_THRESHOLD, F_NUMBER);
      spin_field (self, st, "size", "Size (pixels, odd)", 3, 99, 2, CTR_OUTLIERS_DEFAULT_SIZE, F_INT);
    }
  else if (g_str_equal (op, "rings"))
    {
      const char *m = step_method (st);
      const gboolean sorting = g_str_equal (m, "sorting"), dead = g_str_equal (m, "dead");

      choice_field (self, st, "method", "Method", methods, m);
      if (g_str_equal (m, "wavelet-fft"))
        {
          spin_field (self, st, "level", "Levels", 1, CTR_RINGS_WAVELET_MAX_LEVEL, 1, CTR_RINGS_WAVELET_DEFAULT_LEVEL, F_INT);
          choice_field (self, st, "wavelet", "Wavelet", wavelets,
                        json_object_get_string_member_with_default (st->o, "wavelet", CTR_RINGS_WAVELET_DEFAULT_NAME));
          spin_field (self, st, "sigma", "Damping σ", 0.1, 100, 0.1, CTR_RINGS_WAVELET_DEFAULT_SIGMA, F_NUMBER);
          switch_field (self, st, "pad", "Pad the views", TRUE);
          return;
        }
      spin_field (self, st, "size", "Size (columns, odd)", 3, 1001, 2,
                  sorting ? CTR_RINGS_DEFAULT_SIZE : CTR_STRIPES_DEFAULT_SIZE, F_INT);
      if (sorting)
        {
          spin_field (self, st, "warn_change", "Warn above this change of a row (fraction of its range)", 0.005, 1,
                      0.005, CTR_RINGS_DEFAULT_WARN_CHANGE, F_NUMBER);
          return;
        }
      spin_field (self, st, "snr", "SNR threshold", 0.5, 100, 0.5,
                  dead ? CTR_STRIPES_DEFAULT_SNR_DEAD : CTR_STRIPES_DEFAULT_SNR_LARGE, F_NUMBER);
      switch_field (self, st, "normalise", "Normalise the columns", FALSE);
      if (dead)
        switch_field (self, st, "residual", "Large stripes on the residual", TRUE);
    }
  else if (g_str_equal (op, "beam-hardening"))
    {
      entry_field (self, st, "spectrum", "Spectrum (built-in name, e.g. 120kvp)", F_NAME);
      entry_field (self, st, "coefficients", "Or coefficients a1, a2, … (then no spectrum)", F_NUMBERS);
      spin_field (self, st, "degree", "Degree (with a spectrum)", 1, CTR_BEAMHARD_MAX_DEGREE, 1,
                  CTR_BEAMHARD_DEFAULT_DEGREE, F_INT);
      spin_field (self, st, "mu_per_mm", "μ water, 1/mm (0: the spectrum's mean)", 0, 1, 0.0001, 0, F_AUTO);
    }
  else if (g_str_equal (op, "truncation"))
    {
      spin_field (self, st, "width", "New columns per end (0: half the detector)", 0, CTR_TRUNCATION_MAX_WIDTH, 1, 0,
                  F_AUTO);
      spin_field (self, st, "fit", "Edge columns fitted", 2, 4096, 1, CTR_TRUNCATION_DEFAULT_FIT, F_INT);
      spin_field (self, st, "mu_per_mm", "μ of the cylinder, 1/mm", 0.0001, 1, 0.0001, CTR_MU_WATER_PER_MM, F_NUMBER);
      switch_field (self, st, "consistency", "Scaled to the views' common total", TRUE);
    }
}

/* ---- the rows --------------------------------------------------------------- */

static guint
index_of (CtrPipelineForm *self, GtkWidget *w)
{
  Step *st = g_object_get_data (G_OBJECT (w), "ctr-step");
  guint i;

  return st != NULL && g_ptr_array_find (self->steps, st, &i) ? i : G_MAXUINT;
}

static void
on_up (GtkButton *b, CtrPipelineForm *self)
{
  ctr_pipeline_form_move_step (self, index_of (self, GTK_WIDGET (b)), TRUE);
}

static void
on_down (GtkButton *b, CtrPipelineForm *self)
{
  ctr_pipeline_form_move_step (self, index_of (self, GTK_WIDGET (b)), FALSE);
}

static void
on_remove (GtkButton *b, CtrPipelineForm *self)
{
  ctr_pipeline_form_remove_step (self, index_of (self, GTK_WIDGET (b)));
}

static void
on_enable (AdwExpanderRow *row, GParamSpec *pspec, CtrPipelineForm *self)
{
  Step *st = g_object_get_data (G_OBJECT (row), "ctr-step");

  if (self->quiet || st == NULL)
    return;
  st->on = adw_expander_row_get_enable_expansion (row);
  emit_changed (self);
}

static void
row_button (CtrPipelineForm *self, Step *st, const char *icon, const char *name, const char *tip, GCallback cb,
            gboolean sensitive)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_name (b, name);
  gtk_widget_set_tooltip_text (b, tip);
  gtk_widget_set_valign (b, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (b, "flat");
  gtk_widget_set_sensitive (b, sensitive);
  g_object_set_data (G_OBJECT (b), "ctr-step", st);
  g_signal_connect (b, "clicked", cb, self);
  adw_expander_row_add_action (st->row, b);
}

static gboolean
clear_retired (gpointer data)
{
  CtrPipelineForm *self = data;

  self->retire_id = 0;
  g_ptr_array_set_size (self->retired, 0);
  return G_SOURCE_REMOVE;
}

static void
rebuild (CtrPipelineForm *self)
{
  GtkWidget *child;

  self->quiet = TRUE;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    {
      g_ptr_array_add (self->retired, g_object_ref (child));
      gtk_list_box_remove (self->list, child);
    }
  if (self->retired->len > 0 && self->retire_id == 0)
    self->retire_id = g_idle_add (clear_retired, self);
  for (guint i = 0; i < self->steps->len; i++)
    {
      Step *st = self->steps->pdata[i];
      g_autofree char *title = NULL;
      guint k = 0;

      while (ops[k] != NULL && !g_str_equal (ops[k], step_op (st)))
        k++;
      st->row = ADW_EXPANDER_ROW (adw_expander_row_new ());
      title = g_strdup_printf ("%u. %s", i + 1, ops[k] != NULL ? op_titles[k] : step_op (st));
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (st->row), title);
      adw_expander_row_set_show_enable_switch (st->row, TRUE);
      adw_expander_row_set_enable_expansion (st->row, st->on);
      gtk_widget_set_name (GTK_WIDGET (st->row), step_op (st));
      g_object_set_data (G_OBJECT (st->row), "ctr-step", st);
      row_button (self, st, "go-up-symbolic", "up", "Move up", G_CALLBACK (on_up), i > 0);
      row_button (self, st, "go-down-symbolic", "down", "Move down", G_CALLBACK (on_down), i + 1 < self->steps->len);
      row_button (self, st, "user-trash-symbolic", "remove", "Remove the step", G_CALLBACK (on_remove), TRUE);
      add_fields (self, st);
      show_summary (st);
      g_signal_connect (st->row, "notify::enable-expansion", G_CALLBACK (on_enable), self);
      gtk_list_box_append (self->list, GTK_WIDGET (st->row));
    }
  gtk_widget_set_visible (GTK_WIDGET (self->list), self->steps->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->empty), self->steps->len == 0);
  self->quiet = FALSE;
}

static void
on_add (CtrPipelineForm *self)
{
  guint k = gtk_drop_down_get_selected (self->add_op);

  if (k < G_N_ELEMENTS (ops) - 1)
    ctr_pipeline_form_add_step (self, ops[k]);
}

/* ---- GObject ------------------------------------------------------------------ */

static void
ctr_pipeline_form_dispose (GObject *object)
{
  CtrPipelineForm *self = CTR_PIPELINE_FORM (object);

  g_clear_handle_id (&self->retire_id, g_source_remove);
  g_clear_pointer (&self->retired, g_ptr_array_unref);
  g_clear_pointer (&self->steps, g_ptr_array_unref);
  g_clear_pointer (&self->own, g_free);
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
  GtkBox *box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 6));
  GtkBox *add = GTK_BOX (gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6));
  GtkLabel *heading = GTK_LABEL (gtk_label_new ("Pipeline"));
  GtkLabel *note = GTK_LABEL (gtk_label_new ("Run in this order on the preview and on every run; saved with the "
                                             "geometry and the session"));
  GtkWidget *button = gtk_button_new_with_label ("Add Step");

  self->steps = g_ptr_array_new_with_free_func (step_free);
  self->retired = g_ptr_array_new_with_free_func (g_object_unref);
  gtk_widget_add_css_class (GTK_WIDGET (heading), "heading");
  gtk_label_set_xalign (heading, 0);
  gtk_label_set_wrap (note, TRUE);
  gtk_label_set_xalign (note, 0);
  gtk_widget_add_css_class (GTK_WIDGET (note), "dim-label");
  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  self->empty = GTK_LABEL (gtk_label_new ("No step: the data as measured"));
  gtk_label_set_xalign (self->empty, 0);
  self->add_op = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (op_titles));
  gtk_widget_set_name (GTK_WIDGET (self->add_op), "add-op");
  gtk_widget_set_hexpand (GTK_WIDGET (self->add_op), TRUE);
  gtk_widget_set_name (button, "add-step");
  gtk_box_append (add, GTK_WIDGET (self->add_op));
  gtk_box_append (add, button);
  gtk_box_append (box, GTK_WIDGET (heading));
  gtk_box_append (box, GTK_WIDGET (note));
  gtk_box_append (box, GTK_WIDGET (self->list));
  gtk_box_append (box, GTK_WIDGET (self->empty));
  gtk_box_append (box, GTK_WIDGET (add));
  adw_bin_set_child (ADW_BIN (self), GTK_WIDGET (box));
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (on_add), self);
  rebuild (self);
}

GtkWidget *
ctr_pipeline_form_new (void)
{
  return g_object_new (CTR_TYPE_PIPELINE_FORM, NULL);
}

/* ---- the list ------------------------------------------------------------------ */

/* A copy that shares nothing with @o (json_node_copy shares its members). */
static JsonObject *
deep_copy (JsonObject *o)
{
  g_autoptr (JsonNode) n = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) back = NULL;

  json_node_set_object (n, o);
  text = json_to_string (n, FALSE);
  back = json_from_string (text, NULL);
  return json_object_ref (json_node_get_object (back));
}

static void
fill (CtrPipelineForm *self, JsonNode *steps)
{
  JsonArray *a = steps != NULL && JSON_NODE_HOLDS_ARRAY (steps) ? json_node_get_array (steps) : NULL;

  g_ptr_array_set_size (self->steps, 0);
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      Step *st;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;   /* the loader refused such a list: not seen here */
      st = g_new0 (Step, 1);
      st->o = deep_copy (json_node_get_object (n));
      st->on = TRUE;
      g_ptr_array_add (self->steps, st);
    }
  rebuild (self);
}

void
ctr_pipeline_form_set_steps (CtrPipelineForm *self, JsonNode *steps)
{
  g_autoptr (JsonNode) list = NULL;

  g_return_if_fail (CTR_IS_PIPELINE_FORM (self));
  fill (self, steps);
  list = ctr_pipeline_form_to_json (self);
  g_free (self->own);
  self->own = json_to_string (list, FALSE);
  emit_changed (self);
}

void
ctr_pipeline_form_edit_steps (CtrPipelineForm *self, JsonNode *steps)
{
  g_return_if_fail (CTR_IS_PIPELINE_FORM (self));
  fill (self, steps);
  emit_changed (self);
}

GtkWidget *
ctr_pipeline_form_add_step (CtrPipelineForm *self, const char *op)
{
  Step *st;

  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), NULL);
  g_return_val_if_fail (op != NULL && g_strv_contains (ops, op), NULL);
  st = g_new0 (Step, 1);
  st->o = json_object_new ();
  st->on = TRUE;
  json_object_set_string_member (st->o, "op", op);
  if (g_str_equal (op, "beam-hardening"))
    json_object_set_string_member (st->o, "spectrum", "120kvp");
  g_ptr_array_add (self->steps, st);
  rebuild (self);
  adw_expander_row_set_expanded (st->row, TRUE);
  emit_changed (self);
  return GTK_WIDGET (st->row);
}

gboolean
ctr_pipeline_form_set_param (CtrPipelineForm *self, guint index, const char *key, JsonNode *value)
{
  Step *st;

  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), FALSE);
  if (index >= self->steps->len || key == NULL || g_str_equal (key, "op"))
    return FALSE;
  st = self->steps->pdata[index];
  if (value == NULL)
    json_object_remove_member (st->o, key);
  else
    json_object_set_member (st->o, key, json_node_copy (value));
  rebuild (self);
  emit_changed (self);
  return TRUE;
}

gboolean
ctr_pipeline_form_move_step (CtrPipelineForm *self, guint index, gboolean up)
{
  guint other = up ? index - 1 : index + 1;
  gpointer t;

  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), FALSE);
  if (index >= self->steps->len || (up && index == 0) || other >= self->steps->len)
    return FALSE;
  t = self->steps->pdata[index];
  self->steps->pdata[index] = self->steps->pdata[other];
  self->steps->pdata[other] = t;
  rebuild (self);
  emit_changed (self);
  return TRUE;
}

gboolean
ctr_pipeline_form_remove_step (CtrPipelineForm *self, guint index)
{
  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), FALSE);
  if (index >= self->steps->len)
    return FALSE;
  g_ptr_array_remove_index (self->steps, index);
  rebuild (self);
  emit_changed (self);
  return TRUE;
}

guint
ctr_pipeline_form_get_n_steps (CtrPipelineForm *self)
{
  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), 0);
  return self->steps->len;
}

JsonNode *
ctr_pipeline_form_to_json (CtrPipelineForm *self)
{
  JsonArray *a = json_array_new ();
  JsonNode *n = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < self->steps->len; i++)
    {
      Step *st = self->steps->pdata[i];

      if (st->on)
        json_array_add_object_element (a, deep_copy (st->o));
    }
  json_node_take_array (n, a);
  return n;
}

gboolean
ctr_pipeline_form_is_own (CtrPipelineForm *self)
{
  g_autoptr (JsonNode) list = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), FALSE);
  list = ctr_pipeline_form_to_json (self);
  text = json_to_string (list, FALSE);
  return g_strcmp0 (text, self->own != NULL ? self->own : "[]") == 0;
}

CtrPipeline *
ctr_pipeline_form_build (CtrPipelineForm *self, GError **error)
{
  g_autoptr (JsonNode) node = NULL;

  g_return_val_if_fail (CTR_IS_PIPELINE_FORM (self), NULL);
  node = ctr_pipeline_form_to_json (self);
  return ctr_pipeline_from_json (node, "the pipeline", error);
}
