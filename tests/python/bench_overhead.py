"""The Python package's per-call overhead (issue 32's benchmark): W1's scan
(a noiseless Shepp-Logan fan-beam scan, 720 views x 1024 columns, 512 x 512
pixels) reconstructed with parallel ART, K iterations, by
ctrecon.reconstruct() (wall time of the call, dataset already loaded) and
by `ctrecon-cli bench dataset` (the engine's in-process wall time of the
same ctr_reconstruct call, the CLI's own loading excluded), in rounds on one
machine whose order alternates (Python first in odd rounds, the CLI first
in even ones) so that neither side always runs on the warmer cache.  Each
round gives a paired overhead (python - cli) / cli; printed: their median,
minimum and maximum, the medians of both sides, the load average before and
after.  Then the Python layer's own fixed cost, free of W1's noise: the
same calls on a tiny scan (16 views x 24 columns, 16², FBP and PART with
K iterations), CTR_BENCH_TINY_REPEATS calls each side, medians in
microseconds.  Fails when the median W1 overhead is above the issue's 2 %.
A benchmark (`meson test --benchmark`), never a test.
Environment: CTR_BENCH_SIZE (default 512), CTR_BENCH_ITERATIONS (10),
CTR_BENCH_ROUNDS (8), CTR_BENCH_TINY_REPEATS (200)."""
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
rounds = int(os.environ.get("CTR_BENCH_ROUNDS", 8))
tiny_repeats = int(os.environ.get("CTR_BENCH_TINY_REPEATS", 200))


def scan(folder, views, cols, size):
    r = cli("simulate", "--phantom", "shepp-logan", "-g", "fan-flat", "--views", views, "--cols", cols,
            "--size", size, "--i0", 0, "-o", folder)
    if r.returncode != 0:
        sys.exit(f"simulate failed: {r.stderr}")
    return os.path.join(folder, "geometry.json")


def cli_time(path, method, iterations, repeats):
    args = ["bench", "dataset", path, "--method", method, "--repeats", repeats]
    if method != "fbp":
        args += ["--iterations", iterations]
    r = cli(*args)
    if r.returncode != 0:
        sys.exit(f"bench dataset failed: {r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])["median_s"]


def py_time(ds, method, iterations, repeats):
    kw = {} if method == "fbp" else {"iterations": iterations}
    t = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ctrecon.reconstruct(ds, method, **kw)
        t.append(time.perf_counter() - t0)
    return statistics.median(t)


load_before = os.getloadavg()
with tempdir() as tmp:
    path = scan(os.path.join(tmp, "w1"), 720 * n // 512, 1024 * n // 512, n)
    ds = ctrecon.load(path)
    ctrecon.reconstruct(ds, "part", 1)  # the matrix cache filled once, for both
    py, cl, ratio = [], [], []
    for i in range(rounds):
        if i % 2 == 0:
            p, c = py_time(ds, "part", k, 1), cli_time(path, "part", k, 1)
        else:
            c, p = cli_time(path, "part", k, 1), py_time(ds, "part", k, 1)
        py.append(p)
        cl.append(c)
        ratio.append((p - c) / c)
        print(f"round {i + 1} ({'python' if i % 2 == 0 else 'cli'} first): python {p:.4f} s, cli in-process "
              f"{c:.4f} s, overhead {100 * ratio[-1]:+.2f} %", flush=True)
    load_after = os.getloadavg()
    py_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    tiny_path = scan(os.path.join(tmp, "tiny"), 16, 24, 16)
    tiny = ctrecon.load(tiny_path)
    fixed = {}
    for method in ("fbp", "part"):
        py_time(tiny, method, k, 5)
        c = cli_time(tiny_path, method, k, tiny_repeats)
        p = py_time(tiny, method, k, tiny_repeats)
        fixed[method] = {"python_us": 1e6 * p, "cli_us": 1e6 * c, "difference_us": 1e6 * (p - c)}
        print(f"tiny {method}: python {1e6 * p:.0f} us, cli in-process {1e6 * c:.0f} us "
              f"(medians of {tiny_repeats})", flush=True)

    overhead = statistics.median(ratio)
    print(json.dumps({"size": n, "iterations": k, "rounds": rounds,
                      "python_median_s": statistics.median(py), "cli_median_s": statistics.median(cl),
                      "overhead_median": overhead, "overhead_min": min(ratio), "overhead_max": max(ratio),
                      "load_before": load_before, "load_after": load_after, "tiny": fixed,
                      "python_peak_rss_mb": py_rss}))
    sys.exit(0 if overhead <= 0.02 else 1)
