/* fuzz-dicom.c — libFuzzer harness of the DICOM loader (core/io/ctr-dicom-*.c
 * and the DCMTK shim): the input is one to four files, separated by the
 * line "--ctr-next-file--", written into a folder; the folder is scanned
 * (series, instance numbers, missing and duplicate views) and loaded as a
 * dataset (DICOM-CT-PD or X-ray angiography), and the first file is read
 * alone as XA and as pixels.  Several files reach the series builder's
 * InstanceNumber gaps (issue 14, defect 3). */
#define _GNU_SOURCE   /* memmem */
#include "fuzz-common.h"
#include "ctrecon.h"
#include "io/ctr-dicom-shim.h"
#include "io/ctr-dicom-private.h"

#include <string.h>

#define SEP "\n--ctr-next-file--\n"

void
fuzz_init (void)
{
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  fuzz_remove ("dcm");
  const uint8_t *p = data, *end = data + size;
  g_autofree char *first = NULL;
  for (guint k = 0; k < 4 && p <= end; k++)
    {
      const uint8_t *next = k < 3 ? memmem (p, end - p, SEP, strlen (SEP)) : NULL;
      const size_t n = next != NULL ? (size_t) (next - p) : (size_t) (end - p);
      g_autofree char *name = g_strdup_printf ("dcm/f%u.dcm", k);
      char *path = fuzz_write (name, p, n);
      if (k == 0)
        first = path;
      else
        g_free (path);
      if (next == NULL)
        break;
      p = next + strlen (SEP);
    }
  g_autofree char *folder = g_path_get_dirname (first);

  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) series = ctr_dicom_scan (folder, NULL, &error);
  g_assert ((series == NULL) == (error != NULL));
  g_clear_error (&error);
  if (series == NULL)
    return 0;   /* nothing parses: the readers below would only say so again */

  g_autoptr (CtrDataset) d = ctr_dataset_load (folder, NULL, NULL, &error);
  g_assert ((d == NULL) == (error != NULL));
  if (d != NULL)
    {
      g_assert (ctr_geometry_validate (d->geometry, NULL));
      g_assert (d->inputs != NULL && d->inputs[0] != NULL);
    }
  g_clear_error (&error);

  g_autoptr (CtrDicomProjections) xa = ctr_dicom_xa_load (first, &error);
  g_assert ((xa == NULL) == (error != NULL));
  g_clear_error (&error);

  g_autoptr (CtrDcm) dcm = ctr_dcm_open (first, &error);
  if (dcm != NULL)
    {
      guint r, c, f;
      g_autofree float *px = ctr_dcm_read_pixels (dcm, &r, &c, &f, NULL);
      (void) px;
      ctr_dicom_classify (dcm);
    }
  return 0;
}
