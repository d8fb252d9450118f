"""One GPU per rank (issue 37): under mpirun each rank drives the device of
its node-local rank modulo the node's device count.  ctrecon-cli built on
the CUDA emulation harness (tests/gpu-emu), 2 ranks on this machine: with 2
emulated devices (CTR_EMU_DEVICES=2) rank 0 runs on device 0 and rank 1 on
device 1; with 1 device both share device 0.  The rank lines of the run's
notes say where each rank ran, and the harness's count of kernel launches
per device (printed by every rank at exit: CTR_MPI_VERBOSE=1 keeps rank 1's
standard error) shows that each rank launched its kernels on its device
only, from whichever thread it ran them.  The emulated device is no GPU: a tiny
cone-beam scan, SIRT on the backend "cuda", nothing timed."""
import os
import re
import subprocess
import tempfile

from mpi_common import MPIRUN, check, finish, mpi_env, require_mpi

require_mpi()
EMU = os.environ.get("CTR_CLI_EMU")
if not EMU:
    print("ctrecon-cli-emu not built (-Dgpu_emulation)")
    raise SystemExit(77)


def emu_mpirun(n, *args, **extra):
    env = mpi_env(CTR_EMU_QUIET="1", CTR_MPI_VERBOSE="1", **extra)
    cmd = [MPIRUN, "--oversubscribe", "--bind-to", "none", "-x", "OMP_NUM_THREADS", "-x", "OMP_WAIT_POLICY",
           "-x", "CTR_EMU_DEVICES", "-x", "CTR_EMU_THREADS", "-x", "CTR_EMU_QUIET", "-x", "CTR_CACHE_DIR", "-x", "CTR_MPI_VERBOSE",
           "-np", str(n), EMU, *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)


def rank_devices(stderr):
    """{rank: (device, count)} from the notes' lines "  rank R: read …; cuda on … (device D of N)…"."""
    found = {}
    for m in re.finditer(r"^  rank (\d+): (?:scatter|read) .*?; cuda on .*?\(device (\d+) of (\d+)\)", stderr, re.M):
        found[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    return found


def launch_devices(stderr):
    """The devices each process launched kernels on, from the harness's exit
    lines "ctr-emu: kernel launches per emulated device: 0:N 1:M", sorted."""
    used = []
    for m in re.finditer(r"^ctr-emu: kernel launches per emulated device:((?: \d+:\d+)+)$", stderr, re.M):
        counts = [tuple(map(int, x.split(":"))) for x in m.group(1).split()]
        used.append(tuple(d for d, n in counts if n > 0))
    return sorted(used)


with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    p = subprocess.run([EMU, "simulate", "--geometry", "cone-flat", "--rows", "4", "--views", "24", "--cols", "24",
                        "--size", "16", "--i0", "0", "--output", scan], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "a tiny cone-beam scan simulated" + ("" if p.returncode == 0 else ": " + p.stderr[-800:]))
    for devices, want in ((2, {0: (0, 2), 1: (1, 2)}), (1, {0: (0, 1), 1: (0, 1)})):
        r = emu_mpirun(2, "reconstruct", os.path.join(scan, "geometry.json"), "--method", "sirt", "--iterations", "1", "--backend", "cuda",
                       "-o", os.path.join(tmp, f"out{devices}.tif"), CTR_EMU_DEVICES=devices,
                       CTR_EMU_THREADS="1", OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive",
                       CTR_CACHE_DIR=os.path.join(tmp, "cache"))
        got = rank_devices(r.stderr)
        check(r.returncode == 0 and got == want,
              f"{devices} emulated device(s), 2 ranks: rank → (device, count) {got}, want {want}"
              + ("" if r.returncode == 0 and got == want else ":\n" + r.stderr[-3000:]))
        if devices > 1:
            used = launch_devices(r.stderr)
            check(used == [(0,), (1,)], f"{devices} emulated devices: the devices each rank launched kernels on "
                  f"{used}, want [(0,), (1,)]" + ("" if used == [(0,), (1,)] else ":\n" + r.stderr[-3000:]))
finish()
