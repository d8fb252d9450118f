/* ctr-geometry-panel.c — the geometry editor: fields, validation, sketch.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The form is a table of fields (below) turned into rows at init.  Every
 * keystroke re-parses all fields into a fresh CtrGeometry and validates it:
 *   1. a field that is not a number (or not a whole number) says so;
 *   2. the sizes must keep those of the loaded projections (views, rows,
 *      columns): the data cannot change shape;
 *   3. ctr_geometry_validate() — core's own check — and its message is shown
 *      beside the field it names (or below the form when it names none).
 * Only a geometry that passes all three is handed out
 * (ctr_geometry_panel_get_geometry); the sketch, the field-of-view row and the
 * view slider follow every valid edit.  Angles: a uniform list is edited as
 * start / step / count; an irregular list from the file is kept as it is until
 * the user edits one of those three fields.  A helical scan (a source z per
 * view) keeps its geometry as read (its fields read-only, like per-view
 * vectors) and adds the slices to reconstruct: first, last and spacing in
 * the scan's table coordinate (ctr_helix_grid), its fully sampled range
 * stated and drawn on the sketch.
 */
#define G_LOG_DOMAIN "ctr-geometry-panel"

#include <math.h>
#include <string.h>

#include "ctr-geometry-panel.h"
#include "ctr-geometry-sketch.h"

typedef enum {
  F_SOD, F_SDD, F_COLS, F_ROWS, F_PITCH_U, F_PITCH_V, F_OFFSET_U, F_OFFSET_V,
  F_VIEWS, F_ANGLE_START, F_ANGLE_STEP,
  F_IMAGE_SIZE, F_PIXEL_SIZE,
  F_Z_FIRST, F_Z_LAST, F_Z_STEP,     /* helical scans only: the slices */
  N_FIELDS
} Field;

enum { GROUP_DETECTOR, GROUP_VIEWS, GROUP_GRID };

static const struct {
  const char *name;
  const char *title;
  const char *hint;
  gboolean    integer;
  int         group;
} fields[N_FIELDS] = {
  [F_SOD]         = { "sod", "Source to isocentre", "SOD, mm", FALSE, GROUP_DETECTOR },
  [F_SDD]         = { "sdd", "Source to detector", "SDD, mm; more than SOD", FALSE, GROUP_DETECTOR },
  [F_COLS]        = { "cols", "Columns", "detector columns", TRUE, GROUP_DETECTOR },
  [F_ROWS]        = { "rows", "Rows", "detector rows (slices)", TRUE, GROUP_DETECTOR },
  [F_PITCH_U]     = { "pitch-u", "Column pitch", NULL, FALSE, GROUP_DETECTOR },
  [F_PITCH_V]     = { "pitch-v", "Row pitch", "mm", FALSE, GROUP_DETECTOR },
  [F_OFFSET_U]    = { "offset-u", "Offset u", "shift of the central ray's column", FALSE, GROUP_DETECTOR },
  [F_OFFSET_V]    = { "offset-v", "Offset v", "mm", FALSE, GROUP_DETECTOR },
  [F_VIEWS]       = { "views", "Count", "number of views", TRUE, GROUP_VIEWS },
  [F_ANGLE_START] = { "angle-start", "Start", "β of the first view, degrees", FALSE, GROUP_VIEWS },
  [F_ANGLE_STEP]  = { "angle-step", "Step", "degrees per view; negative turns clockwise", FALSE, GROUP_VIEWS },
  [F_IMAGE_SIZE]  = { "image-size", "Image size", "pixels per side", TRUE, GROUP_GRID },
  [F_PIXEL_SIZE]  = { "pixel-size", "Pixel size", "mm", FALSE, GROUP_GRID },
  [F_Z_FIRST]     = { "z-first", "First slice", "table position, mm (the scan's own coordinate)", FALSE, GROUP_GRID },
  [F_Z_LAST]      = { "z-last", "Last slice", "table position, mm", FALSE, GROUP_GRID },
  [F_Z_STEP]      = { "z-step", "Slice spacing", "mm", FALSE, GROUP_GRID },
};

struct _CtrGeometryPanel
{
  GtkWidget          parent_instance;

  /* template children */
  GtkWidget         *paned;
  AdwPreferencesGroup *detector_group;
  AdwPreferencesGroup *views_group;
  AdwPreferencesGroup *grid_group;
  AdwComboRow       *beam_row;
  AdwComboRow       *shape_row;
  AdwActionRow      *fov_row;
  GtkLabel          *status_label;
  GtkButton         *reset_button;
  CtrGeometrySketch *sketch;
  GtkAdjustment     *view_adjustment;

  AdwActionRow      *rows[N_FIELDS];
  GtkEntry          *entries[N_FIELDS];
  GtkLabel          *units[N_FIELDS];
  char              *reasons[N_FIELDS];

  CtrGeometry       *original;   /* the file's, nullable */
  CtrGrid            original_grid;
  guint              data_views, data_rows, data_cols;  /* 0: no data */
  CtrGeometry       *edited;     /* valid, or NULL */
  CtrGrid            grid;
  gboolean           grid_valid;
  gboolean           angles_edited;
  gboolean           grid_follows;     /* a draft geometry: the grid fits the first valid one */
  gboolean           updating;
};

G_DEFINE_FINAL_TYPE (CtrGeometryPanel, ctr_geometry_panel, GTK_TYPE_WIDGET)

enum { CHANGED, REVERTED, N_SIGNALS };
static guint signals[N_SIGNALS];

static Field
field_from_name (const char *name)
{
  for (guint f = 0; f < N_FIELDS; f++)
    if (g_strcmp0 (fields[f].name, name) == 0)
      return f;
  return N_FIELDS;
}

static gboolean
curved (CtrGeometryPanel *self)
{
  return adw_combo_row_get_selected (self->beam_row) != CTR_BEAM_PARALLEL &&
         adw_combo_row_get_selected (self->shape_row) == CTR_DETECTOR_CURVED;
}

static void
set_reason (CtrGeometryPanel *self, Field f, const char *reason)
{
  if (reason != NULL && *reason == '\0')
    reason = NULL;
  g_free (self->reasons[f]);
  self->reasons[f] = g_strdup (reason);
  if (reason != NULL)
    {
      /* the subtitle is markup: core's messages may hold "<=" */
      g_autofree char *escaped = g_markup_escape_text (reason, -1);
      adw_action_row_set_subtitle (self->rows[f], escaped);
      gtk_widget_add_css_class (GTK_WIDGET (self->rows[f]), "ctr-invalid");
      gtk_widget_add_css_class (GTK_WIDGET (self->entries[f]), "error");
    }
  else
    {
      const char *hint = fields[f].hint;
      if (f == F_PITCH_U)
        hint = curved (self) ? "radians per column (equiangular)" : "mm";
      adw_action_row_set_subtitle (self->rows[f], hint ? hint : "");
      gtk_widget_remove_css_class (GTK_WIDGET (self->rows[f]), "ctr-invalid");
      gtk_widget_remove_css_class (GTK_WIDGET (self->entries[f]), "error");
    }
}

static gboolean
parse_field (CtrGeometryPanel *self, Field f, double *value)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->entries[f]));
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  char *end = NULL;

  /* accept a decimal comma too */
  g_strdelimit (trimmed, ",", '.');
  if (*trimmed == '\0')
    {
      set_reason (self, f, "Enter a value");
      return FALSE;
    }
  *value = g_ascii_strtod (trimmed, &end);
  if (end == trimmed || *end != '\0' || !isfinite (*value))
    {
      g_autofree char *msg = g_strdup_printf ("“%s” is not a number", trimmed);
      set_reason (self, f, msg);
      return FALSE;
    }
  if (fields[f].integer && (*value != floor (*value) || *value < 0 || *value > 1e6))
    {
      g_autofree char *msg = g_strdup_printf ("%s must be a whole number", fields[f].title);
      set_reason (self, f, msg);
      return FALSE;
    }
  return TRUE;
}

/* Which field does core's validation message name? */
static Field
field_of_message (const char *m)
{
  static const struct { const char *key; Field f; } map[] = {
    { "zero views", F_VIEWS },
    { "too large", F_VIEWS },
    { "columns", F_COLS },
    { "column pitch", F_PITCH_U },
    { "row pitch", F_PITCH_V },
    { "offsets", F_OFFSET_U },
    { "angle", F_ANGLE_STEP },
    { "source to detector", F_SDD },
    { "source to isocentre", F_SOD },
    { "curved detector", F_PITCH_U },
    { "covers no field", F_PITCH_U },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strstr (m, map[i].key) != NULL)
      return map[i].f;
  return N_FIELDS;
}

static void
set_text (CtrGeometryPanel *self, Field f, const char *format, double v)
{
  g_autofree char *text = g_strdup_printf (format, v);
  gtk_editable_set_text (GTK_EDITABLE (self->entries[f]), text);
}

static gboolean
uniform_angles (const CtrGeometry *g, double *start, double *step)
{
  *start = g->n_views > 0 ? g->angles[0] : 0;
  *step = g->n_views > 1 ? (g->angles[g->n_views - 1] - g->angles[0]) / (g->n_views - 1) : 0;
  for (guint k = 0; k < g->n_views; k++)
    if (fabs (g->angles[k] - (*start + k * *step)) > 1e-6)
      return FALSE;
  return TRUE;
}

/* Which rows can be edited: a per-view vector geometry's and a helical
 * scan's circular fields are read-only (frozen), the z fields are shown for
 * a helical scan only, the distances not for a parallel beam; the units of
 * a curved detector's column fields. */
static void
update_sensitivity (CtrGeometryPanel *self, CtrBeam beam, gboolean helical, gboolean frozen)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->beam_row), !frozen);
  gtk_widget_set_sensitive (GTK_WIDGET (self->shape_row), beam != CTR_BEAM_PARALLEL && !frozen);
  for (guint f = F_Z_FIRST; f <= F_Z_STEP; f++)
    gtk_widget_set_visible (GTK_WIDGET (self->rows[f]), helical);
  for (guint f = 0; f < F_IMAGE_SIZE; f++)
    gtk_widget_set_sensitive (GTK_WIDGET (self->rows[f]), !frozen && (beam != CTR_BEAM_PARALLEL
                                                                     || (f != F_SOD && f != F_SDD)));
  gtk_label_set_label (self->units[F_PITCH_U], curved (self) ? "rad" : "mm");
  gtk_label_set_label (self->units[F_OFFSET_U], curved (self) ? "rad" : "mm");
}

/* Every field's number into v (the z fields for a helical scan only), each
 * field's reason cleared first; FALSE when one does not parse. */
static gboolean
parse_fields (CtrGeometryPanel *self, gboolean helical, double *v)
{
  gboolean ok = TRUE;

  for (guint f = 0; f < N_FIELDS; f++)
    {
      set_reason (self, f, NULL);
      if ((helical || f < F_Z_FIRST) && !parse_field (self, f, &v[f]))
        ok = FALSE;
    }
  return ok;
}

/* The counts and the grid: the data's shape is fixed, at least one view,
 * a step between several, a grid size and pixel in range; marks each bad
 * field not marked yet, FALSE when one is. */
static gboolean
check_counts (CtrGeometryPanel *self, const double *v)
{
  gboolean ok = TRUE;

  /* the data's shape is fixed */
  if (self->data_views > 0)
    {
      const struct { Field f; guint n; const char *what; } fixed[] = {
        { F_VIEWS, self->data_views, "views" },
        { F_ROWS, self->data_rows, "rows" },
        { F_COLS, self->data_cols, "columns" },
      };
      for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
        if (self->reasons[fixed[i].f] == NULL && v[fixed[i].f] != fixed[i].n)
          {
            g_autofree char *msg = g_strdup_printf ("The projections have %u %s", fixed[i].n, fixed[i].what);
            set_reason (self, fixed[i].f, msg);
            ok = FALSE;
          }
    }
  if (self->reasons[F_VIEWS] == NULL && v[F_VIEWS] < 1)
    {
      set_reason (self, F_VIEWS, "At least one view");
      ok = FALSE;
    }
  if (self->reasons[F_ANGLE_STEP] == NULL && v[F_ANGLE_STEP] == 0 && v[F_VIEWS] > 1)
    {
      set_reason (self, F_ANGLE_STEP, "The step must not be 0");
      ok = FALSE;
    }
  if (self->reasons[F_IMAGE_SIZE] == NULL && (v[F_IMAGE_SIZE] < 1 || v[F_IMAGE_SIZE] > 16384))
    {
      set_reason (self, F_IMAGE_SIZE, "From 1 to 16384 pixels");
      ok = FALSE;
    }
  if (self->reasons[F_PIXEL_SIZE] == NULL && !(v[F_PIXEL_SIZE] > 0))
    {
      set_reason (self, F_PIXEL_SIZE, "Pixel size must be positive");
      ok = FALSE;
    }
  return ok;
}

/* Each distance and pitch on its own, so that every bad field is marked
 * at once (core's check in assemble_geometry names only the first); not
 * called for a frozen geometry, whose fields are read-only means.  FALSE
 * when one is bad. */
static gboolean
check_distances (CtrGeometryPanel *self, CtrBeam beam, const double *v)
{
  gboolean ok = TRUE;
  const struct { Field f; gboolean needed; const char *what; } must_be_positive[] = {
    { F_SOD, beam != CTR_BEAM_PARALLEL, "The source to isocentre distance must be positive" },
    { F_PITCH_U, TRUE, "The column pitch must be positive" },
    { F_PITCH_V, TRUE, "The row pitch must be positive" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (must_be_positive); i++)
    if (must_be_positive[i].needed && self->reasons[must_be_positive[i].f] == NULL &&
        !(v[must_be_positive[i].f] > 0))
      {
        set_reason (self, must_be_positive[i].f, must_be_positive[i].what);
        ok = FALSE;
      }
  if (beam != CTR_BEAM_PARALLEL && self->reasons[F_SDD] == NULL && !(v[F_SDD] > v[F_SOD]))
    {
      set_reason (self, F_SDD, "The source to detector distance must exceed the source to isocentre distance");
      ok = FALSE;
    }
  return ok;
}

/* The geometry the fields describe: a copy of the original when frozen,
 * else built from v (the original's angles kept while the angle fields are
 * untouched) and checked by core, whose message marks its field or goes to
 * the status line.  NULL without a usable view count; *ok set to FALSE
 * when there is no geometry or core refuses it. */
static CtrGeometry *
assemble_geometry (CtrGeometryPanel *self, CtrBeam beam, gboolean frozen, const double *v, gboolean *ok)
{
  CtrGeometry *g = NULL;
  g_autoptr(GError) error = NULL;

  /* a copy or a geometry of the typed views that cannot be allocated is
   * said on the status line (ctr_geometry_copy and _new aborted) */
  if (frozen)
    g = ctr_geometry_try_copy (self->original, &error);
  else if (self->reasons[F_VIEWS] == NULL && v[F_VIEWS] >= 1)
    g = ctr_geometry_try_new (beam, (guint) v[F_VIEWS], &error);
  if (error != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%c%s", g_ascii_toupper (error->message[0]), error->message + 1);
      gtk_label_set_label (self->status_label, msg);
      *ok = FALSE;
      return NULL;
    }
  if (!frozen && g != NULL)
    {
      g->shape = beam == CTR_BEAM_PARALLEL ? CTR_DETECTOR_FLAT : adw_combo_row_get_selected (self->shape_row);
      g->sod_mm = beam == CTR_BEAM_PARALLEL ? 0 : v[F_SOD];
      g->sdd_mm = beam == CTR_BEAM_PARALLEL ? 0 : v[F_SDD];
      g->n_cols = (guint) v[F_COLS];
      g->n_rows = (guint) v[F_ROWS];
      g->pitch_u = v[F_PITCH_U];
      g->pitch_v_mm = v[F_PITCH_V];
      g->offset_u = v[F_OFFSET_U];
      g->offset_v_mm = v[F_OFFSET_V];
      if (self->original != NULL)
        {
          g->rows_increase_with_v = self->original->rows_increase_with_v;
          g->pixel_size_known = self->original->pixel_size_known;
        }
      if (!self->angles_edited && self->original != NULL && self->original->n_views == g->n_views)
        memcpy (g->angles, self->original->angles, g->n_views * sizeof (double));
      else
        ctr_geometry_set_uniform_angles (g, v[F_ANGLE_START] * G_PI / 180, v[F_ANGLE_STEP] * G_PI / 180);

      if (!ctr_geometry_validate (g, &error))
        {
          Field f = field_of_message (error->message);
          g_autofree char *msg = g_strdup_printf ("%c%s", g_ascii_toupper (error->message[0]), error->message + 1);
          if (f < N_FIELDS && self->reasons[f] == NULL)
            set_reason (self, f, msg);
          else
            gtk_label_set_label (self->status_label, msg);
          *ok = FALSE;
        }
    }
  else if (g == NULL)
    *ok = FALSE;
  return g;
}

/* A draft's grid was a guess: the first valid geometry gets its field of
 * view at the detector's resolution (into the grid fields and v), unless
 * the user set the grid. */
static void
fit_draft_grid (CtrGeometryPanel *self, const CtrGeometry *g, double *v)
{
  if (g != NULL && self->grid_follows && ctr_geometry_validate (g, NULL))
    {
      CtrGrid fit = ctr_grid_default (g, 0, 0);
      self->grid_follows = FALSE;
      self->updating = TRUE;
      set_text (self, F_IMAGE_SIZE, "%.0f", fit.nx);
      set_text (self, F_PIXEL_SIZE, "%.6g", fit.dx);
      self->updating = FALSE;
      set_reason (self, F_IMAGE_SIZE, NULL);
      set_reason (self, F_PIXEL_SIZE, NULL);
      v[F_IMAGE_SIZE] = fit.nx;
      v[F_PIXEL_SIZE] = g_ascii_strtod (gtk_editable_get_text (GTK_EDITABLE (self->entries[F_PIXEL_SIZE])), NULL);
    }
}

/* The reconstruction grid of a valid geometry and valid grid fields into
 * self->grid (grid_valid): a helical scan's slices from the z fields, else
 * the default grid (a cone-beam volume keeping its loaded slices).  FALSE
 * when the z fields give no slices (the field marked). */
static gboolean
update_grid (CtrGeometryPanel *self, const CtrGeometry *g, gboolean helical, const double *v)
{
  double pixel = v[F_PIXEL_SIZE];

  if (g == NULL || self->reasons[F_IMAGE_SIZE] != NULL || self->reasons[F_PIXEL_SIZE] != NULL ||
      !ctr_geometry_validate (g, NULL))
    return TRUE;

  /* the field shows 6 digits: while it reads the loaded grid's pixel,
   * keep that pixel exactly (0.13333299 mm, not 0.133333) */
  g_autofree char *shown = g_strdup_printf ("%.6g", self->original_grid.dx);
  if (g_str_equal (shown, gtk_editable_get_text (GTK_EDITABLE (self->entries[F_PIXEL_SIZE]))))
    pixel = self->original_grid.dx;
  if (helical)
    {
      /* the slices the user chose, in the scan's table coordinate */
      g_autoptr(GError) error = NULL;
      self->grid_valid = ctr_helix_grid (g, (guint) v[F_IMAGE_SIZE], pixel, v[F_Z_FIRST], v[F_Z_LAST],
                                         v[F_Z_STEP], &self->grid, &error);
      if (!self->grid_valid)
        {
          set_reason (self, strstr (error->message, "step") ? F_Z_STEP : F_Z_LAST, error->message);
          return FALSE;
        }
    }
  else
    {
      self->grid = ctr_grid_default (g, (guint) v[F_IMAGE_SIZE], pixel);
      /* a cone-beam volume keeps the slices it was loaded with (a 3-D
       * reference's: compare like with like); the fields set x and y */
      if (g->beam == CTR_BEAM_CONE && self->original_grid.nz > 1 && self->original_grid.dz > 0)
        {
          self->grid.nz = self->original_grid.nz;
          self->grid.dz = self->original_grid.dz;
          self->grid.cz = self->original_grid.cz;
        }
      self->grid_valid = TRUE;
    }
  return TRUE;
}

/* A valid geometry @g (taken): the field of view against the grid in the
 * FOV row, @g kept as the edited geometry and sketched with its grid. */
static void
show_valid (CtrGeometryPanel *self, CtrGeometry *g)
{
  double fov = ctr_geometry_fov_radius_mm (g);
  double side = self->grid.nx * self->grid.dx;
  g_autofree char *text = g_strdup_printf (
    "Ø %.1f mm scanned by every view; the grid spans %.1f × %.1f mm (%s)",
    2 * fov, side, self->grid.ny * self->grid.dy,
    side * G_SQRT2 / 2 < fov ? "inside the field of view"
      : side / 2 > fov * 1.001 ? "beyond the field of view: the corners see no data"
      : "the disc fits the grid");
  adw_action_row_set_subtitle (self->fov_row, text);
  self->edited = g;
  gtk_adjustment_set_upper (self->view_adjustment, self->edited->n_views);
  ctr_geometry_sketch_set (self->sketch, self->edited, &self->grid);
}

/* An invalid geometry: no FOV, the sketch of @g (nullable) without a grid,
 * and a hint in the status line unless it holds a message already. */
static void
show_invalid (CtrGeometryPanel *self, const CtrGeometry *g)
{
  adw_action_row_set_subtitle (self->fov_row, "–");
  ctr_geometry_sketch_set (self->sketch, g, NULL);
  if (*gtk_label_get_label (self->status_label) == '\0')
    gtk_label_set_label (self->status_label, "Fix the fields marked in red to use this geometry.");
}

/* Reads and checks every field, marks the bad ones, and keeps the geometry
 * and grid they describe as the edited ones when all are good; emits
 * ::changed. */
static void
validate (CtrGeometryPanel *self)
{
  double v[N_FIELDS] = { 0 };
  gboolean ok = TRUE;
  CtrBeam beam = adw_combo_row_get_selected (self->beam_row);
  g_autoptr(CtrGeometry) g = NULL;

  if (self->updating)
    return;

  /* Per-view vectors (ctr-geometry-vectors.h) and helical scans: the
   * circular fields show the file's geometry and are read-only (frozen);
   * only the grid is edited. */
  const gboolean helical = self->original != NULL && ctr_geometry_is_helical (self->original);
  const gboolean frozen = self->original != NULL && (ctr_geometry_has_vectors (self->original) || helical);
  update_sensitivity (self, beam, helical, frozen);

  if (!parse_fields (self, helical, v))
    ok = FALSE;
  gtk_label_set_label (self->status_label, "");
  g_clear_pointer (&self->edited, ctr_geometry_free);
  self->grid_valid = FALSE;

  if (!check_counts (self, v))
    ok = FALSE;
  if (!frozen && !check_distances (self, beam, v))
    ok = FALSE;

  g = assemble_geometry (self, beam, frozen, v, &ok);
  fit_draft_grid (self, g, v);
  if (!update_grid (self, g, helical, v))
    ok = FALSE;

  if (ok)
    show_valid (self, g_steal_pointer (&g));
  else
    show_invalid (self, g);
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), *gtk_label_get_label (self->status_label) != '\0');
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
on_entry_changed (GtkEditable *editable, CtrGeometryPanel *self)
{
  if (self->updating)
    return;
  if (editable == GTK_EDITABLE (self->entries[F_VIEWS]) ||
      editable == GTK_EDITABLE (self->entries[F_ANGLE_START]) ||
      editable == GTK_EDITABLE (self->entries[F_ANGLE_STEP]))
    self->angles_edited = TRUE;
  if (editable == GTK_EDITABLE (self->entries[F_IMAGE_SIZE]) || editable == GTK_EDITABLE (self->entries[F_PIXEL_SIZE]))
    self->grid_follows = FALSE;
  validate (self);
}

static void
on_shape_changed (CtrGeometryPanel *self)
{
  double sdd, pitch, offset;

  if (self->updating)
    return;
  /* Flat ↔ curved: keep the same angular size of the columns at the source
   * (pitch_rad ≈ pitch_mm / SDD) so the sketch stays sensible. */
  self->updating = TRUE;
  if (parse_field (self, F_SDD, &sdd) && sdd > 0 && parse_field (self, F_PITCH_U, &pitch) &&
      parse_field (self, F_OFFSET_U, &offset))
    {
      gboolean to_curved = adw_combo_row_get_selected (self->shape_row) == CTR_DETECTOR_CURVED;
      double k = to_curved ? 1 / sdd : sdd;
      set_text (self, F_PITCH_U, "%.8g", pitch * k);
      set_text (self, F_OFFSET_U, "%.8g", offset * k);
    }
  self->updating = FALSE;
  validate (self);
}

static void
on_beam_changed (CtrGeometryPanel *self)
{
  validate (self);
}

static void
on_view_changed (GtkAdjustment *adj, CtrGeometryPanel *self)
{
  ctr_geometry_sketch_set_view (self->sketch, (guint) gtk_adjustment_get_value (adj) - 1);
}

static void
fill_fields (CtrGeometryPanel *self)
{
  const CtrGeometry *g = self->original;
  double start, step;

  self->updating = TRUE;
  self->angles_edited = FALSE;
  if (g != NULL)
    {
      gboolean uniform = uniform_angles (g, &start, &step);
      adw_combo_row_set_selected (self->beam_row, g->beam);
      adw_combo_row_set_selected (self->shape_row, g->shape);
      set_text (self, F_SOD, "%.8g", g->sod_mm);
      set_text (self, F_SDD, "%.8g", g->sdd_mm);
      set_text (self, F_COLS, "%.0f", g->n_cols);
      set_text (self, F_ROWS, "%.0f", g->n_rows);
      set_text (self, F_PITCH_U, "%.8g", g->pitch_u);
      set_text (self, F_PITCH_V, "%.8g", g->pitch_v_mm);
      set_text (self, F_OFFSET_U, "%.8g", g->offset_u);
      set_text (self, F_OFFSET_V, "%.8g", g->offset_v_mm);
      set_text (self, F_VIEWS, "%.0f", g->n_views);
      set_text (self, F_ANGLE_START, "%.8g", start * 180 / G_PI);
      set_text (self, F_ANGLE_STEP, "%.8g", step * 180 / G_PI);
      adw_preferences_group_set_description (self->views_group, ctr_geometry_is_helical (g)
        ? "A helical scan: every view's angle and source z are kept as read; these fields show them"
        : ctr_geometry_has_vectors (g)
        ? "Per-view vectors (source, detector centre, u and v steps): these fields show their means; "
          "edit the vectors in geometry.json"
        : uniform
        ? "A uniform list: β_k = start + k · step"
        : "The file lists irregular angles; they are kept unless you edit these fields (which makes the list uniform)");
      set_text (self, F_IMAGE_SIZE, "%.0f", self->original_grid.nx);
      set_text (self, F_PIXEL_SIZE, "%.6g", self->original_grid.dx);
      if (ctr_geometry_is_helical (g))
        {
          /* the loaded grid's slices as table positions, and the range the
           * scan samples fully (180LI rebinning, the default) */
          const CtrGrid *og = &self->original_grid;
          double z0 = og->cz - 0.5 * (og->nz - 1) * og->dz, z1 = og->cz + 0.5 * (og->nz - 1) * og->dz;
          double t0 = ctr_geometry_table_mm (g, z0), t1 = ctr_geometry_table_mm (g, z1), lo, hi;
          g_autofree char *coverage = NULL;

          set_text (self, F_Z_FIRST, "%.6g", MIN (t0, t1));
          set_text (self, F_Z_LAST, "%.6g", MAX (t0, t1));
          set_text (self, F_Z_STEP, "%.6g", og->nz > 1 ? og->dz : ctr_geometry_slice_width_mm (g));
          if (ctr_helix_z_coverage (g, TRUE, &lo, &hi))
            coverage = g_strdup_printf ("A helical scan (pitch %.2f, feed %.1f mm per turn): slices from %.1f to %.1f mm "
                                        "(table) are fully sampled; the sketch's bar shows them",
                                        ctr_helix_pitch (g), ctr_helix_feed_mm (g),
                                        MIN (ctr_geometry_table_mm (g, lo), ctr_geometry_table_mm (g, hi)),
                                        MAX (ctr_geometry_table_mm (g, lo), ctr_geometry_table_mm (g, hi)));
          adw_preferences_group_set_description (self->grid_group, coverage ? coverage
                                                 : "A helical scan that samples no z range fully (less than a turn?)");
        }
      else
        adw_preferences_group_set_description (self->grid_group, NULL);
      gtk_adjustment_set_upper (self->view_adjustment, g->n_views);
      gtk_adjustment_set_value (self->view_adjustment, 1);
    }
  self->updating = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->paned), g != NULL);
  validate (self);
}

/* ---- public --------------------------------------------------------------- */

void
ctr_geometry_panel_load (CtrGeometryPanel     *self,
                         const CtrGeometry    *g,
                         const CtrProjections *projections,
                         const CtrGrid        *grid)
{
  g_return_if_fail (CTR_IS_GEOMETRY_PANEL (self));

  g_autoptr(GError) error = NULL;
  g_clear_pointer (&self->original, ctr_geometry_free);
  /* a copy that cannot be had: the panel shows no geometry and says why */
  if (g != NULL && (self->original = ctr_geometry_try_copy (g, &error)) == NULL)
    g = NULL;
  self->data_views = projections ? projections->n_views : 0;
  self->data_rows = projections ? projections->n_rows : 0;
  self->data_cols = projections ? projections->n_cols : 0;
  if (grid != NULL)
    self->original_grid = *grid;
  else if (g != NULL)
    self->original_grid = ctr_grid_default (g, 0, 0);
  self->grid_follows = g != NULL && !ctr_geometry_validate (g, NULL);
  fill_fields (self);
  if (error != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%c%s", g_ascii_toupper (error->message[0]), error->message + 1);
      gtk_label_set_label (self->status_label, msg);
      gtk_widget_set_visible (GTK_WIDGET (self->status_label), TRUE);
    }
}

void
ctr_geometry_panel_revert (CtrGeometryPanel *self)
{
  g_return_if_fail (CTR_IS_GEOMETRY_PANEL (self));
  fill_fields (self);
  g_signal_emit (self, signals[REVERTED], 0);
}

const CtrGeometry *
ctr_geometry_panel_get_geometry (CtrGeometryPanel *self)
{
  g_return_val_if_fail (CTR_IS_GEOMETRY_PANEL (self), NULL);
  return self->edited;
}

gboolean
ctr_geometry_panel_get_grid (CtrGeometryPanel *self, CtrGrid *grid)
{
  g_return_val_if_fail (CTR_IS_GEOMETRY_PANEL (self), FALSE);
  if (!self->grid_valid || self->edited == NULL)
    return FALSE;
  *grid = self->grid;
  return TRUE;
}

gboolean
ctr_geometry_panel_is_valid (CtrGeometryPanel *self)
{
  g_return_val_if_fail (CTR_IS_GEOMETRY_PANEL (self), FALSE);
  return self->edited != NULL && self->grid_valid;
}

gboolean
ctr_geometry_panel_set_text (CtrGeometryPanel *self, const char *field, const char *text)
{
  g_return_val_if_fail (CTR_IS_GEOMETRY_PANEL (self), FALSE);
  Field f = field_from_name (field);
  if (f >= N_FIELDS)
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (self->entries[f]), text);
  return TRUE;
}

const char *
ctr_geometry_panel_get_reason (CtrGeometryPanel *self, const char *field)
{
  g_return_val_if_fail (CTR_IS_GEOMETRY_PANEL (self), NULL);
  Field f = field_from_name (field);
  if (f >= N_FIELDS)
    return NULL;
  return self->reasons[f] ? self->reasons[f] : "";
}

void
ctr_geometry_panel_set_beam (CtrGeometryPanel *self, CtrBeam beam, CtrDetectorShape shape)
{
  g_return_if_fail (CTR_IS_GEOMETRY_PANEL (self));
  adw_combo_row_set_selected (self->beam_row, beam);
  adw_combo_row_set_selected (self->shape_row, shape);
}

void
ctr_geometry_panel_set_view (CtrGeometryPanel *self, guint view)
{
  g_return_if_fail (CTR_IS_GEOMETRY_PANEL (self));
  gtk_adjustment_set_value (self->view_adjustment, view + 1);
}

/* ---- GObject -------------------------------------------------------------- */

static void
ctr_geometry_panel_dispose (GObject *object)
{
  CtrGeometryPanel *self = CTR_GEOMETRY_PANEL (object);

  g_clear_pointer (&self->original, ctr_geometry_free);
  g_clear_pointer (&self->edited, ctr_geometry_free);
  for (guint f = 0; f < N_FIELDS; f++)
    g_clear_pointer (&self->reasons[f], g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_GEOMETRY_PANEL);
  G_OBJECT_CLASS (ctr_geometry_panel_parent_class)->dispose (object);
}

static void
ctr_geometry_panel_class_init (CtrGeometryPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_geometry_panel_dispose;

  /**
   * CtrGeometryPanel::changed:
   * After every edit, valid or not (ask ctr_geometry_panel_is_valid).
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * CtrGeometryPanel::reverted:
   * Revert put the file's values back (what else the window applied to
   * the geometry, Calibrate…'s tilt, goes too).
   */
  signals[REVERTED] = g_signal_new ("reverted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (CTR_TYPE_GEOMETRY_SKETCH);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-geometry-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, paned);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, detector_group);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, views_group);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, grid_group);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, beam_row);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, shape_row);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, status_label);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, reset_button);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, sketch);
  gtk_widget_class_bind_template_child (widget_class, CtrGeometryPanel, view_adjustment);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void on_import_clicked (CtrGeometryPanel *self);

static void
ctr_geometry_panel_init (CtrGeometryPanel *self)
{
  AdwPreferencesGroup *groups[] = { self->detector_group, self->views_group, self->grid_group };

  gtk_widget_init_template (GTK_WIDGET (self));
  groups[0] = self->detector_group;
  groups[1] = self->views_group;
  groups[2] = self->grid_group;

  for (guint f = 0; f < N_FIELDS; f++)
    {
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *entry = gtk_entry_new ();
      GtkWidget *unit = gtk_label_new (NULL);
      const char *u = f == F_SOD || f == F_SDD || f == F_PITCH_V || f == F_OFFSET_V || f == F_PIXEL_SIZE ? "mm"
                    : f == F_ANGLE_START || f == F_ANGLE_STEP ? "°" : f == F_IMAGE_SIZE ? "px" : "";

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), fields[f].title);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 3);
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 10);
      gtk_editable_set_max_width_chars (GTK_EDITABLE (entry), 10);
      gtk_entry_set_alignment (GTK_ENTRY (entry), 1.0);
      gtk_entry_set_input_purpose (GTK_ENTRY (entry), GTK_INPUT_PURPOSE_NUMBER);
      gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
      gtk_label_set_label (GTK_LABEL (unit), u);
      gtk_label_set_width_chars (GTK_LABEL (unit), 3);
      gtk_label_set_xalign (GTK_LABEL (unit), 0);
      gtk_widget_add_css_class (unit, "dim-label");
      gtk_box_append (GTK_BOX (box), entry);
      gtk_box_append (GTK_BOX (box), unit);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), box);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), entry);
      gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      fields[f].title, -1);
      gtk_widget_set_name (entry, fields[f].name);

      self->rows[f] = ADW_ACTION_ROW (row);
      self->entries[f] = GTK_ENTRY (entry);
      self->units[f] = GTK_LABEL (unit);
      g_signal_connect (entry, "changed", G_CALLBACK (on_entry_changed), self);
      adw_preferences_group_add (groups[fields[f].group], row);
      set_reason (self, f, NULL);
    }
  self->fov_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->fov_row), "Field of view");
  adw_action_row_set_subtitle_lines (self->fov_row, 3);
  adw_preferences_group_add (self->grid_group, GTK_WIDGET (self->fov_row));

  g_signal_connect_swapped (self->beam_row, "notify::selected", G_CALLBACK (on_beam_changed), self);
  g_signal_connect_swapped (self->shape_row, "notify::selected", G_CALLBACK (on_shape_changed), self);
  g_signal_connect (self->view_adjustment, "value-changed", G_CALLBACK (on_view_changed), self);
  g_signal_connect_swapped (self->reset_button, "clicked", G_CALLBACK (ctr_geometry_panel_revert), self);
  {
    /* ASTRA and RTK geometries (core/io/ctr-geometry-import.h) */
    GtkWidget *import = gtk_button_new_with_mnemonic ("_Import…");
    gtk_widget_set_tooltip_text (import, "Take the geometry from an ASTRA proj_geom (JSON) or an RTK geometry (XML)");
    gtk_widget_add_css_class (import, "flat");
    gtk_widget_set_name (import, "import_geometry_button");
    adw_preferences_group_set_header_suffix (self->detector_group, import);
    g_signal_connect_swapped (import, "clicked", G_CALLBACK (on_import_clicked), self);
  }
  gtk_widget_set_sensitive (GTK_WIDGET (self->paned), FALSE);
}

/* ---- import from ASTRA / RTK (issue 17) ---------------------------------- */

gboolean
ctr_geometry_panel_import (CtrGeometryPanel *self, const char *path, GError **error)
{
  g_return_val_if_fail (CTR_IS_GEOMETRY_PANEL (self) && path != NULL, FALSE);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) io = NULL;
  if (!g_file_get_contents (path, &text, &length, &io))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s", io->message);
      return FALSE;
    }
  g_autoptr (CtrGeometry) g = NULL;
  if (g_str_has_suffix (path, ".xml"))
    {
      /* RTK's XML has no detector size: the data's, and the pitches shown */
      double pu = 0, pv = 0;
      if (!parse_field (self, F_PITCH_U, &pu) || !parse_field (self, F_PITCH_V, &pv) || !(pu > 0) || !(pv > 0))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "An RTK geometry does not hold the detector's pitch: enter the column and row pitch first");
          return FALSE;
        }
      double cols = self->data_cols, rows = self->data_rows;
      if (self->data_views == 0 && (!parse_field (self, F_COLS, &cols) || !parse_field (self, F_ROWS, &rows)))
        cols = rows = 0;
      const CtrRtkDetector det = { (guint) cols, (guint) rows, pu, pv, NAN, NAN };
      g = ctr_geometry_import_rtk (text, (gssize) length, &det, error);
    }
  else
    g = ctr_geometry_import_astra (text, (gssize) length, error);
  if (g == NULL)
    return FALSE;
  if (self->data_views > 0
      && (g->n_views != self->data_views || g->n_rows != self->data_rows || g->n_cols != self->data_cols))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "The imported geometry has %u views × %u rows × %u columns but the projections %u × %u × %u",
                   g->n_views, g->n_rows, g->n_cols, self->data_views, self->data_rows, self->data_cols);
      return FALSE;
    }
  g_clear_pointer (&self->original, ctr_geometry_free);
  self->original = g_steal_pointer (&g);
  self->original_grid = ctr_grid_default (self->original, 0, 0);
  fill_fields (self);
  return TRUE;
}

static void
on_import_response (GtkNativeDialog *native, int response, CtrGeometryPanel *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;
      if (path != NULL && !ctr_geometry_panel_import (self, path, &error))
        {
          g_autofree char *msg = g_strdup_printf ("Could not import %s: %s", path, error->message);
          gtk_label_set_label (self->status_label, msg);
          gtk_widget_set_visible (GTK_WIDGET (self->status_label), TRUE);
        }
    }
  g_object_unref (native);
}

static void
on_import_clicked (CtrGeometryPanel *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *native = gtk_file_chooser_native_new ("Import Geometry", GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, "_Import", "_Cancel");
  GtkFileFilter *f = gtk_file_filter_new ();
  gtk_file_filter_set_name (f, "ASTRA (proj_geom as JSON) or RTK (geometry XML)");
  gtk_file_filter_add_pattern (f, "*.json");
  gtk_file_filter_add_pattern (f, "*.xml");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), f);
  g_object_unref (f);
  g_signal_connect (native, "response", G_CALLBACK (on_import_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}
