/* ctr-study-rows.c — a dose study rebuilt from its rows (ctr-study-rows.h). */
#include "study/ctr-study-rows.h"
#include "study/ctr-study-private.h"
#include "base/ctr-error.h"

#include <math.h>

/* Sanity bound on configurations: a study lists a handful. */
#define MAX_METHODS 1000

static gboolean
check_rows (const CtrStudyRow *rows, guint n_rows, guint *n_methods, GError **error)
{
  *n_methods = 0;
  if (n_rows == 0)
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "a study rebuilt from rows needs a row");
      return FALSE;
    }
  for (guint k = 0; k < n_rows; k++)
    {
      if (!(isfinite (rows[k].dose) && rows[k].dose > 0))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "row %u: the dose %g is not above 0", k + 1,
                       rows[k].dose);
          return FALSE;
        }
      if (rows[k].method_index >= MAX_METHODS)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "row %u: the configuration %u is beyond the %u a study may list", k + 1,
                       rows[k].method_index, MAX_METHODS);
          return FALSE;
        }
      *n_methods = MAX (*n_methods, rows[k].method_index + 1);
    }
  return TRUE;
}

/* Configuration @m: the method and label of its first row. */
static void
add_method (CtrStudy *s, const CtrStudyRow *rows, guint n_rows, guint m)
{
  StudyMethod sm = { 0 };

  for (guint k = 0; k < n_rows && sm.label == NULL; k++)
    if (rows[k].method_index == m)
      {
        ctr_recon_options_init (&sm.options, rows[k].method);
        sm.label = g_strdup (rows[k].label != NULL && *rows[k].label ? rows[k].label
                                                                        : ctr_method_name (rows[k].method));
        sm.parameters = g_strdup (rows[k].parameters != NULL ? rows[k].parameters : "");
      }
  if (sm.label == NULL)
    {
      ctr_recon_options_init (&sm.options, CTR_METHOD_FBP);
      sm.label = g_strdup_printf ("configuration %u (no run)", m + 1);
      sm.parameters = g_strdup ("");
    }
  g_array_append_val (s->methods, sm);
}

/* A copy of @r's figures: strings owned, no ROI or TTF arrays. */
static CtrStudyRow
row_copy (const CtrStudyRow *r)
{
  CtrStudyRow c = *r;

  c.label = g_strdup (r->label != NULL ? r->label : ctr_method_name (r->method));
  c.parameters = g_strdup (r->parameters != NULL ? r->parameters : "");
  c.roi_mean_hu = c.roi_sd_hu = c.roi_cnr = NULL;
  c.ttf_f50 = c.ttf_f50_pooled = c.ttf_cnr_pooled = NULL;
  return c;
}

CtrStudy *
ctr_study_new_from_rows (const CtrStudyRow *rows, guint n_rows, const char *title, double metrics_radius_mm,
                         GError **error)
{
  g_autoptr (CtrStudy) s = NULL;
  guint n_methods = 0, realisations = 1;

  g_return_val_if_fail (rows != NULL || n_rows == 0, NULL);
  if (!check_rows (rows, n_rows, &n_methods, error))
    return NULL;
  s = ctr_study_new ();
  s->rebuilt = TRUE;
  g_free (s->title);
  s->title = g_strdup (title != NULL ? title : "");
  s->metrics_radius_mm = metrics_radius_mm;
  for (guint m = 0; m < n_methods; m++)
    add_method (s, rows, n_rows, m);
  for (guint k = 0; k < n_rows; k++)
    {
      const CtrStudyRow *r = &rows[k];
      gboolean known = FALSE;
      CtrStudyRow c;

      for (guint i = 0; i < s->doses->len && !known; i++)
        known = g_array_index (s->doses, double, i) == r->dose;
      if (!known)
        g_array_append_val (s->doses, r->dose);
      realisations = MAX (realisations, r->realisation + 1);
      if (isfinite (r->dprime_npw))
        s->iq.has_task = TRUE;
      c = row_copy (r);
      g_array_append_val (s->rows, c);
    }
  s->realisations = realisations;
  s->n_runs = n_rows;
  return g_steal_pointer (&s);
}
