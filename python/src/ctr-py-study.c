/* ctr-py-study.c — the study tools on numpy data, as the CLI's commands
 * compute them: simulate_dose() (`simulate-dose`, sim/ctr-dose.h),
 * noise_level() (`noise`, data/ctr-noise.h) and roi() (`roi`,
 * quality/ctr-roi.h). */
#include <math.h>

#include "ctr-py.h"

PyObject *
ctr_py_simulate_dose (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "dataset", "fraction", "seed", "electronic_sd", "i0", "model", NULL };
  PyObject *ds = NULL;
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  unsigned long long seed = o.seed;
  const char *model = "auto";
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O!d|$Kdds:simulate_dose", kwlist, &CtrPyDatasetType, &ds,
                                    &o.fraction, &seed, &o.electronic_sd, &o.i0, &model))
    return NULL;
  o.seed = seed;
  GError *error = NULL;
  if (!ctr_dose_model_from_name (model, &o.model, &error))
    return ctr_py_raise (error);
  const CtrDataset *d = ((CtrPyDataset *) ds)->dataset;
  CtrDoseReport report = { 0 };
  CtrProjections *p;
  Py_BEGIN_ALLOW_THREADS
  p = ctr_dose_simulate (d->projections, &o, &report, NULL, &error);
  Py_END_ALLOW_THREADS
  if (p == NULL)
    {
      ctr_dose_report_clear (&report);
      return ctr_py_raise (error);
    }
  CtrDataset *out = g_new0 (CtrDataset, 1);
  out->name = g_strdup_printf ("%s at %g x the dose", d->name != NULL ? d->name : "dataset", o.fraction);
  out->path = g_strdup (d->path);
  out->projections = p;
  if ((out->geometry = ctr_geometry_try_copy (d->geometry, &error)) == NULL)
    {
      ctr_dose_report_clear (&report);
      ctr_dataset_free (out);
      return ctr_py_raise (error);
    }
  out->reference = d->reference != NULL ? ctr_volume_ref (d->reference) : NULL;
  out->mu_water = d->mu_water;
  PyObject *rep = Py_BuildValue ("{sssdsdsdsnssss}", "model", ctr_dose_model_name (report.model), "i0_in",
                                 report.i0_in, "i0_out", report.i0_out, "i0_sinogram", report.i0_sinogram,
                                 "n_zero", (Py_ssize_t) report.n_zero, "reason", report.reason ? report.reason : "",
                                 "warning", report.warning);
  ctr_dose_report_clear (&report);
  PyObject *obj = rep != NULL ? ctr_py_dataset_wrap (out) : NULL;
  if (rep == NULL)
    ctr_dataset_free (out);
  PyObject *result = obj != NULL ? PyTuple_Pack (2, obj, rep) : NULL;
  Py_XDECREF (obj);
  Py_XDECREF (rep);
  return result;
}

PyObject *
ctr_py_noise_level (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "dataset", NULL };
  PyObject *ds = NULL;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O!:noise_level", kwlist, &CtrPyDatasetType, &ds))
    return NULL;
  const CtrDataset *d = ((CtrPyDataset *) ds)->dataset;
  CtrNoiseLevel n;
  GError *error = NULL;
  gboolean ok;
  Py_BEGIN_ALLOW_THREADS
  ok = ctr_noise_estimate (d->geometry, d->projections, &n, &error);
  Py_END_ALLOW_THREADS
  if (!ok)
    return ctr_py_raise (error);
  return Py_BuildValue ("{sssdsdsdsn}", "source", n.source == CTR_NOISE_FROM_STATISTICS ? "statistics" : "sinogram",
                        "i0", n.i0, "i0_sinogram", n.i0_sinogram, "sigma", n.sigma, "n_rays", (Py_ssize_t) n.n_rays);
}

/* @spec: the CLI's text ("circle:X,Y,R", "rect:X,Y,W,H", mm) into @roi. */
static gboolean
parse_roi (PyObject *spec, CtrRoi *roi)
{
  const char *text = PyUnicode_Check (spec) ? PyUnicode_AsUTF8 (spec) : NULL;
  if (text == NULL)
    {
      if (!PyErr_Occurred ())
        PyErr_Format (PyExc_TypeError, "roi: the ROI is text, 'circle:X,Y,R' or 'rect:X,Y,W,H' (mm), not %s",
                      Py_TYPE (spec)->tp_name);
      return FALSE;
    }
  GError *error = NULL;
  return ctr_roi_parse (text, roi, &error) || ctr_py_raise (error) != NULL;
}

PyObject *
ctr_py_roi (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "image", "roi", "pixel_size", "mu_water", "slice", NULL };
  PyObject *img_obj = NULL, *spec = NULL;
  double pixel_mm = 1.0, mu_water = CTR_MU_WATER_PER_MM;
  unsigned int z = 0;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "OO|dd$I:roi", kwlist, &img_obj, &spec, &pixel_mm, &mu_water, &z))
    return NULL;
  if (!(isfinite (pixel_mm) && pixel_mm > 0) || !(isfinite (mu_water) && mu_water > 0))
    {
      PyErr_Format (ctr_py_invalid_argument (), "roi: pixel_size (mm) and mu_water (1/mm) must be positive, got %g "
                    "and %g", pixel_mm, mu_water);
      return NULL;
    }
  CtrRoi roi;
  if (!parse_roi (spec, &roi))
    return NULL;
  g_autoptr (CtrVolume) v = ctr_py_volume_from_array (img_obj, pixel_mm, "roi", "image");
  if (v == NULL)
    return NULL;
  CtrRoiStats st;
  double noise_sd = NAN;
  GError *error = NULL;
  if (!ctr_roi_stats (v, z, &roi, mu_water, &st, &error))
    return ctr_py_raise (error);
  /* The detrended noise needs 4 pixels off one line; a thin ROI reports NaN. */
  if (!ctr_roi_noise_sd (v, z, &roi, mu_water, &noise_sd, NULL))
    noise_sd = NAN;
  return Py_BuildValue ("{snsdsdsdsdsd}", "n_pixels", (Py_ssize_t) st.n_pixels, "mean_mu", st.mean_mu, "sd_mu",
                        st.sd_mu, "mean_hu", st.mean_hu, "sd_hu", st.sd_hu, "noise_sd_hu", noise_sd);
}
