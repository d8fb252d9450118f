/* ctr-py-notes.c — a plan's notes (plan/ctr-recon-plan.h: what it decided
 * and why, the lines the CLI prints) as Python data, and the warning when
 * the backend asked for is not the one that runs. */
#include "ctr-py.h"

PyObject *
ctr_py_plan_notes (CtrReconPlan *plan)
{
  PyObject *list = PyList_New (0);
  for (const char *const *n = ctr_recon_plan_get_notes (plan); list != NULL && *n != NULL; n++)
    {
      PyObject *s = PyUnicode_FromString (*n);
      if (s == NULL || PyList_Append (list, s) < 0)
        Py_CLEAR (list);
      Py_XDECREF (s);
    }
  return list;
}

int
ctr_py_warn_fallback (CtrReconPlan *plan, const char *asked, const char *what)
{
  const char *ran = ctr_recon_plan_get_backend (plan);
  if (asked == NULL || g_str_equal (asked, "best") || g_strcmp0 (asked, ran) == 0)
    return 0;
  /* The notes that name the backend asked for say why (the plan's fall-back
   * notes); all of them when none does. */
  GString *why = g_string_new (NULL);
  for (guint pass = 0; pass < 2 && why->len == 0; pass++)
    for (const char *const *n = ctr_recon_plan_get_notes (plan); *n != NULL; n++)
      if (pass == 1 || strstr (*n, asked) != NULL)
        g_string_append_printf (why, "%s%s", why->len ? "; " : "", *n);
  int rc = PyErr_WarnFormat (PyExc_RuntimeWarning, 1, "%s: backend '%s' asked for, '%s' runs: %s", what, asked,
                             ran, why->str);
  g_string_free (why, TRUE);
  return rc;
}
