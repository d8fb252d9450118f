"""ctrecon.Operator: forward and adjoint are a transpose pair
(⟨A x, y⟩ = ⟨x, Aᵀ y⟩ to 1e-5) on fan (one and three detector rows, every
ray model), parallel (every ray model), a fan on per-view vectors (every
ray model) and cone beam (test_geometry: cone on per-view vectors); forward equals `ctrecon-cli project` on the same
image to float rounding; inputs are checked."""
import json
import os

import numpy as np

from common import adjointness, check, cli, finish, read_tiff, require_module, simulate, tempdir

ctrecon = require_module()


with tempdir() as tmp:
    path = simulate(tmp)
    ds = ctrecon.load(path)
    for model in ("area", "joseph", "siddon"):
        adjointness(ctrecon.Operator(ds, ray_model=model), f"fan, {model}")

    # forward = the CLI's projection of the same image
    out = os.path.join(tmp, "proj.tif")
    dx = ds.reference_grid["dx_mm"]
    r = cli("project", path, os.path.join(tmp, "reference.tif"), "--pixel-mm", repr(dx), "--ray-model", "area",
            "-o", out)
    if check(r.returncode == 0, "the CLI projected the reference"):
        want = read_tiff(out)  # sinogram layout: a page per row, line = view
        got = ctrecon.Operator(ds, ray_model="area").forward(ds.reference)
        got_pages = np.transpose(got, (1, 0, 2))
        err = float(np.abs(got_pages - want).max() / np.abs(want).max())
        check(got_pages.shape == want.shape and err <= 1e-5,
              f"forward(reference) = ctrecon-cli project to {err:.2e} of the maximum")

    # three detector rows: the stack's slices map to the rows both ways
    with open(path) as fh:
        geo = json.load(fh)
    geo["detector_rows"] = 3
    del geo["reference"]
    import tifffile
    tifffile.imwrite(os.path.join(tmp, "sino3.tif"), np.stack([ds.projections[:, 0, :]] * 3),
                     photometric="minisblack")
    geo["projections"]["file"] = "sino3.tif"
    path3 = os.path.join(tmp, "rows3.json")
    with open(path3, "w") as fh:
        json.dump(geo, fh)
    adjointness(ctrecon.Operator(ctrecon.load(path3), size=32), "fan, three rows")

    par = ctrecon.load(simulate(os.path.join(tmp, "par"), "-g", "parallel"))
    for model in ("area", "joseph", "siddon"):
        adjointness(ctrecon.Operator(par, ray_model=model), f"parallel, {model}")
    # a fan on per-view vectors (a wobbling source: no circular description)
    fv = ctrecon.Geometry(ds).to_dict()
    vec = ctrecon.Geometry(ds).vectors.copy()
    vec[:, 0] += 4.0 * np.sin(np.arange(vec.shape[0]))
    fan_vec = ctrecon.Geometry(dict(fv, vectors=vec))
    xr = np.random.default_rng(9).random((1, 64, 64), dtype=np.float32)
    moved = float(np.abs(ctrecon.Operator(fan_vec, size=64).forward(xr) - ctrecon.Operator(ds, size=64).forward(xr)).max())
    check(fan_vec.beam == "fan" and np.allclose(fan_vec.vectors, vec) and moved > 1e-3,
          f"a fan geometry on per-view vectors, projected as its vectors say (max change {moved:.3g})")
    for model in ("area", "joseph", "siddon"):
        adjointness(ctrecon.Operator(fan_vec, size=64, ray_model=model), f"fan on per-view vectors, {model}")

    cone = simulate(os.path.join(tmp, "cone"), "-g", "cone-flat", "--rows", 4, "--views", 60, "--cols", 64,
                    "--size", 32)
    adjointness(ctrecon.Operator(ctrecon.load(cone)), "cone, 4 rows")

    A = ctrecon.Operator(ds)
    x = np.zeros(A.shape[1], np.float32)
    check(A.forward(x[0]).shape == A.shape[0], "a 2-D image is one slice")
    for bad, what in ((np.zeros((3, 3), np.float32), "a wrong shape"), ("text", "a string")):
        try:
            A.forward(bad)
            check(False, f"forward of {what} raises")
        except ValueError as e:
            check(True, f"forward of {what} raises ValueError: {e}")
    try:
        ctrecon.Operator(ds, ray_model="nonsense")
        check(False, "an unknown ray model raises")
    except ValueError as e:
        check("joseph" in str(e), f"an unknown ray model raises the table's message: {e}")
# Arrays from other libraries: a DLPack producer (as PyTorch, CuPy and JAX
# export CPU tensors) and an object with only __array_interface__ project
# as the numpy array they hold.
class DLPackOnly:
    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class InterfaceOnly:
    def __init__(self, a):
        self.__array_interface__ = a.__array_interface__
        self._keep = a


with tempdir() as tmp:
    ds = ctrecon.load(simulate(tmp))
    A = ctrecon.Operator(ds, size=32)
    x = np.random.default_rng(4).random(A.shape[1], dtype=np.float32)
    y = np.random.default_rng(5).random(A.shape[0], dtype=np.float32)
    check(np.array_equal(A.forward(DLPackOnly(x)), A.forward(x))
          and np.array_equal(A.adjoint(DLPackOnly(y)), A.adjoint(y)), "a DLPack producer projects as its array")
    check(np.array_equal(A.forward(InterfaceOnly(x)), A.forward(x)), "an __array_interface__ object too")
    d2 = ctrecon.Dataset(ctrecon.Geometry(ds), DLPackOnly(ds.projections))
    check(np.array_equal(d2.projections, ds.projections), "Dataset(geometry, DLPack producer)")

# SciPy's LSQR on our operator reaches our CGLS image.  Both are Krylov
# methods on the normal equations with the same iterates in exact
# arithmetic, but the iterates on the way are sensitive to the products'
# float32 rounding (on this scan at 64² even a float64 CGLS in numpy and
# LSQR part by up to 1e-2 between iterations 5 and 20, from the pixels
# outside the field of view that few rays see): the converged images are
# compared, on a 32² grid that 90 × 128 rays determine well.
with tempdir() as tmp:
    from scipy.sparse.linalg import lsqr

    ds = ctrecon.load(simulate(tmp, "--i0", 0))
    A = ctrecon.Operator(ds, size=32)
    L = A.as_linear_operator()
    check(L.shape == (90 * 128, 32 * 32), f"as_linear_operator: shape {L.shape}")
    x = lsqr(L, ds.projections.ravel().astype(np.float64), iter_lim=100, atol=0, btol=0, conlim=0)[0]
    image, _ = ctrecon.reconstruct(ds, "cgls", 100, size=32)
    rel = float(np.linalg.norm(image.ravel() - x) / np.linalg.norm(x))
    check(rel <= 1e-4, f"SciPy LSQR (100) on our operator = our CGLS (100) to {rel:.1e}")
finish()
