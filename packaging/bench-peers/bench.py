"""Our CPU reconstruction side by side with ASTRA, RTK and plastimatch (issue 18).

    /usr/bin/python3 bench.py --cli CTRECON_CLI --venv PEERS_VENV --data SHARED_DATA [--quick]

Run by packaging/bench-peers.sh (which makes the peers' venv).  Prepares the
same inputs for every tool, runs each case interleaved (ours, peer, ours,
peer, …; 3 counted repeats, 1 with --quick; "ours warm" after one uncounted
run that fills the matrix cache),
and prints one table: case × tool × threads → min / median wall seconds of
the whole process, its user + system CPU seconds (the figure to compare on
a loaded machine), the peers' own seconds from geometry to image in memory
(imports and file I/O excluded), peak RSS (ru_maxrss of the finished child),
the median of the per-repeat wall and CPU ratios to the case's first "ours" row, and
the RMSE against the truth inside the field of view (every tool's output
scored by the same numpy code and mask).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import tifffile

HERE = os.path.dirname(os.path.abspath(__file__))
ITER = re.compile(r"^\S+ iteration \d+/\d+ .*\(([\d.]+) s/it\)")


class Row:
    def __init__(self, tool, threads, argv, env, output, read, warmup=False):
        self.tool, self.threads, self.argv, self.env, self.warmup = tool, threads, argv, env, warmup
        self.output, self.read = output, read
        self.wall, self.cpu, self.inproc, self.per_it, self.rss_kb, self.failed = [], [], [], [], 0, None


def run_once(row):
    """Run the row's command once: (wall s, user + system CPU s, ru_maxrss kB, stdout + stderr), or raise."""
    env = dict(os.environ, **row.env)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(row.argv, env=env, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            raise RuntimeError(f"exit {p.returncode}: {err.read().decode(errors='replace').strip()[-400:]}")
        return (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss,
                out.read().decode(errors="replace") + err.read().decode(errors="replace"))


def run_case(rows, repeats):
    for it in range(repeats + 1):            # round 0: warm-up of the rows that need one (a cache to fill)
        for row in rows:
            if row.failed or (it == 0 and not row.warmup):
                continue
            try:
                wall, cpu, rss, text = run_once(row)
            except (RuntimeError, OSError) as e:
                row.failed = str(e)
                continue
            if it == 0:
                continue
            row.wall.append(wall)
            row.cpu.append(cpu)
            row.rss_kb = max(row.rss_kb, rss)
            its = []
            for line in text.splitlines():
                if line.startswith("compute_s "):
                    row.inproc.append(float(line.split()[1]))
                elif line.startswith("per_iteration_s "):        # a peer's mean iteration
                    its.append(float(line.split()[1]))
                else:                                              # ours: "sirt iteration 2/2  58.49 s (31.227 s/it)"
                    m = ITER.match(line)
                    if m:
                        its.append(float(m.group(1)))
            if its:
                row.per_it.append(float(np.mean(its)))


def rmse(img, truth, mask):
    d = (np.asarray(img, np.float64) - truth)[..., mask]
    return float(np.sqrt(np.mean(d * d)))


def fov_mask(g, n, pixel):
    """Pixels whose centre lies inside the flat-detector fan's field of view."""
    half = g["detector_cols"] * g["detector_pitch_u_mm"] / 2.0
    r_fov = g["source_to_isocenter_mm"] * np.sin(np.arctan(half / g["source_to_detector_mm"]))
    c = (np.arange(n) - (n - 1) / 2.0) * pixel
    return np.hypot(c[:, None], c[None, :]) <= r_fov


def read_tif(path):
    return tifffile.imread(path)


def read_npy(path):
    return np.load(path)


class Bench:
    def __init__(self, args, tmp):
        self.cli, self.venv, self.data, self.tmp = args.cli, args.venv, args.data, tmp
        self.py = os.path.join(self.venv, "bin", "python")
        self.results = []          # (case, rows, rmse per row, note)

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def request(self, name, **req):
        path = self.path(f"req-{name}.json")
        with open(path, "w") as f:
            json.dump(req, f)
        return path

    def ours(self, label, threads, geometry, out, args, env=None):
        e = {"OMP_NUM_THREADS": str(threads), **(env or {})}
        return Row(label, threads, [self.cli, "reconstruct", geometry, *args, "--no-reference", "-o", out],
                   e, out, read_tif)

    def peer(self, label, threads, driver, req, out):
        e = {"OMP_NUM_THREADS": str(threads), "ITK_GLOBAL_DEFAULT_NUMBER_OF_THREADS": str(threads)}
        return Row(label, threads, [self.py, os.path.join(HERE, driver), req], e, out, read_npy)

    def score(self, case, rows, truth, mask, repeats, note=""):
        run_case(rows, repeats)
        errs = []
        for row in rows:
            try:
                errs.append(None if row.failed else rmse(row.read(row.output), truth, mask))
            except (OSError, ValueError) as e:
                row.failed, _ = f"output unreadable: {e}", errs.append(None)
        self.results.append((case, rows, errs, note))

    # ---------------------------------------------------------------- inputs

    def simulate(self, name, n, views, cols):
        d = self.path(name)
        subprocess.run([self.cli, "simulate", "--phantom", "shepp-logan", "--geometry", "fan-flat",
                        "--views", str(views), "--cols", str(cols), "--size", str(n), "-o", d],
                       check=True, capture_output=True)
        g = json.load(open(os.path.join(d, "geometry.json")))
        sino = read_tif(os.path.join(d, "sinogram.tif")).astype(np.float32)
        np.save(os.path.join(d, "sinogram.npy"), sino.reshape(views, cols))
        truth = read_tif(os.path.join(d, "reference.tif")).astype(np.float64)
        return d, g, truth

    @staticmethod
    def fan_request(g, d, n, pixel):
        return dict(projections=os.path.join(d, "sinogram.npy"), angles_rad=g["angles_rad"],
                    pitch_u_mm=g["detector_pitch_u_mm"], sod_mm=g["source_to_isocenter_mm"],
                    sdd_mm=g["source_to_detector_mm"], n=n, pixel_mm=pixel)

    # ----------------------------------------------------------------- cases

    def sirt_fan(self, case, d, g, truth, iters, repeats, thread_list, projectors, cold_warm=True, npy_dir=None):
        n = truth.shape[-1]
        pixel = g["reference"]["pixel_size_mm"]
        geo = os.path.join(d, "geometry.json")
        args = ["-m", "sirt", "--iterations", str(iters), "-s", str(n), "-p", repr(pixel)]
        rows = []
        for t in thread_list:
            out = self.path(f"{case}-ours-cold-{t}.tif")
            rows.append(self.ours("ours cold" if cold_warm else "ours", t, geo, out, args, {"CTR_MATRIX_CACHE": "0"}))
            if cold_warm:
                out = self.path(f"{case}-ours-warm-{t}.tif")
                rows.append(self.ours("ours warm", t, geo, out, args, {"CTR_CACHE_DIR": self.path("cache")}))
                rows[-1].warmup = True
        for proj in projectors:
            out = self.path(f"{case}-astra-{proj}.npy")
            req = self.request(f"{case}-{proj}", **self.fan_request(g, npy_dir or d, n, pixel), projector=proj,
                               iterations=iters, output=out)
            rows.append(self.peer(f"ASTRA {proj.split('_')[0]}", 1, "astra_sirt.py", req, out))
        self.score(case, rows, truth, fov_mask(g, n, pixel), repeats)

    def fbp_fan(self, case, d, g, truth, repeats, threads):
        n = truth.shape[-1]
        pixel = g["reference"]["pixel_size_mm"]
        out = self.path(f"{case}-ours.tif")
        rows = [self.ours("ours", threads, os.path.join(d, "geometry.json"), out,
                          ["-m", "fbp", "-s", str(n), "-p", repr(pixel)])]
        sino = np.load(os.path.join(d, "sinogram.npy"))
        np.save(os.path.join(d, "proj-1row.npy"), sino[:, None, :])
        pv = g.get("detector_pitch_v_mm", 1.0)
        out = self.path(f"{case}-rtk.npy")
        req = self.request(case, projections=os.path.join(d, "proj-1row.npy"), angles_rad=g["angles_rad"],
                           pitch_u_mm=g["detector_pitch_u_mm"], pitch_v_mm=pv,
                           sod_mm=g["source_to_isocenter_mm"], sdd_mm=g["source_to_detector_mm"],
                           nx=n, ny=n, nz=1, voxel_xy_mm=pixel,
                           voxel_z_mm=pv * g["source_to_isocenter_mm"] / g["source_to_detector_mm"],
                           threads=threads, output=out)
        rows.append(self.peer("RTK FDK 2 rows", threads, "rtk_fdk.py", req, out))
        self.score(case, rows, truth, fov_mask(g, n, pixel), repeats,
                   "ASTRA's CPU FBP is parallel-beam only (its fan FBP needs CUDA): no ASTRA row; "
                   "RTK: the fan as a cone with the one row given twice (one row back-projects to zeros)")

    def cone_fixture(self, case, src, fixture_args, need_drr=True):
        """A cone-beam dataset made by ../shared/tools/make-cone-fixture.sh
        (plastimatch drr of head-ct): @src holds it already (head-cone-small,
        made with @fixture_args), or None: made here with @fixture_args (W4 of
        docs/design.md §14: the tool's defaults, 360 views of 256², 256 × 256 × 108).
        Returns (src, geometry, truth [z][y][x], projections as ours .npy,
        the RTK request's common fields, plastimatch's drr folder or None),
        or None when it cannot be made (the case's row says why).  Without
        @need_drr, a fixture kept from an earlier run (--keep) is used again."""
        kept = self.path(f"{case}-fixture")
        if src is None and not need_drr and os.path.exists(os.path.join(kept, "projections.tif")):
            src = kept
        drr = self.plastimatch_drr(case, fixture_args) if need_drr or src is None else None
        if src is None:
            src = self.path(f"{case}-fixture")
            if drr is None:
                self.results.append((case, [], [], "make-cone-fixture.sh failed or plastimatch is missing: not run"))
                return None
        g = json.load(open(os.path.join(src, "geometry.json")))
        truth = read_tif(os.path.join(src, "truth.tif")).astype(np.float64)       # [z][y][x]
        nz, ny, nx = truth.shape
        sx, sy, sz = g["reference"]["spacing_xyz_mm"]
        proj = read_tif(os.path.join(src, "projections.tif")).astype(np.float32)  # [row][view][col]
        npy = self.path(f"{case}-proj.npy")
        np.save(npy, np.ascontiguousarray(proj.transpose(1, 0, 2)))
        del proj
        req = dict(projections=npy, angles_rad=g["angles_rad"],
                   pitch_u_mm=g["detector_pitch_u_mm"], pitch_v_mm=g["detector_pitch_v_mm"],
                   sod_mm=g["source_to_isocenter_mm"], sdd_mm=g["source_to_detector_mm"],
                   nx=nx, ny=ny, nz=nz, voxel_xy_mm=sx, voxel_z_mm=sz)
        return src, g, truth, req, drr

    @staticmethod
    def cone_mask(truth, g):
        nz, ny, nx = truth.shape
        sx, sy, _ = g["reference"]["spacing_xyz_mm"]
        yy, xx = np.mgrid[0:ny, 0:nx]
        return np.hypot((yy - (ny - 1) / 2) * sy, (xx - (nx - 1) / 2) * sx) <= 122.5

    def fdk_cone(self, case, repeats, threads, src=None, fixture_args=()):
        """FDK on a cone-beam dataset (cone_fixture), ours beside RTK's and plastimatch's."""
        made = self.cone_fixture(case, src, fixture_args)
        if made is None:
            return
        src, g, truth, common, drr = made
        nz, ny, nx = truth.shape
        sx, sy, sz = g["reference"]["spacing_xyz_mm"]
        out = self.path(f"{case}-ours.tif")
        rows = [self.ours("ours", threads, os.path.join(src, "geometry.json"), out,
                          ["-m", "fdk", "-s", f"{nx}x{ny}x{nz}", "--voxel-size", f"{sx}x{sy}x{sz}"])]
        out = self.path(f"{case}-rtk.npy")
        req = self.request(case, **common, threads=threads, output=out)
        rows.append(self.peer("RTK FDK", threads, "rtk_fdk.py", req, out))
        if drr:
            out = self.path(f"{case}-plastimatch.mha")
            k = g["peer_result"]["K"]
            rows.append(Row("plastimatch fdk", threads,
                            ["plastimatch", "fdk", "-I", drr, "-O", out, "-r", f"{nx} {ny} {nz}",
                             "-z", f"{nx * sx:g} {ny * sy:g} {nz * sz:g}", "-f", "ramp"],
                            {"OMP_NUM_THREADS": str(threads)}, out, lambda p, k=k: read_mha_mu(p, k)))
        note = "" if drr else "plastimatch's projections could not be made: no plastimatch row"
        self.score(case, rows, truth, self.cone_mask(truth, g), repeats, note)

    def sart_cone(self, case, repeats, threads, iters):
        """W5 of docs/design.md §14 (W4's data): our SIRT and SART beside RTK's
        CPU SART (one projection per subset, its default) and RTK's SART with
        every projection in one subset (SIRT's one update per pass), @iters
        iterations each, each tool's defaults otherwise."""
        made = self.cone_fixture(case, None, (), need_drr=False)
        if made is None:
            return
        src, g, truth, common, _ = made
        nz, ny, nx = truth.shape
        sx, sy, sz = g["reference"]["spacing_xyz_mm"]
        rows = []
        for m in ("sirt", "sart"):
            out = self.path(f"{case}-ours-{m}.tif")
            rows.append(self.ours(f"ours {m.upper()}", threads, os.path.join(src, "geometry.json"), out,
                                  ["-m", m, "--iterations", str(iters), "-s", f"{nx}x{ny}x{nz}",
                                   "--voxel-size", f"{sx}x{sy}x{sz}"]))
        for label, per in (("RTK SART", 1), ("RTK SART, 1 subset", len(g["angles_rad"]))):
            out = self.path(f"{case}-rtk-{per}.npy")
            req = self.request(f"{case}-{per}", **common, threads=threads, output=out, iterations=iters,
                               projections_per_subset=per)
            rows.append(self.peer(label, threads, "rtk_sart.py", req, out))
        self.score(case, rows, truth, self.cone_mask(truth, g), repeats,
                   f"{iters} iterations each; RTK: Joseph forward, voxel-based back-projection, λ 0.3")

    def plastimatch_drr(self, case, fixture_args):
        """plastimatch's own projection files, made by
        ../shared/tools/make-cone-fixture.sh with @fixture_args into
        "@case-fixture" (for head-cone-small its projections.tif is
        bit-identical to the stored one); None without the tool or plastimatch."""
        tool = os.path.join(self.data, "..", "tools", "make-cone-fixture.sh")
        drr = self.path(f"{case}-drr")
        if not os.path.exists(tool) or shutil.which("plastimatch") is None:
            return None
        r = subprocess.run(["bash", tool, "-o", self.path(f"{case}-fixture"), *fixture_args],
                           env=dict(os.environ, KEEP_DRR=drr), capture_output=True)
        return drr if r.returncode == 0 else None


def read_mha_mu(path, k):
    """plastimatch's fdk volume (MetaImage, HU, rows growing with +y) as ours:
    1/mm = (HU + 1000) / K (K from head-cone-small's geometry.json), row 0 = +y."""
    data = open(path, "rb").read()
    key = b"ElementDataFile = LOCAL\n"
    i = data.index(key) + len(key)
    hdr = dict(line.split(" = ", 1) for line in data[:i].decode().strip().split("\n"))
    dims = [int(v) for v in hdr["DimSize"].split()]
    vol = np.frombuffer(data[i:], dtype="<f4").reshape(dims[::-1])
    return ((vol.astype(np.float64) + 1000.0) / k)[:, ::-1, :]


def table(results):
    head = (f"{'case':<24} {'tool':<18} {'thr':>3} {'min s':>7} {'med s':>7} {'CPU s':>7} {'peer s':>7} {'x ours':>7} "
            f"{'x CPU':>6} {'s/it':>7} {'x s/it':>6} {'RSS MB':>7} {'RMSE 1/mm':>10}")
    lines = [head, "-" * len(head)]
    for case, rows, errs, note in results:
        base = next((r for r in rows if r.tool.startswith("ours") and r.wall), None)
        for row, err in zip(rows, errs):
            if row.failed or not row.wall:
                lines.append(f"{case:<24} {row.tool:<18} {row.threads:>3}  failed: {row.failed}")
                continue
            ratio = cratio = iratio = "-"
            if base is not None and row is not base:
                ratio = f"{np.median(np.array(row.wall) / np.array(base.wall[:len(row.wall)])):.2f}"
                cratio = f"{np.median(np.array(row.cpu) / np.array(base.cpu[:len(row.cpu)])):.2f}"
                if row.per_it and len(base.per_it) >= len(row.per_it):
                    iratio = f"{np.median(np.array(row.per_it) / np.array(base.per_it[:len(row.per_it)])):.2f}"
            per_it = f"{np.median(row.per_it):.2f}" if row.per_it else "-"
            peer = f"{np.median(row.inproc):.3f}" if row.inproc else "-"
            lines.append(f"{case:<24} {row.tool:<18} {row.threads:>3} {min(row.wall):7.3f} "
                         f"{np.median(row.wall):7.3f} {np.median(row.cpu):7.2f} {peer:>7} {ratio:>7} {cratio:>6} "
                         f"{per_it:>7} {iratio:>6} "
                         f"{row.rss_kb / 1024:7.0f} {err:10.3e}")
        if note:
            lines.append(f"{'':<24} note: {note}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--venv", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--quick", action="store_true", help="1 counted repeat instead of 3")
    ap.add_argument("--repeats", type=int, help="counted repeats (overrides --quick)")
    ap.add_argument("--iterations", type=int, default=2, help="iterations of the sart-w5 case (default 2)")
    ap.add_argument("--only", default="", help="run the cases whose key contains this (sirt10, gel, fbp, fdk; sirt50, sirt512, fdk-w4 and sart-w5 only when asked; all: every case)")
    ap.add_argument("--keep", help="keep the inputs and outputs in this folder (default: a temporary one, removed)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    repeats = args.repeats or (1 if args.quick else 3)
    want = lambda key: args.only == "all" or args.only in key
    with tempfile.TemporaryDirectory(prefix="ctr-bench-peers-") as tmp:
        if args.keep:
            tmp = os.path.abspath(args.keep)
            os.makedirs(tmp, exist_ok=True)
        b = Bench(args, tmp)
        if want("sirt10") or want("sirt50"):
            d, g, truth = b.simulate("fan256", 256, 360, 368)
        if want("sirt10"):
            b.sirt_fan("SIRT 10, fan 256²", d, g, truth, 10, repeats, [1], ["line_fanflat", "strip_fanflat"])
        if args.only and want("sirt50"):     # opt-in: does not fit the 10 minutes on a loaded 2-core machine
            b.sirt_fan("SIRT 50, fan 256²", d, g, truth, 50, repeats, [1], ["line_fanflat"])
        if args.only and want("sirt512"):    # opt-in: ASTRA's 512² runs take ~10 minutes in all
            d5, g5, truth5 = b.simulate("fan512", 512, 720, 736)
            b.sirt_fan("SIRT 10, fan 512²", d5, g5, truth5, 10, repeats, [1, 2], ["line_fanflat", "strip_fanflat"])
            b.sirt_fan("SIRT 50, fan 512²", d5, g5, truth5, 50, repeats, [1, 2], ["line_fanflat"])
        gel = os.path.join(args.data, "gel-fan")
        if want("gel") and os.path.isdir(gel):
            gg = json.load(open(os.path.join(gel, "geometry.json")))
            ref = read_tif(os.path.join(gel, gg["reference"]["file"])).astype(np.float64)
            gd = os.path.join(tmp, "gel")
            os.makedirs(gd, exist_ok=True)
            np.save(os.path.join(gd, "sinogram.npy"), read_tif(os.path.join(gel, "sinogram.tif")).astype(np.float32))
            b.sirt_fan("SIRT 50, gel-fan 256²", gel, gg, ref, 50, repeats, [1, 2], ["line_fanflat"],
                       cold_warm=False, npy_dir=gd)
        if want("fbp"):
            d5, g5, truth5 = b.simulate("fan512", 512, 720, 736)
            b.fbp_fan("FBP, fan 512²", d5, g5, truth5, repeats, 2)
        if want("fdk") and os.path.isdir(os.path.join(args.data, "head-cone-small")):
            b.fdk_cone("FDK, head-cone-small", repeats, 2, os.path.join(args.data, "head-cone-small"),
                       ["-n", "96", "-c", "64", "-r", "48", "-p", "6.4", "-x", "4", "-z", "2"])
        if args.only and want("fdk-w4"):   # opt-in: the fixture and 256³ FDKs add minutes
            b.fdk_cone("FDK W4, 256²×108", repeats, 2)
        if args.only and want("sart-w5"):  # opt-in: RTK's SART takes minutes per iteration
            b.sart_cone("W5 SIRT and SART, 256²×108", repeats, 2, args.iterations)
        load1 = os.getloadavg()
        print(table(b.results))
    print(f"\n{repeats} counted repeat(s), interleaved (ours warm: after one uncounted run that fills the cache); "
          f"load average {load0[0]:.2f} at start, {load1[0]:.2f} at end ({os.cpu_count()} CPUs); "
          f"whole run {time.perf_counter() - t0:.0f} s")
    print("CPU s = the process's user + system CPU seconds (median); x CPU = the same ratio as x ours on them;")
    print("s/it = the mean iteration's wall seconds as the tool reports it (ours: its iteration lines; RTK: its"
          " compute time / iterations, set-up included), median over repeats; x s/it = its ratio to ours;")
    print("x ours = median over repeats of (this row's wall time / the case's first ours row's, same repeat);"
          " peer s = the peer's own time from geometry to image in memory (no imports, no file I/O)")


if __name__ == "__main__":
    sys.exit(main())
