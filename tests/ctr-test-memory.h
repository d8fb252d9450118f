/* ctr-test-memory.h — the address-space limit the no-abort tests run
 * under: a few MiB above what the process has already reserved, so that
 * the data fit and the buffer under test does not.  (An address-space
 * limit stops the sanitizers: their tests skip under CTR_SANITIZED.) */
#pragma once

#include <glib.h>
#include <string.h>
#include <sys/resource.h>

/* @key ("VmSize", "VmPeak") of this process's /proc/self/status, bytes. */
static inline guint64
test_vm_status (const char *key)
{
  g_autofree char *st = NULL;
  g_autofree char *label = g_strconcat (key, ":", NULL);
  g_assert_true (g_file_get_contents ("/proc/self/status", &st, NULL, NULL));
  const char *l = strstr (st, label);
  g_assert_nonnull (l);
  return g_ascii_strtoull (l + strlen (label), NULL, 10) * 1024;
}

/* VmSize of this process, bytes. */
static inline guint64
test_vm_size (void)
{
  return test_vm_status ("VmSize");
}

/* An address-space limit @room bytes above what this process has reserved. */
static inline void
test_limit_room (guint64 room)
{
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = test_vm_size () + room;
  g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
}

/* A no-abort case: @child (@what) runs in a subprocess (it sets its own
 * limit and must end with CTR_ERROR_OUT_OF_MEMORY, its message on
 * stderr); the child must pass and its stderr match @pattern.  Skipped
 * under the sanitizers. */
static inline void
test_no_abort_trap (void (*child) (const char *what), const char *what, const char *pattern)
{
  if (g_getenv ("CTR_SANITIZED") != NULL)
    {
      g_test_skip ("an address-space limit stops the sanitizers");
      return;
    }
  if (g_test_subprocess ())
    {
      child (what);
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (pattern);
}
