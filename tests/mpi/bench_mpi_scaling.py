"""Strong and weak scaling of ctrecon-cli under mpirun on this machine
(`meson test -C build --benchmark --suite mpi`, or run directly with
CTR_CLI and CTR_SHARED_DATA set).

Configurations: 1 and 2 ranks × 1 and 2 OpenMP threads per rank, every run
through mpirun (1 rank too: the same code path), the repeats interleaved
(config A, B, C, … then again) so that a change in the machine's load hits
all of them alike; the load average is printed before and after.  Times: the
median over the repeats of
  - SIRT on savu-parallel-tiff (3 iterations): the slowest rank's seconds per
    iteration (the solver's update alone) and the wall time of the run;
  - FDK on head-cone-small onto a 256 × 256 × NZ grid of 1 mm voxels: the
    distributed FDK's seconds (filter, all-gather, back-projection, reduce).
Strong: the whole problem on 1 or 2 ranks.  Weak: 1 rank gets half of it
(savu: its first 68 detector rows, a dataset written here; FDK: NZ/2).
"""
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import tifffile

from mpi_common import DATA, mpi_env, mpirun_cmd, require_mpi

require_mpi()
SAVU = os.path.join(DATA, "savu-parallel-tiff")
CONE = os.path.join(DATA, "head-cone-small", "geometry.json")
REPEATS = int(os.environ.get("CTR_BENCH_REPEATS", "3"))
FDK_NZ = 160


def savu_rows(dst, rows):
    """savu-parallel-tiff cut to its first @rows detector rows (a new dataset)."""
    g = json.load(open(os.path.join(SAVU, "geometry.json")))
    os.makedirs(os.path.join(dst, "tiffs"))
    for name in (g["flat"], g["dark"]):
        tifffile.imwrite(os.path.join(dst, name), tifffile.imread(os.path.join(SAVU, name))[:rows])
    pat = g["projections"]["pattern"]
    for k in range(g["views"]):
        tifffile.imwrite(os.path.join(dst, pat % k), tifffile.imread(os.path.join(SAVU, pat % k))[:rows])
    g["detector_rows"] = rows
    g["projections"]["image_shape"][0] = rows
    g["flat_dark"]["image_shape"][0] = rows
    g["name"] = f"savu-first-{rows}-rows"
    json.dump(g, open(os.path.join(dst, "geometry.json"), "w"))
    return os.path.join(dst, "geometry.json")


def run(ranks, threads, args, metrics):
    env = mpi_env(OMP_NUM_THREADS=threads)
    t0 = time.monotonic()
    p = subprocess.run(mpirun_cmd(ranks, *args, "--metrics", metrics, env=env), capture_output=True, text=True,
                       env=env, timeout=1200)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{p.stderr[-2000:]}")
    rows = list(csv.DictReader(open(metrics)))
    return wall, rows, p.stderr


def seconds(line, name):
    m = re.search(name + r" ([0-9.]+) s", line)
    return float(m.group(1)) if m else None


def model_constants(cases, notes, times, tmp):
    """The per-rank costs the model uses, from the 1-rank runs (last repeat's
    per-rank lines; the dataset load timed here)."""
    def case(what, threads):
        return next(i for i, c in enumerate(cases) if c[0] == what and c[1] == 1 and c[2] == threads)
    run1 = seconds(notes[case("SIRT strong", 1)][-1], "run")
    run2 = seconds(notes[case("SIRT strong", 2)][-1], "run")
    plan = seconds(notes[case("SIRT strong", 1)][-1], "plan")
    fdk = notes[case("FDK strong", 1)][-1]
    loads = []
    for _ in range(3):
        t0 = time.monotonic()
        # FBP onto 16 × 16 pixels: the run is the dataset's reading and conversion.
        subprocess.run([os.environ["CTR_CLI"], "reconstruct", os.path.join(SAVU, "geometry.json"), "--size", "16",
                        "--no-reference", "-o", os.path.join(tmp, "load.tif")], capture_output=True,
                       env=mpi_env(OMP_NUM_THREADS=1), check=True)
        loads.append(time.monotonic() - t0)
    proj_mb = 91 * 135 * 160 * 4 / 1e6
    return {
        "sirt_s_per_slice_it_1t": run1 / (3 * 135),
        "threads2_speedup": run1 / run2,
        "plan_cache_s": plan,
        "load_s_per_mb": statistics.median(loads) / proj_mb,
        "fdk_gups_per_core": 256 * 256 * FDK_NZ * 96 / seconds(fdk, "back-projection") / 2 ** 30,
        "fdk_filter_s_per_mpix": seconds(fdk, "filter") / (96 * 48 * 64 / 1e6),
    }


def main():
    tmp = tempfile.mkdtemp()
    try:
        os.environ["CTR_CACHE_DIR"] = os.path.join(tmp, "cache")
        half = savu_rows(os.path.join(tmp, "savu68"), 68)
        out = os.path.join(tmp, "out.tif")
        sirt = ["--method", "sirt", "--iterations", "3", "--no-reference", "-o", out]
        fdk = ["--voxel-size", "1", "--no-reference", "-o", out]
        cases = []
        for ranks in (1, 2):
            for threads in (1, 2):
                cases.append(("SIRT strong", ranks, threads, ["reconstruct", os.path.join(SAVU, "geometry.json"), *sirt]))
                cases.append(("FDK strong", ranks, threads, ["reconstruct", CONE, "--size", f"256x256x{FDK_NZ}", *fdk]))
            # weak: the 1-rank runs get half of the 2-rank problem
        for threads in (1, 2):
            cases.append(("SIRT weak", 1, threads, ["reconstruct", half, *sirt]))
            cases.append(("FDK weak", 1, threads, ["reconstruct", CONE, "--size", f"256x256x{FDK_NZ // 2}", *fdk]))
        # Warm the matrix cache (the runs below load it; setup is reported
        # apart).  Its key holds the thread count (the matrix is stored in
        # one part per thread), so once per thread count.
        for a in (os.path.join(SAVU, "geometry.json"), half):
            for threads in (1, 2):
                run(1, threads, ["reconstruct", a, "--method", "sirt", "--iterations", "1", "--no-reference",
                                 "-o", out], os.path.join(tmp, "warm.csv"))
        print(f"load average before: {open('/proc/loadavg').read().split()[:3]}", flush=True)
        times = {i: [] for i in range(len(cases))}
        notes = {}
        for rep in range(REPEATS):
            for i, (what, ranks, threads, args) in enumerate(cases):
                wall, rows, err = run(ranks, threads, args, os.path.join(tmp, "m.csv"))
                per_it = statistics.median(float(r["iteration_s"]) for r in rows)
                times[i].append((wall, per_it, float(rows[-1]["elapsed_s"])))
                notes[i] = [line for line in err.splitlines() if line.startswith("  rank")]
                print(f"  rep {rep + 1} {what:12s} {ranks} rank(s) × {threads} thread(s): wall {wall:.2f} s, "
                      f"{'s/iteration' if 'SIRT' in what else 'FDK s'} {per_it:.3f}", flush=True)
        print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
        print("\n| workload | ranks × threads | wall s (median) | per-iteration s / FDK s (median) |")
        print("|---|---|---|---|")
        for i, (what, ranks, threads, args) in enumerate(cases):
            w = statistics.median(t[0] for t in times[i])
            it = statistics.median(t[1] for t in times[i])
            print(f"| {what} | {ranks} × {threads} | {w:.2f} | {it:.3f} |")
        print("\nper-rank lines of the last repeat:")
        for i, (what, ranks, threads, args) in enumerate(cases):
            for line in notes[i]:
                print(f"  [{what}, {ranks}×{threads}] {line.strip()}")
        print("\nconstants for tests/mpi/scaling_model.py --json:")
        print(json.dumps(model_constants(cases, notes, times, tmp)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
