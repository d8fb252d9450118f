/* fuzz-tiff.c — libFuzzer harness of the TIFF reader (core/io/ctr-tiff.c):
 * probe, read every page, read page 0 alone.  Any input must give a result
 * or a GError: no crash, no leak, no hang, no allocation beyond what the
 * machine has (ctr-memory.h). */
#include "fuzz-common.h"
#include "ctrecon.h"

void
fuzz_init (void)
{
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  g_autofree char *path = fuzz_write ("in.tif", data, size);
  CtrTiffInfo info = { 0 };
  g_autoptr (GError) error = NULL;
  if (!ctr_tiff_probe (path, &info, &error))
    {
      g_assert (error != NULL);
      return 0;
    }
  g_assert (info.width > 0 && info.height > 0 && info.pages > 0);
  g_autofree float *all = ctr_tiff_read (path, &info, &error);
  g_assert ((all == NULL) == (error != NULL));
  g_clear_error (&error);
  /* One page into a buffer of the claimed size, as the dataset loader does
   * with sizes it knows; up to 64 MB here (a harness limit: allocating a
   * 335 MB page for a 262-byte file under ASan is the harness's time, not
   * the reader's). */
  if ((guint64) info.width * info.height <= ((guint64) 16 << 20)
      && ctr_memory_check ((guint64) info.width * info.height * sizeof (float), NULL, NULL))
    {
      g_autofree float *page = g_try_new (float, (gsize) info.width * info.height);
      if (page != NULL && !ctr_tiff_read_page (path, 0, info.width, info.height, page, &error))
        g_assert (error != NULL);
    }
  return 0;
}
