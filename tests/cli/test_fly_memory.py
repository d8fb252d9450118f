"""The plan's memory estimate of an on-the-fly run (issue 36): parallel ART
with --matrix none on a 512² fan scan (720 views × 736 columns) states an
estimate within a factor TOL of what the run holds at its peak, with the
scan's reference and without it.  What a run holds is its peak resident
memory less that of the same run on a 16-view scan of 16² (the program,
its libraries and threads, almost no data), both with MALLOC_PERTURB_ set
so that every allocated page is written and resident (otherwise pages a
run allocates but never touches are missing from its peak).  The
estimate used to leave out the operator's own work space (a data vector,
a ray map of ones, an image, a pixel map), the symmetry's pixel tables,
the overlaps' counts and the reported residual: 12.1 MiB estimated
against 26 MiB held (0.46).  It also left out the reference (the loaded
copy, its copy on the grid) and the metrics' buffers (SSIM's band, the
disc's mask): the estimate must grow by at least what the reference adds
to the peak (6.2 MiB at 512², counted 0 before).
Then SIRT and CGLS on the cone-beam pair (a small cone scan whose data
vectors outweigh the rest: 120 views of 48 × 256, a 32 × 32 × 8 grid): the
estimates' difference equals the peaks' difference within half a data
vector.  The cone pair's SIRT holds four data vectors beside the data
(the copy, the validity, the rays' coefficients, A x; no R (b − A x) since
its forward_update), as CGLS does; its estimate counted three (the
coefficients left out): 22.5 MiB under CGLS's estimate while its peak was
1.6 MiB above CGLS's (360 views of 64 × 256).  The helical slab's pair
(--rebin none) counted four, as measured on head-helical-ctpd.
Skipped (77) under the address sanitizer (its shadow memory is resident).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from common import CLI, check, finish, require_cli, run

require_cli()
if os.environ.get("CTR_SANITIZED") == "1":
    print("skip: the address sanitizer's shadow memory is resident")
    sys.exit(77)
TOL = 1.2
UNITS = {"B": 1, "bytes": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def peak_mib(args, env, out_dir):
    """Exit status, standard error and peak resident MiB of one CLI run."""
    with open(os.path.join(out_dir, "stderr.txt"), "w+") as err:
        p = subprocess.Popen([CLI, *map(str, args)], stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return p.returncode, err.read(), usage.ru_maxrss / 1024.0   # ru_maxrss: KiB on Linux


def estimate_mib(err):
    """The plan's estimate in MiB from a run's standard error, or None."""
    est = re.search(r"memory: ([\d.]+)\s(\w+) estimated", err)
    return float(est.group(1)) * UNITS[est.group(2)] / 2 ** 20 if est else None


def without_reference(scan, out):
    """A copy of @scan's description without its reference (the same sinogram)."""
    with open(os.path.join(scan, "geometry.json")) as f:
        desc = json.load(f)
    desc.pop("reference", None)
    desc["projections"]["file"] = os.path.join(scan, desc["projections"]["file"])
    with open(out, "w") as f:
        json.dump(desc, f)
    return out


with tempfile.TemporaryDirectory() as tmp:
    scan, tiny = os.path.join(tmp, "scan"), os.path.join(tmp, "tiny")
    r = run("simulate", "--geometry", "fan-flat", "--views", 720, "--cols", 736, "--size", 512,
            "--output", scan, timeout=300)
    if not check(r.returncode == 0, "simulate a 720-view fan scan of 512²"):
        finish()
    r = run("simulate", "--geometry", "fan-flat", "--views", 16, "--cols", 24, "--size", 16,
            "--output", tiny, timeout=300)
    if not check(r.returncode == 0, "simulate a 16-view fan scan of 16² (the base)"):
        finish()
    env = dict(os.environ, CTR_CACHE_DIR=os.path.join(tmp, "cache"), MALLOC_PERTURB_="165")
    env.pop("CTR_MEMORY_LIMIT_MB", None)
    part = ["--method", "part", "--matrix", "none", "--iterations", 1]
    rc, err, base = peak_mib(["reconstruct", os.path.join(tiny, "geometry.json"), *part, "--size", 16,
                              "-o", os.path.join(tmp, "base.tif")], env, tmp)
    check(rc == 0, f"PART on the 16-view scan of 16² (the base): exit {rc}")
    held = {}
    for name, geo in (("with its reference", os.path.join(scan, "geometry.json")),
                      ("without a reference", without_reference(scan, os.path.join(tmp, "noref.json")))):
        rc, err, peak = peak_mib(["reconstruct", geo, *part, "--size", 512,
                                  "-o", os.path.join(tmp, "part.tif")], env, tmp)
        e = estimate_mib(err)
        check(re.search(r"memory: [^\n]*, on-the-fly operator ", err) is not None,
              f"{name}: the estimate names the on-the-fly operator's share")
        check((re.search(r"memory: [^\n]*, reference and metrics ", err) is not None) == name.startswith("with "),
              f"{name}: the estimate names the reference's share only where there is one")
        if check(rc == 0 and e is not None, f"512² PART on the fly {name} runs and states its estimate "
                                            f"(exit {rc}, {err.strip()[-300:]})"):
            held[name] = (e, peak - base)
            ratio = e / (peak - base) if peak > base else float("inf")
            check(1 / TOL <= ratio <= TOL,
                  f"512² PART on the fly {name}: estimate {e:.1f} MiB, held {peak - base:.1f} MiB (peak "
                  f"{peak:.1f} less base {base:.1f}): ratio {ratio:.2f} within [{1 / TOL:.2f}, {TOL:.2f}]")
    if len(held) == 2:
        (e1, h1), (e0, h0) = held["with its reference"], held["without a reference"]
        image = 512 * 512 * 4 / 2 ** 20
        check(h1 - h0 <= e1 - e0 <= h1 - h0 + 2 * image,
              f"the reference's share: the estimate grows by {e1 - e0:.1f} MiB, the held memory by "
              f"{h1 - h0:.1f} MiB (at least that, at most two images more)")

    cone = os.path.join(tmp, "cone")
    r = run("simulate", "--geometry", "cone-flat", "--views", 120, "--cols", 256, "--rows", 48, "--size", 32,
            "--i0", 0, "--output", cone, timeout=300)
    if check(r.returncode == 0, "simulate a 120-view cone scan of 48 × 256"):
        data = 120 * 48 * 256 * 4 / 2 ** 20
        figures = {}
        for method in ("sirt", "cgls"):
            rc, err, peak = peak_mib(["reconstruct", os.path.join(cone, "geometry.json"), "--method", method,
                                      "--iterations", 1, "--size", "32x32x8",
                                      "-o", os.path.join(tmp, method + ".tif")], env, tmp)
            est = re.search(r"memory: ([\d.]+)\s(\w+) estimated", err)
            if check(rc == 0 and est is not None, f"cone {method} runs and states its estimate (exit {rc}, "
                                                  f"{err.strip()[-300:]})"):
                figures[method] = (float(est.group(1)) * UNITS[est.group(2)] / 2 ** 20, peak)
        if len(figures) == 2:
            d_est = figures["sirt"][0] - figures["cgls"][0]
            d_peak = figures["sirt"][1] - figures["cgls"][1]
            check(abs(d_est - d_peak) <= data / 2,
                  f"cone pair, SIRT less CGLS: estimates {d_est:+.1f} MiB, peaks {d_peak:+.1f} MiB "
                  f"(a data vector {data:.1f} MiB; SIRT {figures['sirt'][0]:.1f} est / {figures['sirt'][1]:.1f} "
                  f"peak, CGLS {figures['cgls'][0]:.1f} / {figures['cgls'][1]:.1f})")
finish()
