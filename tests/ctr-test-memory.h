/* ctr-test-memory.h — the address-space limit the no-abort tests run
 * under: a few MiB above what the process has already reserved, so that
 * the data fit and the buffer under test does not.  (An address-space
 * limit stops the sanitizers: their tests skip under CTR_SANITIZED.) */
#pragma once

#include <glib.h>
#include <string.h>
#include <sys/resource.h>

/* VmSize of this process, bytes. */
static inline guint64
test_vm_size (void)
{
  g_autofree char *st = NULL;
  g_assert_true (g_file_get_contents ("/proc/self/status", &st, NULL, NULL));
  const char *l = strstr (st, "VmSize:");
  g_assert_nonnull (l);
  return g_ascii_strtoull (l + 7, NULL, 10) * 1024;
}

/* An address-space limit @room bytes above what this process has reserved. */
static inline void
test_limit_room (guint64 room)
{
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = test_vm_size () + room;
  g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
}
