/* ctr-nexus-none.c — ctr-nexus.h in a build without libhdf5: NeXus files
 * are recognised and refused with a sentence that says why. */
#include "io/ctr-nexus.h"

#include "base/ctr-error.h"

gboolean
ctr_nexus_available (void)
{
  return FALSE;
}

CtrNexusScan *
ctr_nexus_read (const char *path, GCancellable *cancellable, GError **error)
{
  (void) cancellable;
  g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
               "%s: this build of CT Recon has no NeXus/HDF5 support (it was built without libhdf5; "
               "install libhdf5-dev and build again)", path);
  return NULL;
}
