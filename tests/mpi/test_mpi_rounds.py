"""The status rounds of mpi/ under mpirun -np 3 (tests/test-mpi-rounds.c)."""
import os
import subprocess
import sys

from mpi_common import MPIRUN, mpi_env, require_mpi

require_mpi()
exe = os.environ["CTR_TEST_MPI_ROUNDS"]
p = subprocess.run([MPIRUN, "--oversubscribe", "-np", "3", exe], capture_output=True, text=True, timeout=120,
                   env=mpi_env())
print(p.stdout, p.stderr)
ok = p.returncode == 0 and p.stdout.startswith("ok")
print(f"{1 if ok else 0} passed, {0 if ok else 1} failed")
sys.exit(0 if ok else 1)
