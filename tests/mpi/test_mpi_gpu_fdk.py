"""FDK under mpirun on a GPU per rank (issue 37).  ctrecon-cli built on the
CUDA emulation harness (tests/gpu-emu), 2 ranks, 2 emulated devices
(CTR_EMU_DEVICES=2), a tiny cone-beam scan, `--method fdk --backend cuda`,
each rank reading its own views (the default share reader):

- in both iFDK decompositions (2 view groups × 1 z-slab; 1 group × 2
  slabs, CTR_MPI_SLABS=2) rank 0 runs on device 0 and rank 1 on device 1
  (the notes' rank lines, and the harness's count of kernel launches per
  device: each rank launched on its own only), and the gathered volume is
  the single-process CUDA FDK's within the slab split's tolerance of
  tests/test-gpu-fdk.c (relative L2 1e-5, max 1e-4: float rounding of the
  row coordinate without the z-mirror, and the order of the groups' sum)
  and the CPU FDK's within the GPU's (1e-3, 1e-2);
- with no device on rank 1 (CTR_EMU_NO_DEVICE=1 on that rank only) the run
  still succeeds: rank 0 on device 0, rank 1 on its CPU with the reason in
  its note line, the volume the CPU FDK's within the GPU's tolerance.

On main the ranks ran the CPU's FDK whatever the backend: no rank line
named a device and no kernel was launched.  The emulated device is no
GPU: nothing timed."""
import os
import re
import subprocess
import tempfile

import numpy as np
import tifffile

from mpi_common import MPIRUN, check, finish, mpi_env, require_mpi

require_mpi()
EMU = os.environ.get("CTR_CLI_EMU")
if not EMU:
    print("ctrecon-cli-emu not built (-Dgpu_emulation)")
    raise SystemExit(77)

EXPORTS = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "CTR_EMU_DEVICES", "CTR_EMU_THREADS", "CTR_EMU_QUIET",
           "CTR_CACHE_DIR", "CTR_MPI_VERBOSE", "CTR_MPI_SLABS")


def emu_env(**extra):
    return mpi_env(CTR_EMU_QUIET="1", CTR_MPI_VERBOSE="1", CTR_EMU_DEVICES="2", CTR_EMU_THREADS="1",
                   OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive", **extra)


def emu_mpirun(args, no_device_rank=None, **extra):
    """2 ranks of ctrecon-cli-emu; @no_device_rank: that rank runs with
    CTR_EMU_NO_DEVICE=1 (set by a shell in front of it)."""
    env = emu_env(**extra)
    cmd = [MPIRUN, "--oversubscribe", "--bind-to", "none"]
    for k in EXPORTS:
        if k in env:
            cmd += ["-x", k]
    prog = [EMU]
    if no_device_rank is not None:
        prog = ["sh", "-c", f'[ "$OMPI_COMM_WORLD_RANK" = {no_device_rank} ] && export CTR_EMU_NO_DEVICE=1; '
                'exec "$0" "$@"', EMU]
    return subprocess.run(cmd + ["-np", "2", *prog, *map(str, args)], capture_output=True, text=True, timeout=600,
                          env=env)


def rank_lines(stderr):
    """{rank: where} from the notes' lines "  rank R: takes views …; <where>"."""
    return {int(m.group(1)): m.group(2)
            for m in re.finditer(r"^  rank (\d+): takes views .*?reduce\+gather [0-9.]+ s; (.*)$", stderr, re.M)}


def device_of(where):
    m = re.match(r"cuda on .*?\(device (\d+) of (\d+)\)", where)
    return (int(m.group(1)), int(m.group(2))) if m else None


def launch_devices(stderr):
    """The devices each process launched kernels on (the harness's exit lines), sorted."""
    used = []
    for m in re.finditer(r"^ctr-emu: kernel launches per emulated device:((?: \d+:\d+)+)$", stderr, re.M):
        counts = [tuple(map(int, x.split(":"))) for x in m.group(1).split()]
        used.append(tuple(d for d, n in counts if n > 0))
    return sorted(used)


def rel(a, b):
    """(relative L2, largest difference over the largest |b|) of a against b."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b)), float(np.abs(a - b).max() / np.abs(b).max())


def agree(path, ref, tol, what):
    v = tifffile.imread(path)
    ok = v.shape == ref.shape and np.isfinite(v).all()
    l2, mx = rel(v, ref) if ok else (np.inf, np.inf)
    check(ok and l2 <= tol[0] and mx <= tol[1],
          f"{what}: relative L2 {l2:.2e} (tol {tol[0]:.0e}), max {mx:.2e} (tol {tol[1]:.0e})")


SLABS = (1e-5, 1e-4)   # tests/test-gpu-fdk.c: slabs vs the unsplit run (L1-Tran)
GPU = (1e-3, 1e-2)     # tests/test-gpu-fdk.c: GPU vs CPU (L1-Tran)

with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    p = subprocess.run([EMU, "simulate", "--geometry", "cone-flat", "--rows", "8", "--views", "24", "--cols", "24",
                        "--size", "16", "--i0", "0", "--output", scan], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "a tiny cone-beam scan simulated" + ("" if p.returncode == 0 else ": " + p.stderr[-800:]))
    geo = os.path.join(scan, "geometry.json")
    # 6 of the 8 rows' slices: the outer two project onto the panel's edge
    # rows, where float (GPU) and double (CPU) coordinates fall on either
    # side of the panel's border (1e-2 there, on the one process as well).
    common = ["reconstruct", geo, "--method", "fdk", "--size", "16x16x6"]
    cache = os.path.join(tmp, "cache")
    refs = {}
    for backend in ("cuda", "cpu"):
        out = os.path.join(tmp, f"one-{backend}.tif")
        r = subprocess.run([EMU, *common, "--backend", backend, "-o", out], capture_output=True, text=True,
                           timeout=300, env=emu_env(CTR_CACHE_DIR=cache))
        check(r.returncode == 0, f"one process, backend {backend}" + ("" if r.returncode == 0 else ": " + r.stderr[-800:]))
        refs[backend] = tifffile.imread(out)
    l2, mx = rel(refs["cuda"], refs["cpu"])
    print(f"one process: CUDA FDK vs CPU FDK: relative L2 {l2:.2e}, max {mx:.2e}")

    for slabs, what in (("", "2 view groups × 1 slab"), ("2", "1 view group × 2 slabs")):
        out = os.path.join(tmp, f"mpi{slabs or 1}.tif")
        extra = {"CTR_MPI_SLABS": slabs} if slabs else {}
        r = emu_mpirun([*common, "--backend", "cuda", "-o", out], CTR_CACHE_DIR=cache, **extra)
        where = rank_lines(r.stderr)
        got = {k: device_of(w) for k, w in where.items()}
        ok = r.returncode == 0 and got == {0: (0, 2), 1: (1, 2)}
        check(ok, f"FDK, {what}: rank → (device, count) {got}, want {{0: (0, 2), 1: (1, 2)}}"
              + ("" if ok else ":\n" + r.stderr[-3000:]))
        if r.returncode != 0:
            continue
        check(f"iFDK grid of {slabs or 1} z-slab" in r.stderr and "on its own device" in r.stderr,
              f"FDK, {what}: the notes name the grid and the devices")
        check(len(re.findall(r"^  rank \d+ read ", r.stderr, re.M)) == 2, f"FDK, {what}: each rank read its own views")
        used = launch_devices(r.stderr)
        check(used == [(0,), (1,)], f"FDK, {what}: devices each rank launched kernels on {used}, want [(0,), (1,)]")
        agree(out, refs["cuda"], SLABS, f"FDK, {what}, 2 ranks on 2 devices vs one process's CUDA FDK")
        agree(out, refs["cpu"], GPU, f"FDK, {what}, 2 ranks on 2 devices vs one process's CPU FDK")

    # Rank 1 without a device: it runs the CPU's FDK and says why.
    out = os.path.join(tmp, "mpi-nodev.tif")
    r = emu_mpirun([*common, "--backend", "cuda", "-o", out], no_device_rank=1, CTR_CACHE_DIR=cache,
                   CTR_MPI_SLABS="2")
    where = rank_lines(r.stderr)
    ok = (r.returncode == 0 and device_of(where.get(0, "")) == (0, 2) and where.get(1, "").startswith("cpu (")
          and "device" in where.get(1, ""))
    check(ok, f"FDK, rank 1 without a device: rank 0 on device 0, rank 1 on its CPU with the reason ({where})"
          + ("" if ok else ":\n" + r.stderr[-3000:]))
    if r.returncode == 0:
        print(f"rank 1 without a device: {where.get(1)}")
        agree(out, refs["cpu"], GPU, "FDK, rank 1 on its CPU, rank 0 on device 0, vs one process's CPU FDK")
finish()
