"""The Python package's per-call overhead (issue 32's benchmark): W1's scan
(a noiseless Shepp-Logan fan-beam scan, 720 views x 1024 columns, 512 x 512
pixels) reconstructed with parallel ART, K iterations, by
ctrecon.reconstruct() (wall time of the call, dataset already loaded) and
by `ctrecon-cli bench dataset` (the engine's in-process wall time of the
same ctr_reconstruct call, the CLI's own loading excluded), in interleaved
rounds on one machine.  Prints the medians, the overhead
(python - cli) / cli and Python's peak memory (the CLI's, run from here,
inherits Python's peak across fork and exec, so it is not printed); fails above the
issue's 2 %.  A benchmark (`meson test --benchmark`), never a test.
Environment: CTR_BENCH_SIZE (default 512), CTR_BENCH_ITERATIONS (10),
CTR_BENCH_ROUNDS (5)."""
import json
import os
import resource
import statistics
import sys
import time

from common import cli, require_module, tempdir

ctrecon = require_module()
n = int(os.environ.get("CTR_BENCH_SIZE", 512))
k = int(os.environ.get("CTR_BENCH_ITERATIONS", 10))
rounds = int(os.environ.get("CTR_BENCH_ROUNDS", 5))

with tempdir() as tmp:
    r = cli("simulate", "--phantom", "shepp-logan", "-g", "fan-flat", "--views", 720 * n // 512,
            "--cols", 1024 * n // 512, "--size", n, "--i0", 0, "-o", tmp)
    if r.returncode != 0:
        sys.exit(f"simulate failed: {r.stderr}")
    path = os.path.join(tmp, "geometry.json")
    ds = ctrecon.load(path)
    ctrecon.reconstruct(ds, "part", 1)  # the matrix cache filled once, for both
    py, cl = [], []
    for i in range(rounds):
        t0 = time.perf_counter()
        ctrecon.reconstruct(ds, "part", k)
        py.append(time.perf_counter() - t0)
        r = cli("bench", "dataset", path, "--method", "part", "--iterations", k, "--repeats", 1)
        if r.returncode != 0:
            sys.exit(f"bench dataset failed: {r.stderr}")
        out = json.loads(r.stdout.strip().splitlines()[-1])
        cl.append(out["median_s"])
        print(f"round {i + 1}: python {py[-1]:.4f} s, cli in-process {cl[-1]:.4f} s", flush=True)
    mp, mc = statistics.median(py), statistics.median(cl)
    overhead = (mp - mc) / mc
    py_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"size": n, "iterations": k, "rounds": rounds, "python_median_s": mp, "cli_median_s": mc,
                      "overhead": overhead, "python_peak_rss_mb": py_rss}))
    sys.exit(0 if overhead <= 0.02 else 1)
