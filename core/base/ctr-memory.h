/* ctr-memory.h — sizes that come from files, checked against the machine
 * before anything is allocated.
 *
 * A file can claim any size ("views": 1e9, a TIFF of 65535 pages of
 * 65535 × 65535, a DICOM with 10⁶ frames).  Every loader asks
 * ctr_memory_check() before it allocates what such a size implies, and
 * allocates with the non-aborting allocators (ctr_memory_try_new()), so a
 * hostile file gives CTR_ERROR_OUT_OF_MEMORY with both figures in the
 * message — never a process killed by GLib's allocator or by the kernel's
 * OOM killer after minutes of swapping.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_memory_limit_bytes:
 * What this process may count on, in bytes: the physical memory
 * (sysconf (_SC_PHYS_PAGES) × page size), lowered by a cgroup v2 limit
 * (/sys/fs/cgroup/memory.max) and by the environment variable
 * CTR_MEMORY_LIMIT_MB (a positive number of MiB; the fuzz harnesses set it
 * below libFuzzer's -malloc_limit_mb).  Read once; thread-safe.
 */
guint64 ctr_memory_limit_bytes (void);

/**
 * ctr_memory_check:
 * @bytes: what an operation will need, in bytes (G_MAXUINT64 for "more than
 *   64 bits can count").
 * @what: (nullable): what needs it, for the message ("the projections of
 *   1000000000 views × 1 row × 736 columns").
 * Returns: TRUE when @bytes fits in ctr_memory_limit_bytes(); else FALSE
 *   with CTR_ERROR_OUT_OF_MEMORY: "WHAT need 2.7 TiB of memory; this
 *   machine has 23.4 GiB".
 */
gboolean ctr_memory_check (guint64 bytes, const char *what, GError **error);

/* @a × @b, saturated at G_MAXUINT64 (for ctr_memory_check). */
static inline guint64
ctr_memory_mul (guint64 a, guint64 b)
{
  return (b != 0 && a > G_MAXUINT64 / b) ? G_MAXUINT64 : a * b;
}

/* @a + @b, saturated at G_MAXUINT64. */
static inline guint64
ctr_memory_add (guint64 a, guint64 b)
{
  return a > G_MAXUINT64 - b ? G_MAXUINT64 : a + b;
}

/**
 * ctr_memory_try_new:
 * @n, @size: @n elements of @size bytes (@zero: zero-filled).
 * ctr_memory_check() of n·size, then g_try_malloc_n / g_try_malloc0_n.
 * Returns: (transfer full): the block (g_free; at least one byte even when
 *   @n is 0), or NULL with CTR_ERROR_OUT_OF_MEMORY naming @what and the size.
 */
gpointer ctr_memory_try_new (gsize n, gsize size, gboolean zero, const char *what, GError **error);

G_END_DECLS
