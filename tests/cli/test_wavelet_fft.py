#!/usr/bin/env python3
"""The wavelet-FFT stripe removal, "rings" "method" "wavelet-fft" (Münch,
Trtik, Marone & Stampanoni, Opt. Express 17(10) 8567 (2009);
core/preprocess/ctr-rings-wavelet.h), against an independent numpy +
PyWavelets implementation written from the paper (issue 34).

The data: `ctrecon-cli simulate` of the head phantom, parallel beam, 90
views, 96 columns, Poisson noise; three detector rows made from it (the
sinogram; half of it plus 3 stripes, one over views 20-50 only; the
sinogram reversed along the views), written as a line-integral dataset.
The loader's output with each pipeline (read back with preprocess-dump)
must equal the oracle's within 1e-4 of the data's largest magnitude, for
the defaults (db5, sigma 2, 3 levels, views padded by an eighth) and
four other parameter sets (db2 level 3 sigma 1 unpadded, haar level 5
sigma 4, db10 level 2 sigma 0.5, db5 level 7 = TomoPy's ceil(log2 96)).  Then the step
must change the striped row's stripe columns and report them.
Bad parameters: clear error, exit 1.
Exit 77 when numpy, tifffile or pywt is absent.
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
    import pywt
    import tifffile
except ImportError:
    print("numpy, tifffile or pywt (python3-pywt) is missing: skipped")
    sys.exit(77)
DUMP = os.environ.get("CTR_TEST_PREPROCESS_DUMP")
if not DUMP or not os.path.exists(DUMP):
    print("CTR_TEST_PREPROCESS_DUMP is not set; run through meson test")
    sys.exit(77)
T = tempfile.mkdtemp(prefix="ctrecon-wavelet-")
atexit.register(shutil.rmtree, T, True)


def wavelet_fft(sino, level=3, wavelet="db5", sigma=2.0, pad=True):
    """Münch et al. 2009 on one sinogram [view][col]: `level` levels of
    pywt.dwt2 (symmetric extension); each level's vertical detail cV (high
    pass across the columns) Fourier transformed along the views, times
    1 - exp(-k^2 / (2 sigma^2)) at the integer frequency k, transformed back;
    pywt.idwt2.  Padding as TomoPy's remove_stripe_fw: V // 8 zero views,
    half before."""
    V, C = sino.shape
    extra = V // 8 if pad else 0
    x = np.zeros((V + extra, C))
    x[extra // 2:extra // 2 + V] = sino
    details = []
    for _ in range(level):
        x, (cH, cV, cD) = pywt.dwt2(x, wavelet, mode="symmetric")
        m = cV.shape[0]
        k = np.fft.fftfreq(m) * m
        damp = 1 - np.exp(-k ** 2 / (2 * sigma ** 2))
        cV = np.real(np.fft.ifft(np.fft.fft(cV, axis=0) * damp[:, None], axis=0))
        details.append((cH, cV, cD))
    for cH, cV, cD in reversed(details):
        x = pywt.idwt2((x[:cH.shape[0], :cH.shape[1]], (cH, cV, cD)), wavelet, mode="symmetric")
    return x[extra // 2:extra // 2 + V, :C]


SIM = os.path.join(T, "sim")
r = run("simulate", "--phantom", "head", "--geometry", "parallel", "--views", 90, "--cols", 96,
        "--size", 64, "--output", SIM)
if not check(r.returncode == 0, f"simulate: {r.stderr.strip()[-200:]}"):
    finish()
with open(os.path.join(SIM, "geometry.json")) as fh:
    G = json.load(fh)
sino = tifffile.imread(os.path.join(SIM, "sinogram.tif")).astype(np.float32)
V, C = sino.shape
striped = 0.5 * sino
striped[:, 30] += 0.1
striped[:, 61] -= 0.15
striped[20:51, 70] += 0.2
li = np.stack([sino, striped, sino[::-1]], axis=1).astype(np.float32)   # [view][row][col]
d = os.path.join(T, "rows3")
os.makedirs(d)
tifffile.imwrite(os.path.join(d, "li.tif"), li, photometric="minisblack")
g = {k: v for k, v in G.items() if k not in ("reference", "notes", "I0")}
g.update(name="rows3", detector_rows=3, projections={"layout": "view_pages", "file": "li.tif", "dtype": "float32"})
GEOM = os.path.join(d, "geometry.json")
with open(GEOM, "w") as fh:
    json.dump(g, fh, indent=1)


def dump(steps, name):
    pipe = os.path.join(T, name + ".json")
    with open(pipe, "w") as fh:
        json.dump(steps, fh)
    out = os.path.join(T, name + ".raw")
    r = subprocess.run([DUMP, GEOM, out, pipe], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        print("     " + r.stderr.strip())
        return None, r.stderr
    return np.fromfile(out, np.float32).reshape(V, 3, C), r.stderr


scale = float(np.abs(li).max())
cases = [("defaults", {}, {}),
         ("db2-level3-sigma1-unpadded", {"wavelet": "db2", "level": 3, "sigma": 1, "pad": False},
          {"wavelet": "db2", "level": 3, "sigma": 1.0, "pad": False}),
         ("haar-level5-sigma4", {"wavelet": "haar", "level": 5, "sigma": 4}, {"wavelet": "haar", "level": 5, "sigma": 4.0}),
         ("db10-level2-sigma0.5", {"wavelet": "db10", "level": 2, "sigma": 0.5},
          {"wavelet": "db10", "level": 2, "sigma": 0.5}),
         ("db5-level7", {"level": 7}, {"level": 7})]
for name, params, kw in cases:
    out, err = dump([dict({"op": "rings", "method": "wavelet-fft"}, **params)], name)
    if not check(out is not None, f"wavelet-fft ({name}): the dataset loads with the step"):
        continue
    ref = np.stack([wavelet_fft(li[:, row].astype(np.float64), **kw) for row in range(3)], axis=1)
    diff = float(np.abs(out - ref).max())
    change = float(np.abs(ref - li).max())
    print(f"     {name}: largest difference to numpy + pywt {diff:.3g} ({diff / scale:.2g} of the data's "
          f"largest {scale:.3g}; the filter changes the data by up to {change:.3g})")
    check(diff <= 1e-4 * scale and change > 100 * diff,
          f"wavelet-fft ({name}): equals numpy + pywt within 1e-4 relative ({diff / scale:.2g})")
    if name == "defaults":
        removed = (out - li)[:, 1].mean(axis=0)
        print(f"     striped row: mean change at columns 30, 61, 70: {removed[30]:+.4f} {removed[61]:+.4f} "
              f"{removed[70]:+.4f} (stripes +0.1, -0.15, +0.2 over a third of the views)")
        check(removed[30] < -0.05 and removed[61] > 0.075, "wavelet-fft: the constant stripes mostly removed")
        check("rings:" in err and "wavelet-fft" in err and "db5, 3 levels, sigma 2, views padded" in err,
              f"wavelet-fft: the step's effect reported ({err.strip()[-160:]})")

for name, steps, needle in [
        ("level-zero", [{"op": "rings", "method": "wavelet-fft", "level": 0}], "“level” must be an integer from 1 to 16"),
        ("level-big", [{"op": "rings", "method": "wavelet-fft", "level": 17}], "“level” must be an integer"),
        ("sigma-neg", [{"op": "rings", "method": "wavelet-fft", "sigma": -1}], "“sigma” must be a positive number"),
        ("wavelet-unknown", [{"op": "rings", "method": "wavelet-fft", "wavelet": "sym4"}], "“wavelet” must be one of"),
        ("wavelet-number", [{"op": "rings", "method": "wavelet-fft", "wavelet": 5}], "“wavelet” must be one of"),
        ("pad-type", [{"op": "rings", "method": "wavelet-fft", "pad": "yes"}], "“pad” must be true or false"),
        ("size-with-wavelet", [{"op": "rings", "method": "wavelet-fft", "size": 21}], "unknown parameter “size”"),
        ("sigma-with-sorting", [{"op": "rings", "sigma": 2}], "unknown parameter “sigma”")]:
    pipe = os.path.join(T, "bad-" + name + ".json")
    with open(pipe, "w") as fh:
        json.dump(steps, fh)
    out_tif = os.path.join(T, name + ".tif")
    r = run("reconstruct", GEOM, "--preprocess", pipe, "--output", out_tif)
    check(r.returncode == 1 and needle in r.stderr and not os.path.exists(out_tif),
          f"bad input ({name}): exit 1 naming it: {r.stderr.strip()[-110:]}")
finish()
