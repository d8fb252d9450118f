"""RTK (itk-rtk, CPU) FDK for packaging/bench-peers.sh: cone beam, and fan beam
as a one-row cone.

    python rtk_fdk.py REQUEST.json

REQUEST (written by bench.py): projections (.npy, ours [view][row][col] line
integrals, row index along +z; one row = a fan-beam sinogram), angles_rad (β), pitch_u_mm, pitch_v_mm,
sod_mm, sdd_mm, nx, ny, nz, voxel_xy_mm, voxel_z_mm, threads, output (.npy,
ours [z][y][x], row 0 = +y).  Frames as tests/peers/test_peer_geometry.py
proves them: RTK's gantry angle is β (degrees), its fixed frame
(x_r, y_r, z_r) is ours as (x_r, −z_r, y_r), so RTK's volume
[z_r][y_r][x_r] is ours [y][z][x] (row 0 = +y = lowest z_r).  Ramp filter
(no Hann window, no truncation correction), full 360° scan (no Parker
weights).  Prints the seconds from geometry to volume in memory.
"""
import json
import sys
import time

import itk
import numpy as np
from itk import RTK as rtk


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
    ImageType = itk.Image[itk.F, 3]
    # itk loads its wrapped modules lazily on first use (tens of seconds on a
    # loaded machine): load them before the clock starts
    for cls in (rtk.ThreeDCircularProjectionGeometry, rtk.ConstantImageSource[ImageType],
                rtk.FDKConeBeamReconstructionFilter[ImageType]):
        cls.New()
    itk.image_from_array(np.zeros((1, 1, 1), np.float32))
    t0 = time.perf_counter()
    views, rows, cols = proj.shape
    pu, pv = req["pitch_u_mm"], req["pitch_v_mm"]
    g = rtk.ThreeDCircularProjectionGeometry.New()
    for a in req["angles_rad"]:
        g.AddProjection(req["sod_mm"], req["sdd_mm"], float(np.degrees(a)), 0.0, 0.0)
    p = itk.image_from_array(proj)
    p.SetSpacing([pu, pv, 1.0])
    p.SetOrigin([-(cols - 1) / 2.0 * pu, -(rows - 1) / 2.0 * pv, 0.0])
    nx, ny, nz = req["nx"], req["ny"], req["nz"]
    sxy, sz = req["voxel_xy_mm"], req["voxel_z_mm"]
    src = rtk.ConstantImageSource[ImageType].New()
    # RTK (x_r, y_r, z_r) = ours (x, z, −y)
    src.SetSize([nx, nz, ny])
    src.SetSpacing([sxy, sz, sxy])
    src.SetOrigin([-(nx - 1) / 2.0 * sxy, -(nz - 1) / 2.0 * sz, -(ny - 1) / 2.0 * sxy])
    src.SetConstant(0.0)
    fdk = rtk.FDKConeBeamReconstructionFilter[ImageType].New()
    fdk.SetInput(0, src.GetOutput())
    fdk.SetInput(1, p)
    fdk.SetGeometry(g)
    fdk.GetRampFilter().SetTruncationCorrection(0.0)
    fdk.GetRampFilter().SetHannCutFrequency(0.0)
    fdk.Update()
    vol = itk.array_from_image(fdk.GetOutput())           # [z_r][y_r][x_r] = ours [y][z][x]
    dt = time.perf_counter() - t0
    np.save(req["output"], np.ascontiguousarray(vol.transpose(1, 0, 2)).astype(np.float32))
    print(f"compute_s {dt:.6f}")


if __name__ == "__main__":
    main(sys.argv[1])
