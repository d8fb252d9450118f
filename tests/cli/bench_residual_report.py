"""What the per-iteration data residual costs (issue 36): `reconstruct` on one
simulated fan scan (720 views × 736 columns, flat panel) with the residual
after every iteration (--residual-every) and with the default report (after
the last iteration, and after the others where it is free), side by side,
repeats interleaved, on the stored matrix and on the fly.  With
$CTR_CLI_BEFORE (another build's ctrecon-cli, e.g. main's) its default run
joins them as "before".  A benchmark, not a test: prints per case and variant
the median seconds of the first iteration (update, then residual where
computed: with 2 iterations the default computes it after the second only)
and per iteration (the run's elapsed time over its iterations), the
set-up and input/output (wall less that elapsed time), the process's CPU
seconds (user + system: steadier than wall time on a loaded machine), the
peak RSS and whether the image equals the first variant's
bit for bit; exits 1 when a run fails or the images differ.
`meson test --benchmark residual-report`.  Cases:
$CTR_RES_SIZES (default 512), $CTR_RES_MATRICES (scsr,none),
$CTR_RES_METHODS (part; "part-cuart" for --part-step cuart),
$CTR_RES_ITERATIONS (2), $CTR_RES_REPEATS (2), $CTR_RES_VARIANTS (a subset of
before,every,final).
"""
import hashlib
import os
import re
import statistics
import subprocess
import sys
import tempfile

from common import CLI, require_cli, run

require_cli()
TIME = "/usr/bin/time"
if not os.path.exists(TIME):
    print("GNU time is not installed")
    sys.exit(77)
SIZES = [int(s) for s in os.environ.get("CTR_RES_SIZES", "512").split(",")]
MATRICES = os.environ.get("CTR_RES_MATRICES", "scsr,none").split(",")
METHODS = os.environ.get("CTR_RES_METHODS", "part").split(",")
ITERATIONS = int(os.environ.get("CTR_RES_ITERATIONS", "2"))
REPEATS = int(os.environ.get("CTR_RES_REPEATS", "2"))
VARIANTS = [("every", CLI, ["--residual-every"]), ("final", CLI, [])]
if os.environ.get("CTR_CLI_BEFORE"):
    VARIANTS.insert(0, ("before", os.environ["CTR_CLI_BEFORE"], []))
if os.environ.get("CTR_RES_VARIANTS"):
    VARIANTS = [v for v in VARIANTS if v[0] in os.environ["CTR_RES_VARIANTS"].split(",")]


def method_args(method):
    if method.endswith("-cuart"):
        return ["--method", method[:-len("-cuart")], "--part-step", "cuart"]
    return ["--method", method]


def one_run(cli, extra, scan, size, matrix, method, out, env):
    p = subprocess.run([TIME, "-v", cli, "reconstruct", os.path.join(scan, "geometry.json"), *method_args(method),
                        "--iterations", str(ITERATIONS), "--size", str(size), "--matrix", matrix,
                        "--no-reference", "-o", out, *extra],
                       capture_output=True, text=True, env=env, timeout=7200)
    if p.returncode != 0:
        return None, p.stderr[-600:]
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    h, m, s = wall.groups()
    wall_s = int(h or 0) * 3600 + int(m) * 60 + float(s)
    cpu_s = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", p.stderr).group(1)) for k in ("User", "System"))
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    elapsed = [float(e) for e in re.findall(r" iteration \d+/\d+\s+([\d.]+) s \(", p.stderr)]
    residuals = re.findall(r"residual ([\d.e+-]+)", p.stderr)
    with open(out, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    return {"it1": elapsed[0], "it": elapsed[-1] / len(elapsed), "setup": wall_s - elapsed[-1], "cpu": cpu_s,
            "peak": peak, "digest": digest,
            "residual": residuals[-1] if residuals else "-"}, None


bad = 0
with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    r = run("simulate", "--geometry", "fan-flat", "--views", 720, "--cols", 736, "--size", 512, "--output", scan,
            timeout=600)
    if r.returncode != 0:
        print(r.stderr)
        sys.exit(1)
    env = dict(os.environ, CTR_CACHE_DIR=os.path.join(tmp, "cache"))
    print(f"{ITERATIONS} iterations, {REPEATS} repeats interleaved, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}")
    print(f"{'size':>6} {'matrix':>6} {'method':>10} {'variant':>7} {'it 1 s':>8} {'ratio':>6} {'s/it':>8}"
          f" {'ratio':>6} {'set-up+io s':>11} {'CPU s':>8} {'peak MiB':>8} {'final residual':>14}  image")
    for size in SIZES:
        for matrix in MATRICES:
            for method in METHODS:
                got = {v[0]: [] for v in VARIANTS}
                failed = False
                # one unmeasured run first: the stored matrix's cache is then warm for every variant alike
                if matrix != "none":
                    one_run(CLI, [], scan, size, matrix, method, os.path.join(tmp, "warm.tif"), env)
                for _ in range(REPEATS):
                    for name, cli, extra in VARIANTS:
                        res, err = one_run(cli, extra, scan, size, matrix, method, os.path.join(tmp, name + ".tif"), env)
                        if res is None:
                            print(f"{size:>5}² {matrix:>6} {method:>10} {name:>7} failed: {err}")
                            failed = True
                            break
                        got[name].append(res)
                    if failed:
                        break
                if failed:
                    bad += 1
                    continue
                first = got[VARIANTS[0][0]][0]
                base = statistics.median(x["it"] for x in got[VARIANTS[0][0]])
                base1 = statistics.median(x["it1"] for x in got[VARIANTS[0][0]])
                for name, _, _ in VARIANTS:
                    runs = got[name]
                    it = statistics.median(x["it"] for x in runs)
                    it1 = statistics.median(x["it1"] for x in runs)
                    same = all(x["digest"] == first["digest"] for x in runs)
                    bad += not same
                    print(f"{size:>5}² {matrix:>6} {method:>10} {name:>7} {it1:8.3f} {it1 / base1:6.3f} {it:8.3f}"
                          f" {it / base:6.3f} {statistics.median(x['setup'] for x in runs):11.2f}"
                          f" {statistics.median(x['cpu'] for x in runs):8.1f}"
                          f" {max(x['peak'] for x in runs):8.1f} {runs[-1]['residual']:>14}"
                          f"  {'identical' if same else 'DIFFERS'}", flush=True)
sys.exit(1 if bad else 0)
