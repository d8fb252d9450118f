/* ctr-py-metrics.c — ctrecon.metrics(): RMSE, PSNR and SSIM of an image
 * against a reference by core's one protocol (ctr_quality_compute,
 * quality/ctr-metrics.h), as `ctrecon-cli metrics` computes them. */
#include <math.h>
#include <string.h>

#include "ctr-py.h"

PyObject *
ctr_py_metrics (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "image", "reference", "pixel_size", "radius", NULL };
  PyObject *img_obj, *ref_obj;
  double pixel_mm = 1.0, radius_mm = 0.0;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "OO|dd:metrics", kwlist, &img_obj, &ref_obj, &pixel_mm,
                                    &radius_mm))
    return NULL;
  if (!(isfinite (pixel_mm) && pixel_mm > 0) || !(isfinite (radius_mm) && radius_mm >= 0))
    {
      PyErr_Format (ctr_py_invalid_argument (), "metrics: pixel_size must be positive and radius non-negative "
                    "(mm; radius 0: no mask), got %g and %g", pixel_mm, radius_mm);
      return NULL;
    }
  g_autoptr (CtrVolume) img = ctr_py_volume_from_array (img_obj, pixel_mm, "metrics", "image");
  if (img == NULL)
    return NULL;
  g_autoptr (CtrVolume) ref = ctr_py_volume_from_array (ref_obj, pixel_mm, "metrics", "reference");
  if (ref == NULL)
    return NULL;
  if (!ctr_grid_equal (&img->grid, &ref->grid))
    {
      /* (PyErr_Format takes ASCII formats only) */
      g_autofree char *msg = g_strdup_printf ("metrics: the image is %u × %u × %u (x, y, z) but the reference "
                                              "%u × %u × %u; both must have the same shape", img->grid.nx,
                                              img->grid.ny, img->grid.nz, ref->grid.nx, ref->grid.ny, ref->grid.nz);
      PyErr_SetString (ctr_py_invalid_argument (), msg);
      return NULL;
    }
  CtrQuality q;
  GError *error = NULL;
  gboolean ok;
  Py_BEGIN_ALLOW_THREADS
  ok = ctr_quality_compute (img, ref, radius_mm, &q, &error);
  Py_END_ALLOW_THREADS
  if (!ok)
    return ctr_py_raise (error);
  return Py_BuildValue ("{sdsdsd}", "rmse", q.rmse, "psnr", q.psnr, "ssim", q.ssim);
}
