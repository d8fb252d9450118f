/* ctr-projection-page.c — the Projections page (see the header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The data shown are the session's line integrals.  A dataset whose
 * geometry.json declares a "preprocess" pipeline was loaded through it:
 * its data are read once more without it (in a thread), so that "before"
 * is the data as measured and the form's pipeline (the dataset's, as
 * edited) runs on them.  The form's list is also the session's, which
 * every run of the window applies (ctr_session_set_preprocess).  The preview (ctr-projection-preview.h) runs in a
 * thread; a change of row, pipeline or edited geometry cancels the one in
 * flight.  Nothing is read or reconstructed while the page is not shown:
 * the work waits for its "map".
 */
#include <math.h>

#include "ctr-projection-page.h"
#include "io/ctr-json.h"
#include "ctr-projection-image.h"
#include "ctr-projection-preview.h"

struct _CtrProjectionPage
{
  GtkWidget           parent_instance;

  CtrSession         *session;
  CtrDataset         *dataset;      /* the session's, not owned: compared to tell a new one */
  CtrDataset         *raw;          /* the data read without the file's pipeline (owned); NULL: the session's */
  gboolean            raw_pending;  /* reading them, or to read them */
  gboolean            needs_raw;    /* to read them when the page is first shown */
  gboolean            stale;        /* a preview is due when the page is shown */
  GCancellable       *cancellable;  /* the preview in flight (and the raw read) */
  guint               previews;
  double              pipeline_s, fbp_s, cpu_s;
  guint               preview_row;
  int                 before_row;   /* the row of slice-before shown, -1 none */

  GtkScale           *view_scale, *row_scale;
  GtkLabel           *view_label, *row_label, *flat_dark, *status;
  CtrPipelineForm    *form;
  CtrGeometryPanel   *panel;        /* the edited geometry's (weak); nullable */
  CtrProjectionImage *projection, *slice_before, *slice_after, *sino_before, *sino_after, *difference;
};

G_DEFINE_FINAL_TYPE (CtrProjectionPage, ctr_projection_page, GTK_TYPE_WIDGET)

static void schedule_preview (CtrProjectionPage *self);

static guint
scale_value (GtkScale *scale)
{
  return (guint) lround (MAX (gtk_range_get_value (GTK_RANGE (scale)), 0.0));
}

/* The line integrals "before" the pipeline; NULL while they are read. */
static const CtrProjections *
source (CtrProjectionPage *self)
{
  /* a new dataset not yet taken in (the Geometry page hears of it first) */
  if (self->dataset == NULL || self->raw_pending || self->session == NULL ||
      self->dataset != ctr_session_get_dataset (self->session))
    return NULL;
  return self->raw != NULL ? self->raw->projections : self->dataset->projections;
}

/* The geometry of source()'s data ("truncation" widens the session's). */
static const CtrGeometry *
source_geometry (CtrProjectionPage *self)
{
  return self->raw != NULL ? self->raw->geometry : self->dataset->geometry;
}

/* The geometry the preview reconstructs with: the Geometry page's edit
 * when it is valid and fits the data shown, else source_geometry(). */
static const CtrGeometry *
preview_geometry (CtrProjectionPage *self)
{
  const CtrProjections *p = source (self);
  const CtrGeometry *edited = self->panel != NULL ? ctr_geometry_panel_get_geometry (self->panel) : NULL;

  if (edited != NULL && p != NULL && edited->n_views == p->n_views && edited->n_rows == p->n_rows &&
      edited->n_cols == p->n_cols && ctr_geometry_validate (edited, NULL))
    return edited;
  return source_geometry (self);
}

/* ---- the view ------------------------------------------------------------- */

static void
show_view (CtrProjectionPage *self)
{
  const CtrProjections *p = source (self);
  guint view = scale_value (self->view_scale), row = scale_value (self->row_scale);
  g_autofree char *text = NULL;
  g_autofree char *caption = NULL;

  if (p == NULL || view >= p->n_views)
    {
      ctr_projection_image_clear (self->projection, self->dataset ? "Reading the data…" : NULL);
      return;
    }
  text = g_strdup_printf ("View %u of %u (%.2f°)", view, p->n_views,
                          source_geometry (self)->angles[view] * 180.0 / G_PI);
  gtk_label_set_text (self->view_label, text);
  if (p->n_rows == 1)
    {
      /* a 2-D scan: its one sinogram, the view marked */
      ctr_projection_image_set_caption (self->projection, "Sinogram (the scan's one row)");
      ctr_projection_image_set_data (self->projection, p->data, p->n_cols, p->n_views, CTR_IMAGE_GREY, "col",
                                     "view", NULL, FALSE);
      ctr_projection_image_set_marker (self->projection, view);
    }
  else
    {
      caption = g_strdup_printf ("Projection, view %u", view);
      ctr_projection_image_set_caption (self->projection, caption);
      ctr_projection_image_set_data (self->projection, ctr_projections_view (p, view), p->n_cols, p->n_rows,
                                     CTR_IMAGE_GREY, "col", "row", NULL, FALSE);
      ctr_projection_image_set_marker (self->projection, row);
    }
  ctr_projection_image_set_marker (self->sino_before, view);
  ctr_projection_image_set_marker (self->sino_after, view);
  ctr_projection_image_set_marker (self->difference, view);
}

static void
on_view (CtrProjectionPage *self)
{
  show_view (self);
}

static void
on_row (CtrProjectionPage *self)
{
  const CtrProjections *p = source (self);
  g_autofree char *text = NULL;

  if (p == NULL)
    return;
  text = g_strdup_printf ("Row %u of %u", scale_value (self->row_scale), p->n_rows);
  gtk_label_set_text (self->row_label, text);
  if (p->n_rows > 1)
    ctr_projection_image_set_marker (self->projection, scale_value (self->row_scale));
  schedule_preview (self);
}

/* ---- flat/dark ------------------------------------------------------------ */

/* What the flats and darks say: the pixels whose flat is not above the
 * dark (dead: masked, filled along their row) and the open beam's range. */
static void
show_flat_dark (CtrProjectionPage *self, const CtrProjections *p)
{
  g_autoptr (GError) error = NULL;
  g_autofree double *open = NULL;
  g_autofree char *text = NULL;
  gsize n = (gsize) p->n_rows * p->n_cols, dead = 0;
  double lo = INFINITY, hi = -INFINITY;

  if (p->flat == NULL && p->i0 <= 0)
    {
      gtk_label_set_text (self->flat_dark, "No flats or darks: the data are line integrals as given.");
      return;
    }
  open = ctr_projections_open_beam (p, &error);
  if (open == NULL)
    {
      text = g_strdup_printf ("Flat/dark check not possible: %s", error ? error->message : "no open beam");
      gtk_label_set_text (self->flat_dark, text);
      return;
    }
  for (gsize i = 0; i < n; i++)
    if (open[i] > 0)
      {
        lo = MIN (lo, open[i]);
        hi = MAX (hi, open[i]);
      }
    else
      dead++;
  if (p->flat == NULL)
    text = g_strdup_printf ("No flat: open beam I0 = %.4g counts per bin.", p->i0);
  else if (p->dark == NULL)
    text = g_strdup_printf ("Open beam (a flat, no dark): %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " pixels (%.3f %%) "
                            "are not above 0 (masked, filled along their row); from %.4g to %.4g counts.",
                            dead, n, 100.0 * dead / n, dead < n ? lo : 0, dead < n ? hi : 0);
  else
    text = g_strdup_printf ("Flat and dark: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " pixels (%.3f %%) have flat ≤ dark "
                            "(masked, filled along their row); flat − dark from %.4g to %.4g counts.",
                            dead, n, 100.0 * dead / n, dead < n ? lo : 0,
                            dead < n ? hi : 0);
  gtk_label_set_text (self->flat_dark, text);
}

/* ---- the preview ---------------------------------------------------------- */

static void
show_slice (CtrProjectionImage *pane, CtrVolume *v, const char *note)
{
  if (v == NULL)
    ctr_projection_image_clear (pane, note);
  else
    ctr_projection_image_set_data (pane, v->data, v->grid.nx, v->grid.ny, CTR_IMAGE_GREY, "x", "y", v->unit, TRUE);
}

static void
same_window (CtrProjectionImage *pane, CtrProjectionImage *like)
{
  float lo, hi;

  if (ctr_projection_image_get_window (like, &lo, &hi))
    ctr_projection_image_set_window (pane, lo, hi);
}

static void
show_preview (CtrProjectionPage *self, CtrProjectionPreview *pv)
{
  g_autoptr (GString) status = g_string_new (NULL);
  g_autofree char *caption = g_strdup_printf ("Sinogram of row %u, before", pv->row);

  ctr_projection_image_set_caption (self->sino_before, caption);
  ctr_projection_image_set_data (self->sino_before, pv->before, pv->n_cols, pv->n_views, CTR_IMAGE_GREY, "col",
                                 "view", NULL, FALSE);
  ctr_projection_image_set_data (self->sino_after, pv->after, pv->after_cols, pv->n_views, CTR_IMAGE_GREY, "col",
                                 "view", NULL, FALSE);
  if (pv->difference != NULL)
    ctr_projection_image_set_data (self->difference, pv->difference, pv->n_cols, pv->n_views, CTR_IMAGE_SIGNED,
                                   "col", "view", NULL, FALSE);
  else
    ctr_projection_image_clear (self->difference, "The pipeline widened the detector: no difference");
  if (pv->slice_before != NULL || pv->slice_after == NULL)
    {
      show_slice (self->slice_before, pv->slice_before, pv->slice_note);
      self->before_row = pv->slice_before != NULL ? (int) pv->row : -1;
    }
  show_slice (self->slice_after, pv->slice_after, pv->slice_note);
  /* after in the grey levels of before: the two compare */
  same_window (self->sino_after, self->sino_before);
  same_window (self->slice_after, self->slice_before);
  show_view (self);
  self->pipeline_s = pv->pipeline_s;
  self->fbp_s = pv->fbp_s;
  self->cpu_s = pv->cpu_s;
  self->preview_row = pv->row;
  g_string_append_printf (status, "Preview of row %u: pipeline %.0f ms, FBP %.0f ms (CPU %.0f ms).", pv->row,
                          pv->pipeline_s * 1e3, pv->fbp_s * 1e3, pv->cpu_s * 1e3);
  if (pv->slice_note != NULL && pv->slice_after != NULL)
    g_string_append_printf (status, "\n%s.", pv->slice_note);
  for (guint i = 0; pv->notes != NULL && pv->notes[i] != NULL; i++)
    g_string_append_printf (status, "\n• %s", pv->notes[i]);
  if (pv->notes == NULL || pv->notes[0] == NULL)
    g_string_append (status, "\nNo step switched on: after = before.");
  gtk_label_set_text (self->status, status->str);
}

static void
preview_done (GObject *source_object, GAsyncResult *result, gpointer data)
{
  g_autoptr (CtrProjectionPage) self = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjectionPreview) pv = ctr_projection_preview_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->session == NULL)
    return;   /* superseded, or the page is gone */
  if (pv == NULL)
    {
      g_autofree char *text = g_strdup_printf ("The pipeline failed on this row: %s", error->message);
      gtk_label_set_text (self->status, text);
      ctr_projection_image_clear (self->sino_after, error->message);
      ctr_projection_image_clear (self->difference, NULL);
      ctr_projection_image_clear (self->slice_after, NULL);
    }
  else
    show_preview (self, pv);
  self->previews++;
}

static void
schedule_preview (CtrProjectionPage *self)
{
  const CtrProjections *p = source (self);
  g_autoptr (GError) error = NULL;
  CtrPipeline *pipeline;
  guint row = scale_value (self->row_scale);

  if (p == NULL || row >= p->n_rows)
    return;
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;   /* no work for a page nobody sees: made when it is shown */
      return;
    }
  self->stale = FALSE;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  pipeline = ctr_pipeline_form_build (self->form, &error);
  if (pipeline == NULL)
    {
      gtk_label_set_text (self->status, error->message);
      return;
    }
  gtk_label_set_text (self->status, "Reconstructing the preview…");
  ctr_projection_preview_async (p, preview_geometry (self), row, pipeline, self->before_row != (int) row,
                                self->cancellable, preview_done, g_object_ref (self));
}

/* The form's list is the runs' (ctr_session_set_preprocess): a run reads
 * the data with it as the CLI's --preprocess does. */
static void
on_form_changed (CtrProjectionPage *self)
{
  if (self->session != NULL)
    {
      g_autoptr (JsonNode) steps = ctr_pipeline_form_to_json (self->form);
      ctr_session_set_preprocess (self->session, steps, ctr_pipeline_form_is_own (self->form));
    }
  schedule_preview (self);
}

/* ---- the dataset ---------------------------------------------------------- */

/* The "preprocess" steps of the dataset's geometry.json (transfer full);
 * NULL for none or another kind of file. */
static JsonNode *
file_steps (const CtrDataset *d)
{
  g_autoptr (JsonParser) parser = NULL;
  JsonNode *root;

  /* core's one JSON path: the file may have changed since it was loaded */
  if (d->path == NULL || !g_str_has_suffix (d->path, ".json") || (parser = ctr_json_parse_file (d->path, NULL)) == NULL)
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      !json_object_has_member (json_node_get_object (root), "preprocess"))
    return NULL;
  return json_node_copy (json_object_get_member (json_node_get_object (root), "preprocess"));
}

static void
raw_done (GObject *source_object, GAsyncResult *result, gpointer data)
{
  g_autoptr (CtrProjectionPage) self = data;
  g_autoptr (GError) error = NULL;
  CtrDataset *raw = g_task_propagate_pointer (G_TASK (result), &error);

  if (raw == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && self->session != NULL)
        {
          g_autofree char *text = g_strdup_printf ("Could not read the data without the dataset's pipeline: %s",
                                                   error->message);
          self->raw_pending = FALSE;   /* the session's data then, after its pipeline */
          gtk_label_set_text (self->status, text);
          show_view (self);
        }
      return;
    }
  if (self->session == NULL)   /* the page is gone */
    {
      ctr_dataset_free (raw);
      return;
    }
  self->raw = raw;
  self->raw_pending = FALSE;
  show_view (self);
  schedule_preview (self);
}

/* task data: { path, variant (nullable) }, a GStrv-like pair */
static void
read_raw (GTask *task, gpointer source_object, gpointer data, GCancellable *cancellable)
{
  char **which = data;
  CtrPipeline none = { 0, NULL };
  GError *error = NULL;
  CtrDataset *raw = ctr_dataset_load_preprocessed (which[0], which[1], &none, cancellable, &error);

  if (raw == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, raw, (GDestroyNotify) ctr_dataset_free);
}

/* Reads the data without the file's pipeline, once the page is shown. */
static void
start_raw (CtrProjectionPage *self)
{
  g_autoptr (GTask) task = NULL;
  char **which;

  if (!self->needs_raw || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  self->needs_raw = FALSE;
  task = g_task_new (NULL, self->cancellable, raw_done, g_object_ref (self));
  which = g_new0 (char *, 3);
  which[0] = g_strdup (self->dataset->path);
  which[1] = g_strdup (self->dataset->variant);
  g_task_set_task_data (task, which, (GDestroyNotify) g_strfreev);
  g_task_run_in_thread (task, read_raw);
}

static void
on_map (CtrProjectionPage *self)
{
  if (self->needs_raw)
    start_raw (self);
  else if (self->stale)
    schedule_preview (self);
}

static void
on_dataset (CtrProjectionPage *self)
{
  CtrDataset *d = self->session != NULL ? ctr_session_get_dataset (self->session) : NULL;
  g_autoptr (JsonNode) steps = NULL;
  const CtrProjections *p;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  g_clear_pointer (&self->raw, ctr_dataset_free);
  self->dataset = d;
  self->before_row = -1;
  self->raw_pending = self->needs_raw = self->stale = FALSE;
  ctr_projection_image_clear (self->slice_before, NULL);
  ctr_projection_image_clear (self->slice_after, NULL);
  ctr_projection_image_clear (self->sino_before, NULL);
  ctr_projection_image_clear (self->sino_after, NULL);
  ctr_projection_image_clear (self->difference, NULL);
  if (d == NULL || d->projections->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      ctr_pipeline_form_set_steps (self->form, NULL);
      ctr_projection_image_clear (self->projection, NULL);
      return;
    }
  p = d->projections;
  steps = file_steps (d);
  self->needs_raw = steps != NULL && JSON_NODE_HOLDS_ARRAY (steps) &&
                    json_array_get_length (json_node_get_array (steps)) > 0;
  self->raw_pending = self->needs_raw;
  start_raw (self);
  show_flat_dark (self, p);
  /* set the scales quietly: the form's "changed" starts the one preview */
  g_signal_handlers_block_by_func (self->row_scale, on_row, self);
  gtk_range_set_range (GTK_RANGE (self->view_scale), 0, MAX (p->n_views - 1, 1));
  gtk_range_set_value (GTK_RANGE (self->view_scale), 0);
  gtk_range_set_range (GTK_RANGE (self->row_scale), 0, MAX (p->n_rows - 1, 1));
  gtk_range_set_value (GTK_RANGE (self->row_scale), p->n_rows / 2);
  gtk_widget_set_sensitive (GTK_WIDGET (self->row_scale), p->n_rows > 1);
  g_signal_handlers_unblock_by_func (self->row_scale, on_row, self);
  {
    g_autofree char *text = g_strdup_printf ("Row %u of %u", p->n_rows / 2, p->n_rows);
    gtk_label_set_text (self->row_label, text);
  }
  show_view (self);
  ctr_pipeline_form_set_steps (self->form, steps);
}

/* ---- GObject ---------------------------------------------------------------- */

void
ctr_projection_page_set_session (CtrProjectionPage *self, CtrSession *session)
{
  g_return_if_fail (CTR_IS_PROJECTION_PAGE (self));
  if (self->session == session)
    return;
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  if (session != NULL)
    g_signal_connect_object (session, "notify::dataset", G_CALLBACK (on_dataset), self, G_CONNECT_SWAPPED);
  on_dataset (self);
}

static void
on_geometry_edited (CtrProjectionPage *self)
{
  self->before_row = -1;   /* both slices again */
  schedule_preview (self);
}

void
ctr_projection_page_follow_geometry (CtrProjectionPage *self, CtrGeometryPanel *panel)
{
  g_return_if_fail (CTR_IS_PROJECTION_PAGE (self));
  g_return_if_fail (CTR_IS_GEOMETRY_PANEL (panel));
  g_return_if_fail (self->panel == NULL);
  self->panel = panel;
  g_object_add_weak_pointer (G_OBJECT (panel), (gpointer *) &self->panel);
  g_signal_connect_object (panel, "changed", G_CALLBACK (on_geometry_edited), self, G_CONNECT_SWAPPED);
}

void
ctr_projection_page_show (CtrProjectionPage *self, guint view, guint row)
{
  g_return_if_fail (CTR_IS_PROJECTION_PAGE (self));
  gtk_range_set_value (GTK_RANGE (self->view_scale), view);
  gtk_range_set_value (GTK_RANGE (self->row_scale), row);
}

CtrPipelineForm *
ctr_projection_page_get_form (CtrProjectionPage *self)
{
  g_return_val_if_fail (CTR_IS_PROJECTION_PAGE (self), NULL);
  return self->form;
}

guint
ctr_projection_page_get_previews (CtrProjectionPage *self, double *pipeline_s, double *fbp_s, double *cpu_s,
                                  guint *row)
{
  g_return_val_if_fail (CTR_IS_PROJECTION_PAGE (self), 0);
  if (pipeline_s != NULL)
    *pipeline_s = self->pipeline_s;
  if (fbp_s != NULL)
    *fbp_s = self->fbp_s;
  if (cpu_s != NULL)
    *cpu_s = self->cpu_s;
  if (row != NULL)
    *row = self->preview_row;
  return self->previews;
}

static void
ctr_projection_page_dispose (GObject *object)
{
  CtrProjectionPage *self = CTR_PROJECTION_PAGE (object);
  GtkWidget *child;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  self->dataset = NULL;
  g_clear_pointer (&self->raw, ctr_dataset_free);
  if (self->panel != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->panel), (gpointer *) &self->panel);
      self->panel = NULL;
    }
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (ctr_projection_page_parent_class)->dispose (object);
}

static void
ctr_projection_page_class_init (CtrProjectionPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ctr_projection_page_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
}

static GtkLabel *
note_label (GtkBox *box, const char *name, gboolean dim)
{
  GtkLabel *label = GTK_LABEL (gtk_label_new (NULL));

  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_xalign (label, 0);
  if (name != NULL)
    gtk_widget_set_name (GTK_WIDGET (label), name);
  if (dim)
    gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
  gtk_box_append (box, GTK_WIDGET (label));
  return label;
}

static GtkScale *
stepper (GtkBox *box, const char *name, GtkLabel **label)
{
  GtkScale *scale = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1));

  *label = note_label (box, NULL, FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (*label), "heading");
  gtk_scale_set_digits (scale, 0);
  gtk_range_set_round_digits (GTK_RANGE (scale), 0);
  gtk_widget_set_name (GTK_WIDGET (scale), name);
  gtk_box_append (box, GTK_WIDGET (scale));
  return scale;
}

static CtrProjectionImage *
pane (GtkGrid *grid, const char *name, const char *caption, int column, int row)
{
  GtkWidget *w = ctr_projection_image_new (name, caption);

  gtk_grid_attach (grid, w, column, row, 1, 1);
  return CTR_PROJECTION_IMAGE (w);
}

static void
ctr_projection_page_init (CtrProjectionPage *self)
{
  GtkBox *outer = GTK_BOX (gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0));
  GtkBox *side = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 6));
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());

  self->before_row = -1;
  self->cancellable = g_cancellable_new ();
  gtk_widget_set_margin_start (GTK_WIDGET (side), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (side), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (side), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (side), 12);
  self->view_scale = stepper (side, "view-scale", &self->view_label);
  self->row_scale = stepper (side, "row-scale", &self->row_label);
  self->flat_dark = note_label (side, "flat-dark", TRUE);
  self->form = CTR_PIPELINE_FORM (ctr_pipeline_form_new ());
  gtk_box_append (side, GTK_WIDGET (self->form));
  self->status = note_label (side, "preview-status", TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (side));
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_size_request (scroller, 360, -1);
  gtk_box_append (outer, scroller);
  gtk_box_append (outer, gtk_separator_new (GTK_ORIENTATION_VERTICAL));

  gtk_grid_set_row_spacing (grid, 12);
  gtk_grid_set_column_spacing (grid, 12);
  gtk_grid_set_row_homogeneous (grid, TRUE);
  gtk_grid_set_column_homogeneous (grid, TRUE);
  gtk_widget_set_margin_start (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (grid), 12);
  gtk_widget_set_hexpand (GTK_WIDGET (grid), TRUE);
  self->projection = pane (grid, "projection", "Projection", 0, 0);
  self->slice_before = pane (grid, "slice-before", "Preview slice, before the pipeline", 1, 0);
  self->slice_after = pane (grid, "slice-after", "Preview slice, after the pipeline", 2, 0);
  self->sino_before = pane (grid, "sinogram-before", "Sinogram, before", 0, 1);
  self->sino_after = pane (grid, "sinogram-after", "Sinogram, after the pipeline", 1, 1);
  self->difference = pane (grid, "difference", "Difference (after − before)", 2, 1);
  gtk_box_append (outer, GTK_WIDGET (grid));
  gtk_widget_set_parent (GTK_WIDGET (outer), GTK_WIDGET (self));

  g_signal_connect_swapped (self->view_scale, "value-changed", G_CALLBACK (on_view), self);
  g_signal_connect_swapped (self->row_scale, "value-changed", G_CALLBACK (on_row), self);
  g_signal_connect_swapped (self->form, "changed", G_CALLBACK (on_form_changed), self);
  g_signal_connect (self, "map", G_CALLBACK (on_map), NULL);
}

GtkWidget *
ctr_projection_page_new (void)
{
  return g_object_new (CTR_TYPE_PROJECTION_PAGE, NULL);
}
