#!/usr/bin/env python3
"""Beam-hardening coefficients measured from a water-cylinder scan:
`ctrecon-cli calibrate-water` (core/preprocess/ctr-beamhard-water.h, issue 34).

(a) A 200 mm water disc, parallel beam, noiseless, through the built-in
    "120kvp" spectrum: calibrate-water finds the disc (radius within 0.5 mm
    of 100 mm) and writes a "preprocess" step of three coefficients; the
    polynomial maps the central column's measured line integral onto
    0.0192/mm x 200 mm within 0.5 % (the disc's exact chord, numpy).
(b) Applied to a second scan, a 140 mm disc of the same spectrum, through
    `reconstruct --preprocess`: cupping = 1000 (mean over the annulus
    0.70-0.85 R - mean over the disc 0.2 R) / mean over that disc, in HU of
    the image's own water.  Targets: the uncorrected image cups by more than
    20 HU; the water-scan correction cuts it >= 5x and leaves at most 5 HU
    (the spectrum-fitted correction, {"spectrum": "120kvp"}, is printed
    beside it); the corrected water reads 0.0192/mm within 2 %.  The
    polynomial agrees with numpy's fit to the stated spectrum
    (water_spectrum.spectrum_fit) within 0.5 % of mu x 200 mm over
    [0, p_max].
(c) Bad input: a missing file, a scan with no water (a zero sinogram) and
    the head phantom (not one cylinder) exit 1 with a message naming the
    cause and write nothing; --degree 0 and a --cylinder without a positive
    radius exit 2.  (Fan and cone beam: test_beam_hardening_water_geometries.py.)
(d) calibrate-water --help, and ctrecon-cli --help lists it.
Exit 77 when numpy or tifffile is absent.
"""
import atexit
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import check, finish, require_cli, run  # noqa: E402

require_cli()
try:
    import numpy as np
    import tifffile
except ImportError:
    print("numpy or tifffile is missing: skipped")
    sys.exit(77)
from water_spectrum import poly, spectrum_fit  # noqa: E402

T = tempfile.mkdtemp(prefix="ctrecon-bhwater-")
atexit.register(shutil.rmtree, T, True)
MU = 0.0192
SIM = ["--geometry", "parallel", "--views", "360", "--cols", "256", "--size", "128", "--i0", "0",
       "--spectrum", "120kvp"]


def simulate(name, *extra):
    out = os.path.join(T, name)
    r = run("simulate", *SIM, *extra, "-o", out)
    check(r.returncode == 0, f"simulate {name}: {r.stderr.strip()[-200:]}")
    return os.path.join(out, "geometry.json")


def cupping(tif, radius):
    im = tifffile.imread(tif).astype(np.float64).squeeze()
    k = im.shape[0]
    px = 2 * 1.1 * radius / k
    yy, xx = np.mgrid[:k, :k]
    r = np.hypot(xx - (k - 1) / 2, yy - (k - 1) / 2) * px
    c, e = im[r < 0.2 * radius].mean(), im[(r > 0.7 * radius) & (r < 0.85 * radius)].mean()
    return 1000 * (e - c) / c, c


# (a) the calibration
water = simulate("water200", "--phantom", "disc", "--radius", "100")
step = os.path.join(T, "step.json")
r = run("calibrate-water", water, "-o", step)
check(r.returncode == 0, f"calibrate-water: {r.stderr.strip()[-200:]}")
print(r.stdout.strip())
with open(step) as fh:
    pipeline = json.load(fh)
check(len(pipeline) == 1 and pipeline[0]["op"] == "beam-hardening" and len(pipeline[0]["coefficients"]) == 3,
      "the output is a one-step pipeline with three coefficients")
radius = float(r.stdout.split("radius ")[1].split(" mm")[0])
check(abs(radius - 100) < 0.5, f"the disc's radius found: {radius:.2f} mm (100)")
check("RMS residual" in r.stdout, "the fit's residual is reported")
a = np.array(pipeline[0]["coefficients"])
sino = tifffile.imread(os.path.join(T, "water200", "sinogram.tif")).astype(np.float64).reshape(360, -1)
n = sino.shape[1]
p_mid = 0.5 * (sino[:, n // 2 - 1] + sino[:, n // 2]).mean()   # the columns either side of the axis
u = 0.5 * 220.0 / n                                              # their distance from the axis, mm
want = MU * 2 * np.sqrt(100.0 ** 2 - u ** 2)
got = sum(a[k] * p_mid ** (k + 1) for k in range(3))
print(f"central line integral {p_mid:.4f} -> {got:.4f}, ideal mu x chord {want:.4f}")
check(abs(got - want) < 0.005 * want, "the polynomial maps the centre's line integral onto mu x chord (0.5 %)")
p_max = float(r.stdout.split("largest line integral ")[1].split()[0])
spec_a = spectrum_fit(p_max, MU)
grid = np.linspace(0, p_max, 200)
gap = np.abs(poly(a, grid) - poly(spec_a, grid)).max() / (MU * 200)
print(f"coefficients {a}, numpy's spectrum fit {spec_a}: largest gap {100 * gap:.3f} % of mu x 200 mm")
check(gap <= 0.005, f"the polynomial agrees with the spectrum's within 0.5 % ({100 * gap:.3f} %)")

# (b) a second object: a 140 mm disc
disc = simulate("water140", "--phantom", "disc", "--radius", "70")
spec = os.path.join(T, "spectrum.json")
with open(spec, "w") as fh:
    json.dump([{"op": "beam-hardening", "spectrum": "120kvp"}], fh)
res = {}
for name, extra in (("none", []), ("water", ["--preprocess", step]), ("spectrum", ["--preprocess", spec])):
    out = os.path.join(T, name + ".tif")
    r = run("reconstruct", disc, "-s", "128", "--no-reference", *extra, "-o", out)
    check(r.returncode == 0, f"reconstruct {name}: {r.stderr.strip()[-200:]}")
    res[name] = cupping(out, 70.0)
c_none, c_water, c_spec = (res[k][0] for k in ("none", "water", "spectrum"))
print(f"140 mm disc cupping (HU): uncorrected {c_none:+.2f}, water-scan coefficients {c_water:+.2f} "
      f"(reduced {abs(c_none) / max(abs(c_water), 1e-9):.1f}x), spectrum fit {c_spec:+.2f}; "
      f"centre mu {res['water'][1]:.5f}/mm")
check(c_none > 20, f"uncorrected cupping {c_none:.1f} HU > 20 HU")
check(abs(c_water) * 5 <= abs(c_none), f"the water-scan correction cuts the cupping >= 5x: {c_none:.1f} -> {c_water:.2f}")
check(abs(c_water) <= 5, f"the water-scan correction leaves at most 5 HU: {c_water:.2f} (spectrum fit {c_spec:.2f})")
check(abs(res["water"][1] - MU) < 0.02 * MU, f"corrected water reads {res['water'][1]:.5f}/mm (0.0192 +- 2 %)")

# (c) bad input
zero = simulate("zero", "--phantom", "disc", "--radius", "100")
zs = os.path.join(T, "zero", "sinogram.tif")
tifffile.imwrite(zs, np.zeros_like(tifffile.imread(zs)))
head = simulate("head", "--phantom", "head")
for geometry, key in ((os.path.join(T, "missing.json"), "missing.json"), (zero, "no water"),
                      (head, "not one water cylinder")):
    out = os.path.join(T, "bad.json")
    r = run("calibrate-water", geometry, "-o", out)
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    check(r.returncode == 1 and key in msg and not os.path.exists(out), f"refused ({key}): {msg[-160:]}")
r = run("calibrate-water", water, "-o", os.path.join(T, "bad.json"), "--degree", "0")
check(r.returncode == 2 and "--degree" in r.stderr, "--degree 0 is refused (exit 2)")
r = run("calibrate-water", water, "-o", os.path.join(T, "bad.json"), "--cylinder", "0,0,-5")
check(r.returncode == 2 and "--cylinder" in r.stderr, "--cylinder 0,0,-5 is refused (exit 2)")
r = run("calibrate-water", "--help")
check(r.returncode == 0 and "--output" in r.stdout and "Herman 1979" in r.stdout, "calibrate-water --help")
r = run("--help")
check("calibrate-water" in r.stdout + r.stderr, "ctrecon-cli --help lists calibrate-water")
finish()
