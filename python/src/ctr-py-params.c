/* ctr-py-params.c — keyword arguments into a CtrReconOptions through the
 * project's one parameter table (recon/ctr-params.h), as the CLI's options
 * are: the same names (with "_" for "-"), ranges, defaults and messages. */
#include "ctr-py.h"

/* "iterations, relaxation, …": the parameters @method takes. */
static char *
names_for (CtrMethod method)
{
  GString *s = g_string_new (NULL);
  guint n;
  const CtrParam *all = ctr_params_list (&n);
  for (guint i = 0; i < n; i++)
    if (ctr_param_applies (&all[i], method) && ctr_param_find_for (all[i].name, method) == &all[i])
      {
        g_autofree char *py = g_strdelimit (g_strdup (all[i].name), "-", '_');
        g_string_append_printf (s, "%s%s", s->len ? ", " : "", py);
      }
  return g_string_free (s, FALSE);
}

static gboolean
apply_one (CtrReconOptions *o, const char *key, PyObject *value)
{
  g_autofree char *name = g_strdelimit (g_strdup (key), "_", '-');
  const CtrParam *p = ctr_param_find_for (name, o->method);
  if (p == NULL || !ctr_param_applies (p, o->method))
    {
      g_autofree char *names = names_for (o->method);
      PyErr_Format (ctr_py_invalid_argument (), "%s parameter '%s' for %s (it takes: %s)",
                    p == NULL ? "unknown" : "unused", key, ctr_method_name (o->method), names);
      return FALSE;
    }
  GError *error = NULL;
  gboolean ok;
  if (PyUnicode_Check (value))
    {
      const char *text = PyUnicode_AsUTF8 (value);
      if (text == NULL)
        return FALSE;
      ok = ctr_param_parse (p, o, text, &error);
    }
  else
    {
      const double x = PyFloat_AsDouble (value);  /* bool, int, float, numpy scalars */
      if (x == -1.0 && PyErr_Occurred ())
        {
          PyErr_Clear ();
          PyErr_Format (ctr_py_invalid_argument (), "parameter '%s' takes a number or a name, got %s", key,
                        Py_TYPE (value)->tp_name);
          return FALSE;
        }
      ok = ctr_param_set (p, o, x, &error);
    }
  if (!ok)
    ctr_py_raise (error);
  return ok;
}

/* Applies @params (a dict or NULL; None values leave the default) to @o,
 * whose method is set.  FALSE with a Python exception set (ctrecon.
 * InvalidArgument, a ValueError, with core's message). */
gboolean
ctr_py_params_apply (CtrReconOptions *o, PyObject *params)
{
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (params != NULL && PyDict_Next (params, &pos, &key, &value))
    {
      if (value == Py_None)
        continue;
      const char *k = PyUnicode_AsUTF8 (key);
      if (k == NULL || !apply_one (o, k, value))
        return FALSE;
    }
  GError *error = NULL;
  if (!ctr_recon_options_validate (o, &error))
    {
      ctr_py_raise (error);
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_py_backend_name (const char *name, const char **out)
{
  static const char *const names[] = { "best", "cpu", "cuda", "cusparse" };  /* static strings (ctr-recon-types.h) */
  *out = NULL;
  if (name == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (name, names[i]))
      *out = names[i];
  if (*out == NULL)
    PyErr_Format (ctr_py_invalid_argument (), "unknown backend '%s' (best, cpu, cuda or cusparse)", name);
  return *out != NULL;
}
