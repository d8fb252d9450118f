/* cli-bench-fdk.h — `ctrecon-cli bench fdk`: FDK timing on a synthetic scan. */
#pragma once

#include <glib.h>

/**
 * ctr_cli_bench_fdk:
 * `bench fdk --volume N|NXxNYxNZ --views V --detector R C [--backend cpu]
 * [--repeat K]`.  argv[0] is the benchmark's name ("fdk").  Makes the exact
 * cone-beam projections of a uniform water cylinder (SOD 1000 mm, SDD
 * 1536 mm, R × C panel of 409.6 mm width, views over 360°), then times FDK
 * (filtering, back-projection, total; the best of K runs) and prints one JSON
 * object as the last line of stdout, with GUPS = NX·NY·NZ·V / s / 2³⁰
 * (iFDK §2.3) for the back-projection and for the whole FDK.  Returns 0, 1
 * (failure, message on stderr) or 2 (bad usage).
 */
int ctr_cli_bench_fdk (int argc, char **argv);

/* "N" (N³) or "NXxNYxNZ", each 1 … 16384, into @n; FALSE otherwise. */
gboolean ctr_cli_bench_parse_volume (const char *text, guint n[3]);
