"""A rank without room for its copy of the broadcast geometry (issue 38):
`reconstruct` of a parallel scan of 2^22 views × 1 row × 2 columns under
mpirun -np 2, rank 1 told it has 24 MiB (CTR_MEMORY_LIMIT_MB; an
address-space limit, which stops the sanitizers, is tests/test-mpi-rounds.c's
"memory" case): its copy of the angles (32 MiB) is refused before anything
is sent, and every rank ends with exit 1 and rank 1's message, no output.
Before the change rank 1 allocated it with g_new whatever the limit
(under an address-space limit GLib's allocator killed it)."""
import json
import os
import subprocess
import tempfile

import numpy as np
import tifffile

from mpi_common import CLI, check, finish, mpi_env, mpirun_cmd, require_mpi

require_mpi()

with tempfile.TemporaryDirectory() as tmp:
    views, cols = 1 << 22, 2
    scan = os.path.join(tmp, "scan")
    os.mkdir(scan)
    with open(os.path.join(scan, "geometry.json"), "w") as f:
        json.dump({"type": "parallel", "kind": "line_integrals", "views": views, "detector_cols": cols,
                   "detector_rows": 1, "detector_pitch_u_mm": 1.0, "angle_start_rad": 0.0,
                   "angle_step_rad": 3.141592653589793 / views,
                   "projections": {"file": "sinogram.tif", "layout": "sinogram", "dtype": "float32"}}, f)
    tifffile.imwrite(os.path.join(scan, "sinogram.tif"), np.zeros((views, cols), np.float32))
    out = os.path.join(tmp, "out.tif")
    args = ["reconstruct", os.path.join(scan, "geometry.json"), "--method", "fbp", "--size", "4", "-o", out]
    env = mpi_env()
    env.pop("CTR_MEMORY_LIMIT_MB", None)
    p = subprocess.run(mpirun_cmd(0, contexts=[(1, [CLI, *args]), (1, ["env", "CTR_MEMORY_LIMIT_MB=24", CLI, *args])],
                                  env=env), capture_output=True, text=True, timeout=300, env=env)
    errors = [line for line in p.stderr.splitlines() if line.startswith("ctrecon-cli")]
    check(p.returncode != 0 and "rank 1: this rank's copy of the geometry's angles of 4194304 views need 32.0"
          in p.stderr and "CTR_MEMORY_LIMIT_MB" in p.stderr and not os.path.exists(out),
          f"rank 1 without room for the geometry: every rank ends, its message reported, no output "
          f"(exit {p.returncode}; last line: {errors[-1] if errors else p.stderr.strip()[-300:]!r})")
    check("failed to allocate" not in p.stderr, "no abort in GLib's allocator")
finish()
