/* ctr-py-study-run.c — ctrecon.study(): a dose study (doses × methods ×
 * parameters on one scan) by core's study runner (study/ctr-study.h), as
 * `ctrecon-cli study` runs it, from a STUDY.json path or a dict of its keys,
 * on the dataset it names or a Dataset given; one dict per run, handed to
 * the caller's callback with the run's image as it finishes. */
#include <math.h>

#include "ctr-py.h"

typedef struct {
  const CtrStudy *study;
  PyObject *callback;  /* borrowed, may be NULL */
  PyObject *rows;      /* list of dicts */
  GCancellable *cancellable;
  PyObject *exc_type, *exc_value, *exc_tb;
} StudyRun;

static int
put (PyObject *d, const char *key, PyObject *v)
{
  if (v == NULL)
    return -1;
  int rc = PyDict_SetItemString (d, key, v);
  Py_DECREF (v);
  return rc;
}

/* {name: {"mean_hu", "sd_hu", "cnr"}} of the study's ROIs in @r. */
static PyObject *
rois_dict (const CtrStudy *s, const CtrStudyRow *r)
{
  PyObject *d = PyDict_New ();
  for (guint i = 0; d != NULL && i < ctr_study_get_n_rois (s); i++)
    if (put (d, ctr_study_get_roi_name (s, i, NULL),
             Py_BuildValue ("{sdsdsd}", "mean_hu", r->roi_mean_hu[i], "sd_hu", r->roi_sd_hu[i], "cnr",
                            r->roi_cnr[i])) < 0)
      Py_CLEAR (d);
  return d;
}

static PyObject *
ttf_dict (const CtrStudy *s, const double *f50)
{
  PyObject *d = PyDict_New ();
  for (guint i = 0; d != NULL && i < ctr_study_get_n_iq_inserts (s); i++)
    if (put (d, ctr_study_get_iq_insert_name (s, i), PyFloat_FromDouble (f50 != NULL ? f50[i] : NAN)) < 0)
      Py_CLEAR (d);
  return d;
}

static PyObject *
row_dict (const CtrStudy *s, const CtrStudyRow *r)
{
  PyObject *d = Py_BuildValue (
      "{sdsIsdsssssssdsdsdsdsdsIsIsdsdsdsdsdsdsd}", "dose", r->dose, "realisation", r->realisation, "i0", r->i0, "method", ctr_method_name (r->method),
      "label", r->label ? r->label : "", "parameters", r->parameters ? r->parameters : "", "rmse", r->rmse, "psnr",
      r->psnr, "ssim", r->ssim, "hu_rmse", r->hu_rmse, "noise_sd_hu", r->noise_sd_hu, "iterations", r->iterations,
      "best_iteration", r->best_iteration, "best_rmse", r->best_rmse, "seconds", r->seconds, "nps_noise_hu",
      r->nps_noise_hu, "nps_f_peak", r->nps_f_peak, "nps_f_avg", r->nps_f_avg, "dprime_npw", r->dprime_npw,
      "dprime_npwe", r->dprime_npwe);
  if (d != NULL && (put (d, "rois", rois_dict (s, r)) < 0 || put (d, "ttf_f50", ttf_dict (s, r->ttf_f50)) < 0
                    || put (d, "ttf_f50_pooled", ttf_dict (s, r->ttf_f50_pooled)) < 0
                    || put (d, "dprime_npw_pooled", PyFloat_FromDouble (r->dprime_npw_pooled)) < 0
                    || put (d, "dprime_npwe_pooled", PyFloat_FromDouble (r->dprime_npwe_pooled)) < 0))
    Py_CLEAR (d);
  return d;
}

/* On the study's thread (no GIL): a finished run becomes a dict, handed to
 * the callback with a copy of its image; Ctrl-C cancels. */
static void
on_progress (const CtrStudyProgress *p, gpointer data)
{
  StudyRun *run = data;
  PyGILState_STATE gil = PyGILState_Ensure ();
  if (p->row != NULL && run->exc_type == NULL)
    {
      PyObject *d = row_dict (run->study, p->row);
      if (d != NULL && PyList_Append (run->rows, d) == 0 && run->callback != NULL)
        {
          CtrVolume *copy = p->image != NULL ? ctr_volume_copy (p->image) : NULL;
          PyObject *image = copy != NULL ? ctr_py_array_from_volume (copy) : (Py_INCREF (Py_None), Py_None);
          g_clear_pointer (&copy, ctr_volume_unref);
          PyObject *answer = image != NULL ? PyObject_CallFunctionObjArgs (run->callback, d, image, NULL) : NULL;
          if (answer == Py_False)
            g_cancellable_cancel (run->cancellable);
          Py_XDECREF (answer);
          Py_XDECREF (image);
        }
      Py_XDECREF (d);
    }
  if (PyErr_Occurred () || PyErr_CheckSignals () < 0)
    ctr_py_keep_exception (&run->exc_type, &run->exc_value, &run->exc_tb, run->cancellable);
  PyGILState_Release (gil);
}

/* The study of @spec: a dict (a "dataset" placeholder added when @have_dataset
 * and it names none) or a path. */
static CtrStudy *
study_of (PyObject *spec, gboolean have_dataset)
{
  GError *error = NULL;
  CtrStudy *s = NULL;
  if (PyDict_Check (spec))
    {
      PyObject *copy = PyDict_Copy (spec);
      if (copy == NULL
          || (have_dataset && PyDict_GetItemString (copy, "dataset") == NULL
              && put (copy, "dataset", PyUnicode_FromString ("(given)")) < 0))
        {
          Py_XDECREF (copy);
          return NULL;
        }
      PyObject *json = ctr_py_dict_to_json (copy, "study");
      Py_DECREF (copy);
      if (json == NULL)
        return NULL;
      g_autofree char *cwd = g_get_current_dir ();
      s = ctr_study_new_from_json (PyBytes_AS_STRING (json), PyBytes_GET_SIZE (json), cwd, &error);
      Py_DECREF (json);
    }
  else
    {
      PyObject *fs = NULL;
      if (!PyUnicode_FSConverter (spec, &fs))
        return NULL;
      g_autofree char *path = g_strdup (PyBytes_AS_STRING (fs));
      Py_DECREF (fs);
      Py_BEGIN_ALLOW_THREADS
      s = ctr_study_new_from_file (path, &error);
      Py_END_ALLOW_THREADS
    }
  if (s == NULL)
    ctr_py_raise (error);
  return s;
}

/* Runs @s on @d without the GIL; the rows, or NULL with the exception set
 * (the callback's, KeyboardInterrupt, or the engine's). */
static PyObject *
run_study (CtrStudy *s, const CtrDataset *d, PyObject *callback)
{
  StudyRun run = { s, callback, PyList_New (0), g_cancellable_new (), NULL, NULL, NULL };
  GError *error = NULL;
  gboolean ok = FALSE;
  if (run.rows != NULL)
    {
      Py_BEGIN_ALLOW_THREADS
      ok = ctr_study_run (s, d, on_progress, &run, run.cancellable, &error);
      Py_END_ALLOW_THREADS
    }
  const gboolean stopped = g_cancellable_is_cancelled (run.cancellable);
  g_object_unref (run.cancellable);
  if (run.exc_type != NULL)
    {
      g_clear_error (&error);
      Py_CLEAR (run.rows);
      PyErr_Restore (run.exc_type, run.exc_value, run.exc_tb);
      return NULL;
    }
  if (!ok && stopped && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_clear_error (&error);  /* the callback returned False: the rows so far */
  else if (!ok)
    {
      Py_CLEAR (run.rows);
      return ctr_py_raise (error);
    }
  return run.rows;
}

PyObject *
ctr_py_study (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "spec", "dataset", "callback", NULL };
  PyObject *spec = NULL, *ds = Py_None, *callback = Py_None;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O|OO:study", kwlist, &spec, &ds, &callback))
    return NULL;
  if (ds != Py_None && !PyObject_TypeCheck (ds, &CtrPyDatasetType))
    return PyErr_Format (PyExc_TypeError, "study: dataset must be a ctrecon.Dataset or None, not %s",
                         Py_TYPE (ds)->tp_name);
  if (callback != Py_None && !PyCallable_Check (callback))
    return PyErr_Format (PyExc_TypeError, "study: callback must be callable (or None)");
  g_autoptr (CtrStudy) s = study_of (spec, ds != Py_None);
  if (s == NULL)
    return NULL;
  g_autoptr (CtrDataset) loaded = NULL;
  if (ds == Py_None)
    {
      const char *variant = NULL;
      g_autofree char *path = g_strdup (ctr_study_get_dataset (s, &variant));
      g_autofree char *var = g_strdup (variant);
      GError *error = NULL;
      Py_BEGIN_ALLOW_THREADS
      loaded = ctr_dataset_load (path, var, NULL, &error);
      Py_END_ALLOW_THREADS
      if (loaded == NULL)
        return ctr_py_raise (error);
    }
  const CtrDataset *d = loaded != NULL ? loaded : ((CtrPyDataset *) ds)->dataset;
  return run_study (s, d, callback == Py_None ? NULL : callback);
}
