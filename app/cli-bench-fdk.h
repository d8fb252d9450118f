/* cli-bench-fdk.h — `ctrecon-cli bench fdk`: FDK timing on a synthetic scan. */
#pragma once

#include <glib.h>
#include "ctrecon.h"

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

/* The benchmarks' cone-beam scan: a water cylinder (μ 0.0192 /mm, radius
 * 0.4 × the volume's width, height 0.6 × its height) projected with exact
 * line integrals over @views views of 360° onto a flat @rows × @cols panel
 * 409.6 mm wide (SOD 1000 mm, SDD 1536 mm); *@grid: @n voxels filling
 * 245 mm in x and y, centred, @voxel_z mm along z (0: the in-plane size).
 * Returns (transfer full) the projections and the geometry in *@g_out, or
 * NULL with the projector's error. */
CtrProjections *ctr_cli_bench_cylinder_scan (guint views, guint rows, guint cols, const guint n[3], double voxel_z,
                                             CtrGeometry **g_out, CtrGrid *grid, GError **error);
