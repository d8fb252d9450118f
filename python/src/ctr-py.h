/* ctr-py.h — what every file of the Python extension module _ctrecon
 * includes: CPython's and numpy's C APIs (numpy's function table is filled
 * once, in ctr-py-module.c) and the module's internal functions, one file
 * per concept: errors (ctr-py-error.c), arrays over core's buffers
 * (ctr-py-array.c), the Dataset type (ctr-py-dataset.c), reconstruct()
 * (ctr-py-reconstruct.c).  Everything computed is computed by core/
 * (core/ctrecon.h); this layer only converts. */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL ctr_py_ARRAY_API
#ifndef CTR_PY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "ctrecon.h"

/* ctr-py-error.c: the exception classes (ctrecon.Error and one subclass per
 * CtrErrorCode), added to @module. */
int ctr_py_error_init (PyObject *module);
/* Sets the Python exception of @error (core's message): the Error subclass
 * of its CTR_ERROR code, KeyboardInterrupt for a cancellation with a signal
 * pending, ctrecon.Cancelled otherwise.  Frees @error.  Returns NULL. */
PyObject *ctr_py_raise (GError *error);
/* A callback's exception (now set) ends an engine run: kept in *@type,
 * *@value, *@tb for after it (the first one; later ones are cleared), and
 * @cancellable cancelled.  The GIL held. */
void ctr_py_keep_exception (PyObject **type, PyObject **value, PyObject **tb, GCancellable *cancellable);
/* The class of CTR_ERROR_INVALID_ARGUMENT (a subclass of both
 * ctrecon.Error and ValueError). */
PyObject *ctr_py_invalid_argument (void);

/* ctr-py-array.c: numpy arrays that view core's buffers without a copy; the
 * array holds a reference on the owner (volume, projections) until it is
 * freed. */
PyObject *ctr_py_array_from_volume (CtrVolume *v);          /* float32 [z][y][x], takes a new ref */
PyObject *ctr_py_array_from_projections (CtrProjections *p); /* float32 [view][row][col], new ref */
PyObject *ctr_py_array_from_doubles (const double *x, npy_intp n); /* a float64 copy */
PyObject *ctr_py_grid_dict (const CtrGrid *g);
/* A CtrVolume copy of @obj (2-D [y][x] or 3-D [z][y][x], any real dtype) on
 * a grid of @pixel_mm centred at 0, the CLI's grid for a TIFF; NULL with a
 * Python exception (ctrecon.InvalidArgument for NaN or infinite values;
 * @fn and @what name the call and the array). */
CtrVolume *ctr_py_volume_from_array (PyObject *obj, double pixel_mm, const char *fn, const char *what);
/* @obj as a float32 numpy array of @min_nd..@max_nd dimensions meeting
 * numpy's @requirements (NPY_ARRAY_*; converted with a cast when needed, the
 * array itself when it already is one): anything numpy converts
 * (__array_interface__, __array__, lists) and DLPack producers
 * (__dlpack__: numpy.from_dlpack, no copy for CPU memory).  New reference,
 * or NULL with the exception set. */
PyArrayObject *ctr_py_float32_array (PyObject *obj, int min_nd, int max_nd, int requirements);

/* ctr-py-preprocess.c: load(preprocess=@obj) as a core pipeline in *@out:
 * None gives NULL (the file's own); a str or path-like names a JSON file
 * read as the CLI's --preprocess (FileError/FormatError as there); any other
 * object (a list of step dicts) goes through json.dumps to
 * ctr_pipeline_from_json(), whose refusals raise InvalidArgument with core's
 * message.  Returns 0, or -1 with the exception set. */
int ctr_py_pipeline_from (PyObject *obj, CtrPipeline **out);

/* ctr-py-dataset.c: the Dataset type and load(). */
extern PyTypeObject CtrPyDatasetType;
typedef struct {
  PyObject_HEAD
  CtrDataset *dataset;
} CtrPyDataset;
PyObject *ctr_py_load (PyObject *self, PyObject *args, PyObject *kwargs);

/* ctr-py-geometry.c: the Geometry type; the geometry of a Geometry or a
 * Dataset (borrowed), or NULL with TypeError. */
extern PyTypeObject CtrPyGeometryType;
const CtrGeometry *ctr_py_geometry_of (PyObject *obj);
/* @obj (a dict) as JSON text (a new bytes object; numpy arrays and scalars as
 * lists and numbers); NULL with TypeError (not a dict, a value JSON cannot
 * hold) or InvalidArgument (NaN, infinity); @what names the call. */
PyObject *ctr_py_dict_to_json (PyObject *obj, const char *what);

/* ctr-py-study.c: the study tools simulate_dose(), noise_level(), roi();
 * ctr-py-study-run.c: study(). */
PyObject *ctr_py_study (PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *ctr_py_simulate_dose (PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *ctr_py_noise_level (PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *ctr_py_roi (PyObject *self, PyObject *args, PyObject *kwargs);
/* ctr-py-dataset.c: a new Dataset object owning @d (NULL: frees nothing, returns NULL). */
PyObject *ctr_py_dataset_wrap (CtrDataset *d);
/* The reference image of Dataset(..., reference=@array,
 * reference_grid=@grid_dict): @array float32-convertible [z][y][x] or [y][x]
 * (1/mm; row 0 = +y, column 0 = -x) on the grid ctr_grid_for_scan gives @g
 * at size NX (its pixel, z spacing and centre), with @grid_dict's keys
 * (those of Dataset.reference_grid; None or NULL: none) over it.  A new
 * volume, or NULL with InvalidArgument (bad keys, NaN), TypeError. */
CtrVolume *ctr_py_reference_from (const CtrGeometry *g, PyObject *array, PyObject *grid_dict);

/* ctr-py-reconstruct.c: reconstruct(), and its stats' class ctrecon.Stats
 * (a list with .notes) added to @module. */
PyObject *ctr_py_reconstruct (PyObject *self, PyObject *args, PyObject *kwargs);
int ctr_py_reconstruct_init (PyObject *module);

/* ctr-py-params.c: keyword arguments through the parameter table. */
gboolean ctr_py_params_apply (CtrReconOptions *o, PyObject *params);
/* @name (NULL: none) as the static string CtrReconOptions.backend holds
 * ("best", "cpu", "cuda", "cusparse"; NULL for NULL), as the CLI's
 * --backend; FALSE with InvalidArgument for another name. */
gboolean ctr_py_backend_name (const char *name, const char **out);

/* ctr-py-notes.c: @plan's notes as a new list of str (NULL with an
 * exception). */
PyObject *ctr_py_plan_notes (CtrReconPlan *plan);
/* A RuntimeWarning naming @what ("reconstruct", "Operator") and the
 * notes that say why, when backend @asked (NULL or "best": nothing to say)
 * is not the one @plan runs on.  -1 when the warning became an exception. */
int ctr_py_warn_fallback (CtrReconPlan *plan, const char *asked, const char *what);

/* ctr-py-metrics.c: metrics(). */
PyObject *ctr_py_metrics (PyObject *self, PyObject *args, PyObject *kwargs);

/* ctr-py-grid.c: the grid of geometry @g for @size (None, N or (NX, NY,
 * NZ)), @pixel_mm (0: default) and, for a helical scan, @z_range (None, or
 * (FIRST, LAST, STEP) in mm or the CLI's "FIRST:LAST:STEP") and @rebin
 * (NULL: not given, 180LI) by ctr_grid_for_scan over *@ref's grid (NULL:
 * none; set to NULL when it does not hold a helical grid's slices), as the
 * CLI's --size, --pixel-size, --z-range and --rebin, checked by the CLI's
 * rule (ctr_grid_check_options).  FALSE with a Python exception. */
gboolean ctr_py_grid_choose (const CtrGeometry *g, const CtrRebinMode *rebin, PyObject *size, double pixel_mm,
                             PyObject *z_range, const CtrVolume **ref, CtrGrid *grid);

/* ctr-py-operator.c: the Operator type. */
extern PyTypeObject CtrPyOperatorType;
