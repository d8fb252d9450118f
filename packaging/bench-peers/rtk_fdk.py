"""RTK (itk-rtk, CPU) FDK for packaging/bench-peers.sh: cone beam, and fan beam
as a one-row cone.

    python rtk_fdk.py REQUEST.json

REQUEST (written by bench.py): projections (.npy, ours [view][row][col] line
integrals, row index along +z; one row = a fan-beam sinogram), angles_rad (β), pitch_u_mm, pitch_v_mm,
sod_mm, sdd_mm, nx, ny, nz, voxel_xy_mm, voxel_z_mm, threads, output (.npy,
ours [z][y][x], row 0 = +y).  Frames: rtk_common.py.  Ramp filter
(no Hann window, no truncation correction), full 360° scan (no Parker
weights).  Prints the seconds from geometry to volume in memory.
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
    proj = np.load(req["projections"]).astype(np.float32)   # [view][row][col]
    if proj.shape[1] == 1:
        # a fan-beam sinogram: RTK's back-projector interpolates between two
        # detector rows and returns zeros with one, so the row is given twice,
        # at v = ±pitch_v/2 (the z = 0 slice then reads it exactly)
        proj = np.repeat(proj, 2, axis=1)
    proj = np.ascontiguousarray(proj)
    preload(rtk.FDKConeBeamReconstructionFilter[ImageType])
    t0 = time.perf_counter()
    g, p = geometry_and_projections(req, proj)
    src = volume_source(req)
    fdk = rtk.FDKConeBeamReconstructionFilter[ImageType].New()
    fdk.SetInput(0, src.GetOutput())
    fdk.SetInput(1, p)
    fdk.SetGeometry(g)
    fdk.GetRampFilter().SetTruncationCorrection(0.0)
    fdk.GetRampFilter().SetHannCutFrequency(0.0)
    fdk.Update()
    out = fdk.GetOutput()
    dt = time.perf_counter() - t0
    save_ours(out, req["output"])
    print(f"compute_s {dt:.6f}")


if __name__ == "__main__":
    main(sys.argv[1])
