/* ctr-fdk-zrun.h — the inner loop of the FDK back-projection (private to
 * core/analytic): one voxel column's run of slices interpolated along one
 * blended detector column, without gathers.
 *
 * Along a z column the detector row of slice k is r(k) = a + d·k (iFDK,
 * Chen et al., SC19, Theorems 2-3; ctr-fdk-backproject.c), so 16 (AVX-512)
 * or 8 (AVX2) consecutive slices read at most |d|·15 + 2 (|d|·7 + 2)
 * consecutive samples of the line.  The kernels load that window as two
 * registers and pick each slice's two samples with a two-register permute
 * (vpermt2ps; vpermps twice and a blend under AVX2) instead of a gather,
 * which compilers emulate element by element.  Valid while
 * |d| <= CTR_FDK_ZRUN_MAX_STEP rows per slice; the caller keeps its scalar
 * loop otherwise.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Largest |d| (detector rows per slice) the kernels take: the 8-lane window
 * of 16 samples holds 7·|d| + 2 of them. */
#define CTR_FDK_ZRUN_MAX_STEP 1.85f

/* Floats a line needs beyond its last sample (index nr + 1 of the guarded
 * line) for the kernels' window loads; their values are never used. */
#define CTR_FDK_ZRUN_PAD 32

/**
 * CtrFdkZRun:
 * For k in [@lo, @hi] (0 <= lo <= hi): r = @a + @d·k, i = ⌊r⌋, f = r − i,
 *   @acc[k] += @w · (line[i] + f·(line[i+1] − line[i])),
 * and when @accm is not NULL (iFDK Theorem 1, the z-mirror) also
 *   @accm[−k] += @w · (line[t] + f·(line[t−1] − line[t])), t = @top − i.
 * @line: the blended detector column, indices −1 … nr valid (zero guards at
 *   −1 and nr) and CTR_FDK_ZRUN_PAD readable floats after index nr; every
 *   r(k) within [0, nr − 1] (the caller's row range); |@d| <=
 *   CTR_FDK_ZRUN_MAX_STEP.  @acc, @accm: the column's accumulators (floats,
 *   1/mm·weight units of the caller), written only at the indices above.
 */
typedef void (*CtrFdkZRun) (float *acc, float *accm, const float *line, int lo, int hi,
                            float a, float d, float w, int top);

/**
 * ctr_fdk_zrun_select:
 * The fastest kernel this CPU runs (AVX-512F, else AVX2 + FMA), or NULL
 * (other CPUs, other compilers: the caller's scalar loop).
 * CTR_FDK_SIMD=generic|avx2|avx512 in the environment asks for one (tests);
 * a kernel the CPU lacks is never returned.  @name: (out) (optional): its
 * name ("avx512", "avx2", "generic"), static.
 */
CtrFdkZRun ctr_fdk_zrun_select (const char **name);

G_END_DECLS
