"""`ctrecon-cli roi` (core/quality/ctr-roi.h) against numpy on real images.

Images: the head slice of head-fan-lowdose (reference.tif, 0.957 mm), the
same slice reconstructed from the quarter-dose scan with FBP (real noise),
page 30 of the real head CT (head-ct, HU -> mu = 0.0192 (1 + HU/1000)) and
the gel-fan pre-scan reference (0.133 mm).  For each, 24 ROIs at fixed
random places (circles and rectangles, some reaching past the image edge):
pixel counts must be equal; mean, SD (sample, n - 1), HU values, CNR
against a background ROI and the plane-detrended noise SD must agree with
numpy (np.linalg.lstsq for the plane) to 1e-6 relative (1e-6 HU absolute);
a water ROI's mean must come back as mu_water.  Bad ROIs must fail with a
message (exit 1 or 2), never a crash.
Skips (77) without ../shared/data.
"""
import json
import os
import sys
import tempfile

import numpy as np
import tifffile

from common import DATA, check, finish, require_cli, run

require_cli()
if not DATA or not os.path.isdir(DATA):
    print(f"no shared data at '{DATA}': skipping")
    sys.exit(77)

MU_WATER = 0.0192
tmp = tempfile.TemporaryDirectory()


def centres(n, d):
    """x and y (mm) of every pixel centre: row 0 = +y, column 0 = -x."""
    c = (np.arange(n) - (n - 1) / 2) * d
    return np.meshgrid(c, -c)


def mask_of(spec, x, y):
    shape, vals = spec.split(":")
    v = [float(t) for t in vals.split(",")]
    if shape == "circle":
        return (x - v[0]) ** 2 + (y - v[1]) ** 2 <= v[2] ** 2
    return (np.abs(x - v[0]) <= v[2] / 2) & (np.abs(y - v[1]) <= v[3] / 2)


def hu(mu, mw=MU_WATER):
    return 1000 * (mu - mw) / mw


def close(a, b, tol=1e-6):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol * max(1.0, abs(b))


def oracle(img, m, bg=None):
    v = img[m].astype(np.float64)
    out = {"pixels": int(m.sum()), "mean": v.mean(), "sd": v.std(ddof=1),
           "mean_hu": hu(v.mean()), "sd_hu": 1000 * v.std(ddof=1) / MU_WATER}
    out["cnr"] = None if bg is None else abs(out["mean_hu"] - bg["mean_hu"]) / bg["sd_hu"]
    return out


def noise_sd(img, m, x, y):
    A = np.stack([np.ones(m.sum()), x[m], y[m]], axis=1)
    v = img[m].astype(np.float64)
    coef, *_ = np.linalg.lstsq(A, v, rcond=None)
    r = v - A @ coef
    return 1000 * np.sqrt((r ** 2).sum() / (m.sum() - 3)) / MU_WATER


def write(name, img):
    path = os.path.join(tmp.name, name + ".tif")
    tifffile.imwrite(path, img.astype(np.float32))
    return path


images = []
hfl = os.path.join(DATA, "head-fan-lowdose")
ref = tifffile.imread(os.path.join(hfl, "reference.tif")).astype(np.float32)
images.append(("head-fan-lowdose reference", write("ref", ref), ref, 0.95703125))
fbp = os.path.join(tmp.name, "fbp.tif")
r = run("reconstruct", os.path.join(hfl, "geometry.json"), "--method", "fbp", "--window", "hann",
        "--output", fbp)
if check(r.returncode == 0, "quarter-dose FBP for a noisy real image"):
    im = tifffile.imread(fbp).astype(np.float32)
    images.append(("quarter-dose FBP", fbp, im, 0.95703125))
ct = tifffile.imread(os.path.join(DATA, "head-ct", "head_ct_hu.tif"), key=30).astype(np.float64)
ct_mu = np.clip(MU_WATER * (1 + ct / 1000), 0, None).astype(np.float32)
images.append(("head-ct page 30", write("ct", ct_mu), ct_mu, 0.95703125))
gel = tifffile.imread(os.path.join(DATA, "gel-fan", "reference_fbp_pre_scan.tif")).astype(np.float32)
images.append(("gel-fan reference", write("gel", gel), gel, 0.133333))

rng = np.random.default_rng(2024)
for label, path, img, d in images:
    n = img.shape[0]
    half = n * d / 2
    x, y = centres(n, d)
    specs = []
    for k in range(24):
        cx, cy = rng.uniform(-0.8 * half, 0.8 * half, 2)
        if k % 2 == 0:
            specs.append(f"circle:{cx:.3f},{cy:.3f},{rng.uniform(3, 0.3 * half):.3f}")
        else:
            specs.append(f"rect:{cx:.3f},{cy:.3f},{rng.uniform(4, 0.4 * half):.3f},{rng.uniform(4, 0.4 * half):.3f}")
    bg_spec = f"circle:0,0,{0.2 * half:.3f}"
    noise_spec = f"rect:{0.1 * half:.3f},{-0.1 * half:.3f},{0.3 * half:.3f},{0.25 * half:.3f}"
    args = ["roi", path, "--pixel-size", d, "--background", bg_spec, "--noise-roi", noise_spec]
    for s in specs:
        args += ["--roi", s]
    r = run(*args)
    if not check(r.returncode == 0, f"{label}: roi runs ({r.stderr.strip()[:200]})"):
        continue
    got = json.loads(r.stdout)
    bg = oracle(img, mask_of(bg_spec, x, y))
    bad = []
    for s, g in zip(specs, got["rois"]):
        want = oracle(img, mask_of(s, x, y), bg)
        if g["pixels"] != want["pixels"]:
            bad.append(f"{s}: {g['pixels']} pixels, numpy {want['pixels']}")
            continue
        for key in ("mean", "sd", "mean_hu", "sd_hu", "cnr"):
            if not close(g[key], want[key]):
                bad.append(f"{s} {key}: {g[key]} vs numpy {want[key]}")
    check(not bad, f"{label}: 24 ROIs (pixels, mean, SD, HU, CNR) equal numpy to 1e-6" +
          (": " + "; ".join(bad[:4]) if bad else ""))
    check(close(got["background"]["sd_hu"], bg["sd_hu"]), f"{label}: background SD {bg['sd_hu']:.4f} HU")
    want_noise = noise_sd(img, mask_of(noise_spec, x, y), x, y)
    check(close(got["noise_sd_hu"], want_noise),
          f"{label}: detrended noise SD {got['noise_sd_hu']:.5f} HU = numpy lstsq {want_noise:.5f}")
    print(f"     e.g. {specs[0]}: mean {got['rois'][0]['mean_hu']:.2f} HU, SD {got['rois'][0]['sd_hu']:.2f} HU, "
          f"CNR {got['rois'][0]['cnr']:.3f}")

# Water calibration: the mean inside the water ROI becomes mu_water.
label, path, img, d = images[0]
x, y = centres(img.shape[0], d)
w = "circle:20,10,6"
r = run("roi", path, "--pixel-size", d, "--water-roi", w, "--roi", w)
if check(r.returncode == 0, "water calibration runs"):
    got = json.loads(r.stdout)
    mw = img[mask_of(w, x, y)].astype(np.float64).mean()
    check(close(got["mu_water"], mw) and abs(got["rois"][0]["mean_hu"]) < 1e-6,
          f"water ROI mean {mw:.6f} /mm becomes mu_water and reads 0 HU")

# Bad input: a message and a non-zero exit, never a crash.
for args, what in ((["--roi", "circle:500,500,3"], "ROI outside the image"),
                   (["--roi", "circle:0,0"], "ROI with two numbers"),
                   (["--roi", "ellipse:0,0,3"], "unknown shape"),
                   (["--roi", "rect:0,0,-3,4"], "negative width"),
                   (["--roi", "circle:0,0,5", "--slice", "3"], "slice that does not exist")):
    r = run("roi", path, "--pixel-size", d, *args)
    check(r.returncode in (1, 2) and "ctrecon-cli" in r.stderr and r.returncode < 128,
          f"refuses {what} (exit {r.returncode}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''})")

finish()
