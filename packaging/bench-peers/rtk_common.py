"""What the RTK drivers of packaging/bench-peers.sh share: the request's
projections and circular geometry as RTK's, the volume's constant source,
and RTK's volume back in our order.

Frames as tests/peers/test_peer_geometry.py proves them: RTK's gantry angle
is β (degrees), its fixed frame (x_r, y_r, z_r) is ours as (x_r, −z_r, y_r),
so RTK's volume [z_r][y_r][x_r] is ours [y][z][x] (row 0 = +y = lowest z_r).
Projections: ours [view][row][col] line integrals, row index along +z.
"""
import itk
import numpy as np
from itk import RTK as rtk

ImageType = itk.Image[itk.F, 3]


def preload(*classes):
    """itk loads its wrapped modules lazily on first use (tens of seconds on
    a loaded machine): load them before the clock starts."""
    for cls in (rtk.ThreeDCircularProjectionGeometry, rtk.ConstantImageSource[ImageType], *classes):
        cls.New()
    itk.image_from_array(np.zeros((1, 1, 1), np.float32))


def geometry_and_projections(req, proj):
    """RTK's geometry of the request's circular orbit and @proj ([view][row][col]
    float32, C order) as an RTK projection stack."""
    views, rows, cols = proj.shape
    pu, pv = req["pitch_u_mm"], req["pitch_v_mm"]
    g = rtk.ThreeDCircularProjectionGeometry.New()
    for a in req["angles_rad"]:
        g.AddProjection(req["sod_mm"], req["sdd_mm"], float(np.degrees(a)), 0.0, 0.0)
    p = itk.image_from_array(proj)
    p.SetSpacing([pu, pv, 1.0])
    p.SetOrigin([-(cols - 1) / 2.0 * pu, -(rows - 1) / 2.0 * pv, 0.0])
    return g, p


def volume_source(req, value=0.0):
    """A constant volume of the request's nx × ny × nz voxels (voxel_xy_mm,
    voxel_z_mm), centred on the isocentre, in RTK's frame."""
    nx, ny, nz = req["nx"], req["ny"], req["nz"]
    sxy, sz = req["voxel_xy_mm"], req["voxel_z_mm"]
    src = rtk.ConstantImageSource[ImageType].New()
    # RTK (x_r, y_r, z_r) = ours (x, z, −y)
    src.SetSize([nx, nz, ny])
    src.SetSpacing([sxy, sz, sxy])
    src.SetOrigin([-(nx - 1) / 2.0 * sxy, -(nz - 1) / 2.0 * sz, -(ny - 1) / 2.0 * sxy])
    src.SetConstant(value)
    return src


def save_ours(image, path):
    """RTK's volume [z_r][y_r][x_r] saved as ours [z][y][x] (.npy, float32)."""
    vol = itk.array_from_image(image)            # = ours [y][z][x]
    np.save(path, np.ascontiguousarray(vol.transpose(1, 0, 2)).astype(np.float32))
