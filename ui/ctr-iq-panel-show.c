/* ctr-iq-panel-show.c — the image-quality panel's results: the radial NPS
 * and the chosen insert's TTF of every measured run overlaid, and the
 * table (a column per run) of noise SD, f_peak, f_avg, f50 / f10 and the
 * CNR per insert (marked below TG-233's 15, CTR_TTF_MIN_CNR) and d′.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-iq-panel"

#include <math.h>

#include "ctr-iq-panel-private.h"

#define LOW_CNR_TIP "The insert's contrast over the background ring's noise. TG-233 (after Chen et al. 2014) " \
  "asks for 15 or more: below it the TTF's f50 and f10 vary from measurement to measurement (average " \
  "more slices or realisations, or use an insert of more contrast)"

/* "0.412" or "—" for NaN. */
static char *
number (const char *format, double v)
{
  return isfinite (v) ? g_strdup_printf (format, v) : g_strdup ("—");
}

static void
cell (CtrIqPanel *self, int column, int row, const char *text, const char *name, const char *tooltip,
      gboolean heading)
{
  GtkWidget *label = gtk_label_new (NULL);

  if (heading)
    {
      g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b>", text);
      gtk_label_set_markup (GTK_LABEL (label), markup);
    }
  else
    gtk_label_set_text (GTK_LABEL (label), text);
  gtk_label_set_xalign (GTK_LABEL (label), column == 0 ? 0 : 1);
  if (column > 0)
    gtk_widget_add_css_class (label, "numeric");
  if (name != NULL)
    gtk_widget_set_name (label, name);
  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (label, tooltip);
  gtk_grid_attach (self->table, label, column, row, 1, 1);
}

/* The names of the inserts measured (the first result's setup order). */
static void
sync_ttf_drop (CtrIqPanel *self, const CtrIqSetup *setup)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  guint keep = gtk_drop_down_get_selected (self->ttf_drop);
  GListModel *old = gtk_drop_down_get_model (self->ttf_drop);
  gboolean same = old != NULL && g_list_model_get_n_items (old) == setup->inserts->len;

  for (guint i = 0; i < setup->inserts->len; i++)
    gtk_string_list_append (names, g_array_index (setup->inserts, CtrIqInsertSpec, i).name);
  if (!same || keep == GTK_INVALID_LIST_POSITION)
    {
      const CtrIqResult *r = self->results->len > 0 ? self->results->pdata[0] : NULL;
      keep = r != NULL && r->task_insert >= 0 ? (guint) r->task_insert : 0;
    }
  g_signal_handlers_block_by_func (self->ttf_drop, _ctr_iq_panel_show_ttf, self);
  gtk_drop_down_set_model (self->ttf_drop, G_LIST_MODEL (names));
  if (setup->inserts->len > 0)
    gtk_drop_down_set_selected (self->ttf_drop, MIN (keep, setup->inserts->len - 1));
  g_signal_handlers_unblock_by_func (self->ttf_drop, _ctr_iq_panel_show_ttf, self);
}

void
_ctr_iq_panel_show_ttf (CtrIqPanel *self)
{
  guint insert = gtk_drop_down_get_selected (self->ttf_drop);

  ctr_iq_plot_clear (self->ttf_plot);
  for (guint i = 0; i < self->results->len; i++)
    {
      const CtrIqResult *r = self->results->pdata[i];
      const CtrTtf *t = r->ttf != NULL && insert < r->ttf->len ? r->ttf->pdata[insert] : NULL;
      if (t != NULL)
        ctr_iq_plot_add_curve (self->ttf_plot, r->label, &r->color, FALSE, t->n_freq, t->f, t->ttf);
    }
}

static void
show_plots (CtrIqPanel *self)
{
  ctr_iq_plot_clear (self->nps_plot);
  for (guint i = 0; i < self->results->len; i++)
    {
      const CtrIqResult *r = self->results->pdata[i];
      if (r->nps != NULL)
        ctr_iq_plot_add_curve (self->nps_plot, r->label, &r->color, FALSE, r->nps->n_radial, r->nps->radial_f,
                               r->nps->radial_nps);
    }
  _ctr_iq_panel_show_ttf (self);
}

/* Rows of the table: a heading on the left, then one column per run. */
static void
table_headings (CtrIqPanel *self, const CtrIqSetup *setup)
{
  int row = 1;

  cell (self, 0, 0, "Run", NULL, NULL, TRUE);
  cell (self, 0, row++, "Noise SD (HU)", NULL, "The NPS's integral, square-rooted", TRUE);
  cell (self, 0, row++, "NPS f_peak (cycles/mm)", NULL, "The radial NPS's peak frequency", TRUE);
  cell (self, 0, row++, "NPS f_avg (cycles/mm)", NULL, "The NPS's average frequency", TRUE);
  for (guint i = 0; i < setup->inserts->len; i++)
    {
      g_autofree char *h = g_strdup_printf ("TTF f50 / f10, %s", g_array_index (setup->inserts, CtrIqInsertSpec, i).name);
      g_autofree char *c = g_strdup_printf ("CNR, %s", g_array_index (setup->inserts, CtrIqInsertSpec, i).name);
      cell (self, 0, row++, h, NULL, "Where the insert's TTF falls to 0.5 and 0.1, cycles/mm (— : not before Nyquist)",
            TRUE);
      cell (self, 0, row++, c, NULL, LOW_CNR_TIP, TRUE);
    }
  if (setup->has_task)
    {
      cell (self, 0, row++, "d′ NPW", NULL, "Non-prewhitening observer", TRUE);
      cell (self, 0, row++, "d′ NPWE", NULL, "Non-prewhitening observer with an eye filter", TRUE);
    }
}

/* Run @r's column @column. */
static void
table_column (CtrIqPanel *self, const CtrIqResult *r, const CtrIqSetup *setup, int column)
{
  const guint n = r->number;
  const double nan = NAN;
  int row = 0;
  g_autofree char *noise = number ("%.2f", r->nps ? r->nps->noise_sd : nan);
  g_autofree char *fpeak = number ("%.3f", r->nps ? r->nps->f_peak : nan);
  g_autofree char *favg = number ("%.3f", r->nps ? r->nps->f_avg : nan);
  g_autofree char *npw = number ("%.2f", r->has_dprime ? r->dprime.npw : nan);
  g_autofree char *npwe = number ("%.2f", r->has_dprime ? r->dprime.npwe : nan);
  g_autofree char *n_noise = g_strdup_printf ("iq-noise-%u", n);
  g_autofree char *n_fpeak = g_strdup_printf ("iq-fpeak-%u", n);
  g_autofree char *n_favg = g_strdup_printf ("iq-favg-%u", n);
  g_autofree char *n_npw = g_strdup_printf ("iq-npw-%u", n);
  g_autofree char *n_npwe = g_strdup_printf ("iq-npwe-%u", n);
  g_autofree char *head = g_markup_printf_escaped ("<span foreground='#%02x%02x%02x'>●</span> <b>%s</b>",
                                                   (int) (r->color.red * 255), (int) (r->color.green * 255),
                                                   (int) (r->color.blue * 255), r->label);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_markup (GTK_LABEL (label), head);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_grid_attach (self->table, label, column, row++, 1, 1);
  cell (self, column, row++, noise, n_noise, r->nps_problem, FALSE);
  cell (self, column, row++, fpeak, n_fpeak, r->nps_problem, FALSE);
  cell (self, column, row++, favg, n_favg, r->nps_problem, FALSE);
  for (guint i = 0; r->ttf != NULL && i < r->ttf->len; i++)
    {
      const CtrTtf *t = r->ttf->pdata[i];
      g_autofree char *f50 = number ("%.3f", t ? t->f50 : nan);
      g_autofree char *f10 = number ("%.3f", t ? t->f10 : nan);
      g_autofree char *text = t ? g_strdup_printf ("%s / %s", f50, f10) : g_strdup ("not measured");
      g_autofree char *name = g_strdup_printf ("iq-ttf-%u-%u", n, i);
      g_autofree char *cnr_name = g_strdup_printf ("iq-cnr-%u-%u", n, i);
      g_autofree char *cnr = t == NULL ? g_strdup ("—")
                             : isinf (t->cnr) ? g_strdup ("∞")
                             : t->cnr < CTR_TTF_MIN_CNR ? g_strdup_printf ("%.1f (below %g)", t->cnr, CTR_TTF_MIN_CNR)
                             : number ("%.1f", t->cnr);
      cell (self, column, row++, text, name, r->ttf_problems->pdata[i], FALSE);
      cell (self, column, row++, cnr, cnr_name, t != NULL && t->cnr < CTR_TTF_MIN_CNR ? LOW_CNR_TIP : NULL, FALSE);
      if (t != NULL && t->cnr < CTR_TTF_MIN_CNR)
        gtk_widget_add_css_class (gtk_grid_get_child_at (self->table, column, row - 1), "warning");
    }
  if (setup->has_task)
    {
      cell (self, column, row++, npw, n_npw, r->dprime_problem, FALSE);
      cell (self, column, row++, npwe, n_npwe, r->dprime_problem, FALSE);
    }
}

/* TG-233's warning: how many TTFs were measured at a CNR below 15 (the
 * table marks which). */
static void
low_cnr (CtrIqPanel *self, const CtrIqSetup *setup, GString *s)
{
  guint low = 0;

  for (guint k = 0; k < self->results->len; k++)
    {
      const CtrIqResult *r = self->results->pdata[k];
      for (guint i = 0; r->ttf != NULL && i < r->ttf->len && i < setup->inserts->len; i++)
        {
          const CtrTtf *t = r->ttf->pdata[i];
          low += t != NULL && t->cnr < CTR_TTF_MIN_CNR;
        }
    }
  if (low > 0)
    g_string_append_printf (s, "Warning: %u TTF%s measured at a CNR below %g (marked in the table), where TG-233 "
                            "calls a TTF unreliable.", low, low == 1 ? "" : "s", CTR_TTF_MIN_CNR);
}

/* One line under the form: what the NPS and d′ used. */
static void
summary (CtrIqPanel *self, const CtrIqSetup *setup)
{
  const CtrIqResult *r = self->results->len > 0 ? self->results->pdata[0] : NULL;
  g_autoptr(GString) s = g_string_new (NULL);

  if (r == NULL)
    return;
  if (r->nps != NULL)
    g_string_append_printf (s, "NPS over %u squares of %u × %u pixels (mean removed). ", r->nps_squares,
                            r->nps_size, r->nps_size);
  else
    g_string_append_printf (s, "NPS: %s. ", r->nps_problem);
  if (setup->has_task && r->task_insert >= 0)
    g_string_append_printf (s, "d′ of a %g mm disc of %+g HU with the TTF of %s (TG-233; eye filter at 500 mm). ",
                            setup->task.diameter_mm, setup->task.contrast,
                            g_array_index (setup->inserts, CtrIqInsertSpec, r->task_insert).name);
  low_cnr (self, setup, s);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), NULL);
  gtk_label_set_text (self->status_label, s->str);
}

void
_ctr_iq_panel_show (CtrIqPanel *self)
{
  g_autoptr(CtrIqSetup) setup = ctr_iq_panel_get_setup (self);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))) != NULL)
    gtk_grid_remove (self->table, child);
  sync_ttf_drop (self, setup);
  show_plots (self);
  if (self->results->len == 0)
    return;
  table_headings (self, setup);
  for (guint i = 0; i < self->results->len; i++)
    table_column (self, self->results->pdata[i], setup, (int) i + 1);
  summary (self, setup);
}
