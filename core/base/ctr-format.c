/* ctr-format.c — numbers for messages (see ctr-format.h). */
#include "base/ctr-format.h"

char *
ctr_format_bytes (guint64 bytes)
{
  if (bytes == G_MAXUINT64)
    return g_strdup ("more than 16 EiB");
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}
