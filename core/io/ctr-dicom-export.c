/* ctr-dicom-export.c — a reconstruction as a DICOM CT Image Storage series.
 *
 * One file per z slice (CT Image IOD, PS3.3 A.3): Patient, General Study,
 * General Series, Frame of Reference, General Equipment, General Image, Image
 * Plane, Image Pixel, CT Image, VOI LUT and SOP Common modules.  Every VR is
 * given explicitly, so writing does not depend on DCMTK's data dictionary.  Pixels are
 * signed 16-bit Hounsfield units, HU = 1000 (mu - mu_water) / mu_water,
 * RescaleSlope 1, RescaleIntercept 0.
 *
 * Patient coordinates (LPS) from FORMAT.md's frame: X = x, Y = -y, Z = -z
 * (a rotation by pi about x, so right-handed).  The volume's row 0 (+y) is
 * then anterior and its column 0 (-x) the patient's right: the stored image
 * is the standard radiological axial view, ImageOrientationPatient
 * 1\0\0\0\1\0.
 *
 * All or nothing: the series is written into a temporary folder beside the
 * target, every file checked (DCMTK's status, write(2)'s errno, the size on
 * disk, fsync), then swapped in as a whole (renameat2 RENAME_EXCHANGE, or
 * two renames where the file system lacks it) and the old series removed.
 * A full disk leaves the old series as it was and says "No space left on
 * device"; it can no longer leave a truncated slice or a series mixing new
 * and old slices.
 */
#define _GNU_SOURCE   /* renameat2 (glibc >= 2.28) */
#include "io/ctr-dicom.h"
#include "io/ctr-dicom-shim.h"
#include "base/ctr-error.h"
#include "io/ctr-file.h"
#include "io/ctr-output-set.h"
#include "io/ctr-temp.h"
#include "base/ctr-hu.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOP_CT_IMAGE "1.2.840.10008.5.1.4.1.1.2"

void
ctr_dicom_export_options_init (CtrDicomExportOptions *o)
{
  memset (o, 0, sizeof *o);
  o->mu_water = CTR_MU_WATER_PER_MM;
  o->series_number = 1;
  o->window_center_hu = 40;
  o->window_width_hu = 400;
}

/* A DS value (at most 16 characters). */
static void
ds (char *buf, double v)
{
  if (fabs (v) < 1e-9)
    v = 0;
  g_snprintf (buf, 17, "%.8g", v);
  if (strlen (buf) > 16)
    g_snprintf (buf, 17, "%.6g", v);
}

/* @s cut to at most @max bytes without splitting a UTF-8 character (LO: 64, ST: 1024). */
static char *
utf8_limit (const char *s, gsize max)
{
  if (strlen (s) <= max)
    return g_strdup (s);
  const char *end = s + max;
  while (end > s && (*end & 0xc0) == 0x80)
    end--;
  return g_strndup (s, end - s);
}

typedef struct {
  guint16 g, e;
  const char *vr;
  char *value;
} Attr;

static gboolean
put_all (CtrDcm *d, GArray *attrs, GError **error)
{
  for (guint i = 0; i < attrs->len; i++)
    {
      Attr *a = &g_array_index (attrs, Attr, i);
      if (!ctr_dcm_put_string (d, a->g, a->e, a->vr, a->value, error))
        return FALSE;
    }
  return TRUE;
}

static void
attr_clear (gpointer p)
{
  g_free (((Attr *) p)->value);
}

static void
add (GArray *attrs, guint16 g, guint16 e, const char *vr, char *owned_value)
{
  Attr a = { g, e, vr, owned_value };
  g_array_append_val (attrs, a);
}

/* "CT" digits ".dcm": the names a series of ours uses. */
static gboolean
is_series_name (const char *name)
{
  const gsize n = strlen (name);
  if (n < 8 || !g_str_has_prefix (name, "CT") || !g_str_has_suffix (name, ".dcm"))
    return FALSE;
  for (gsize i = 2; i < n - 4; i++)
    if (!g_ascii_isdigit (name[i]))
      return FALSE;
  return TRUE;
}

/* A file of a series we wrote, by its content, not its name: a DICOM file
 * (a regular file, not a link) whose SoftwareVersions (0018,1020) is
 * "ctrecon" and whose DerivationDescription (0008,2111) is ours, in the
 * series @series (set from the first file). */
static gboolean
is_our_file (const char *path, char **series)
{
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) || g_file_test (path, G_FILE_TEST_IS_SYMLINK)
      || !ctr_file_check_regular (path, NULL) || !ctr_dcm_has_preamble (path))
    return FALSE;
  g_autoptr (CtrDcm) d = ctr_dcm_open (path, NULL);
  if (d == NULL)
    return FALSE;
  g_autofree char *software = ctr_dcm_get_string (d, 0x0018, 0x1020);
  g_autofree char *derivation = ctr_dcm_get_string (d, 0x0008, 0x2111);
  g_autofree char *uid = ctr_dcm_get_string (d, 0x0020, 0x000e);
  if (software == NULL || !g_str_equal (g_strstrip (software), "ctrecon") || derivation == NULL
      || strstr (derivation, "HU with mu_water") == NULL || uid == NULL)
    return FALSE;
  if (*series == NULL)
    *series = g_strdup (uid);
  return g_str_equal (*series, uid);
}

gboolean
ctr_dicom_export_check_folder (const char *folder, GError **error)
{
  GStatBuf st;
  if (g_stat (folder, &st) != 0)
    return TRUE;
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%s exists and is not a folder", folder);
      return FALSE;
    }
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) dir = g_dir_open (folder, 0, &local);
  if (dir == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot read the folder %s: %s", folder, local->message);
      return FALSE;
    }
  g_autofree char *series = NULL;
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (folder, name, NULL);
      if (!is_series_name (name) || !is_our_file (p, &series))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "the folder %s holds %s, which is not part of a CT Recon series; the series replaces "
                       "the folder's content as a whole: choose an empty or a new folder", folder, name);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
set_errno_error (GError **error, int e, const char *what, const char *path)
{
  g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot %s %s: %s", what, path, g_strerror (e));
  return FALSE;
}

/* Writes @d as @dir/@name and proves it is on disk: DCMTK's status and
 * write(2)'s errno (ctr_dcm_save_fd), fsync, and the size on disk equal to
 * the bytes written. */
static gboolean
write_verified (CtrDcm *d, const char *dir, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return set_errno_error (error, errno, "create", name);
  guint64 bytes = 0;
  gboolean ok = ctr_dcm_save_fd (d, fd, name, &bytes, error);
  if (ok && fsync (fd) != 0)
    ok = set_errno_error (error, errno, "write", name);
  struct stat st;
  if (ok && (fstat (fd, &st) != 0 || (guint64) st.st_size != bytes))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %" G_GUINT64_FORMAT " bytes written, "
                   "%" G_GUINT64_FORMAT " on disk", name, bytes, (guint64) st.st_size);
      ok = FALSE;
    }
  if (close (fd) != 0 && ok)
    ok = set_errno_error (error, errno, "write", name);
  return ok;
}

static gboolean
sync_folder (const char *dir, GError **error)
{
  int fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0)
    return set_errno_error (error, errno, "open", dir);
  const gboolean ok = fsync (fd) == 0 || errno == EINVAL;  /* some file systems cannot sync a folder */
  const int e = errno;
  close (fd);
  return ok || set_errno_error (error, e, "write", dir);
}

/* Slice @iz as the CT Image file number @n + 1 (InstanceNumber, "CT%04u.dcm") in @dir. */
static gboolean
write_slice (const CtrVolume *v, const CtrDicomExportOptions *o, guint n, guint iz, guint16 *pix, const char *study,
             const char *series, const char *frame_of_ref, const char *date, const char *time,
             const char *dir, GError **error)
{
  const CtrGrid *gr = &v->grid;
  const gsize plane = ctr_grid_slice_size (gr);
  char b1[20], b2[20], b3[20];
  const float *src = ctr_volume_slice (v, iz);
  for (gsize i = 0; i < plane; i++)
    {
      double hu = 1000.0 * (src[i] - o->mu_water) / o->mu_water;
      hu = isfinite (hu) ? CLAMP (round (hu), -32768.0, 32767.0) : -1024.0;
      gint16 s = (gint16) hu;
      memcpy (&pix[i], &s, 2);
    }

  g_autoptr (GArray) at = g_array_new (FALSE, TRUE, sizeof (Attr));
  g_array_set_clear_func (at, attr_clear);
  add (at, 0x0008, 0x0005, "CS", g_strdup ("ISO_IR 192"));
  add (at, 0x0008, 0x0008, "CS", g_strdup ("DERIVED\\SECONDARY\\AXIAL"));
  add (at, 0x0008, 0x0016, "UI", g_strdup (SOP_CT_IMAGE));
  add (at, 0x0008, 0x0018, "UI", ctr_dcm_new_uid ());
  add (at, 0x0008, 0x0020, "DA", g_strdup (date));
  add (at, 0x0008, 0x0021, "DA", g_strdup (date));
  add (at, 0x0008, 0x0023, "DA", g_strdup (date));
  add (at, 0x0008, 0x0030, "TM", g_strdup (time));
  add (at, 0x0008, 0x0031, "TM", g_strdup (time));
  add (at, 0x0008, 0x0033, "TM", g_strdup (time));
  add (at, 0x0008, 0x0050, "SH", g_strdup (""));
  add (at, 0x0008, 0x0060, "CS", g_strdup ("CT"));
  add (at, 0x0008, 0x0070, "LO", g_strdup (""));
  add (at, 0x0008, 0x0090, "PN", g_strdup (""));
  add (at, 0x0008, 0x103e, "LO",
       utf8_limit (o->series_description ? o->series_description : "CT Recon reconstruction", 64));
  g_autofree char *deriv = g_strdup_printf ("%s; HU with mu_water %.6g/mm",
                                            o->derivation ? o->derivation : "reconstruction (CT Recon)",
                                            o->mu_water);
  add (at, 0x0008, 0x2111, "ST", utf8_limit (deriv, 1024));  /* ST */
  add (at, 0x0010, 0x0010, "PN", g_strdup (o->patient_name ? o->patient_name : ""));
  add (at, 0x0010, 0x0020, "LO", g_strdup (o->patient_id ? o->patient_id : ""));
  add (at, 0x0010, 0x0030, "DA", g_strdup (""));
  add (at, 0x0010, 0x0040, "CS", g_strdup (""));
  ds (b1, gr->dz);
  add (at, 0x0018, 0x0050, "DS", g_strdup (b1));
  add (at, 0x0018, 0x0060, "DS", g_strdup (""));
  add (at, 0x0018, 0x1020, "LO", g_strdup ("ctrecon"));
  add (at, 0x0018, 0x5100, "CS", g_strdup (""));  /* PatientPosition, Type 2C: unknown */
  add (at, 0x0020, 0x000d, "UI", g_strdup (study));
  add (at, 0x0020, 0x000e, "UI", g_strdup (series));
  add (at, 0x0020, 0x0010, "SH", g_strdup ("1"));
  add (at, 0x0020, 0x0060, "CS", g_strdup (""));  /* Laterality, Type 2C */
  add (at, 0x0020, 0x0011, "IS", g_strdup_printf ("%u", o->series_number));
  add (at, 0x0020, 0x0012, "IS", g_strdup ("1"));
  add (at, 0x0020, 0x0013, "IS", g_strdup_printf ("%u", n + 1));
  /* Centre of the first transmitted pixel (row 0, column 0), LPS. */
  const double z = ctr_grid_z (gr, iz);
  ds (b1, ctr_grid_x (gr, 0));
  ds (b2, -ctr_grid_y (gr, 0));
  ds (b3, -z);
  add (at, 0x0020, 0x0032, "DS", g_strdup_printf ("%s\\%s\\%s", b1, b2, b3));
  add (at, 0x0020, 0x0037, "DS", g_strdup ("1\\0\\0\\0\\1\\0"));
  add (at, 0x0020, 0x0052, "UI", g_strdup (frame_of_ref));
  add (at, 0x0020, 0x1040, "LO", g_strdup (""));
  if (o->table_coordinate)
    ds (b3, o->table_reversed ? -z : z);
  add (at, 0x0020, 0x1041, "DS", g_strdup (b3));
  add (at, 0x0028, 0x0004, "CS", g_strdup ("MONOCHROME2"));
  ds (b1, gr->dy);
  ds (b2, gr->dx);
  add (at, 0x0028, 0x0030, "DS", g_strdup_printf ("%s\\%s", b1, b2));
  /* the window the user looked at (default: soft tissue) */
  gboolean wl = isfinite (o->window_center_hu) && isfinite (o->window_width_hu) && o->window_width_hu > 0;
  ds (b1, wl ? o->window_center_hu : 40);
  ds (b2, wl ? o->window_width_hu : 400);
  add (at, 0x0028, 0x1050, "DS", g_strdup (b1));
  add (at, 0x0028, 0x1051, "DS", g_strdup (b2));
  add (at, 0x0028, 0x1052, "DS", g_strdup ("0"));
  add (at, 0x0028, 0x1053, "DS", g_strdup ("1"));
  add (at, 0x0028, 0x1054, "LO", g_strdup ("HU"));

  g_autoptr (CtrDcm) d = ctr_dcm_new ();
  if (d == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "out of memory");
      return FALSE;
    }
  if (!put_all (d, at, error)
      || !ctr_dcm_put_u16 (d, 0x0028, 0x0002, "US", 1, error)
      || !ctr_dcm_put_u16 (d, 0x0028, 0x0010, "US", (guint16) gr->ny, error)
      || !ctr_dcm_put_u16 (d, 0x0028, 0x0011, "US", (guint16) gr->nx, error)
      || !ctr_dcm_put_u16 (d, 0x0028, 0x0100, "US", 16, error)
      || !ctr_dcm_put_u16 (d, 0x0028, 0x0101, "US", 16, error)
      || !ctr_dcm_put_u16 (d, 0x0028, 0x0102, "US", 15, error)
      || !ctr_dcm_put_u16 (d, 0x0028, 0x0103, "US", 1, error)
      || !ctr_dcm_put_pixels16 (d, pix, plane, error))
    return FALSE;

  g_autofree char *name = g_strdup_printf ("CT%04u.dcm", n + 1);
  return write_verified (d, dir, name, error);
}

gboolean
ctr_dicom_export_series (const CtrVolume *v, const char *folder_arg, const CtrDicomExportOptions *options,
                         GError **error)
{
  g_return_val_if_fail (v != NULL && folder_arg != NULL, FALSE);
  /* "series/" is the folder "series" (its parent is where the new series grows). */
  g_autofree char *folder = g_strdup (folder_arg);
  for (gsize n = strlen (folder); n > 1 && folder[n - 1] == G_DIR_SEPARATOR; n--)
    folder[n - 1] = '\0';
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  CtrDicomExportOptions defaults;
  ctr_dicom_export_options_init (&defaults);
  const CtrDicomExportOptions *o = options != NULL ? options : &defaults;
  if (!(o->mu_water > 0) || !isfinite (o->mu_water))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "mu_water must be a positive attenuation (1/mm), got %g", o->mu_water);
      return FALSE;
    }
  const CtrGrid *gr = &v->grid;
  if (gr->nx > 65535 || gr->ny > 65535)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "a %u × %u image is too large for DICOM",
                   gr->nx, gr->ny);
      return FALSE;
    }
  GStatBuf fst;
  const gboolean exists = g_stat (folder, &fst) == 0;
  if (!ctr_dicom_export_check_folder (folder, error))
    return FALSE;
  /* The new series grows in a hidden folder beside the target (same file
   * system, so the swap is a rename). */
  g_autofree char *parent = g_path_get_dirname (folder);
  g_autofree char *base = g_path_get_basename (folder);
  if (g_mkdir_with_parents (parent, 0777) != 0)
    return set_errno_error (error, errno, "create the folder", parent);
  g_autofree char *tmp_name = g_strdup_printf (".%s.tmp-XXXXXX", base);
  g_autofree char *tmp = g_build_filename (parent, tmp_name, NULL);
  ctr_temp_lock ();
  const gboolean made = g_mkdtemp_full (tmp, 0755) != NULL;
  const int mkdir_errno = errno;
  if (made)
    ctr_temp_register (tmp, TRUE);
  ctr_temp_unlock ();
  if (!made)
    return set_errno_error (error, mkdir_errno, "create a folder in", parent);

  g_autofree char *study = o->study_uid != NULL ? g_strdup (o->study_uid) : ctr_dcm_new_uid ();
  g_autofree char *series = ctr_dcm_new_uid ();
  g_autofree char *frame_of_ref = ctr_dcm_new_uid ();
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y%m%d");
  g_autofree char *time = g_date_time_format (now, "%H%M%S");
  const gsize plane = ctr_grid_slice_size (gr);
  g_autofree guint16 *pix = g_try_new (guint16, plane);
  if (pix == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate a %u × %u slice", gr->nx, gr->ny);
      ctr_file_remove_folder (tmp);
      ctr_temp_forget (tmp);
      return FALSE;
    }
  g_autoptr (GError) local = NULL;
  gboolean ok = TRUE;
  const gboolean down = o->table_coordinate && o->table_reversed;
  for (guint n = 0; n < gr->nz && ok; n++)
    {
      /* File n + 1 holds slice iz: from the lowest z, or from the highest
       * when the table coordinate runs along −z. */
      const guint iz = down ? gr->nz - 1 - n : n;
      ok = write_slice (v, o, n, iz, pix, study, series, frame_of_ref, date, time, tmp, &local);
      if (!ok)
        g_prefix_error (&local, "slice %u of %u: ", n + 1, gr->nz);
    }
  ctr_temp_lock ();
  ok = ok && sync_folder (tmp, &local) && ctr_output_swap_in (tmp, folder, exists, &local);
  if (!ok)
    ctr_file_remove_folder (tmp);
  ctr_temp_forget (tmp);
  ctr_temp_unlock ();
  if (!ok)
    {
      g_set_error (error, local->domain, local->code, "cannot write the DICOM series into %s: %s; %s", folder,
                   local->message, exists ? "the series there is as it was" : "nothing was written");
      return FALSE;
    }
  sync_folder (parent, NULL);  /* the rename made durable where the file system can */
  return TRUE;
}
