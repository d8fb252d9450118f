/* ctr-py-reconstruct.c — ctrecon.reconstruct(): the grid by the rule every
 * entry point shares (ctr_grid_for_scan), the options through the parameter
 * table, one ctr_reconstruct() with the GIL released; the per-iteration
 * report becomes a dict handed to the caller's callback (GIL taken back),
 * whose False stops the run through a GCancellable. */
#include <math.h>

#include "ctr-py.h"

/* ctrecon.Stats: the class of reconstruct()'s per-iteration stats. */
static PyObject *stats_type;

typedef struct {
  PyObject *callback;       /* borrowed, may be NULL */
  gboolean with_image;      /* callback(stats, image) rather than callback(stats) */
  PyObject *stats;          /* list of dicts */
  GCancellable *cancellable;
  CtrVolume *stopped;       /* the image when the callback returned False */
  PyObject *exc_type, *exc_value, *exc_tb;  /* an exception from the callback (or Ctrl-C) */
} Run;

static PyObject *
stats_dict (const CtrIterStats *s)
{
  return Py_BuildValue ("{sssIsIsdsdsdsdsdsOsdsdsdsOsd}", "method", ctr_method_name (s->method), "iteration",
                        s->iteration, "n_iterations", s->n_iterations, "elapsed_s", s->elapsed_s, "iteration_s",
                        s->iteration_s, "residual", s->residual, "data_sq", s->data_sq, "residual_s",
                        s->residual_s, "has_reference", s->has_reference ? Py_True : Py_False, "rmse", s->rmse,
                        "psnr", s->psnr, "ssim", s->ssim, "stopped", s->stopped ? Py_True : Py_False,
                        "noise_residual", s->noise_residual > 0 ? s->noise_residual : NAN);
}

/* Called on the thread that runs ctr_reconstruct (without the GIL). */
static void
on_iteration (const CtrIterStats *s, gpointer data)
{
  Run *run = data;
  PyGILState_STATE gil = PyGILState_Ensure ();
  PyObject *d = run->exc_type == NULL ? stats_dict (s) : NULL;
  if (d != NULL && PyList_Append (run->stats, d) == 0 && run->callback != NULL)
    {
      PyObject *answer = NULL;
      if (run->with_image && s->image != NULL)
        {
          /* The iterate is the engine's work buffer: the callback gets a copy it may keep. */
          CtrVolume *copy = ctr_volume_copy (s->image);
          PyObject *image = copy != NULL ? ctr_py_array_from_volume (copy) : PyErr_NoMemory ();
          g_clear_pointer (&copy, ctr_volume_unref);  /* the array holds its own reference */
          answer = image != NULL ? PyObject_CallFunctionObjArgs (run->callback, d, image, NULL) : NULL;
          Py_XDECREF (image);
        }
      else if (run->with_image)
        answer = PyObject_CallFunctionObjArgs (run->callback, d, Py_None, NULL);
      else
        answer = PyObject_CallOneArg (run->callback, d);
      if (answer == Py_False && s->image != NULL && run->stopped == NULL)
        {
          run->stopped = ctr_volume_copy (s->image);
          g_cancellable_cancel (run->cancellable);
        }
      Py_XDECREF (answer);
    }
  Py_XDECREF (d);
  if (PyErr_Occurred () || PyErr_CheckSignals () < 0)
    ctr_py_keep_exception (&run->exc_type, &run->exc_value, &run->exc_tb, run->cancellable);
  PyGILState_Release (gil);
}

/* The method (NULL: the CLI's default, FDK for a circular cone beam, else
 * FBP), the backend and the rebinning into @o, before the parameters. */
static gboolean
init_options (CtrReconOptions *o, const CtrDataset *d, const char *method, const char *backend, const char *rebin)
{
  GError *error = NULL;
  CtrMethod m = d->geometry->beam == CTR_BEAM_CONE && !ctr_helix_applies (d->geometry) ? CTR_METHOD_FDK
                                                                                        : CTR_METHOD_FBP;
  if (method != NULL && !ctr_method_from_name (method, &m, &error))
    return ctr_py_raise (error) != NULL;
  ctr_recon_options_init (o, m);
  if (backend != NULL && !ctr_py_backend_name (backend, &o->backend))
    return FALSE;
  if (rebin != NULL && !ctr_rebin_mode_from_name (rebin, &o->rebin, &error))
    return ctr_py_raise (error) != NULL;
  return TRUE;
}

/* Runs the reconstruction without the GIL (a plan and one execute, as
 * ctr_reconstruct and the CLI); returns the image or NULL with the Python
 * exception set; *@plan the plan (NULL when it could not be made). */
static CtrVolume *
run_engine (const CtrDataset *d, const CtrGrid *grid, const CtrReconOptions *o, const CtrVolume *ref, Run *run,
            CtrReconPlan **plan)
{
  GError *error = NULL;
  CtrVolume *v = NULL;
  CtrReconPlan *made;
  Py_BEGIN_ALLOW_THREADS
  made = ctr_recon_plan_new (d->geometry, grid, o, run->cancellable, &error);
  if (made != NULL)
    v = ctr_recon_plan_execute (made, d->projections, ref, on_iteration, run, run->cancellable, &error);
  Py_END_ALLOW_THREADS
  *plan = made;
  if (run->exc_type != NULL)  /* the callback raised (or Ctrl-C): that exception, not "cancelled" */
    {
      g_clear_error (&error);
      g_clear_pointer (&v, ctr_volume_unref);
      PyErr_Restore (run->exc_type, run->exc_value, run->exc_tb);
      run->exc_type = run->exc_value = run->exc_tb = NULL;
      return NULL;
    }
  if (v == NULL && run->stopped != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_error (&error);
      return g_steal_pointer (&run->stopped);
    }
  if (v == NULL)
    ctr_py_raise (error);
  return v;
}

/* Splits @kwargs into the named arguments (a new dict) and the method's
 * parameters (a new dict, with "iterations"). */
static gboolean
split_kwargs (PyObject *kwargs, PyObject **named, PyObject **params)
{
  static const char *const names[] = { "dataset", "method", "iterations", "size", "callback", "pixel_size", "backend",
                                       "rebin", "reference", "metrics_radius", "z_range", "residual" };
  *named = PyDict_New ();
  *params = kwargs != NULL ? PyDict_Copy (kwargs) : PyDict_New ();
  if (*named == NULL || *params == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      PyObject *v = PyDict_GetItemString (*params, names[i]);  /* borrowed */
      if (v != NULL && (PyDict_SetItemString (*named, names[i], v) < 0 || PyDict_DelItemString (*params, names[i]) < 0))
        return FALSE;
    }
  return TRUE;
}

/* Whether @callback takes two positional arguments (stats, image):
 * inspect.signature(callback).bind(None, None) succeeds.  A callable whose
 * signature cannot be read gets stats only.  -1 with an exception. */
static int
takes_image (PyObject *callback)
{
  PyObject *inspect = PyImport_ImportModule ("inspect");
  PyObject *sig = inspect != NULL ? PyObject_CallMethod (inspect, "signature", "O", callback) : NULL;
  Py_XDECREF (inspect);
  if (sig == NULL)
    {
      if (!PyErr_ExceptionMatches (PyExc_ValueError) && !PyErr_ExceptionMatches (PyExc_TypeError))
        return -1;
      PyErr_Clear ();
      return 0;
    }
  PyObject *bound = PyObject_CallMethod (sig, "bind", "OO", Py_None, Py_None);
  Py_DECREF (sig);
  if (bound == NULL)
    {
      if (!PyErr_ExceptionMatches (PyExc_TypeError))
        return -1;
      PyErr_Clear ();
      return 0;
    }
  Py_DECREF (bound);
  return 1;
}

/* stats.notes = the plan's notes; the fall-back warning.  FALSE with an
 * exception. */
static gboolean
set_notes (PyObject *stats, CtrReconPlan *plan, const char *backend)
{
  PyObject *notes = ctr_py_plan_notes (plan);
  const gboolean ok = notes != NULL && PyObject_SetAttrString (stats, "notes", notes) == 0
                      && ctr_py_warn_fallback (plan, backend, "reconstruct") == 0;
  Py_XDECREF (notes);
  return ok;
}

/* @residual (NULL or None: every iteration with a @callback, else the
 * final one, the CLI's default; "every" or "final") into @o.  FALSE with
 * ctrecon.InvalidArgument. */
static gboolean
residual_report (PyObject *residual, PyObject *callback, CtrReconOptions *o)
{
  if (residual == NULL || residual == Py_None)
    {
      o->residual = callback != NULL ? CTR_RESIDUAL_EVERY : CTR_RESIDUAL_FINAL;
      return TRUE;
    }
  if (!PyUnicode_Check (residual))
    {
      PyErr_Format (ctr_py_invalid_argument (), "residual takes \"every\" or \"final\" (or None), got %s",
                    Py_TYPE (residual)->tp_name);
      return FALSE;
    }
  const char *name = PyUnicode_AsUTF8 (residual);
  GError *error = NULL;
  if (name != NULL && !ctr_residual_report_from_name (name, &o->residual, &error))
    ctr_py_raise (error);
  return name != NULL && error == NULL;
}

static PyObject *
reconstruct (CtrPyDataset *ds, const char *method, PyObject *size, PyObject *callback, double pixel_mm,
             const char *backend, const char *rebin, PyObject *z_range, int use_reference, double metrics_radius,
             PyObject *residual, PyObject *params)
{
  const CtrDataset *d = ds->dataset;
  CtrReconOptions o;
  if (!init_options (&o, d, method, backend, rebin) || !residual_report (residual, callback, &o)
      || !ctr_py_params_apply (&o, params))
    return NULL;
  const CtrVolume *ref = use_reference ? d->reference : NULL;
  CtrGrid grid;
  if (!ctr_py_grid_choose (d->geometry, rebin != NULL ? &o.rebin : NULL, size, pixel_mm, z_range, &ref, &grid))
    return NULL;
  o.metrics_radius_mm = metrics_radius >= 0 ? metrics_radius : ctr_geometry_fov_radius_mm (d->geometry);
  o.with_reference = ref != NULL;  /* the memory estimate counts it */

  const int with_image = callback != NULL ? takes_image (callback) : 0;
  if (with_image < 0)
    return NULL;
  Run run = { .callback = callback, .with_image = with_image, .stats = PyObject_CallNoArgs (stats_type),
              .cancellable = g_cancellable_new () };
  CtrReconPlan *plan = NULL;
  CtrVolume *v = run.stats != NULL ? run_engine (d, &grid, &o, ref, &run, &plan) : NULL;
  g_clear_pointer (&run.stopped, ctr_volume_unref);
  g_object_unref (run.cancellable);
  if (v != NULL && !set_notes (run.stats, plan, o.backend))
    g_clear_pointer (&v, ctr_volume_unref);
  g_clear_pointer (&plan, ctr_recon_plan_unref);
  PyObject *image = v != NULL ? ctr_py_array_from_volume (v) : NULL;
  g_clear_pointer (&v, ctr_volume_unref);  /* the array holds its own reference */
  PyObject *result = image != NULL ? PyTuple_Pack (2, image, run.stats) : NULL;
  Py_XDECREF (image);
  Py_XDECREF (run.stats);
  return result;
}

PyObject *
ctr_py_reconstruct (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "dataset", "method", "iterations", "size", "callback", "pixel_size", "backend", "rebin",
                            "reference", "metrics_radius", "z_range", "residual", NULL };
  PyObject *named = NULL, *params = NULL, *result = NULL;
  PyObject *dataset = NULL, *iterations = NULL, *size = NULL, *callback = NULL, *z_range = NULL, *residual = NULL;
  const char *method = NULL, *backend = NULL, *rebin = NULL;
  double pixel_mm = 0, metrics_radius = -1;
  int use_reference = 1;
  if (split_kwargs (kwargs, &named, &params)
      && PyArg_ParseTupleAndKeywords (args, named, "O!|zOOOdzzpdOO:reconstruct", kwlist, &CtrPyDatasetType,
                                      &dataset, &method, &iterations, &size, &callback, &pixel_mm, &backend, &rebin,
                                      &use_reference, &metrics_radius, &z_range, &residual))
    {
      if (callback == Py_None)
        callback = NULL;
      if (iterations != NULL && PyDict_SetItemString (params, "iterations", iterations) < 0)
        ;
      else if (callback != NULL && !PyCallable_Check (callback))
        PyErr_SetString (PyExc_TypeError, "reconstruct: callback must be callable (or None)");
      else
        result = reconstruct ((CtrPyDataset *) dataset, method, size, callback, pixel_mm, backend, rebin,
                              z_range, use_reference, metrics_radius, residual, params);
    }
  Py_XDECREF (named);
  Py_XDECREF (params);
  return result;
}

int
ctr_py_reconstruct_init (PyObject *module)
{
  /* A list subclass made as Python makes one (its instances take
   * attributes): what reconstruct() returned before, with .notes. */
  stats_type = PyObject_CallFunction ((PyObject *) &PyType_Type, "s(O){ssss}", "Stats", (PyObject *) &PyList_Type,
                                      "__module__", "ctrecon", "__doc__",
                                      "reconstruct()'s report: a list of one dict per iteration (the stats "
                                      "callback gets), and .notes, a list of str: what the engine's plan "
                                      "decided and why (matrix, symmetry, memory, backend, fall-backs), the "
                                      "lines `ctrecon-cli reconstruct` prints.");
  if (stats_type == NULL)
    return -1;
  Py_INCREF (stats_type);  /* one for this file, one for the module */
  if (PyModule_AddObject (module, "Stats", stats_type) < 0)
    {
      Py_DECREF (stats_type);
      return -1;
    }
  return 0;
}
