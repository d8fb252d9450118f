/* cli-bench-dataset.h — `ctrecon-cli bench dataset`: one reconstruction of
 * a dataset timed in-process, the engine's own wall time (the figure the
 * Python package's per-call overhead is measured against). */
#pragma once

/**
 * ctr_cli_bench_dataset:
 * `bench dataset GEOMETRY.json|DICOM [--method M] [--iterations K]
 * [--repeats R]`.  argv[0] is the benchmark's name ("dataset").  Loads the
 * dataset once, then R times (default 3) runs ctr_reconstruct on it with
 * the method's defaults and K iterations, on the default grid (the
 * reference's, else the field of view's: the grid `reconstruct` and
 * Python's `reconstruct` choose), metrics over the field-of-view disc, a
 * report after every iteration (residual and metrics, as `reconstruct`
 * prints them), no output written.  One JSON object as the last line of stdout: wall_s (the
 * R in-process wall times of the whole ctr_reconstruct call, plan and
 * operator set-up included, seconds), median_s and the process's peak
 * resident memory (Linux keeps a parent's peak across fork and exec: run it
 * from a shell for its own).  Returns 0, 1 (failure, message on stderr) or 2 (bad usage).
 */
int ctr_cli_bench_dataset (int argc, char **argv);
