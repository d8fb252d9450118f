/* ctr-equal-dose.c — the equal-d′ dose (see ctr-equal-dose.h). */
#include "study/ctr-equal-dose.h"
#include "base/ctr-error.h"
#include "io/ctr-output-set.h"

#include <math.h>
#include <string.h>

/* Mean and standard error of one method's d′ at one dose. */
typedef struct {
  double dose;
  double sum, sum2;
  guint n;
} DosePoint;

static double
row_dprime (const CtrStudyRow *r, CtrEqualDoseObserver o)
{
  switch (o)
    {
    case CTR_EQUAL_DOSE_NPWE:
      return r->dprime_npwe;
    case CTR_EQUAL_DOSE_NPW_POOLED:
      return r->dprime_npw_pooled;
    case CTR_EQUAL_DOSE_NPWE_POOLED:
      return r->dprime_npwe_pooled;
    default:
      return r->dprime_npw;
    }
}

static double
point_mean (const DosePoint *p)
{
  return p->sum / p->n;
}

/* s/√n; NaN for a single realisation. */
static double
point_se (const DosePoint *p)
{
  if (p->n < 2)
    return NAN;
  const double m = point_mean (p);
  const double var = MAX (0.0, (p->sum2 - p->n * m * m) / (p->n - 1));
  return sqrt (var / p->n);
}

static int
by_dose (gconstpointer a, gconstpointer b)
{
  const double x = ((const DosePoint *) a)->dose, y = ((const DosePoint *) b)->dose;
  return (x > y) - (x < y);
}

/* The finite d′ of method @m grouped by dose, ascending. */
static GArray *
collect (const CtrStudyRow *rows, guint n_rows, guint m, CtrEqualDoseObserver o)
{
  GArray *pts = g_array_new (FALSE, TRUE, sizeof (DosePoint));
  for (guint k = 0; k < n_rows; k++)
    {
      const double v = row_dprime (&rows[k], o);
      if (rows[k].method_index != m || !isfinite (v))
        continue;
      guint i = 0;
      while (i < pts->len && g_array_index (pts, DosePoint, i).dose != rows[k].dose)
        i++;
      if (i == pts->len)
        {
          DosePoint p = { rows[k].dose, 0, 0, 0 };
          g_array_append_val (pts, p);
        }
      DosePoint *p = &g_array_index (pts, DosePoint, i);
      p->sum += v;
      p->sum2 += v * v;
      p->n++;
    }
  g_array_sort (pts, by_dose);
  return pts;
}

static void
crossing (GArray *pts, double T, double se_T, CtrEqualDose *e)
{
  gboolean all_above = pts->len > 0;
  for (guint i = 0; i < pts->len; i++)
    {
      const DosePoint *a = &g_array_index (pts, DosePoint, i);
      const double ya = point_mean (a);
      all_above = all_above && ya > T;
      e->n_min = i == 0 ? a->n : MIN (e->n_min, a->n);
      if (e->status == CTR_EQUAL_DOSE_REACHED || i + 1 == pts->len)
        continue;
      const DosePoint *b = &g_array_index (pts, DosePoint, i + 1);
      const double yb = point_mean (b);
      if ((ya - T) * (yb - T) > 0 || ya == yb)
        continue;
      const double xa = log (a->dose), xb = log (b->dose), dx = xb - xa, dy = yb - ya;
      const double t = (T - ya) / dy;
      const double sa = point_se (a), sb = point_se (b);
      e->status = CTR_EQUAL_DOSE_REACHED;
      e->dose = exp (xa + t * dx);
      e->dose_low = a->dose;
      e->dose_high = b->dose;
      e->dose_se = e->dose * fabs (dx / dy) * sqrt (se_T * se_T + (1 - t) * (1 - t) * sa * sa + t * t * sb * sb);
    }
  /* a lone dose (or two equal means) hitting T exactly: no slope, no se */
  for (guint i = 0; i < pts->len && e->status != CTR_EQUAL_DOSE_REACHED; i++)
    if (point_mean (&g_array_index (pts, DosePoint, i)) == T)
      {
        e->status = CTR_EQUAL_DOSE_REACHED;
        e->dose = e->dose_low = e->dose_high = g_array_index (pts, DosePoint, i).dose;
      }
  if (e->status != CTR_EQUAL_DOSE_REACHED)
    e->above = all_above;
}

gboolean
ctr_equal_dose_compute (const CtrStudyRow *rows, guint n_rows, guint n_methods, guint reference,
                        CtrEqualDoseObserver observer, CtrEqualDose *out, GError **error)
{
  g_return_val_if_fail (out != NULL && (rows != NULL || n_rows == 0), FALSE);
  if (n_methods == 0 || reference >= n_methods)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "equal-d′ dose: reference configuration %u of %u", reference, n_methods);
      return FALSE;
    }
  double T = NAN, se_T = NAN;
  {
    g_autoptr (GArray) ref = collect (rows, n_rows, reference, observer);
    for (guint i = 0; i < ref->len; i++)
      {
        const DosePoint *p = &g_array_index (ref, DosePoint, i);
        if (p->dose == 1.0)
          {
            T = point_mean (p);
            se_T = p->n >= 2 ? point_se (p) : 0.0;
          }
      }
  }
  for (guint m = 0; m < n_methods; m++)
    {
      CtrEqualDose *e = &out[m];
      *e = (CtrEqualDose) { CTR_EQUAL_DOSE_NOT_REACHED, T, se_T, NAN, NAN, NAN, NAN, FALSE, 0 };
      g_autoptr (GArray) pts = collect (rows, n_rows, m, observer);
      if (!isfinite (T))
        {
          e->status = CTR_EQUAL_DOSE_NO_TARGET;
          continue;
        }
      crossing (pts, T, se_T, e);
      if (m == reference)
        {
          e->status = CTR_EQUAL_DOSE_REACHED;
          e->dose = e->dose_low = e->dose_high = 1.0;
          e->dose_se = 0.0;
        }
    }
  return TRUE;
}

const char *
ctr_equal_dose_observer_name (CtrEqualDoseObserver o)
{
  static const char *const names[CTR_EQUAL_DOSE_N_OBSERVERS] = { "npw", "npwe", "npw_pooled", "npwe_pooled" };
  return (guint) o < G_N_ELEMENTS (names) ? names[o] : "npw";
}

const char *
ctr_equal_dose_status_name (const CtrEqualDose *e, gboolean is_reference)
{
  switch (e->status)
    {
    case CTR_EQUAL_DOSE_REACHED:
      return is_reference ? "reference" : "reached";
    case CTR_EQUAL_DOSE_NOT_REACHED:
      return e->above ? "below the lowest dose" : "not reached";
    default:
      return "no target";
    }
}

gboolean
ctr_study_equal_dose (const CtrStudy *s, CtrEqualDoseObserver observer, CtrEqualDose *out, GError **error)
{
  g_return_val_if_fail (s != NULL && out != NULL, FALSE);
  guint reference, n_rows = 0;
  if (!ctr_study_get_reference (s, &reference, error))
    return FALSE;
  const CtrStudyRow *rows = ctr_study_get_rows (s, &n_rows);
  return ctr_equal_dose_compute (rows, n_rows, ctr_study_get_n_methods (s), reference, observer, out, error);
}

static void
csv_num (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_c (out, ',');
  if (isfinite (v))
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

/* A label as an RFC 4180 field: quoted when it holds a comma or a quote. */
static void
csv_label (GString *out, const char *label)
{
  g_string_append_c (out, ',');
  if (strpbrk (label, ",\"\n\r") == NULL)
    {
      g_string_append (out, label);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *c = label; *c; c++)
    {
      if (*c == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *c);
    }
  g_string_append_c (out, '"');
}

gboolean
ctr_study_write_equal_dose_csv (const CtrStudy *s, const char *path, GError **error)
{
  g_return_val_if_fail (s != NULL && path != NULL, FALSE);
  const guint n = ctr_study_get_n_methods (s);
  guint reference;
  if (!ctr_study_get_reference (s, &reference, error))
    return FALSE;
  g_autofree CtrEqualDose *e = g_new0 (CtrEqualDose, MAX (n, 1));
  g_autoptr (GString) out = g_string_new ("observer,method_index,label,reference,target_dprime,target_se,"
                                          "equal_dose,equal_dose_se,dose_low,dose_high,min_realisations,status\n");
  for (int o = 0; o < CTR_EQUAL_DOSE_N_OBSERVERS; o++)
    {
      if (!ctr_study_equal_dose (s, o, e, error))
        return FALSE;
      for (guint m = 0; m < n; m++)
        {
          g_string_append_printf (out, "%s,%u", ctr_equal_dose_observer_name (o), m);
          csv_label (out, ctr_study_get_method_label (s, m));
          csv_label (out, ctr_study_get_method_label (s, reference));
          csv_num (out, e[m].target);
          csv_num (out, e[m].target_se);
          csv_num (out, e[m].dose);
          csv_num (out, e[m].dose_se);
          csv_num (out, e[m].dose_low);
          csv_num (out, e[m].dose_high);
          g_string_append_printf (out, ",%u,%s\n", e[m].n_min, ctr_equal_dose_status_name (&e[m], m == reference));
        }
    }
  return ctr_output_write_file (path, out->str, (gssize) out->len, error);
}
