/* ctr-method-panel.c — method and parameters, generated from core's table.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Nothing about a method is written here: the method list is ctr-recon's
 * method table, the rows are ctr-params' table (a spin button for a number,
 * a switch for a yes/no, a combo row for a choice), their ranges and the
 * per-method defaults come from the same table, and a row is shown only for
 * the methods that use its parameter.  A new parameter in core appears in the
 * window (and in any CLI built on ctr-params) without a change here.
 *
 * The backend row lists "Best available" and every backend registered in
 * core (ctr_backend_list: the CPU, and the CUDA backends when the build has
 * them); each unavailable one carries its reason ("no CUDA driver", …), and
 * the row's subtitle says what will actually run — the CPU with its OpenMP
 * thread count, or the GPU — because core falls back to the CPU with a
 * message rather than fail (ctr_backend_select).
 *
 * Properties "method-name", "iterations" and "backend" carry what the
 * preferences keep (g_settings_bind in the window).
 */
#define G_LOG_DOMAIN "ctr-method-panel"

#include <math.h>
#include <string.h>
#include <omp.h>

#include "ctr-method-panel.h"
#include "plan/ctr-backend.h"
#include "ctr-settings.h"

struct _CtrMethodPanel
{
  GtkWidget    parent_instance;

  GtkWidget   *box;
  AdwComboRow *method_row;
  AdwComboRow *backend_row;
  GPtrArray   *backend_names;   /* const char*, static; index 0 = "best" */
  GPtrArray   *rows;     /* GtkWidget*, one per CtrParam, table order */
  GPtrArray   *inputs;   /* GtkSpinButton / GtkSwitch / AdwComboRow */
  gboolean     updating;
  CtrBeam      beam;     /* of the open dataset: what the form offers */
  gboolean     helical;  /* rebinned to fan-beam slices (ctr_helix_applies) */
  gboolean     fit_dataset; /* method "auto": the dataset's own (fitting_method) */
  gboolean     choosing; /* the panel itself selects a method */
  gboolean     relisting; /* the method list is replaced: no selection counts */
  CtrMethod    offered[CTR_N_METHODS]; /* the method list's rows, table order */
  guint        n_offered;
  CtrMethod    fallback; /* what a method that does not fit gives way to */
};

G_DEFINE_FINAL_TYPE (CtrMethodPanel, ctr_method_panel, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_METHOD_NAME,
  PROP_ITERATIONS,
  PROP_BACKEND,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static double
input_value (GtkWidget *input, const CtrParam *p)
{
  switch (p->type)
    {
    case CTR_PARAM_INT:
    case CTR_PARAM_DOUBLE:
      return gtk_spin_button_get_value (GTK_SPIN_BUTTON (input));
    case CTR_PARAM_BOOL:
      return gtk_switch_get_active (GTK_SWITCH (input)) ? 1 : 0;
    case CTR_PARAM_CHOICE:
      return adw_combo_row_get_selected (ADW_COMBO_ROW (input));
    }
  return NAN;
}

static void
set_input_value (GtkWidget *input, const CtrParam *p, double v)
{
  switch (p->type)
    {
    case CTR_PARAM_INT:
    case CTR_PARAM_DOUBLE:
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (input), v);
      break;
    case CTR_PARAM_BOOL:
      gtk_switch_set_active (GTK_SWITCH (input), v != 0);
      break;
    case CTR_PARAM_CHOICE:
      adw_combo_row_set_selected (ADW_COMBO_ROW (input), (guint) v);
      break;
    }
}

/* A value changed (the method's defaults are set quietly, then announced
 * once). */
static void
emit_changed (CtrMethodPanel *self)
{
  if (!self->updating)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITERATIONS]);
}

static void
apply_method (CtrMethodPanel *self, gboolean reset_values)
{
  guint n;
  const CtrParam *params = ctr_params_list (&n);
  CtrMethod m = ctr_method_panel_get_method (self);

  self->updating = TRUE;
  for (guint i = 0; i < n; i++)
    {
      /* cone beam runs on its projector pair: no system matrix to choose */
      gboolean applies = ctr_param_applies (&params[i], m) &&
                         !(self->beam == CTR_BEAM_CONE && !self->helical && g_str_equal (params[i].name, "matrix"));
      gtk_widget_set_visible (g_ptr_array_index (self->rows, i), applies);
      if (applies && reset_values)
        set_input_value (g_ptr_array_index (self->inputs, i), &params[i], ctr_param_default (&params[i], m));
    }
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->method_row), ctr_method_description (m));
  self->updating = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_METHOD_NAME]);
  emit_changed (self);
}

static void
on_method_selected (CtrMethodPanel *self)
{
  if (self->relisting)
    return;
  /* a method picked in the list is the user's: it no longer follows the
   * dataset */
  if (!self->choosing)
    self->fit_dataset = FALSE;
  apply_method (self, TRUE);
}

/* The row of @method in the method list; G_MAXUINT when not offered. */
static guint
row_of_method (CtrMethodPanel *self, CtrMethod method)
{
  for (guint i = 0; i < self->n_offered; i++)
    if (self->offered[i] == method)
      return i;
  return G_MAXUINT;
}

/* Selects @method as the panel's own choice (fit_dataset is kept); one
 * the list does not offer gives way to the fallback. */
static void
choose_method (CtrMethodPanel *self, CtrMethod method)
{
  guint row = row_of_method (self, method);

  if (row == G_MAXUINT)
    row = row_of_method (self, self->fallback);
  if (row == G_MAXUINT)
    row = 0;
  self->choosing = TRUE;
  if (adw_combo_row_get_selected (self->method_row) == row)
    apply_method (self, TRUE);
  else
    adw_combo_row_set_selected (self->method_row, row);
  self->choosing = FALSE;
}

/* The method list offers the methods that fit @g (nullable: every
 * method; ctr_method_fits_geometry), labelled from core's table; the selection is left to the caller.
 * FALSE when the list is unchanged. */
static gboolean
list_methods (CtrMethodPanel *self, const CtrGeometry *g)
{
  CtrMethod offered[CTR_N_METHODS];
  guint n = 0;
  g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);

  for (guint m = 0; m < CTR_N_METHODS; m++)
    if (g == NULL || ctr_method_fits_geometry ((CtrMethod) m, g))
      offered[n++] = (CtrMethod) m;
  if (n == self->n_offered && memcmp (offered, self->offered, n * sizeof offered[0]) == 0)
    return FALSE;
  memcpy (self->offered, offered, n * sizeof offered[0]);
  self->n_offered = n;
  for (guint i = 0; i < n; i++)
    gtk_string_list_append (labels, ctr_method_label (offered[i]));
  self->relisting = TRUE;
  adw_combo_row_set_model (self->method_row, G_LIST_MODEL (labels));
  self->relisting = FALSE;
  return TRUE;
}

/* The method a dataset of @g starts with: the first single-pass method of
 * core's table that fits it (ctr_method_fits_geometry): FBP for fan and
 * parallel beam and for helical scans (rebinned to fan slices), FDK for a
 * circular cone beam. */
static CtrMethod
fitting_method (const CtrGeometry *g)
{
  for (guint m = 0; m < CTR_N_METHODS; m++)
    if (!ctr_method_is_iterative ((CtrMethod) m) && ctr_method_fits_geometry ((CtrMethod) m, g))
      return (CtrMethod) m;
  return CTR_METHOD_FBP;
}

/* The subtitle says what runs: the chosen backend, or the CPU and why. */
static void
on_backend_selected (CtrMethodPanel *self)
{
  guint i = adw_combo_row_get_selected (self->backend_row);
  const char *name = i < self->backend_names->len ? g_ptr_array_index (self->backend_names, i) : "best";
  g_autofree char *note = NULL;
  g_autofree char *text = NULL;
  const CtrBackend *b = ctr_backend_select (name, &note, NULL);

  if (b == NULL || g_str_equal (b->name, "cpu"))
    text = g_strdup_printf ("Runs on the CPU (%d OpenMP threads)%s%s", omp_get_max_threads (),
                            note ? ": " : "", note ? note : "");
  else
    text = g_strdup_printf ("Runs on %s: %s", b->name, b->description);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->backend_row), text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->backend_row), text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BACKEND]);
}

static GtkWidget *
make_row (CtrMethodPanel *self, const CtrParam *p, GtkWidget **input_out)
{
  GtkWidget *row, *input;

  if (p->type == CTR_PARAM_CHOICE)
    {
      g_autoptr(GtkStringList) labels = gtk_string_list_new ((const char *const *) p->choice_labels);
      row = adw_combo_row_new ();
      adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (labels));
      g_signal_connect_swapped (row, "notify::selected", G_CALLBACK (emit_changed), self);
      input = row;
    }
  else
    {
      row = adw_action_row_new ();
      if (p->type == CTR_PARAM_BOOL)
        {
          input = gtk_switch_new ();
          g_signal_connect_swapped (input, "notify::active", G_CALLBACK (emit_changed), self);
        }
      else
        {
          /* open ends of a range become the nearest representable step */
          double tiny = pow (10, -(double) MAX (p->digits, 1u));
          double lo = p->min_open ? p->min + tiny : p->min;
          double hi = p->max_open ? p->max - tiny : p->max;
          if (p->type == CTR_PARAM_INT)
            hi = MIN (hi, 100000);
          input = gtk_spin_button_new_with_range (lo, hi, p->step);
          gtk_spin_button_set_digits (GTK_SPIN_BUTTON (input), p->type == CTR_PARAM_INT ? 0 : p->digits);
          gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (input), TRUE);
          g_signal_connect_swapped (input, "value-changed", G_CALLBACK (emit_changed), self);
        }
      gtk_widget_set_valign (input, GTK_ALIGN_CENTER);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), input);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), input);
      gtk_accessible_update_property (GTK_ACCESSIBLE (input), GTK_ACCESSIBLE_PROPERTY_LABEL, p->label, -1);
    }
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), p->label);
  gtk_widget_set_tooltip_text (row, p->description);
  gtk_widget_set_name (row, p->name);
  *input_out = input;
  return row;
}

/* ---- public ---------------------------------------------------------------- */

GtkWidget *
ctr_method_panel_new (void)
{
  return g_object_new (CTR_TYPE_METHOD_PANEL, NULL);
}

CtrMethod
ctr_method_panel_get_method (CtrMethodPanel *self)
{
  g_return_val_if_fail (CTR_IS_METHOD_PANEL (self), CTR_METHOD_FBP);
  guint i = adw_combo_row_get_selected (self->method_row);
  return i < self->n_offered ? self->offered[i] : self->fallback;
}

void
ctr_method_panel_set_method (CtrMethodPanel *self, CtrMethod method)
{
  g_return_if_fail (CTR_IS_METHOD_PANEL (self));
  g_return_if_fail (method < CTR_N_METHODS);
  self->fit_dataset = FALSE;
  choose_method (self, method);
}

void
ctr_method_panel_get_options (CtrMethodPanel *self, CtrReconOptions *options)
{
  guint n;
  const CtrParam *params = ctr_params_list (&n);
  CtrMethod m;

  g_return_if_fail (CTR_IS_METHOD_PANEL (self));
  m = ctr_method_panel_get_method (self);
  ctr_recon_options_init (options, m);
  {
    guint b = adw_combo_row_get_selected (self->backend_row);
    options->backend = b > 0 && b < self->backend_names->len ? g_ptr_array_index (self->backend_names, b) : "best";
  }
  for (guint i = 0; i < n; i++)
    if (ctr_param_applies (&params[i], m))
      {
        double v = input_value (g_ptr_array_index (self->inputs, i), &params[i]);
        if (params[i].type == CTR_PARAM_INT)
          v = round (v);
        /* the widgets' ranges lie inside the table's: this cannot fail */
        if (!ctr_param_set (&params[i], options, v, NULL))
          g_warning ("parameter %s: value %g refused", params[i].name, v);
      }
}

void
ctr_method_panel_set_geometry (CtrMethodPanel *self, const CtrGeometry *g)
{
  g_return_if_fail (CTR_IS_METHOD_PANEL (self));
  g_return_if_fail (g != NULL);
  CtrMethod current = ctr_method_panel_get_method (self);

  self->beam = g->beam;
  self->helical = ctr_helix_applies (g);
  self->fallback = fitting_method (g);
  /* only the methods that fit: no FDK for fan data, no FBP for cone beam */
  if (list_methods (self, g) && !self->fit_dataset && ctr_method_fits_geometry (current, g))
    {
      /* the same method on another row: its values stay */
      self->relisting = TRUE;
      adw_combo_row_set_selected (self->method_row, row_of_method (self, current));
      self->relisting = FALSE;
    }
  if (self->fit_dataset || !ctr_method_fits_geometry (current, g))
    choose_method (self, self->fallback);
  else
    apply_method (self, FALSE);
}

gboolean
ctr_method_panel_set_param (CtrMethodPanel *self, const char *name, double value, GError **error)
{
  guint n;
  const CtrParam *params = ctr_params_list (&n);
  const CtrParam *p = ctr_param_find (name);
  CtrReconOptions scratch;

  g_return_val_if_fail (CTR_IS_METHOD_PANEL (self), FALSE);
  if (p == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "unknown parameter “%s”", name);
      return FALSE;
    }
  ctr_recon_options_init (&scratch, ctr_method_panel_get_method (self));
  if (!ctr_param_set (p, &scratch, value, error))
    return FALSE;
  set_input_value (g_ptr_array_index (self->inputs, p - params), p, value);
  return TRUE;
}

/* The iteration count of an iterative method; 0 for a single-pass one. */
static guint
get_iterations (CtrMethodPanel *self)
{
  CtrReconOptions o;

  ctr_method_panel_get_options (self, &o);
  return ctr_method_is_iterative (o.method) ? o.iterations : 0;
}

/* ---- GObject ---------------------------------------------------------------- */

static void
ctr_method_panel_dispose (GObject *object)
{
  CtrMethodPanel *self = CTR_METHOD_PANEL (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->inputs, g_ptr_array_unref);
  g_clear_pointer (&self->backend_names, g_ptr_array_unref);
  G_OBJECT_CLASS (ctr_method_panel_parent_class)->dispose (object);
}

static void
ctr_method_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtrMethodPanel *self = CTR_METHOD_PANEL (object);

  switch (prop_id)
    {
    case PROP_METHOD_NAME:
      g_value_set_string (value, self->fit_dataset ? "auto" : ctr_method_name (ctr_method_panel_get_method (self)));
      break;
    case PROP_ITERATIONS:
      g_value_set_uint (value, get_iterations (self));
      break;
    case PROP_BACKEND:
      g_value_set_string (value, ctr_method_panel_get_backend (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_method_panel_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CtrMethodPanel *self = CTR_METHOD_PANEL (object);

  switch (prop_id)
    {
    case PROP_METHOD_NAME:
      {
        CtrMethod m;
        /* "auto": each dataset's own method; names the table does not
         * know are ignored */
        if (g_strcmp0 (g_value_get_string (value), "auto") == 0)
          {
            self->fit_dataset = TRUE;
            g_object_notify_by_pspec (object, pspec);
          }
        else if (ctr_method_from_name (g_value_get_string (value), &m, NULL))
          ctr_method_panel_set_method (self, m);
      }
      break;
    case PROP_ITERATIONS:
      /* 0 keeps the method's own default; a single-pass method has none */
      if (g_value_get_uint (value) > 0 && get_iterations (self) > 0)
        ctr_method_panel_set_param (self, "iterations", g_value_get_uint (value), NULL);
      break;
    case PROP_BACKEND:
      ctr_method_panel_set_backend (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_method_panel_class_init (CtrMethodPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_method_panel_dispose;
  object_class->get_property = ctr_method_panel_get_property;
  object_class->set_property = ctr_method_panel_set_property;

  /* The method's name in core's table ("sirt"), or "auto" while the panel
   * follows the dataset (set_geometry picks the method that fits it). */
  properties[PROP_METHOD_NAME] =
    g_param_spec_string ("method-name", NULL, NULL, "auto",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Iterations of an iterative method, 0 for a single-pass one; setting 0
   * changes nothing.  Notified whenever a parameter changes. */
  properties[PROP_ITERATIONS] =
    g_param_spec_uint ("iterations", NULL, NULL, 0, 100000, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* "best" or a backend's name; unknown names are ignored. */
  properties[PROP_BACKEND] =
    g_param_spec_string ("backend", NULL, NULL, "best",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ctr_method_panel_init (CtrMethodPanel *self)
{
  guint n;
  const CtrParam *params = ctr_params_list (&n);
  AdwPreferencesGroup *group, *backend;

  self->rows = g_ptr_array_new ();
  self->inputs = g_ptr_array_new ();
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (group, "Method");
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (group));

  self->method_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->method_row), "Algorithm");
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (self->method_row), 2);
  self->fallback = CTR_METHOD_FBP;
  list_methods (self, NULL);   /* every method until a dataset is open */
  gtk_widget_set_name (GTK_WIDGET (self->method_row), "method");
  adw_preferences_group_add (group, GTK_WIDGET (self->method_row));

  for (guint i = 0; i < n; i++)
    {
      GtkWidget *input = NULL;
      GtkWidget *row = make_row (self, &params[i], &input);
      g_ptr_array_add (self->rows, row);
      g_ptr_array_add (self->inputs, input);
      adw_preferences_group_add (group, row);
    }

  backend = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (backend, "Backend");
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (backend));
  {
    g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);
    guint nb = 0;
    const CtrBackend *const *list = ctr_backend_list (&nb);
    GtkWidget *icon = gtk_image_new_from_icon_name ("computer-symbolic");

    self->backend_names = g_ptr_array_new ();
    g_ptr_array_add (self->backend_names, (gpointer) "best");
    gtk_string_list_append (labels, ctr_backend_label ("best"));
    for (guint k = 0; k < nb; k++)
      {
        g_autofree char *reason = NULL;
        g_autofree char *label = NULL;
        if (list[k]->available (list[k], &reason))
          label = g_strdup (ctr_backend_label (list[k]->name));
        else
          label = g_strdup_printf ("%s (unavailable: %s)", ctr_backend_label (list[k]->name),
                                   reason ? reason : "no reason given");
        g_ptr_array_add (self->backend_names, (gpointer) list[k]->name);
        gtk_string_list_append (labels, label);
      }
    self->backend_row = ADW_COMBO_ROW (adw_combo_row_new ());
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->backend_row), "Backend");
    adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (self->backend_row), 6);
    adw_combo_row_set_model (self->backend_row, G_LIST_MODEL (labels));
    gtk_widget_set_name (GTK_WIDGET (self->backend_row), "backend");
    adw_action_row_add_prefix (ADW_ACTION_ROW (self->backend_row), icon);
    g_signal_connect_swapped (self->backend_row, "notify::selected", G_CALLBACK (on_backend_selected), self);
  }
  adw_preferences_group_add (backend, GTK_WIDGET (self->backend_row));

  g_signal_connect_swapped (self->method_row, "notify::selected", G_CALLBACK (on_method_selected), self);
  /* until a dataset or the user says otherwise: the dataset's method */
  self->fit_dataset = TRUE;
  adw_combo_row_set_selected (self->method_row, row_of_method (self, CTR_METHOD_FBP));
  apply_method (self, TRUE);
  on_backend_selected (self);
}

/* Selects backend @name ("best", "cpu", "cuda", …); FALSE when this build
 * has no backend of that name. */
gboolean
ctr_method_panel_set_backend (CtrMethodPanel *self, const char *name)
{
  g_return_val_if_fail (CTR_IS_METHOD_PANEL (self), FALSE);
  for (guint i = 0; i < self->backend_names->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->backend_names, i), name) == 0)
      {
        adw_combo_row_set_selected (self->backend_row, i);
        return TRUE;
      }
  return FALSE;
}

/* The backend chosen: "best" or a backend's name (static string). */
const char *
ctr_method_panel_get_backend (CtrMethodPanel *self)
{
  g_return_val_if_fail (CTR_IS_METHOD_PANEL (self), "best");
  guint i = adw_combo_row_get_selected (self->backend_row);
  return i < self->backend_names->len ? g_ptr_array_index (self->backend_names, i) : "best";
}
