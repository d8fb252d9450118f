/* ctr-py-error.c — core's GError as a Python exception: ctrecon.Error
 * (a RuntimeError) with one subclass per CTR_ERROR code, carrying core's
 * message unchanged. */
#include "ctr-py.h"

/* CtrErrorCode order (base/ctr-error.h); each class's docstring says when. */
static const struct {
  const char *name;
  const char *doc;
} classes[] = {
  { "Failed", "A failure not covered by another class (CTR_ERROR_FAILED)." },
  { "FileError", "A file could not be opened, read or written (CTR_ERROR_IO)." },
  { "FormatError", "A file is not what it claims to be: TIFF, JSON, DICOM (CTR_ERROR_FORMAT)." },
  { "InvalidGeometry", "Distances, sizes or angles out of range (CTR_ERROR_INVALID_GEOMETRY)." },
  { "InvalidData", "NaN/Inf, negative counts, sizes that disagree (CTR_ERROR_INVALID_DATA)." },
  { "InvalidArgument", "A parameter outside its documented range (CTR_ERROR_INVALID_ARGUMENT); "
                       "also a ValueError." },
  { "Unsupported", "Valid input this version cannot handle yet (CTR_ERROR_UNSUPPORTED)." },
  { "OutOfMemory", "An allocation of a stated size failed or would exceed the machine's memory "
                   "(CTR_ERROR_OUT_OF_MEMORY)." },
  { "BackendUnavailable", "No device, no driver, too little device memory (CTR_ERROR_BACKEND_UNAVAILABLE)." },
};

static PyObject *error_base, *cancelled;
static PyObject *by_code[G_N_ELEMENTS (classes)];

PyObject *
ctr_py_invalid_argument (void)
{
  return by_code[CTR_ERROR_INVALID_ARGUMENT];
}

static int
add_class (PyObject *module, const char *name, const char *doc, PyObject *bases, PyObject **out)
{
  g_autofree char *qualified = g_strdup_printf ("ctrecon.%s", name);
  *out = PyErr_NewExceptionWithDoc (qualified, doc, bases, NULL);
  if (*out == NULL)
    return -1;
  Py_INCREF (*out);  /* one reference kept here, one given to the module */
  return PyModule_AddObject (module, name, *out);
}

int
ctr_py_error_init (PyObject *module)
{
  if (add_class (module, "Error", "An error reported by the CT Recon engine; str() is its message.",
                 PyExc_RuntimeError, &error_base) < 0)
    return -1;
  if (add_class (module, "Cancelled", "The run was cancelled (G_IO_ERROR_CANCELLED).", error_base, &cancelled) < 0)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      PyObject *bases = i == CTR_ERROR_INVALID_ARGUMENT ? PyTuple_Pack (2, error_base, PyExc_ValueError)
                                                        : PyTuple_Pack (1, error_base);
      if (bases == NULL)
        return -1;
      int rc = add_class (module, classes[i].name, classes[i].doc, bases, &by_code[i]);
      Py_DECREF (bases);
      if (rc < 0)
        return -1;
    }
  return 0;
}

PyObject *
ctr_py_raise (GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      if (PyErr_CheckSignals () < 0)  /* Ctrl-C: KeyboardInterrupt is set */
        {
          g_error_free (error);
          return NULL;
        }
      PyErr_SetString (cancelled, error->message);
    }
  else if (error->domain == CTR_ERROR && error->code >= 0 && (guint) error->code < G_N_ELEMENTS (by_code))
    PyErr_SetString (by_code[error->code], error->message);
  else
    PyErr_SetString (error_base, error->message);
  g_error_free (error);
  return NULL;
}

void
ctr_py_keep_exception (PyObject **type, PyObject **value, PyObject **tb, GCancellable *cancellable)
{
  if (*type == NULL)
    PyErr_Fetch (type, value, tb);
  else
    PyErr_Clear ();
  g_cancellable_cancel (cancellable);
}
