/* ctr-format.h — numbers for messages. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_format_bytes:
 * @bytes: a size in bytes; G_MAXUINT64 stands for "more than 64 bits can
 *   count" (ctr_memory_mul's saturation).
 * Returns: (transfer full): the size in the unit that fits, IEC binary units
 *   with one decimal ("512 bytes", "11.0 MiB", "2.7 TiB"; g_format_size_full
 *   with G_FORMAT_SIZE_IEC_UNITS), or "more than 16 EiB".  g_free.
 */
char *ctr_format_bytes (guint64 bytes);

G_END_DECLS
