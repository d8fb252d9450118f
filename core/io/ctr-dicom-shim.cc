/* ctr-dicom-shim.cc — the only file of the project that includes DCMTK.
 *
 * A thin C interface (ctr-dicom-shim.h) over dcmdata: load a file, read
 * standard and private tags by number, read the pixel data as float with the
 * Modality LUT applied, build and save a data set.  No exception or DCMTK
 * type leaves this file; every failure is a GError in CTR_ERROR.  DCMTK's
 * logger is switched off once, so the library prints nothing.
 */
#include "io/ctr-dicom-shim.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "io/ctr-file.h"

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>
#include <dcmtk/dcmdata/dcwcache.h>
#include <dcmtk/oflog/oflog.h>

#include <glib/gstdio.h>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#include <cmath>
#include <cstring>
#include <new>

struct _CtrDcm {
  DcmFileFormat file;
};

/* The DICOM-CT-PD private tags (dictionary v8, as shared/tools/dicom-ct-pd.dic),
 * registered with DCMTK so that Implicit VR files, whose private elements
 * carry no VR, are parsed with the right one.  Numbers in ctr-dicom-ctpd.c. */
static const struct {
  guint16 group;
  guint8 low;
  DcmEVR vr;
  const char *name;
  int vm_max;
  const char *creator;
} ctpd_dict[] = {
  { 0x7029, 0x10, EVR_US, "NumberofDetectorRows", 1, "DetectorSystemArrangementModule" },
  { 0x7029, 0x11, EVR_US, "NumberofDetectorColumns", 1, "DetectorSystemArrangementModule" },
  { 0x7029, 0x02, EVR_FL, "DetectorElementTransverseSpacing", 1, "DetectorSystemArrangementModule" },
  { 0x7029, 0x06, EVR_FL, "DetectorElementAxialSpacing", 1, "DetectorSystemArrangementModule" },
  { 0x7029, 0x0b, EVR_CS, "DetectorShape", 1, "DetectorSystemArrangementModule" },
  { 0x7031, 0x01, EVR_FL, "DetectorFocalCenterAngularPosition", 1, "DetectorDynamicsModule" },
  { 0x7031, 0x02, EVR_FL, "DetectorFocalCenterAxialPosition", 1, "DetectorDynamicsModule" },
  { 0x7031, 0x03, EVR_FL, "DetectorFocalCenterRadialDistance", 1, "DetectorDynamicsModule" },
  { 0x7031, 0x31, EVR_FL, "ConstantRadialDistance", 1, "DetectorDynamicsModule" },
  { 0x7031, 0x33, EVR_FL, "DetectorCentralElement", 2, "DetectorDynamicsModule" },
  { 0x7033, 0x0b, EVR_FL, "SourceAngularPositionShift", 1, "SourceDynamicsModule" },
  { 0x7033, 0x0c, EVR_FL, "SourceAxialPositionShift", 1, "SourceDynamicsModule" },
  { 0x7033, 0x0d, EVR_FL, "SourceRadialDistanceShift", 1, "SourceDynamicsModule" },
  { 0x7033, 0x0e, EVR_CS, "FlyingFocalSpotMode", 1, "SourceDynamicsModule" },
  { 0x7033, 0x13, EVR_US, "NumberofSourceAngularSteps", 1, "SourceDynamicsModule" },
  { 0x7033, 0x61, EVR_US, "NumberofSources", 1, "SourceDynamicsModule" },
  { 0x7033, 0x63, EVR_US, "SourceIndex", 1, "SourceDynamicsModule" },
  { 0x7033, 0x65, EVR_FL, "PhotonStatistics", DcmVariableVM, "SourceDynamicsModule" },
  { 0x7037, 0x09, EVR_CS, "TypeofProjectionData", 1, "ProjectionDataDefinitions" },
  { 0x7037, 0x0a, EVR_CS, "TypeofProjectionGeometry", 1, "ProjectionDataDefinitions" },
  { 0x7039, 0x03, EVR_CS, "BeamHardeningCorrectionFlag", 1, "PreprocessingFlagsModule" },
  { 0x7039, 0x04, EVR_CS, "GainCorrectionFlag", 1, "PreprocessingFlagsModule" },
  { 0x7039, 0x05, EVR_CS, "DarkFieldCorrectionFlag", 1, "PreprocessingFlagsModule" },
  { 0x7039, 0x06, EVR_CS, "FlatFieldCorrectionFlag", 1, "PreprocessingFlagsModule" },
  { 0x7039, 0x07, EVR_CS, "BadPixelCorrectionFlag", 1, "PreprocessingFlagsModule" },
  { 0x7039, 0x08, EVR_CS, "ScatterCorrectionFlag", 1, "PreprocessingFlagsModule" },
  { 0x7039, 0x09, EVR_CS, "LogFlag", 1, "PreprocessingFlagsModule" },
};

static void
shim_init (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      OFLog::configure (OFLogger::OFF_LOG_LEVEL);
      DcmDataDictionary &dict = dcmDataDict.wrlock ();
      for (const auto &t : ctpd_dict)
        dict.addEntry (new DcmDictEntry (t.group, t.low, DcmVR (t.vr), t.name, 1, t.vm_max, "private",
                                         OFTrue, t.creator));
      dcmDataDict.wrunlock ();
      g_once_init_leave (&once, 1);
    }
}

static DcmDataset *
dataset (CtrDcm *d)
{
  return d->file.getDataset ();
}

extern "C" gboolean
ctr_dcm_has_preamble (const char *path)
{
  int fd = ctr_file_open_regular (path, NULL);   /* a FIFO must not block */
  if (fd < 0)
    return FALSE;
  char buf[132];
  gsize n = 0;
  while (n < sizeof buf)
    {
      const ssize_t r = read (fd, buf + n, sizeof buf - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      n += (gsize) r;
    }
  close (fd);
  return n == sizeof buf && memcmp (buf + 128, "DICM", 4) == 0;
}

extern "C" CtrDcm *
ctr_dcm_new (void)
{
  shim_init ();
  return new (std::nothrow) CtrDcm ();
}

extern "C" CtrDcm *
ctr_dcm_open (const char *path, GError **error)
{
  shim_init ();
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s: no such file", path);
      return NULL;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s is a folder, not a DICOM file", path);
      return NULL;
    }
  if (!ctr_file_check_regular (path, error))   /* DCMTK opens by name: a FIFO would block it */
    return NULL;
  CtrDcm *d = new (std::nothrow) CtrDcm ();
  if (d == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
      return NULL;
    }
  try
    {
      OFCondition st = d->file.loadFile (OFFilename (path));
      if (st.good ())
        st = dataset (d)->loadAllDataIntoMemory ();
      if (st.bad ())
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: not a readable DICOM file (%s)", path,
                       st.text ());
          delete d;
          return NULL;
        }
      if (dataset (d)->card () == 0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: not a DICOM file (no data elements)", path);
          delete d;
          return NULL;
        }
    }
  catch (...)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: DICOM parser failed", path);
      delete d;
      return NULL;
    }
  return d;
}

extern "C" void
ctr_dcm_free (CtrDcm *d)
{
  delete d;
}

static DcmElement *
find_in (DcmItem *item, guint16 group, guint16 elem, gboolean deep)
{
  if (item == NULL)
    return NULL;
  DcmElement *el = NULL;
  if (item->findAndGetElement (DcmTagKey (group, elem), el, deep ? OFTrue : OFFalse).good ())
    return el;
  return NULL;
}

static DcmElement *
find (CtrDcm *d, guint16 group, guint16 elem)
{
  return find_in (dataset (d), group, elem, FALSE);
}

extern "C" gboolean
ctr_dcm_has (CtrDcm *d, guint16 group, guint16 elem)
{
  return find (d, group, elem) != NULL;
}

static char *
element_string (DcmElement *el)
{
  if (el == NULL)
    return NULL;
  OFString s;
  if (el->getOFStringArray (s).bad ())
    return NULL;
  char *r = g_strdup (s.c_str ());
  g_strstrip (r);
  if (r[0] == '\0')
    {
      g_free (r);
      return NULL;
    }
  return r;
}

extern "C" char *
ctr_dcm_get_string (CtrDcm *d, guint16 group, guint16 elem)
{
  return element_string (find (d, group, elem));
}

static gboolean
element_is_raw (DcmElement *el)
{
  DcmEVR vr = el->ident ();
  return vr == EVR_UN || vr == EVR_OB || vr == EVR_ox || vr == EVR_UNKNOWN || vr == EVR_UNKNOWN2B;
}

static guint
element_count (DcmElement *el)
{
  if (el == NULL)
    return 0;
  if (element_is_raw (el))
    return el->getLength () % 4 == 0 ? el->getLength () / 4 : 0;
  return (guint) el->getVM ();
}

static gboolean
element_double (DcmElement *el, guint index, double *out)
{
  if (el == NULL || index >= element_count (el))
    return FALSE;
  OFCondition st;
  switch (el->ident ())
    {
    case EVR_FL:
    case EVR_OF:
      {
        Float32 v;
        st = el->getFloat32 (v, index);
        *out = v;
        break;
      }
    case EVR_FD:
    case EVR_OD:
    case EVR_DS:
      {
        Float64 v;
        st = el->getFloat64 (v, index);
        *out = v;
        break;
      }
    case EVR_IS:
      {
        /* As text: DCMTK's getSint32 wraps an out-of-range IS ("9000000000000000000"
         * became -494665728) where the caller must see the number and refuse it. */
        OFString text;
        st = el->getOFString (text, index);
        if (st.good ())
          {
            const char *c = text.c_str ();
            while (*c == ' ')
              c++;
            char *end = NULL;
            *out = g_ascii_strtod (c, &end);
            while (end != NULL && *end == ' ')
              end++;
            if (end == c || end == NULL || *end != '\0')
              return FALSE;
          }
        break;
      }
    case EVR_SL:
      {
        Sint32 v;
        st = el->getSint32 (v, index);
        *out = v;
        break;
      }
    case EVR_US:
      {
        Uint16 v;
        st = el->getUint16 (v, index);
        *out = v;
        break;
      }
    case EVR_SS:
      {
        Sint16 v;
        st = el->getSint16 (v, index);
        *out = v;
        break;
      }
    case EVR_UL:
      {
        Uint32 v;
        st = el->getUint32 (v, index);
        *out = v;
        break;
      }
    default:
      if (element_is_raw (el))
        {
          Uint8 *bytes = NULL;
          st = el->getUint8Array (bytes);
          if (st.good () && bytes != NULL)
            {
              guint32 u = (guint32) bytes[4 * index] | (guint32) bytes[4 * index + 1] << 8
                          | (guint32) bytes[4 * index + 2] << 16 | (guint32) bytes[4 * index + 3] << 24;
              float f;
              memcpy (&f, &u, 4);
              *out = f;
            }
          else
            return FALSE;
          break;
        }
      return FALSE;
    }
  return st.good () && std::isfinite (*out);
}

extern "C" guint
ctr_dcm_count (CtrDcm *d, guint16 group, guint16 elem)
{
  return element_count (find (d, group, elem));
}

extern "C" gboolean
ctr_dcm_get_double (CtrDcm *d, guint16 group, guint16 elem, guint index, double *out)
{
  return element_double (find (d, group, elem), index, out);
}

extern "C" gboolean
ctr_dcm_get_double_frame (CtrDcm *d, guint frame, guint16 group, guint16 elem, guint index,
                          double *out)
{
  DcmDataset *ds = dataset (d);
  DcmItem *item = NULL;
  /* Per-frame Functional Groups Sequence (5200,9230), then Shared (5200,9229). */
  if (ds->findAndGetSequenceItem (DcmTagKey (0x5200, 0x9230), item, (signed long) frame).good ()
      && element_double (find_in (item, group, elem, TRUE), index, out))
    return TRUE;
  item = NULL;
  if (ds->findAndGetSequenceItem (DcmTagKey (0x5200, 0x9229), item, 0).good ()
      && element_double (find_in (item, group, elem, TRUE), index, out))
    return TRUE;
  return element_double (find (d, group, elem), index, out);
}

extern "C" guint16
ctr_dcm_private_tag (CtrDcm *d, guint16 group, const char *creator, guint8 low)
{
  for (guint block = 0x10; block <= 0xff; block++)
    {
      g_autofree char *s = ctr_dcm_get_string (d, group, (guint16) block);
      if (s != NULL && g_ascii_strcasecmp (s, creator) == 0)
        return (guint16) (block << 8 | low);
    }
  return (guint16) (0x1000 | low);
}

extern "C" float *
ctr_dcm_read_pixels (CtrDcm *d, guint *rows_out, guint *cols_out, guint *frames_out, GError **error)
{
  DcmDataset *ds = dataset (d);
  double rows = 0, cols = 0, bits = 0, frames = 1, repr = 0, spp = 1, slope = 1, intercept = 0;
  if (!ctr_dcm_get_double (d, 0x0028, 0x0010, 0, &rows) || !ctr_dcm_get_double (d, 0x0028, 0x0011, 0, &cols)
      || !ctr_dcm_get_double (d, 0x0028, 0x0100, 0, &bits))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "the image attributes Rows (0028,0010), Columns (0028,0011) or BitsAllocated "
                   "(0028,0100) are missing");
      return NULL;
    }
  if (ctr_dcm_has (d, 0x0028, 0x0008))
    {
      g_autofree char *s = ctr_dcm_get_string (d, 0x0028, 0x0008);
      if (s == NULL || !ctr_dcm_get_double (d, 0x0028, 0x0008, 0, &frames))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "NumberOfFrames (0028,0008) is not a number");
          return NULL;
        }
    }
  double stored_bits = bits;
  ctr_dcm_get_double (d, 0x0028, 0x0101, 0, &stored_bits);
  ctr_dcm_get_double (d, 0x0028, 0x0103, 0, &repr);
  ctr_dcm_get_double (d, 0x0028, 0x0002, 0, &spp);
  ctr_dcm_get_double (d, 0x0028, 0x1053, 0, &slope);
  ctr_dcm_get_double (d, 0x0028, 0x1052, 0, &intercept);
  /* Written so that NaN fails too; whole numbers only (casts below). */
  if (!(rows >= 1 && rows <= 65535 && cols >= 1 && cols <= 65535 && frames >= 1 && frames <= CTR_DICOM_MAX_FRAMES)
      || rows != floor (rows) || cols != floor (cols) || frames != floor (frames))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "image size %g × %g × %g frames is invalid",
                   rows, cols, frames);
      return NULL;
    }
  if (spp != 1)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%g samples per pixel (colour); only grey-scale images are supported", spp);
      return NULL;
    }
  if (bits != 8 && bits != 16 && bits != 32)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "BitsAllocated %g is not supported (8, 16, 32)",
                   bits);
      return NULL;
    }
  if (slope == 0)
    slope = 1;
  if (!std::isfinite (slope) || !std::isfinite (intercept))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "RescaleSlope (0028,1053) %g or RescaleIntercept "
                   "(0028,1052) %g is not a finite number", slope, intercept);
      return NULL;
    }
  if (!(stored_bits >= 1 && stored_bits <= bits))
    stored_bits = bits;   /* BitsStored absent or absurd: all bits */

  DcmElement *el = find (d, 0x7fe0, 0x0010);
  if (el == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "no Pixel Data (7FE0,0010)");
      return NULL;
    }
  DcmXfer xfer (ds->getOriginalXfer ());
  if (xfer.isEncapsulated ())
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "compressed pixel data (transfer syntax %s) is not supported; decompress with "
                   "dcmdjpeg or gdcmconv --raw first", xfer.getXferName ());
      return NULL;
    }

  const gsize n = (gsize) rows * (gsize) cols * (gsize) frames;
  const gsize bytes_per = (gsize) bits / 8;
  /* What the file claims, before DCMTK loads the element's value or we
   * convert it: both sized from the file (ctr-memory.h). */
  {
    g_autofree char *what = g_strdup_printf ("%g frames of %g × %g pixels", frames, rows, cols);
    if (!ctr_memory_check (ctr_memory_add ((guint64) el->getLength (), ctr_memory_mul (n, sizeof (float))), what, error))
      return NULL;
  }
  Uint8 *raw = NULL;
  Uint16 *raw16 = NULL;
  OFCondition st;
  const void *src = NULL;
  if (bits == 16)
    {
      st = el->getUint16Array (raw16);
      src = raw16;
    }
  else
    {
      st = el->getUint8Array (raw);
      src = raw;
      if (bits == 32 && st.bad ())
        {
          Uint32 *raw32 = NULL;
          st = el->getUint32Array (raw32);
          src = raw32;
        }
    }
  if (st.bad () || src == NULL || el->getLength () < n * bytes_per)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "Pixel Data holds %lu bytes, but %g rows × %g columns × %g frames × %g bits need %"
                   G_GSIZE_FORMAT " (truncated file?)",
                   (unsigned long) el->getLength (), rows, cols, frames, bits, n * bytes_per);
      return NULL;
    }
  float *out = (float *) ctr_memory_try_new (n, sizeof (float), FALSE, "the pixels", error);
  if (out == NULL)
    return NULL;
  const gboolean sign = repr == 1;
  /* BitsStored < BitsAllocated (e.g. 12 of 16, HighBit = BitsStored - 1):
   * mask the unused high bits and sign-extend from the stored sign bit. */
  const guint nb = (guint) CLAMP (stored_bits, 1, bits);
  const guint64 mask = nb >= 32 ? G_MAXUINT32 : (((guint64) 1 << nb) - 1);
  for (gsize i = 0; i < n; i++)
    {
      guint64 u;
      if (bits == 16)
        u = ((const guint16 *) src)[i];
      else if (bits == 8)
        u = ((const guint8 *) src)[i];
      else
        {
          guint32 u32;
          memcpy (&u32, (const guint8 *) src + 4 * i, 4);
          u = u32;
        }
      u &= mask;
      double v = (double) u;
      if (sign && (u >> (nb - 1)) & 1)
        v -= (double) ((guint64) 1 << nb);
      out[i] = (float) (v * slope + intercept);
    }
  *rows_out = (guint) rows;
  *cols_out = (guint) cols;
  *frames_out = (guint) frames;
  return out;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

static gboolean
insert (CtrDcm *d, DcmElement *el, GError **error)
{
  OFCondition st = dataset (d)->insert (el, OFTrue);
  if (st.bad ())
    {
      delete el;
      g_set_error (error, CTR_ERROR, CTR_ERROR_FAILED, "cannot insert a DICOM element: %s", st.text ());
      return FALSE;
    }
  return TRUE;
}

static DcmElement *
new_element (guint16 group, guint16 elem, const char *vr, GError **error)
{
  DcmTag tag (group, elem);
  if (vr != NULL)
    tag.setVR (DcmVR (vr));
  DcmElement *el = NULL;
  OFCondition st = DcmItem::newDicomElementWithVR (el, tag);
  if (st.bad () || el == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FAILED, "cannot create DICOM element (%04x,%04x): %s",
                   group, elem, st.text ());
      return NULL;
    }
  return el;
}

extern "C" gboolean
ctr_dcm_put_string (CtrDcm *d, guint16 group, guint16 elem, const char *vr, const char *value,
                    GError **error)
{
  DcmElement *el = new_element (group, elem, vr, error);
  if (el == NULL)
    return FALSE;
  OFCondition st = el->putString (value);
  if (st.bad ())
    {
      delete el;
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "(%04x,%04x) = “%s”: %s", group, elem,
                   value, st.text ());
      return FALSE;
    }
  return insert (d, el, error);
}

extern "C" gboolean
ctr_dcm_put_u16 (CtrDcm *d, guint16 group, guint16 elem, const char *vr, guint16 value, GError **error)
{
  DcmElement *el = new_element (group, elem, vr, error);
  if (el == NULL)
    return FALSE;
  if (el->putUint16 (value).bad ())
    {
      delete el;
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "(%04x,%04x) is not US", group, elem);
      return FALSE;
    }
  return insert (d, el, error);
}

extern "C" gboolean
ctr_dcm_put_floats (CtrDcm *d, guint16 group, guint16 elem, const float *values, guint n, GError **error)
{
  DcmElement *el = new_element (group, elem, "FL", error);
  if (el == NULL)
    return FALSE;
  if (el->putFloat32Array (values, n).bad ())
    {
      delete el;
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "(%04x,%04x): cannot store FL values",
                   group, elem);
      return FALSE;
    }
  return insert (d, el, error);
}

extern "C" gboolean
ctr_dcm_put_frame_string (CtrDcm *d, gint frame, guint16 seq_group, guint16 seq_elem, guint16 group,
                          guint16 elem, const char *vr, const char *value, GError **error)
{
  DcmItem *fg = NULL, *macro = NULL;
  const DcmTag groups = frame >= 0 ? DcmTag (0x5200, 0x9230, DcmVR (EVR_SQ)) : DcmTag (0x5200, 0x9229, DcmVR (EVR_SQ));
  OFCondition st = dataset (d)->findOrCreateSequenceItem (groups, fg, frame >= 0 ? frame : 0);
  if (st.good ())
    st = fg->findOrCreateSequenceItem (DcmTag (seq_group, seq_elem, DcmVR (EVR_SQ)), macro, 0);
  DcmElement *el = NULL;
  if (st.good ())
    {
      DcmTag tag (group, elem);
      if (vr != NULL)
        tag.setVR (DcmVR (vr));
      st = DcmItem::newDicomElementWithVR (el, tag);
    }
  if (st.good () && el != NULL)
    {
      st = el->putString (value);
      if (st.good ())
        st = macro->insert (el, OFTrue);
      if (st.bad ())
        delete el;
    }
  if (st.bad () || el == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FAILED, "cannot set (%04x,%04x) in frame %d: %s", group, elem,
                   frame, st.text ());
      return FALSE;
    }
  return TRUE;
}

extern "C" gboolean
ctr_dcm_put_pixels16 (CtrDcm *d, const guint16 *data, gsize n, GError **error)
{
  if (n > G_MAXUINT32 / 2)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "too many pixels for one DICOM file");
      return FALSE;
    }
  /* An explicit OW element: no data dictionary needed. */
  DcmPixelData *el = new (std::nothrow) DcmPixelData (DcmTag (DCM_PixelData, DcmVR (EVR_OW)));
  if (el == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot store Pixel Data: out of memory");
      return FALSE;
    }
  OFCondition st = el->putUint16Array (data, (unsigned long) n);
  if (st.bad ())
    {
      delete el;
      g_set_error (error, CTR_ERROR, CTR_ERROR_FAILED, "cannot store Pixel Data: %s", st.text ());
      return FALSE;
    }
  return insert (d, el, error);
}

/* A DCMTK consumer over a file descriptor that keeps write(2)'s errno:
 * DCMTK's own file stream reports a full disk as "I/O suspension or
 * premature end of stream" and leaves the short file behind it. */
class FdConsumer : public DcmConsumer
{
public:
  explicit FdConsumer (int fd) : fd_ (fd), errno_ (0), written_ (0), status_ (EC_Normal) {}
  OFBool good () const override { return status_.good (); }
  OFCondition status () const override { return status_; }
  OFBool isFlushed () const override { return OFTrue; }
  offile_off_t avail () const override { return OFstatic_cast (offile_off_t, 1 << 30); }
  offile_off_t
  write (const void *buf, offile_off_t buflen) override
  {
    const char *p = OFstatic_cast (const char *, buf);
    offile_off_t done = 0;
    while (status_.good () && done < buflen)
      {
        const ssize_t n = ::write (fd_, p + done, OFstatic_cast (size_t, buflen - done));
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0)
          {
            errno_ = n < 0 ? errno : ENOSPC;
            status_ = makeOFCondition (OFM_dcmdata, 950, OF_error, "write error");
            break;
          }
        done += n;
      }
    written_ += done;
    return done;
  }
  void flush () override {}
  int error_number () const { return errno_; }
  guint64 written () const { return written_; }

private:
  int fd_;
  int errno_;
  guint64 written_;
  OFCondition status_;
};

class FdOutputStream : public DcmOutputStream
{
public:
  explicit FdOutputStream (FdConsumer *c) : DcmOutputStream (c) {}
};

extern "C" gboolean
ctr_dcm_save_fd (CtrDcm *d, int fd, const char *path, guint64 *bytes, GError **error)
{
  OFCondition st;
  FdConsumer consumer (fd);
  try
    {
      /* FileMetaInformationVersion with an explicit VR (DCMTK would need its
       * data dictionary to make it right). */
      DcmMetaInfo *meta = d->file.getMetaInfo ();
      if (meta != NULL && !meta->tagExists (DcmTagKey (0x0002, 0x0001)))
        {
          DcmOtherByteOtherWord *version = new DcmOtherByteOtherWord (DcmTag (0x0002, 0x0001, DcmVR (EVR_OB)));
          const Uint8 v[2] = { 0, 1 };
          version->putUint8Array (v, 2);
          meta->insert (version, OFTrue);
        }
      /* What DcmFileFormat::saveFile does, on our stream. */
      FdOutputStream stream (&consumer);
      DcmWriteCache wcache;
      d->file.transferInit ();
      st = d->file.write (stream, EXS_LittleEndianExplicit, EET_ExplicitLength, &wcache, EGL_recalcGL,
                          EPD_noChange, 0, 0, 0, EWM_updateMeta);
      d->file.transferEnd ();
      if (st.good ())
        stream.flush ();
      if (st.good () && !stream.good ())
        st = stream.status ();
      if (st.good () && !stream.isFlushed ())
        st = EC_StreamNotifyClient;
    }
  catch (...)
    {
      st = EC_IllegalCall;
    }
  if (consumer.error_number () != 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path,
                   g_strerror (consumer.error_number ()));
      return FALSE;
    }
  if (st.bad ())
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, st.text ());
      return FALSE;
    }
  if (bytes != NULL)
    *bytes = consumer.written ();
  return TRUE;
}

extern "C" gboolean
ctr_dcm_save (CtrDcm *d, const char *path, GError **error)
{
  int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      return FALSE;
    }
  gboolean ok = ctr_dcm_save_fd (d, fd, path, NULL, error);
  if (close (fd) != 0 && ok)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      ok = FALSE;
    }
  return ok;
}

extern "C" char *
ctr_dcm_new_uid (void)
{
  char buf[100];
  dcmGenerateUniqueIdentifier (buf, SITE_INSTANCE_UID_ROOT);
  return g_strdup (buf);
}
