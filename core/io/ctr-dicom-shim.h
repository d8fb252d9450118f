/* ctr-dicom-shim.h — the C interface of the one C++ file that includes DCMTK.
 *
 * Internal to core/io (not part of the public API, not in ctrecon.h).  The
 * rest of the project sees DICOM only through these plain C calls; every
 * failure comes back as a GError in the CTR_ERROR domain, DCMTK's own
 * logging is switched off, and no C++ exception or DCMTK type crosses this
 * boundary.
 *
 * Reading: ctr_dcm_open() loads a whole file (meta header + data set).  Tags
 * are addressed by (group, element).  Lookups of a plain tag search the top
 * level of the data set; the *_frame variants of Enhanced multi-frame objects
 * search the Per-frame Functional Groups item of the frame first, then the
 * Shared Functional Groups, then the top level (each recursively through
 * nested sequences).  Private tags are found through their Private Creator:
 * ctr_dcm_private_tag() maps (group, creator, low byte) to the element
 * number actually used in the file.
 *
 * Writing: ctr_dcm_new() gives an empty data set; put values, then
 * ctr_dcm_save() writes a DICOM Part 10 file (Explicit VR Little Endian, meta
 * header made from SOP Class/Instance UID).  ctr_dcm_save() writes exactly
 * the path it is given: atomic replacement (temp name + rename) is the
 * caller's job.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CtrDcm CtrDcm;

/* The most frames of one object ctr_dcm_read_pixels reads (a bound on what a
 * file may claim). */
#define CTR_DICOM_MAX_FRAMES 1000000u

/* Loads @path.  CTR_ERROR_IO (missing, unreadable), CTR_ERROR_FORMAT (not
 * DICOM, truncated, malformed). */
CtrDcm *ctr_dcm_open (const char *path, GError **error);
/* An empty data set for writing. */
CtrDcm *ctr_dcm_new (void);
void ctr_dcm_free (CtrDcm *d);

/* TRUE when the first 132 bytes of @path are a DICOM Part 10 preamble ("DICM" at 128). */
gboolean ctr_dcm_has_preamble (const char *path);

/* TRUE when the tag is present at the top level (an empty value counts as present). */
gboolean ctr_dcm_has (CtrDcm *d, guint16 group, guint16 elem);

/* The whole value as a string (multi-valued: backslash-separated), trailing
 * padding removed; NULL when absent or empty.  g_free. */
char *ctr_dcm_get_string (CtrDcm *d, guint16 group, guint16 elem);

/* Number of numeric values of a tag (0 when absent).  Numeric VRs: US SS UL
 * SL FL FD DS IS; UN/OB of a length that is a multiple of 4 (an unknown
 * private tag in an Implicit VR file) is read as little-endian float32. */
guint ctr_dcm_count (CtrDcm *d, guint16 group, guint16 elem);
/* Value @index of a numeric tag as a double; FALSE when absent/not numeric. */
gboolean ctr_dcm_get_double (CtrDcm *d, guint16 group, guint16 elem, guint index, double *out);
/* As ctr_dcm_get_double, for frame @frame (0-based) of an Enhanced multi-frame object. */
gboolean ctr_dcm_get_double_frame (CtrDcm *d, guint frame, guint16 group, guint16 elem,
                                   guint index, double *out);
/* The element number of private tag (@group, @low) of the block reserved by
 * @creator (the value of (group,00xx)); when no block carries @creator, the
 * conventional block 0x10 is assumed ((group, 0x1000 | low)).  */
guint16 ctr_dcm_private_tag (CtrDcm *d, guint16 group, const char *creator, guint8 low);

/**
 * ctr_dcm_read_pixels:
 * All frames of the Pixel Data as float32 [frame][row][col], col fastest, with
 * the Modality LUT applied (value = stored · RescaleSlope + RescaleIntercept;
 * slope 1 and intercept 0 when absent).  Uncompressed 8/16/32-bit, signed or
 * unsigned (BitsStored honoured: high bits masked, sign taken from bit
 * BitsStored - 1), one sample per pixel.  @rows, @cols, @frames (out) receive the
 * shape (Rows, Columns, NumberOfFrames or 1).  g_free the result.
 * CTR_ERROR_FORMAT (no Pixel Data, missing Rows/Columns/BitsAllocated, data
 * shorter than the shape says), CTR_ERROR_UNSUPPORTED (compressed transfer
 * syntax, colour), CTR_ERROR_OUT_OF_MEMORY.
 */
float *ctr_dcm_read_pixels (CtrDcm *d, guint *rows, guint *cols, guint *frames, GError **error);

/* Writing (values replace existing ones).  @value of put_string may be ""
 * (an empty Type 2 attribute).  The VR is the dictionary's; private tags
 * need put_private_floats / put_string with a known VR through @vr
 * ("LO", "CS", "US", ...; NULL = the dictionary's). */
gboolean ctr_dcm_put_string (CtrDcm *d, guint16 group, guint16 elem, const char *vr,
                             const char *value, GError **error);
gboolean ctr_dcm_put_u16 (CtrDcm *d, guint16 group, guint16 elem, const char *vr, guint16 value,
                          GError **error);
/* FL (float32) values, any count; used for private DICOM-CT-PD tags. */
gboolean ctr_dcm_put_floats (CtrDcm *d, guint16 group, guint16 elem, const float *values,
                             guint n, GError **error);
/* A value inside an Enhanced multi-frame object's functional groups: in item
 * @frame of the Per-frame Functional Groups Sequence (5200,9230) (@frame < 0:
 * the Shared Functional Groups Sequence (5200,9229)), inside the first item
 * of the functional group macro's sequence (@seq_group,@seq_elem), set
 * (@group,@elem) with VR @vr to @value.  Items are created as needed. */
gboolean ctr_dcm_put_frame_string (CtrDcm *d, gint frame, guint16 seq_group, guint16 seq_elem,
                                   guint16 group, guint16 elem, const char *vr, const char *value,
                                   GError **error);
/* Pixel Data as OW from @n 16-bit words (the caller sets Rows, Columns, Bits*, ...). */
gboolean ctr_dcm_put_pixels16 (CtrDcm *d, const guint16 *data, gsize n, GError **error);
/* Writes @path as a Part 10 file, Explicit VR Little Endian.  CTR_ERROR_IO. */
gboolean ctr_dcm_save (CtrDcm *d, const char *path, GError **error);
/* As ctr_dcm_save, onto the open file descriptor @fd (not closed, not
 * synced; @path names it in messages), with write(2)'s own error: a full
 * disk is CTR_ERROR_IO "cannot write PATH: No space left on device".
 * @bytes (out, optional): the bytes written. */
gboolean ctr_dcm_save_fd (CtrDcm *d, int fd, const char *path, guint64 *bytes, GError **error);

/* A new globally unique UID (DCMTK's root for generated UIDs).  g_free. */
char *ctr_dcm_new_uid (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrDcm, ctr_dcm_free)

G_END_DECLS
