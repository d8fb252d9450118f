/* ctr-py-preprocess.c — load(preprocess=...): a "preprocess" pipeline given
 * from Python (a list of step dicts, or the path of a JSON file holding one,
 * as `ctrecon-cli reconstruct --preprocess FILE.json`), parsed by core's
 * ctr_pipeline_from_json() (core/preprocess/ctr-preprocess.h).  Nothing is
 * computed here: the pipeline goes to ctr_dataset_load_preprocessed(). */
#include "ctr-py.h"
#include "io/ctr-json.h"

/* A Python list (or a dict with "preprocess") written by json.dumps and
 * parsed by core; core's refusals (CTR_ERROR_FORMAT, which names a file's
 * content) become CTR_ERROR_INVALID_ARGUMENT: here the list is an argument. */
static CtrPipeline *
pipeline_from_object (PyObject *obj, GError **error)
{
  PyObject *json = PyImport_ImportModule ("json");
  if (json == NULL)
    return NULL;
  /* json.dumps's TypeError (a value JSON has no form for) or ValueError
   * (NaN, a cycle) stands */
  PyObject *dumps = PyObject_GetAttrString (json, "dumps");
  Py_DECREF (json);
  PyObject *text = NULL;
  if (dumps != NULL)
    {
      PyObject *args = PyTuple_Pack (1, obj);
      PyObject *kw = Py_BuildValue ("{sO}", "allow_nan", Py_False);
      if (args != NULL && kw != NULL)
        text = PyObject_Call (dumps, args, kw);
      Py_XDECREF (args);
      Py_XDECREF (kw);
      Py_DECREF (dumps);
    }
  if (text == NULL)
    return NULL;
  const char *utf8 = PyUnicode_AsUTF8 (text);
  g_autoptr (JsonParser) parser = utf8 != NULL ? ctr_json_parse (utf8, -1, "preprocess", error) : NULL;
  CtrPipeline *pl = NULL;
  if (parser != NULL)
    pl = ctr_pipeline_from_json (json_parser_get_root (parser), "preprocess", error);
  Py_DECREF (text);
  if (pl == NULL && error != NULL && *error != NULL && g_error_matches (*error, CTR_ERROR, CTR_ERROR_FORMAT))
    (*error)->code = CTR_ERROR_INVALID_ARGUMENT;
  return pl;
}

int
ctr_py_pipeline_from (PyObject *obj, CtrPipeline **out)
{
  *out = NULL;
  if (obj == Py_None)
    return 0;
  GError *error = NULL;
  if (PyUnicode_Check (obj) || PyBytes_Check (obj) || PyObject_HasAttrString (obj, "__fspath__"))
    {
      PyObject *bytes = NULL;
      if (!PyUnicode_FSConverter (obj, &bytes))
        return -1;
      g_autofree char *path = g_strdup (PyBytes_AS_STRING (bytes));
      Py_DECREF (bytes);
      Py_BEGIN_ALLOW_THREADS
      *out = ctr_pipeline_from_file (path, &error);
      Py_END_ALLOW_THREADS
    }
  else
    *out = pipeline_from_object (obj, &error);
  if (*out != NULL)
    return 0;
  if (error != NULL)
    ctr_py_raise (error);
  return -1;
}
