/* fuzz-common.h — what the libFuzzer harnesses of tests/fuzz share.
 *
 * Each harness defines LLVMFuzzerTestOneInput (and may define
 * fuzz_init, called once).  Built with clang -fsanitize=fuzzer (meson
 * -Dfuzz=enabled, packaging/run-fuzz.sh) it is a libFuzzer target; built
 * with fuzz-replay-main.c it replays the committed corpus and reproducers
 * as a plain test of the normal and the sanitizer suites.
 *
 * The loaders take paths, so an input is written to a private temporary
 * folder first.  CTR_MEMORY_LIMIT_MB is set to 1024 (below libFuzzer's
 * -malloc_limit_mb=2048): a file that claims more is refused by
 * ctr_memory_check(), as it would be on a machine of that size, instead of
 * tripping the fuzzer's allocation limit.  GLib criticals and warnings are
 * fatal: a g_return_if_fail reached from a file is a finding.
 */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

/* The harness's private folder (created on first use, removed at exit). */
const char *fuzz_dir (void);
/* Writes @size bytes to fuzz_dir()/@name and returns the path (g_free). */
char *fuzz_write (const char *name, const uint8_t *data, size_t size);
/* Removes fuzz_dir()/@name, a file or a folder of files. */
void fuzz_remove (const char *name);
/* Once per process: environment, logging, then the harness's fuzz_init. */
void fuzz_setup (void);
/* Defined by each harness (may do nothing): files every input shares. */
void fuzz_init (void);

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

G_END_DECLS
