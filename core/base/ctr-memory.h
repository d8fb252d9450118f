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

/* The memory this process may count on and the bound that sets it. */
typedef struct
{
  guint64 bytes;      /* bytes; G_MAXUINT64 when no bound is known */
  const char *bound;  /* static: "available memory", "physical memory",
                       * "cgroup v2 limit", "cgroup v1 limit",
                       * "address-space limit, ulimit -v",
                       * "CTR_MEMORY_LIMIT_MB"; NULL from
                       * ctr_memory_limit_parse when none applied */
} CtrMemoryLimit;

/**
 * ctr_memory_limit_parse:
 * @root: the folder that stands for "/" ("/" on a live system; a test's
 *   fixture folder holding proc/meminfo, proc/self/cgroup,
 *   proc/self/status and sys/fs/cgroup/...).
 * @rlimit_as: the soft RLIMIT_AS in bytes, G_MAXUINT64 for none.
 * @env_mb: (nullable): the value of CTR_MEMORY_LIMIT_MB.
 * @out: (out): the smallest of every bound found, in bytes:
 *   - MemAvailable of proc/meminfo (MemTotal where the kernel has no
 *     MemAvailable);
 *   - the process's own cgroup (proc/self/cgroup): v2 memory.max under
 *     sys/fs/cgroup, v1 memory.limit_in_bytes under sys/fs/cgroup/memory
 *     (values ≥ 2⁶² are v1's "unlimited"), each the smallest from the group
 *     up to the mount's root;
 *   - the address-space room left: @rlimit_as − VmSize of
 *     proc/self/status (libraries reserve address space);
 *   - @env_mb, a positive number of MiB (the fuzz harnesses set it below
 *     libFuzzer's -malloc_limit_mb; tests use it for a known limit).
 * Files that cannot be read are no bound.  Reads only files; no errors.
 */
void ctr_memory_limit_parse (const char *root, guint64 rlimit_as, const char *env_mb, CtrMemoryLimit *out);

/**
 * ctr_memory_limit:
 * @out: (out): ctr_memory_limit_parse() of the live system ("/", the
 *   process's getrlimit (RLIMIT_AS), $CTR_MEMORY_LIMIT_MB), physical
 *   memory (sysconf) where /proc gave nothing.  Re-read when the last
 *   reading is more than 100 ms old (available memory changes; a
 *   reading is a few small files of /proc and /sys).  Thread-safe.
 */
void ctr_memory_limit (CtrMemoryLimit *out);

/* ctr_memory_limit()'s bytes. Thread-safe. */
guint64 ctr_memory_limit_bytes (void);

/* "1.1 GiB available (cgroup v1 limit)", of ctr_memory_limit(). (transfer
 * full): g_free. */
char *ctr_memory_limit_describe (void);

/**
 * ctr_memory_check:
 * @bytes: what an operation will need, in bytes (G_MAXUINT64 for "more than
 *   64 bits can count").
 * @what: (nullable): what needs it, for the message ("the projections of
 *   1000000000 views × 1 row × 736 columns").
 * Returns: TRUE when @bytes fits in ctr_memory_limit_bytes(); else FALSE
 *   with CTR_ERROR_OUT_OF_MEMORY: "WHAT need 2.7 TiB of memory;
 *   1.1 GiB available (cgroup v1 limit)".
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

/* Sets CTR_ERROR_OUT_OF_MEMORY "cannot allocate BYTES for WHAT; LIMIT
 * available (BOUND)" on @error (an allocation of @bytes that failed). */
void ctr_memory_set_error (GError **error, guint64 bytes, const char *what);

G_END_DECLS
