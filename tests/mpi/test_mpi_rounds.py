"""The status rounds of mpi/ under mpirun -np 3 (tests/test-mpi-rounds.c);
the watchdog: a stopped rank (SIGSTOP) ends the job within its timeout,
named by rank 0, instead of blocking the others forever; a rank without
room for its copy of the geometry ends every rank with its message (issue
38: before, GLib's allocator killed it and mpirun ended the job)."""
import os
import signal
import subprocess
import sys
import time

from mpi_common import MPIRUN, mpi_env, require_mpi

require_mpi()
exe = os.environ["CTR_TEST_MPI_ROUNDS"]
p = subprocess.run([MPIRUN, "--oversubscribe", "-np", "3", exe], capture_output=True, text=True, timeout=120,
                   env=mpi_env())
print(p.stdout, p.stderr)
ok = p.returncode == 0 and p.stdout.startswith("ok")
print(f"{'ok  ' if ok else 'FAIL'} the status rounds")

# The watchdog: CTR_MPI_TIMEOUT_S=3; rank 2 stops itself.  A hang is killed
# after 60 s (mpirun is told to end its ranks, the stopped one too).
env = mpi_env(CTR_MPI_TIMEOUT_S="3")
t0 = time.monotonic()
w = subprocess.Popen([MPIRUN, "--oversubscribe", "-x", "CTR_MPI_TIMEOUT_S", "-np", "3", exe, "stop"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
try:
    out, err = w.communicate(timeout=60)
except subprocess.TimeoutExpired:
    w.send_signal(signal.SIGTERM)   # mpirun ends its ranks, the stopped one too
    try:
        out, err = w.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(w.pid, signal.SIGKILL)
        out, err = w.communicate()
    err += "\n(hung: killed after 60 s)"
dt = time.monotonic() - t0
named = "rank 2 did not reach the status round" in err
ok2 = w.returncode != 0 and named and dt < 60
print(err[-2000:])
print(f"{'ok  ' if ok2 else 'FAIL'} a stopped rank ends the job in {dt:.1f} s "
      f"(exit {w.returncode}, rank 2 named: {named})")
# Rank 1 under an address-space limit (not under the sanitizers: such a
# limit stops them).
if os.environ.get("CTR_SANITIZED") == "1":
    ok3 = True
    print("skip  rank 1 out of memory (an address-space limit stops the sanitizers)")
else:
    m = subprocess.run([MPIRUN, "--oversubscribe", "-np", "3", exe, "memory"], capture_output=True, text=True,
                       timeout=120, env=mpi_env())
    print(m.stdout, m.stderr[-2000:])
    ok3 = m.returncode == 0 and m.stdout.startswith("ok") and "failed to allocate" not in m.stderr
    print(f"{'ok  ' if ok3 else 'FAIL'} rank 1 without room for its copy of the geometry: every rank ends with "
          f"its error (exit {m.returncode})")
passed = int(ok) + int(ok2) + int(ok3)
print(f"{passed} passed, {3 - passed} failed")
sys.exit(0 if passed == 3 else 1)
