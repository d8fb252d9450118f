"""Failures and cancellation across ranks (issue 16): every rank ends, with
the failing rank's message, and no output is written (also for what a plain
run refuses before it starts: outputs named twice, a constant reference);
nothing hangs (each run has a timeout, and a hang fails the test)."""
import os
import signal
import subprocess
import tempfile
import time

import numpy as np
import tifffile

from mpi_common import CLI, check, finish, mpi_env, mpirun, mpirun_cmd, require_data, require_mpi

require_mpi()
SAVU, CONE = require_data()


def ended(p, what, needle, out):
    msg = [line for line in p.stderr.splitlines() if line.startswith("ctrecon-cli")]
    check(p.returncode != 0 and needle in p.stderr and not os.path.exists(out),
          f"{what}: every rank ends, non-zero exit, '{needle}' reported, no output "
          f"(exit {p.returncode}; last line: {msg[-1] if msg else ''!r})")


def wait_for_iteration(proc, deadline):
    """Reads rank 0's stderr until the first iteration line; returns the text."""
    text = ""
    while time.time() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        text += line
        if "iteration 1/" in line:
            break
    return text


with tempfile.TemporaryDirectory() as tmp:
    os.environ["CTR_CACHE_DIR"] = os.path.join(tmp, "cache")
    out = os.path.join(tmp, "out.tif")

    # Rank 0 cannot read the dataset: the others, waiting for it, end too.
    p = mpirun(2, "reconstruct", os.path.join(tmp, "missing.json"), "-o", out, timeout=120)
    ended(p, "rank 0 cannot read its input", "missing.json", out)

    # A method that couples the slices is refused across ranks, on every rank.
    p = mpirun(2, "reconstruct", SAVU, "--method", "cgls", "--iterations", "2", "-o", out, timeout=120)
    ended(p, "cgls across ranks", "couples all slices", out)

    # Rank 1 runs out of memory (an address-space limit on that rank only,
    # MPMD): the limit (core/base/ctr-memory.h) sees it, so the volume is
    # refused before it is allocated; its message reaches rank 0, which
    # prints it; both end.  Under the sanitizers
    # (packaging/run-sanitizers.sh) an address-space limit would stop ASan
    # before main(): rank 1's memory is then lowered through
    # CTR_MEMORY_LIMIT_MB instead.
    big = ["reconstruct", CONE, "--size", "1024x1024x512", "-o", out]
    needle = "rank 1: a volume of"
    if os.environ.get("CTR_SANITIZED") == "1":
        rank1 = ["env", "CTR_MEMORY_LIMIT_MB=1000", CLI, *big]
    else:
        rank1 = ["sh", "-c", 'ulimit -v 1500000; exec "$0" "$@"', CLI, *big]
    p = subprocess.run(mpirun_cmd(0, contexts=[(1, [CLI, *big]), (1, rank1)]),
                       capture_output=True, text=True, timeout=120, env=mpi_env())
    ended(p, "rank 1 out of memory", needle, out)

    # Ctrl-C on mpirun (which passes it on to the ranks) cancels every rank.
    # Open MPI kills a rank that has not ended 1 s after it passed the signal
    # on (odls_base_sigkill_timeout), and SIRT looks at the cancellation
    # between iterations: a small image keeps an iteration well below that
    # even under ASan on a loaded machine (160² took 3-5 s there: SIGKILL,
    # no "cancelled").
    args = ["reconstruct", SAVU, "--method", "sirt", "--iterations", "2000", "--size", "32", "-o", out]
    env = mpi_env()
    proc = subprocess.Popen(mpirun_cmd(2, *args, env=env), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True, env=env)
    text = wait_for_iteration(proc, time.time() + 120)
    proc.send_signal(signal.SIGINT)
    try:
        text += proc.communicate(timeout=60)[1]
        p = subprocess.CompletedProcess(proc.args, proc.returncode, "", text)
        ended(p, "Ctrl-C on mpirun during SIRT", "cancelled", out)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        check(False, "Ctrl-C on mpirun during SIRT: the ranks did not end within 60 s")

    # One rank alone is told to stop (SIGTERM to rank 1's process): the other
    # sees it at the next iteration's round and stops too.
    pidfile = os.path.join(tmp, "rank1.pid")
    proc = subprocess.Popen(mpirun_cmd(0, contexts=[(1, [CLI, *args]),
                                                    (1, ["sh", "-c", f'echo $$ > {pidfile}; exec "$0" "$@"', CLI,
                                                         *args])], env=env),
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    text = wait_for_iteration(proc, time.time() + 120)
    try:
        with open(pidfile) as f:
            os.kill(int(f.read()), signal.SIGTERM)
        text += proc.communicate(timeout=60)[1]
        p = subprocess.CompletedProcess(proc.args, proc.returncode, "", text)
        ended(p, "SIGTERM to rank 1 only", "cancelled", out)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        proc.kill()
        proc.communicate()
        check(False, f"SIGTERM to rank 1 only: {e}")

    # What a plain run refuses before it starts, rank 0 refuses for every
    # rank: an output named twice (ctr_output_path_check) ...
    csv = os.path.join(tmp, "same.csv")
    p = mpirun(2, "reconstruct", CONE, "--size", "32", "-o", csv, "--metrics", csv, timeout=120)
    ended(p, "--output named twice, as --metrics too", "--output: ", csv)
    # ... and a reference that cannot measure quality (ctr_reference_check),
    # on the slice-block path (SIRT) and on the iFDK path.
    const = os.path.join(tmp, "const.tif")
    tifffile.imwrite(const, np.full((32, 32), 0.02, np.float32))
    for what, data, extra in (("SIRT", SAVU, ["--method", "sirt", "--iterations", "1"]), ("FDK", CONE, [])):
        p = mpirun(2, "reconstruct", data, *extra, "--size", "32", "--reference", const, "-o", out, timeout=120)
        ended(p, f"{what} against a constant reference", "the reference is constant", out)

    # Commands other than reconstruct run on one process.
    p = mpirun(2, "simulate", "--phantom", "head", "--geometry", "fan-curved", "--output", os.path.join(tmp, "sim"),
               timeout=120)
    check(p.returncode != 0 and "only 'reconstruct' runs across ranks" in p.stderr
          and not os.path.exists(os.path.join(tmp, "sim")), "simulate under mpirun -np 2 is refused")
finish()
