"""The plan's memory estimate (core/plan/ctr-plan-common.h) against the
measured peak resident memory of `reconstruct` (GNU time's "Maximum
resident set size"), on one simulated fan scan (720 views × 736 columns)
at three image sizes and methods.  The estimate counts what the run
allocates (the data, the reference, the metrics' buffers included), not
the program itself: the peak is also given less the peak of the same
method on a 16-view scan of 16² (the program, its libraries and threads,
almost no data).  With CTR_MEM_PERTURB=1 every run has MALLOC_PERTURB_
set, so that each allocated page is written and resident: pages a run
allocates and never touches count then, but the stored matrix's PART and
PWLS read ~1.9× their estimate that way while the live heap's peak
(heaptrack, 256² PART) is the estimate.  A benchmark, not a test: prints
one row per run — size, method, estimate, peak, peak less that base,
estimate / (peak − base) — and exits 1 when a ratio is outside
[1 / (1 + TOL), 1 + TOL] (TOL = 0.2, or $CTR_MEM_TOL).
`meson test --benchmark memory-estimate`.
"""
import os
import re
import subprocess
import sys
import tempfile

from common import CLI, require_cli, run

require_cli()
TOL = float(os.environ.get("CTR_MEM_TOL", "0.2"))
TIME = "/usr/bin/time"
if not os.path.exists(TIME):
    print("GNU time is not installed")
    sys.exit(77)
UNITS = {"B": 1, "bytes": 1, "kB": 1e3, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
CASES = [(int(s), m) for s, m in (c.split(":") for c in
         os.environ.get("CTR_MEM_CASES", "256:part,512:part,1024:part,512:sirt,512:sart,512:pwls,256:art").split(","))]

bad = 0
with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    tiny = os.path.join(tmp, "tiny")
    for out, views, cols, size in ((scan, 720, 736, 256), (tiny, 16, 24, 16)):
        r = run("simulate", "--views", views, "--cols", cols, "--size", size, "--output", out, timeout=600)
        if r.returncode != 0:
            print(r.stderr)
            sys.exit(1)
    env = dict(os.environ, CTR_CACHE_DIR=os.path.join(tmp, "cache"))
    if os.environ.get("CTR_MEM_PERTURB") == "1":
        env["MALLOC_PERTURB_"] = "165"
    def peak_of(size, method, where=scan):
        p = subprocess.run([TIME, "-v", CLI, "reconstruct", os.path.join(where, "geometry.json"), "--method", method,
                            "--iterations", "1", "--size", str(size), "-o", os.path.join(tmp, "out.tif")],
                           capture_output=True, text=True, env=env, timeout=3600)
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        return p, (int(m.group(1)) * 1024 / 2 ** 20 if m else None)
    bases = {m: peak_of(16, m, tiny)[1] for m in sorted({m for _, m in CASES})}
    print("base (the method on a 16-view scan of 16²): "
          + ", ".join(f"{m} {b:.1f} MiB" for m, b in bases.items()))
    print(f"{'size':>6} {'method':>6} {'estimate MiB':>13} {'peak MiB':>9} {'peak-base':>9} {'est/(peak-base)':>15}")
    for size, method in CASES:
        p, k = peak_of(size, method)
        est = re.search(r"memory: ([\d.]+)\s(\w+) estimated", p.stderr)
        if p.returncode != 0 or not est or k is None:
            print(f"{size:>6} {method:>6} failed (exit {p.returncode}): {p.stderr[-400:]}")
            bad += 1
            continue
        e = float(est.group(1)) * UNITS[est.group(2)] / 2 ** 20
        base = bases[method]
        ratio = e / (k - base)
        ok = 1 / (1 + TOL) <= ratio <= 1 + TOL
        bad += not ok
        print(f"{size:>5}² {method:>6} {e:13.1f} {k:9.1f} {k - base:9.1f} {ratio:15.2f}"
              f"{'' if ok else '  outside the tolerance'}", flush=True)
sys.exit(1 if bad else 0)
