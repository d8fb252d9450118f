/* cli-bench-cone.h — `ctrecon-cli bench cone`: iterative cone-beam timing. */
#pragma once

/**
 * ctr_cli_bench_cone:
 * `bench cone [--volume N|NXxNYxNZ] [--views V] [--rows R] [--cols C]
 * [--voxel-z MM] [--method sirt|sart|cgls|pwls|asd-pocs] [--iterations K]
 * [--backend cpu|cuda]`.  argv[0] is the benchmark's name ("cone").  The
 * scan of `bench fdk` (a water cylinder with exact line integrals; SOD
 * 1000 mm, SDD 1536 mm, a flat R × C panel 409.6 mm wide, V views over
 * 360°; default W4/W5: 256 × 256 × 108 voxels of 0.957 mm from 360 views of
 * 256 × 256; `--voxel-z 1.5` gives the z size of W4's head grid, whose
 * taller volume the rays cross over 1.57× as many planes), then K iterations of the method on the cone-beam projector
 * pair of the backend asked for (no silent fall-back: exit 1 when it cannot
 * run there).  One JSON object as the last line of stdout: iteration_s, the
 * median wall time of a reported iteration (from the second on: update,
 * residual and the image brought back; the figure to compare backends by),
 * the medians of the update's and the residual's own times (device time on
 * a GPU), the total, the GUPS of one forward plus one back-projection per
 * iteration (NX·NY·NZ·V / s / 2³⁰ × 2, over iteration_s) and the host's
 * peak resident memory.  Returns 0, 1 (failure, message on stderr) or 2 (bad usage).
 */
int ctr_cli_bench_cone (int argc, char **argv);
