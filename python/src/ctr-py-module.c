/* ctr-py-module.c — the extension module _ctrecon (imported by the package
 * ctrecon, python/ctrecon/__init__.py): numpy's C API, the exception
 * classes, the Dataset type and the functions. */
#define CTR_PY_IMPORT_ARRAY
#include "ctr-py.h"

PyDoc_STRVAR (load_doc,
"load(path, variant=None, *, preprocess=None) -> Dataset\n\n"
"Loads a scan described by a geometry.json (or a DICOM file or folder) with\n"
"the engine's loader, as `ctrecon-cli reconstruct` does: projections\n"
"converted to line integrals (flat/dark or I0), the reference image when the\n"
"file names one.  variant: an entry of the file's \"variants\" (e.g.\n"
"\"noiseless\").  The GIL is released while the files are read.\n\n"
"preprocess: the corrections of the line integrals run instead of the\n"
"geometry.json's own \"preprocess\" list, as the CLI's --preprocess: a list\n"
"of step dicts, e.g. [{\"op\": \"outliers\"}, {\"op\": \"rings\",\n"
"\"method\": \"large\"}] (ops flux, outliers, rings, beam-hardening,\n"
"truncation; the parameters of docs/preprocess.md), or the path of a JSON\n"
"file holding one (or an object with \"preprocess\").  [] runs no step;\n"
"None (default) runs the file's own list.  The engine parses and runs it:\n"
"the same projections as the CLI.  Each step's effect is a sentence of\n"
"Dataset.warnings (\"outliers: 412 pixels replaced (0.10 %; ...)\"), as the\n"
"CLI prints.\n\n"
"Raises ctrecon.FileError (missing or unreadable file, with its path),\n"
"FormatError (also a preprocess file that is not a valid list),\n"
"InvalidArgument (a preprocess list the engine refuses: an unknown op or\n"
"parameter, a value out of range, named; a step that does not fit the data),\n"
"InvalidGeometry, InvalidData (NaN/Inf), OutOfMemory, Unsupported: all\n"
"subclasses of ctrecon.Error, carrying the engine's message; TypeError for a\n"
"preprocess value JSON cannot hold.");

PyDoc_STRVAR (reconstruct_doc,
"reconstruct(dataset, method=None, iterations=None, size=None, callback=None, *,\n"
"            pixel_size=0, backend=None, rebin=None, reference=True,\n"
"            metrics_radius=-1, z_range=None, residual=None, **params)\n"
"            -> (image, stats)\n\n"
"Reconstructs a Dataset with the engine, as `ctrecon-cli reconstruct` does\n"
"with the same options (the same grid rule, parameter table and plan: on the\n"
"CPU backend the same image).\n\n"
"method: 'fbp', 'art', 'part', 'sart', 'sirt', 'fdk', 'cgls', 'pwls',\n"
"  'asd-pocs'; None is FDK for a circular cone beam, else FBP.\n"
"iterations and **params: the method's parameters by the CLI's names with\n"
"  '_' for '-' (relaxation=1.5, window='hann', n_subsets=4), as numbers,\n"
"  booleans or the CLI's text; ranges and defaults are the CLI's\n"
"  (`ctrecon-cli methods`).  None leaves the default.\n"
"size: N (N x N pixels) or (NX, NY, NZ); None: the dataset reference's grid,\n"
"  else the field of view at the detector's resolution.\n"
"pixel_size: mm; 0 is the detector pitch at the isocentre.\n"
"backend: 'best' (default), 'cpu', 'cuda', 'cusparse'; one that cannot run\n"
"  here (no device) or does not run the method leaves the run to the CPU, as\n"
"  the CLI does: stats.notes says why and a RuntimeWarning is issued.\n"
"rebin: helical scans, '180li' (default), '360li', 'none'; on another scan\n"
"  InvalidArgument (the CLI's --rebin).\n"
"z_range: helical scans, (FIRST, LAST, STEP) or the CLI's \"FIRST:LAST:STEP\":\n"
"  slices at FIRST, FIRST+STEP, ... up to LAST, mm in the scan's table\n"
"  coordinate (the CLI's --z-range); None: the dataset reference's slices,\n"
"  else the z range the scan samples fully for the rebinning, on multiples\n"
"  of the nominal slice width (the CLI's default).  A bad range raises\n"
"  InvalidArgument with the CLI's message, as does z_range on a scan that is\n"
"  not helical, and size=(NX, NY, NZ) on a helical scan (its slices come\n"
"  from z_range), with or without z_range.\n"
"reference: False ignores the dataset's reference (no metrics).\n"
"metrics_radius: mm; metrics count the pixels within it (-1: the field of\n"
"  view, 0: the whole image).\n"
"callback(stats) or callback(stats, image): called after every iteration\n"
"  (FBP/FDK: once) with that iteration's stats dict and, when the callable\n"
"  takes two arguments, a copy of the iterate (float32 [z][y][x], 1/mm; None\n"
"  where the engine reports none), the GIL held; returning False stops the run after\n"
"  it (the image of that iteration is returned); an exception it raises ends\n"
"  the run and propagates.  Ctrl-C stops the run after the iteration and\n"
"  raises KeyboardInterrupt.\n"
"residual: which iterations report the data residual in stats: 'every'\n"
"  (the CLI's --residual-every), or 'final': after the last iteration, and\n"
"  after the others only where it costs nothing (SIRT, CGLS), NaN elsewhere\n"
"  (the CLI's default); ART, parallel ART, SART, PWLS and ASD-POCS pay one\n"
"  more forward projection per iteration for 'every'.  None (default):\n"
"  'every' when a callback is given, else 'final'.  stop='auto' computes it\n"
"  every iteration either way.  The image is the same.  Another value\n"
"  raises InvalidArgument.\n\n"
"The GIL is released while the engine runs.\n\n"
"Returns (image, stats): image a float32 numpy array [z][y][x], C order, in\n"
"1/mm (1/pixel when the dataset's pixel size is unknown), row 0 = +y,\n"
"column 0 = -x, slices from the lowest z; stats a list of one dict per\n"
"iteration: method, iteration, n_iterations, elapsed_s, iteration_s,\n"
"residual (||b - Ax|| / ||b||; NaN for FBP/FDK and where residual= reports\n"
"none), data_sq, residual_s,\n"
"has_reference, rmse, psnr (dB), ssim (NaN without a reference), stopped,\n"
"noise_residual (the residual at the noise level estimated from the data,\n"
"where stop='auto' would stop; NaN for PWLS, ASD-POCS, FBP/FDK, one\n"
"iteration; a residual below it: the image fits the noise);\n"
"stats is a ctrecon.Stats (a list) whose .notes (list of str) are the plan's\n"
"notes, the lines the CLI prints: the matrix chosen, the symmetry, the\n"
"memory estimate, the backend that ran and every fall-back with its reason.\n\n"
"Raises ctrecon.InvalidArgument (also a ValueError) for an unknown, unused\n"
"or out-of-range parameter, with the engine's message; other ctrecon.Error\n"
"subclasses for what the engine refuses (Unsupported: a method for another\n"
"beam, OutOfMemory, ...).");

PyDoc_STRVAR (metrics_doc,
"metrics(image, reference, pixel_size=1.0, radius=0.0) -> dict\n\n"
"RMSE, PSNR (dB) and SSIM of image against reference by the engine's one\n"
"protocol, as `ctrecon-cli metrics IMAGE REFERENCE --pixel-size --radius`:\n"
"image and reference are arrays of the same shape, [y][x] or [z][y][x]\n"
"(any real dtype, converted to float32), on a grid of pixel_size mm centred\n"
"on the middle of the image.  radius (mm) > 0: the field-of-view protocol\n"
"(the image set to 0 outside the disc, RMSE over the disc's pixels, SSIM\n"
"over the masked image); 0: every pixel.  The data range is the\n"
"reference's max - min; with several slices each metric is the mean over\n"
"the slices.  PSNR of identical images is inf.\n\n"
"Returns {'rmse': ..., 'psnr': ..., 'ssim': ...} (RMSE in the images'\n"
"unit).  Raises ctrecon.InvalidArgument (a ValueError) for shapes that\n"
"differ, NaN or infinite values, a pixel_size <= 0 or a radius < 0.");

PyDoc_STRVAR (simulate_dose_doc,
"simulate_dose(dataset, fraction, *, seed=1, electronic_sd=0.0, i0=0.0, model='auto')\n"
"    -> (Dataset, report)\n\n"
"The scan at fraction x its dose, as `ctrecon-cli simulate-dose` (sim/ctr-dose.h):\n"
"binomial thinning of the counts the data hold or state, else Poisson\n"
"re-sampling of the line integrals (model 'auto', 'thin', 'resample'), with\n"
"Gaussian electronic noise of electronic_sd counts; the same seed gives the\n"
"same data.  i0: open-beam photons per bin for data that state none.  The new\n"
"Dataset keeps the geometry and the reference; report: model, i0_in, i0_out,\n"
"i0_sinogram, n_zero (rays left without a count), reason, warning (or None).\n"
"Raises InvalidArgument (fraction or electronic_sd out of range), InvalidData\n"
"(the dose of the data is unknown: state i0), OutOfMemory.  GIL released.");

PyDoc_STRVAR (noise_level_doc,
"noise_level(dataset) -> dict\n\n"
"The noise of the projections, as `ctrecon-cli noise` (data/ctr-noise.h): source\n"
"('statistics' when the data state counts or I0, else 'sinogram'), i0 (open-beam\n"
"photons per bin; inf for a noiseless sinogram), i0_sinogram (estimated from the\n"
"sinogram itself), sigma (RMS standard deviation of the line integrals) and\n"
"n_rays.  Raises InvalidData (fewer than 5 detector columns, no valid ray).");

PyDoc_STRVAR (roi_doc,
"roi(image, roi, pixel_size=1.0, mu_water=0.0192, *, slice=0) -> dict\n\n"
"ROI statistics of one slice, as `ctrecon-cli roi` (quality/ctr-roi.h): image\n"
"[y][x] or [z][y][x] in 1/mm on pixels of pixel_size mm centred on the middle\n"
"of the image (row 0 = +y); roi 'circle:X,Y,R' or 'rect:X,Y,W,H' (mm).\n"
"Returns n_pixels, mean_mu, sd_mu (1/mm), mean_hu, sd_hu (HU with mu_water,\n"
"1/mm) and noise_sd_hu (the SD after removing the ROI's least-squares plane,\n"
"NaN for an ROI too thin).  Raises InvalidArgument (a bad ROI text, fewer than\n"
"2 pixels inside, a slice outside the image), InvalidData (NaN inside).");

PyDoc_STRVAR (study_doc,
"study(spec, dataset=None, callback=None) -> list of dict\n\n"
"A dose study, as `ctrecon-cli study` runs it (study/ctr-study.h): spec a\n"
"STUDY.json path or a dict of its keys (README, \"Dose studies\": doses,\n"
"methods with their parameters, ROIs, iq, grid, seed ...); every dose x method\n"
"configuration is simulated and reconstructed.  dataset: a Dataset to study\n"
"instead of the one spec names (then spec needs no \"dataset\").\n"
"callback(row, image) after each run (image: a copy, float32 [z][y][x], 1/mm);\n"
"returning False stops the study (the rows so far are returned).\n"
"Returns one dict per run, in run order: dose, i0, method, label, parameters,\n"
"rmse (1/mm), psnr, ssim, hu_rmse, rois {name: {mean_hu, sd_hu, cnr}},\n"
"noise_sd_hu, iterations, best_iteration, best_rmse, seconds, nps_noise_hu,\n"
"nps_f_peak, nps_f_avg (cycles/mm), ttf_f50 {insert: cycles/mm},\n"
"ttf_f50_pooled {insert: cycles/mm; pooled over the method and dose's\n"
"realisations, NaN in a callback's row until its last}, dprime_npw_pooled,\n"
"dprime_npwe_pooled (d' with that pooled TTF, likewise), dprime_npw,\n"
"dprime_npwe (NaN where not measured).  Raises FormatError (an unknown or\n"
"mistyped key, named), InvalidArgument, InvalidData (a dose other than 1 on\n"
"data of unknown dose), the loader's errors; Ctrl-C raises KeyboardInterrupt.\n"
"The GIL is released while the study runs.");

static PyMethodDef methods[] = {
  { "study", (PyCFunction) (void (*) (void)) ctr_py_study, METH_VARARGS | METH_KEYWORDS, study_doc },
  { "simulate_dose", (PyCFunction) (void (*) (void)) ctr_py_simulate_dose, METH_VARARGS | METH_KEYWORDS,
    simulate_dose_doc },
  { "noise_level", (PyCFunction) (void (*) (void)) ctr_py_noise_level, METH_VARARGS | METH_KEYWORDS,
    noise_level_doc },
  { "roi", (PyCFunction) (void (*) (void)) ctr_py_roi, METH_VARARGS | METH_KEYWORDS, roi_doc },
  { "metrics", (PyCFunction) (void (*) (void)) ctr_py_metrics, METH_VARARGS | METH_KEYWORDS, metrics_doc },
  { "load", (PyCFunction) (void (*) (void)) ctr_py_load, METH_VARARGS | METH_KEYWORDS, load_doc },
  { "reconstruct", (PyCFunction) (void (*) (void)) ctr_py_reconstruct, METH_VARARGS | METH_KEYWORDS,
    reconstruct_doc },
  { NULL }
};

static struct PyModuleDef module_def = {
  PyModuleDef_HEAD_INIT,
  .m_name = "_ctrecon",
  .m_doc = "The CT Recon engine (libctrecon) for Python; use the package ctrecon.",
  .m_size = -1,
  .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__ctrecon (void)
{
  import_array ();  /* returns NULL with ImportError when numpy's C API is unusable */
  if (PyType_Ready (&CtrPyDatasetType) < 0 || PyType_Ready (&CtrPyOperatorType) < 0
      || PyType_Ready (&CtrPyGeometryType) < 0)
    return NULL;
  PyObject *m = PyModule_Create (&module_def);
  if (m == NULL)
    return NULL;
  Py_INCREF (&CtrPyDatasetType);
  Py_INCREF (&CtrPyOperatorType);
  Py_INCREF (&CtrPyGeometryType);
  if (PyModule_AddObject (m, "Dataset", (PyObject *) &CtrPyDatasetType) < 0
      || PyModule_AddObject (m, "Geometry", (PyObject *) &CtrPyGeometryType) < 0
      || PyModule_AddObject (m, "Operator", (PyObject *) &CtrPyOperatorType) < 0 || ctr_py_error_init (m) < 0
      || ctr_py_reconstruct_init (m) < 0
      || PyModule_AddStringConstant (m, "__version__", CTR_PY_VERSION) < 0)
    {
      Py_DECREF (m);
      return NULL;
    }
  return m;
}
