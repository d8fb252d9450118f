"""RTK (itk-rtk, CPU) SART for packaging/bench-peers.sh: circular cone beam.

    python rtk_sart.py REQUEST.json

REQUEST (written by bench.py): as rtk_fdk.py's (projections, angles_rad,
pitch_u_mm, pitch_v_mm, sod_mm, sdd_mm, nx, ny, nz, voxel_xy_mm,
voxel_z_mm, threads, output), plus iterations and projections_per_subset
(1: SART as RTK runs it by default; the number of views: SIRT's one update
per pass).  RTK's defaults otherwise: Joseph forward projector, voxel-based
back-projector, λ = 0.3, no positivity.  Prints the seconds from geometry to
volume in memory, and per iteration.
"""
import json
import sys
import time

import itk
import numpy as np
from itk import RTK as rtk

from rtk_common import ImageType, geometry_and_projections, preload, save_ours, volume_source


def main(path):
    with open(path) as f:
        req = json.load(f)
    itk.MultiThreaderBase.SetGlobalDefaultNumberOfThreads(req["threads"])
    proj = np.ascontiguousarray(np.load(req["projections"]).astype(np.float32))   # [view][row][col]
    preload(rtk.SARTConeBeamReconstructionFilter[ImageType, ImageType])
    t0 = time.perf_counter()
    g, p = geometry_and_projections(req, proj)
    src = volume_source(req)
    sart = rtk.SARTConeBeamReconstructionFilter[ImageType, ImageType].New()
    sart.SetInput(0, src.GetOutput())
    sart.SetInput(1, p)
    sart.SetGeometry(g)
    sart.SetNumberOfIterations(req["iterations"])
    sart.SetNumberOfProjectionsPerSubset(req["projections_per_subset"])
    sart.Update()
    out = sart.GetOutput()
    dt = time.perf_counter() - t0
    save_ours(out, req["output"])
    print(f"compute_s {dt:.6f}")
    print(f"per_iteration_s {dt / req['iterations']:.6f}")


if __name__ == "__main__":
    main(sys.argv[1])
