#!/usr/bin/env python3
"""Beam hardening: `simulate --spectrum` and the "beam-hardening" step of
the "preprocess" pipeline (core/preprocess/ctr-beamhard.h, issue 34).

(a) The polychromatic simulation: a 200 mm water disc (--phantom disc, 0 HU),
    parallel beam, noiseless, through the built-in "120kvp" spectrum.  numpy
    recomputes every detector bin independently: the disc's exact chords of
    the bin's 4 rays, p = -ln sum_k w_k exp(-mu_water(E_k) L) with the NIST
    water table (log-log interpolation) and the spectrum's weights, and the
    monochromatic twin mu_water(ref) * L.  Both agree with the CLI within
    float32 rounding; the polychromatic one lies clearly below the
    monochromatic one for long paths (beam hardening is there).
(b) Cupping: FBP (the CLI's default) of the monochromatic scan, of the
    polychromatic scan, and of the polychromatic scan with
    {"op": "beam-hardening", "spectrum": "120kvp"} (degree 3, the default).
    Cupping = 1000 (mean over the annulus 70-85 mm - mean over the disc of
    radius 20 mm) / mean over that disc, in HU of the image's own water.
    Targets: the polychromatic image cups by more than 20 HU, the corrected
    one by at most a fifth of that, the monochromatic one by less than 2 HU.
(c) Stated coefficients: the loader's line integrals (preprocess-dump) with
    {"op": "beam-hardening", "coefficients": [a1, a2, a3]} equal numpy's
    a1 p + a2 p^2 + a3 p^3 of the simulated sinogram (float32 rounding),
    and the step's sentence names the coefficients and the largest change.
(d) Bad parameters are refused with a non-zero exit, the key named, no
    output written: empty coefficients, a negative degree, an unknown key,
    both coefficients and spectrum, an unknown built-in spectrum, a spectrum
    energy outside the water table; simulate --spectrum with an unknown name.
Exit 77 when numpy or tifffile is absent.
"""
import atexit
import json
import os
import shutil
import subprocess
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
from water_spectrum import SPEC_KEV, SPEC_W, mu_water  # noqa: E402
DUMP = os.environ.get("CTR_TEST_PREPROCESS_DUMP")
if not DUMP or not os.path.exists(DUMP):
    print("CTR_TEST_PREPROCESS_DUMP is not set; run through meson test")
    sys.exit(77)
T = tempfile.mkdtemp(prefix="ctrecon-beamhard-")
atexit.register(shutil.rmtree, T, True)

MU_REF = 0.0192  # CTR_MU_WATER_PER_MM, the disc's value
R = 100.0
SIM = ["--phantom", "disc", "--geometry", "parallel", "--views", "360", "--cols", "256",
       "--size", "128", "--i0", "0", "--radius", str(R)]


def simulate(name, *extra):
    out = os.path.join(T, name)
    r = run("simulate", *SIM, *extra, "-o", out)
    check(r.returncode == 0, f"simulate {name}: {r.stderr.strip()[-200:]}")
    with open(os.path.join(out, "geometry.json")) as fh:
        g = json.load(fh)
    return out, g, tifffile.imread(os.path.join(out, "sinogram.tif")).astype(np.float64)


# (a) the simulation against numpy
mono_dir, G, mono = simulate("mono")
poly_dir, _, poly = simulate("poly", "--spectrum", "120kvp")
n, pitch = G["detector_cols"], G["detector_pitch_u_mm"]
u = (np.arange(n)[:, None] + (np.arange(4)[None, :] + 0.5) / 4 - 0.5 - (n - 1) / 2) * pitch
L = 2 * np.sqrt(np.maximum(R * R - u * u, 0))                      # [col][ray]
mu = mu_water(SPEC_KEV)
want_poly = (-np.log(np.exp(-L[..., None] * mu) @ SPEC_W)).mean(axis=1)
want_mono = (MU_REF * L).mean(axis=1)
err_mono = np.abs(mono - want_mono[None, :]).max()
err_poly = np.abs(poly - want_poly[None, :]).max()
print(f"simulation vs numpy: largest difference mono {err_mono:.2e}, poly {err_poly:.2e} "
      f"(largest line integral {poly.max():.4f})")
check(err_mono < 2e-5 * mono.max(), "monochromatic disc: line integrals = numpy's mu*chord")
check(err_poly < 2e-5 * poly.max(), "polychromatic disc: line integrals = numpy's -ln sum w exp(-mu(E) L)")
centre = poly[:, n // 2].mean()
mean_mu = float(SPEC_W @ mu)
check(centre < 0.85 * mean_mu * 2 * R,
      f"beam hardening: the central ray's p {centre:.3f} < 0.85 x mean mu x 200 mm = {0.85 * mean_mu * 2 * R:.3f}")


# a stated spectrum file: two energies, through the same formula
sfile = os.path.join(T, "two.json")
with open(sfile, "w") as fh:
    json.dump({"energies_kev": [40, 90], "fluence": [3, 1], "description": "test"}, fh)
two_dir, G2, two = simulate("two", "--spectrum", sfile)
w2 = np.array([0.75, 0.25])
want_two = (-np.log(np.exp(-L[..., None] * mu_water(np.array([40.0, 90.0]))) @ w2)).mean(axis=1)
err_two = np.abs(two - want_two[None, :]).max()
print(f"stated two-energy spectrum vs numpy: largest difference {err_two:.2e}")
check(err_two < 2e-5 * two.max(), "a spectrum file (40 and 90 keV, 3:1) gives numpy's line integrals")
check(any("Polychromatic: spectrum 'stated' (2 energies" in s for s in G2["notes"]),
      "geometry.json's notes state the spectrum")


# (b) cupping before and after
def cupping(tif):
    im = tifffile.imread(tif).astype(np.float64).squeeze()
    k = im.shape[0]
    px = 2 * 1.1 * R / k
    yy, xx = np.mgrid[:k, :k]
    r = np.hypot(xx - (k - 1) / 2, yy - (k - 1) / 2) * px
    c, e = im[r < 20].mean(), im[(r > 70) & (r < 85)].mean()
    return 1000 * (e - c) / c


def write_json(name, obj):
    path = os.path.join(T, name)
    with open(path, "w") as fh:
        json.dump(obj, fh)
    return path


def recon(geometry, out, *extra):
    r = run("reconstruct", geometry, "-s", "128", "--no-reference", *extra, "-o", os.path.join(T, out))
    check(r.returncode == 0, f"reconstruct {out}: {r.stderr.strip()[-200:]}")
    return r


recon(os.path.join(mono_dir, "geometry.json"), "mono.tif")
recon(os.path.join(poly_dir, "geometry.json"), "poly.tif")
spec_step = write_json("spectrum.json", [{"op": "beam-hardening", "spectrum": "120kvp"}])
r = recon(os.path.join(poly_dir, "geometry.json"), "corr.tif", "--preprocess", spec_step)
check("beam-hardening: p' =" in r.stderr and "fitted to water through spectrum '120kvp'" in r.stderr
      and "largest change" in r.stderr, "the fitted step reports its polynomial, its source and its change")
c_mono, c_poly, c_corr = (cupping(os.path.join(T, f)) for f in ("mono.tif", "poly.tif", "corr.tif"))
print(f"cupping (edge annulus 70-85 mm minus central disc 20 mm, HU of the image's water): "
      f"monochromatic {c_mono:+.2f}, polychromatic {c_poly:+.2f}, corrected {c_corr:+.2f} "
      f"(reduced {abs(c_poly) / max(abs(c_corr), 1e-9):.1f}x)")
check(abs(c_mono) < 2, f"monochromatic FBP is flat: |{c_mono:.2f}| < 2 HU")
check(c_poly > 20, f"polychromatic FBP cups: {c_poly:.1f} HU > 20 HU")
check(abs(c_corr) * 5 <= abs(c_poly), f"the correction cuts the cupping >= 5x: {c_poly:.1f} -> {c_corr:.2f} HU")

# (c) stated coefficients = numpy's polynomial
coef = [0.98, 0.06, -0.004]
coef_step = write_json("coef.json", [{"op": "beam-hardening", "coefficients": coef}])
raw = os.path.join(T, "coef.raw")
r = subprocess.run([DUMP, os.path.join(poly_dir, "geometry.json"), raw, coef_step],
                   capture_output=True, text=True, timeout=300)
check(r.returncode == 0, f"preprocess-dump with stated coefficients: {r.stderr.strip()[-200:]}")
got = np.fromfile(raw, dtype=np.float32).reshape(poly.shape).astype(np.float64)
want = coef[0] * poly + coef[1] * poly ** 2 + coef[2] * poly ** 3
err = np.abs(got - want).max()
print(f"stated coefficients vs numpy: largest difference {err:.2e}; step said: {r.stderr.strip()[-160:]}")
check(err < 1e-5 * want.max(), "stated coefficients: the loader's line integrals = numpy's polynomial")
check("stated coefficients" in r.stderr and "0.98" in r.stderr
      and f"largest change {np.abs(want - poly).max():.4g}"[:-1] in r.stderr,
      "the stated step reports its coefficients and the largest change")

# (d) bad parameters
BAD = [
    ({"op": "beam-hardening", "coefficients": []}, "coefficients"),
    ({"op": "beam-hardening", "spectrum": "120kvp", "degree": -1}, "degree"),
    ({"op": "beam-hardening", "spectrum": "120kvp", "strength": 2}, "strength"),
    ({"op": "beam-hardening", "coefficients": [1], "spectrum": "120kvp"}, "not both"),
    ({"op": "beam-hardening"}, "coefficients"),
    ({"op": "beam-hardening", "spectrum": "80kvp"}, "80kvp"),
    ({"op": "beam-hardening", "spectrum": {"energies_kev": [5, 60], "fluence": [1, 1]}}, "energies_kev"),
    ({"op": "beam-hardening", "coefficients": [1, "2"]}, "coefficients"),
    ({"op": "beam-hardening", "coefficients": [1], "degree": 2}, "degree"),
]
for i, (step, key) in enumerate(BAD):
    path = write_json(f"bad{i}.json", [step])
    out = os.path.join(T, f"bad{i}.tif")
    r = run("reconstruct", os.path.join(poly_dir, "geometry.json"), "-s", "64", "--no-reference",
            "--preprocess", path, "-o", out)
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    check(r.returncode != 0 and key in msg and not os.path.exists(out),
          f"refused {json.dumps(step)}: {msg[-160:]}")
r = run("simulate", *SIM, "--spectrum", "200kvp", "-o", os.path.join(T, "badsim"))
check(r.returncode != 0 and "200kvp" in r.stderr and not os.path.exists(os.path.join(T, "badsim")),
      f"simulate refuses an unknown spectrum: {r.stderr.strip()[-120:]}")
finish()
