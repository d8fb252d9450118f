"""`ctrecon-cli simulate-dose` (core/sim/ctr-dose.h) on the real datasets.

Statistical tests (numpy oracle, independent of the C code): each statistic
is approximately N(0, 1) under the claim; a check fails when |z| > 3.29,
i.e. at the two-sided significance level alpha = 0.001.
  - head-fan-lowdose quarter dose (Poisson at I0 = 2.5e4) thinned to 0.5:
    the counts must be Poisson at 1.25e4 against the noiseless truth
    (mean z, dispersion z), and Binomial(N, 0.5) given the measured N;
  - the noiseless sinogram re-sampled at 0.25 x 1e5 (and with electronic
    noise of 40 counts: variance lambda + 1600);
  - savu's raw counts (flat/dark) thinned to 0.3: Binomial(round(I - dark), 0.3).
Also: the new dataset loads (noise, reconstruct), states I0 = F x I0; the
same seed gives the same file and another seed another; the input files are
byte-for-byte untouched; refusals (no I0, output folder not empty, output in
the input folder, F out of range) leave nothing behind.
Skips (77) without ../shared/data.
"""
import hashlib
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

Z = 3.2905
tmp = tempfile.TemporaryDirectory()
HFL = os.path.join(DATA, "head-fan-lowdose")
SAVU = os.path.join(DATA, "savu-parallel-tiff")


def digest(folder):
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[p] = (hashlib.sha256(fh.read()).hexdigest(), os.stat(p).st_mtime_ns)
    return out


before = {d: digest(d) for d in (HFL, SAVU)}


def simulate(src, out, *extra):
    r = run("simulate-dose", src, "--output", out, *extra)
    if r.returncode != 0:
        print(r.stderr)
    return r


def poisson_z(counts, lam):
    d = counts - lam
    return d.sum() / np.sqrt(lam.sum()), ((d * d / lam).sum() - d.size) / np.sqrt((2 + 1 / lam).sum())


def binomial_z(k, n, p):
    m, s2 = n * p, n * p * (1 - p)
    ok = s2 > 0
    d = (k - m)[ok]
    return d.sum() / np.sqrt(s2[ok].sum()), ((d * d / s2[ok]).sum() - ok.sum()) / np.sqrt(
        (2 + 1 / s2[ok] - 6 / n[ok]).sum())


def meta(folder):
    with open(os.path.join(folder, "geometry.json")) as fh:
        return json.load(fh)


truth = tifffile.imread(os.path.join(HFL, "sino_noiseless.tif")).astype(np.float64)
quarter = tifffile.imread(os.path.join(HFL, "sino_quarterdose.tif")).astype(np.float64)

# --- refusals ----------------------------------------------------------------
for src, what in ((os.path.join(HFL, "geometry.json"), "head-fan-lowdose without --i0"),
                  (os.path.join(DATA, "gel-fan", "geometry.json"), "gel-fan (line integrals, no I0)")):
    out = os.path.join(tmp.name, "refused")
    r = simulate(src, out, "--fraction", "0.5")
    check(r.returncode == 1 and "I0" in r.stderr and not os.path.exists(out),
          f"refuses {what}: {r.stderr.strip().splitlines()[-1]}")
for frac in ("0", "-0.2", "1.5"):
    out = os.path.join(tmp.name, "refused")
    r = simulate(os.path.join(HFL, "geometry.json"), out, "--fraction", frac, "--i0", "25000")
    check(r.returncode != 0 and not os.path.exists(out), f"refuses --fraction {frac} for measured data (exit {r.returncode})")
r = simulate(os.path.join(HFL, "geometry.json"), HFL, "--fraction", "0.5", "--i0", "25000")
check(r.returncode == 1 and "not empty" in r.stderr, "refuses to write into the dataset's own folder")
busy = os.path.join(tmp.name, "busy")
os.makedirs(busy)
with open(os.path.join(busy, "keep.txt"), "w") as fh:
    fh.write("mine")
r = simulate(os.path.join(HFL, "geometry.json"), busy, "--fraction", "0.5", "--i0", "25000")
check(r.returncode == 1 and os.listdir(busy) == ["keep.txt"], "refuses a folder that is not empty, leaves it as it was")

# --- quarter dose thinned to half: Poisson at 1.25e4 ---------------------------
q2 = os.path.join(tmp.name, "q2")
r = simulate(os.path.join(HFL, "geometry.json"), q2, "--fraction", "0.5", "--i0", "25000", "--seed", "7")
if check(r.returncode == 0 and "thin" in r.stderr, "quarter dose -> 0.5: runs, thinning chosen"):
    m = meta(q2)
    check(m.get("I0") == 12500 and m["dose"]["fraction"] == 0.5 and m["dose"]["model"] == "thin",
          f"new geometry.json states I0 = {m.get('I0')} and the dose record")
    b2 = tifffile.imread(os.path.join(q2, "projections.tif")).astype(np.float64)
    n2 = 12500 * np.exp(-b2)
    n = np.rint(25000 * np.exp(-quarter))
    check(np.abs(n2 - np.rint(n2)).max() < 0.05 and (np.rint(n2) <= n).all(),
          f"whole counts, never more than measured (max frac {np.abs(n2 - np.rint(n2)).max():.3g})")
    n2 = np.rint(n2)
    zm, zd = binomial_z(n2.ravel(), n.ravel(), 0.5)
    check(abs(zm) < Z and abs(zd) < Z, f"given the measured counts: Binomial(N, 0.5): mean z {zm:.2f}, dispersion z {zd:.2f}")
    zm, zd = poisson_z(n2.ravel(), (12500 * np.exp(-truth)).ravel())
    check(abs(zm) < Z and abs(zd) < Z,
          f"against the noiseless truth: Poisson at 1.25e4: mean z {zm:.2f}, dispersion z {zd:.2f} (alpha 0.001)")
    r = run("noise", os.path.join(q2, "geometry.json"))
    if check(r.returncode == 0, "the new dataset loads (noise)"):
        nz = json.loads(r.stdout)
        check(nz["source"] == "statistics" and nz["i0"] == 12500 and abs(nz["i0_sinogram"] / 12500 - 1) < 0.05,
              f"noise: stated I0 {nz['i0']}, sinogram estimate {nz['i0_sinogram']:.0f}")
    out = os.path.join(tmp.name, "q2.tif")
    r = run("reconstruct", os.path.join(q2, "geometry.json"), "--method", "fbp", "--window", "hann", "--output", out)
    check(r.returncode == 0 and "RMSE" in r.stderr and tifffile.imread(out).shape == (256, 256),
          "the new dataset reconstructs against the carried reference: " + r.stderr.strip().splitlines()[-1])

    # The same seed: the same scan; another seed: another one.
    same, other = os.path.join(tmp.name, "q2-same"), os.path.join(tmp.name, "q2-other")
    simulate(os.path.join(HFL, "geometry.json"), same, "--fraction", "0.5", "--i0", "25000", "--seed", "7")
    simulate(os.path.join(HFL, "geometry.json"), other, "--fraction", "0.5", "--i0", "25000", "--seed", "8")
    a = tifffile.imread(os.path.join(same, "projections.tif"))
    c = tifffile.imread(os.path.join(other, "projections.tif"))
    check(np.array_equal(a, b2.astype(np.float32)) and not np.array_equal(a, c),
          "--seed 7 twice gives the same projections, --seed 8 others")

# --- noiseless re-sampled at 0.25 x 1e5, with and without electronic noise ----
for sigma in (0.0, 40.0):
    out = os.path.join(tmp.name, f"n4-{sigma:g}")
    extra = ["--electronic-noise", str(sigma)] if sigma else []
    r = simulate(os.path.join(HFL, "geometry.json"), out, "--variant", "noiseless", "--i0", "1e5",
                 "--fraction", "0.25", "--seed", "3", *extra)
    if not check(r.returncode == 0 and "resample" in r.stderr, f"noiseless -> 0.25 x 1e5 (sigma_e {sigma:g}): re-sampling chosen"):
        continue
    b = tifffile.imread(os.path.join(out, "projections.tif")).astype(np.float64)
    counts = 25000 * np.exp(-b)
    lam = 25000 * np.exp(-truth)
    if sigma == 0:
        zm, zd = poisson_z(np.rint(counts).ravel(), lam.ravel())
        check(abs(zm) < Z and abs(zd) < Z, f"Poisson at 2.5e4: mean z {zm:.2f}, dispersion z {zd:.2f}")
    else:
        d = (counts - lam).ravel()
        v = (lam + sigma ** 2).ravel()
        zm = d.sum() / np.sqrt(v.sum())
        zd = ((d * d / v).sum() - d.size) / np.sqrt((2 + lam.ravel() / v ** 2).sum())
        check(abs(zm) < Z and abs(zd) < Z,
              f"electronic noise 40 counts: variance lambda + 1600: mean z {zm:.2f}, dispersion z {zd:.2f}")

# --- savu: raw counts with flat and dark, thinned to 0.3 --------------------
s3 = os.path.join(tmp.name, "s3")
r = simulate(os.path.join(SAVU, "geometry.json"), s3, "--fraction", "0.3", "--seed", "5")
if check(r.returncode == 0, "savu raw counts -> 0.3: runs"):
    m = meta(s3)
    check(m["kind"] == "counts" and m.get("flat") == "flat.tif" and "dark" not in m, "written as counts with a flat, no dark")
    flat = tifffile.imread(os.path.join(SAVU, "flat_00001.tiff")).astype(np.float64)
    dark = tifffile.imread(os.path.join(SAVU, "dark_00001.tiff")).astype(np.float64)
    new_flat = tifffile.imread(os.path.join(s3, "flat.tif")).astype(np.float64)
    live = flat - dark > 0
    check(np.allclose(new_flat[live], 0.3 * (flat - dark)[live], rtol=1e-6), "new flat = 0.3 (flat - dark)")
    new = tifffile.imread(os.path.join(s3, "projections.tif")).astype(np.float64)
    raw = np.stack([tifffile.imread(os.path.join(SAVU, "tiffs", f"raw_{k:05d}.tiff")) for k in range(91)]).astype(np.float64)
    N = np.rint(np.maximum(raw - dark, 0))
    sel = np.broadcast_to(live, N.shape) & (raw - dark > 0)
    k = new[sel]
    check(np.array_equal(k, np.rint(k)) and (k <= N[sel]).all(), "thinned counts are whole and never exceed round(raw - dark)")
    zm, zd = binomial_z(k, N[sel], 0.3)
    check(abs(zm) < Z and abs(zd) < Z, f"Binomial(round(raw - dark), 0.3): mean z {zm:.2f}, dispersion z {zd:.2f} (alpha 0.001)")
    out = os.path.join(tmp.name, "s3.tif")
    r = run("reconstruct", os.path.join(s3, "geometry.json"), "--method", "fbp", "--output", out)
    check(r.returncode == 0 and os.path.exists(out), "the thinned savu dataset reconstructs")

# --- DICOM-CT-PD input (PhotonStatistics) -----------------------------------
d2 = os.path.join(tmp.name, "d2")
r = simulate(os.path.join(HFL, "dicom_quarterdose"), d2, "--fraction", "0.5")
if check(r.returncode == 0, "DICOM-CT-PD quarter dose -> 0.5: runs (" + r.stderr.strip().splitlines()[1] + ")"):
    check(abs(meta(d2).get("I0", 0) - 12500) < 1e-6, "states I0 = 12500 from PhotonStatistics 25000")
    check(abs(meta(d2).get("mu_water_per_mm", 0) - 0.0192) < 1e-9,
          "carries the series' HUCalibrationFactor as mu_water_per_mm = 0.0192")

# --- the originals are untouched ---------------------------------------------
after = {d: digest(d) for d in (HFL, SAVU)}
check(before == after, "no file of head-fan-lowdose or savu-parallel-tiff changed, none added")
finish()
