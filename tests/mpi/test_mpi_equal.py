"""mpirun -np 2 ctrecon-cli reconstruct writes what one process writes
(issue 16): SIRT on every slice of savu-parallel-tiff (slice blocks), FDK on
head-cone-small in both iFDK decompositions (2 view groups; 2 z-slabs), and
the whole stack's per-iteration report (residual, RMSE, PSNR, SSIM) equal to
one process's.  Cone SIRT over 3 z-slabs: close with the default halo, far
without one (the halo matters).

Equal means max |a − b| <= 1e-5 · max |a| over the volume (float rounding of
sums taken in another order; near-zero voxels make a per-voxel ratio
meaningless)."""
import csv
import os
import tempfile

import numpy as np
import tifffile

from mpi_common import check, finish, mpi_env, mpirun, require_data, require_mpi, run

require_mpi()
SAVU, CONE = require_data()


def rel_max(a, b):
    return float(np.abs(a.astype(np.float64) - b).max() / np.abs(a).max())


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def same_reports(one, many, what, keys):
    ok = len(one) == len(many) and len(one) > 0
    worst = 0.0
    for r1, r2 in zip(one, many):
        for k in keys:
            a, b = float(r1[k]), float(r2[k])
            worst = max(worst, abs(a - b) / max(abs(a), 1e-30))
    check(ok and worst <= 1e-5, f"{what}: per-iteration {', '.join(keys)} equal to one process "
          f"(worst relative difference {worst:.2e}, {len(one)} reports)")


with tempfile.TemporaryDirectory() as tmp:
    os.environ["CTR_CACHE_DIR"] = os.path.join(tmp, "cache")
    # A reference on the output grid (148² × 135) with structure, so that
    # RMSE, PSNR and SSIM depend on every slice and on the global data range.
    z, y, x = np.mgrid[0:135, 0:148, 0:148].astype(np.float32)
    ref = (0.002 * (1 + np.sin(x / 9.0) * np.cos(y / 13.0)) * (1 + z / 135.0)).astype(np.float32)
    ref_path = os.path.join(tmp, "ref.tif")
    tifffile.imwrite(ref_path, ref)

    args = ["reconstruct", SAVU, "--method", "sirt", "--iterations", "2", "--reference", ref_path]
    p1 = run(*args, "--metrics", f"{tmp}/one.csv", "-o", f"{tmp}/one.tif", env=mpi_env(OMP_NUM_THREADS=2))
    p2 = mpirun(2, *args, "--metrics", f"{tmp}/two.csv", "-o", f"{tmp}/two.tif")
    check(p1.returncode == 0, "savu SIRT, one process" + ("" if p1.returncode == 0 else ": " + p1.stderr[-800:]))
    check(p2.returncode == 0, "savu SIRT, mpirun -np 2" + ("" if p2.returncode == 0 else ": " + p2.stderr[-800:]))
    if p1.returncode == 0 and p2.returncode == 0:
        a, b = tifffile.imread(f"{tmp}/one.tif"), tifffile.imread(f"{tmp}/two.tif")
        d = rel_max(a, b)
        check(a.shape == b.shape == (135, 148, 148) and d <= 1e-5,
              f"savu SIRT, every slice: 2 ranks = 1 process (max rel. difference {d:.2e})")
        same_reports(read_csv(f"{tmp}/one.csv"), read_csv(f"{tmp}/two.csv"), "savu SIRT",
                     ["residual", "rmse", "psnr", "ssim"])
        check("MPI: 2 ranks" in p2.stderr and "rank 0: slices 0-67 (68)" in p2.stderr
              and "rank 1: slices 68-134 (67)" in p2.stderr,
              "the report names the ranks and their slice blocks")
        check(p2.stderr.count("matrix from the cache") >= 1,
              "the second rank of the node loads the matrix its neighbour cached")

    # FDK: 2 view groups × 1 slab, and 1 group × 2 slabs.
    f1 = run("reconstruct", CONE, "-o", f"{tmp}/fdk1.tif", "--metrics", f"{tmp}/fdk1.csv")
    check(f1.returncode == 0, "head-cone-small FDK, one process")
    for slabs, what in ((1, "2 view groups"), (2, "2 z-slabs")):
        f2 = mpirun(2, "reconstruct", CONE, "-o", f"{tmp}/fdk2.tif", "--metrics", f"{tmp}/fdk2.csv",
                    env=mpi_env(CTR_MPI_SLABS=slabs))
        ok = f2.returncode == 0 and f1.returncode == 0
        check(ok, f"FDK mpirun -np 2 ({what})" + ("" if ok else ": " + f2.stderr[-800:]))
        if ok:
            d = rel_max(tifffile.imread(f"{tmp}/fdk1.tif"), tifffile.imread(f"{tmp}/fdk2.tif"))
            check(d <= 1e-5, f"FDK, {what}: 2 ranks = 1 process (max rel. difference {d:.2e})")
            same_reports(read_csv(f"{tmp}/fdk1.csv"), read_csv(f"{tmp}/fdk2.csv"), f"FDK, {what}",
                         ["rmse", "psnr", "ssim"])
            check(f"iFDK grid of {slabs} z-slab" in f2.stderr, f"the report names the iFDK grid ({what})")

    # Cone SIRT over 3 slabs (3 ranks: the middle one has two neighbours).
    c1 = run("reconstruct", CONE, "--method", "sirt", "--iterations", "2", "-o", f"{tmp}/cs1.tif")
    c3 = mpirun(3, "reconstruct", CONE, "--method", "sirt", "--iterations", "2", "-o", f"{tmp}/cs3.tif")
    c0 = mpirun(3, "reconstruct", CONE, "--method", "sirt", "--iterations", "2", "-o", f"{tmp}/cs0.tif",
                env=mpi_env(CTR_MPI_HALO=0))
    if check(c1.returncode == 0 and c3.returncode == 0 and c0.returncode == 0, "cone SIRT on 1 and 3 ranks"):
        a = tifffile.imread(f"{tmp}/cs1.tif")
        d3, d0 = rel_max(a, tifffile.imread(f"{tmp}/cs3.tif")), rel_max(a, tifffile.imread(f"{tmp}/cs0.tif"))
        check(d3 <= 1e-3, f"cone SIRT, 3 z-slabs with the default halo: close to one process ({d3:.2e})")
        check(d0 >= 1e-2, f"cone SIRT, 3 z-slabs without halo: far from it ({d0:.2e}): the halo matters")
        check("halo slices on either side" in c3.stderr, "the report names the halo")
finish()
