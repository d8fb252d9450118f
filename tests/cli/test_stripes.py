#!/usr/bin/env python3
"""Large and dead stripe removal: the "method" "large" and "dead" of the
"rings" preprocess step (Vo, Atwood & Drakopoulos 2018, algorithms 5 and 6;
core/preprocess/ctr-stripes.h), issue 34.

The clean data: `ctrecon-cli simulate` of the head phantom, parallel beam,
360 views, 384 columns, Poisson noise at 25 000 photons (seed 1).
Stripes, added to the line integrals:
  - wide: columns 150-157 with a +20 % detector gain and columns 230-235
    with a -15 % gain (multiplicative on the transmission, so -ln 1.2 and
    -ln 0.85 added to the line integrals);
  - dead: besides those, columns 260-263 stuck at their view-0 value.
Ring amplitude: the FBP (the CLI's default) minus the clean data's FBP,
over annuli 1 pixel wide about the rotation axis inside the field of view;
the mean absolute value of that radial profile, in 1/mm (the object and the
noise cancel in the difference, so it is the rings' alone).
Targets (defaults of each method):
  (a) "large" on the wide stripes: ring amplitude down >= 5x, and below what
      the small-stripe "sorting" leaves;
  (b) "dead" (residual true) on wide + dead stripes: down >= 8x, below
      "sorting"; the step's report names at least the 18 striped columns;
  (c) on the clean data no column is found striped and the FBP changes by
      an RMS below 0.5 % of the clean image's RMS inside the field of view;
  (a') "wavelet-fft" (defaults) on the wide stripes: printed beside, with
      what it does to the clean FBP; it is for narrow stripes, and stays
      above "large";
  (d) bad parameters (an unknown method, snr <= 0, snr with "sorting",
      residual not a boolean or with "large", an even size, a size wider
      than the detector): clear error, exit 1, no output.
Exit 77 when numpy or tifffile is absent.
"""
import atexit
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import DATA, check, finish, require_cli, run  # noqa: E402

require_cli()
try:
    import numpy as np
    import tifffile
except ImportError:
    print("numpy or tifffile is missing: skipped")
    sys.exit(77)
T = tempfile.mkdtemp(prefix="ctrecon-stripes-")
atexit.register(shutil.rmtree, T, True)
SIM = os.path.join(T, "sim")
r = run("simulate", "--phantom", "head", "--geometry", "parallel", "--views", 360, "--cols", 384,
        "--size", 256, "--output", SIM)
if not check(r.returncode == 0, f"simulate: {r.stderr.strip()[-200:]}"):
    finish()
with open(os.path.join(SIM, "geometry.json")) as fh:
    G = json.load(fh)


def write_dataset(name, sino, preprocess=None):
    """@sino [view][col] line integrals beside a copy of the simulation's geometry.json."""
    d = os.path.join(T, name)
    os.makedirs(d)
    tifffile.imwrite(os.path.join(d, "sinogram.tif"), np.ascontiguousarray(sino, np.float32),
                     photometric="minisblack")
    g = dict(G, name=name)
    g.pop("reference", None)
    if preprocess is not None:
        g["preprocess"] = preprocess
    path = os.path.join(d, "geometry.json")
    with open(path, "w") as fh:
        json.dump(g, fh, indent=1)
    return path


def pipeline(name, steps):
    path = os.path.join(T, name + ".json")
    with open(path, "w") as fh:
        json.dump(steps, fh)
    return path


def reconstruct(geometry, *extra):
    out = os.path.join(T, f"r{len(os.listdir(T))}.tif")
    r = run("reconstruct", geometry, "--output", out, *extra)
    if r.returncode != 0:
        print("     " + r.stderr.strip().replace("\n", "\n     "))
        return None, r.stderr
    img = tifffile.imread(out).astype(np.float64)
    return img.reshape(-1, img.shape[-2], img.shape[-1]), r.stderr


clean = tifffile.imread(os.path.join(SIM, "sinogram.tif")).astype(np.float32)
V, C = clean.shape
wide = clean.copy()
wide[:, 150:158] -= np.log(1.2)
wide[:, 230:236] -= np.log(0.85)
dead = wide.copy()
dead[:, 260:264] = dead[0:1, 260:264]
gc, gw, gd = write_dataset("clean", clean), write_dataset("wide", wide), write_dataset("dead", dead)
p_large = pipeline("large", [{"op": "rings", "method": "large"}])
p_dead = pipeline("dead", [{"op": "rings", "method": "dead"}])
p_sort = pipeline("sorting", [{"op": "rings"}])
p_wave = pipeline("wavelet-fft", [{"op": "rings", "method": "wavelet-fft"}])

img_c, _ = reconstruct(gc)
img_w, _ = reconstruct(gw)
img_wl, err_wl = reconstruct(gw, "--preprocess", p_large)
img_ws, _ = reconstruct(gw, "--preprocess", p_sort)
img_d, _ = reconstruct(gd)
img_dd, err_dd = reconstruct(gd, "--preprocess", p_dead)
img_ds, _ = reconstruct(gd, "--preprocess", p_sort)
img_cl, err_cl = reconstruct(gc, "--preprocess", p_large)
img_cd, err_cd = reconstruct(gc, "--preprocess", p_dead)
img_ww, _ = reconstruct(gw, "--preprocess", p_wave)
img_cw, _ = reconstruct(gc, "--preprocess", p_wave)
ok = all(x is not None for x in (img_c, img_w, img_wl, img_ws, img_d, img_dd, img_ds, img_cl, img_cd, img_ww,
                                 img_cw))
if check(ok, "stripes: every reconstruction runs (the \"large\" and \"dead\" methods are accepted)"):
    n = img_c.shape[-1]
    yy, xx = np.mgrid[0:n, 0:n]
    rad = np.hypot(yy - (n - 1) / 2, xx - (n - 1) / 2)
    rbin = np.floor(rad + 0.5).astype(int)
    fov = (n - 1) / 2 - 2   # the default grid covers the field of view
    inside = rad <= fov
    bins = [(rbin == k) & inside for k in range(int(fov) + 1)]
    bins = [b for b in bins if b.any()]

    def ring_amplitude(img):
        d = (img - img_c).mean(axis=0)
        return float(np.mean([abs(d[b].mean()) for b in bins]))

    a_w, a_wl, a_ws = ring_amplitude(img_w), ring_amplitude(img_wl), ring_amplitude(img_ws)
    a_d, a_dd, a_ds = ring_amplitude(img_d), ring_amplitude(img_dd), ring_amplitude(img_ds)
    ref = np.sqrt(np.mean(img_c[:, inside] ** 2))
    ch_l = np.sqrt(np.mean((img_cl - img_c)[:, inside] ** 2))
    ch_d = np.sqrt(np.mean((img_cd - img_c)[:, inside] ** 2))
    print(f"     ring amplitude (1/mm): wide {a_w:.4g}, after large {a_wl:.4g} ({a_w / a_wl:.1f}x), "
          f"after sorting {a_ws:.4g} ({a_w / a_ws:.1f}x)")
    print(f"     ring amplitude (1/mm): wide + dead {a_d:.4g}, after dead {a_dd:.4g} ({a_d / a_dd:.1f}x), "
          f"after sorting {a_ds:.4g} ({a_d / a_ds:.1f}x)")
    print(f"     clean image RMS {ref:.4g}; change on the clean data: large {ch_l:.4g} "
          f"({100 * ch_l / ref:.2f} %), dead {ch_d:.4g} ({100 * ch_d / ref:.2f} %)")
    a_ww = ring_amplitude(img_ww)
    ch_w = np.sqrt(np.mean((img_cw - img_c)[:, inside] ** 2))
    print(f"     ring amplitude (1/mm): wide, after wavelet-fft {a_ww:.4g} ({a_w / a_ww:.1f}x); on the clean data "
          f"it changes the FBP by {100 * ch_w / ref:.2f} % RMS (ring amplitude {ring_amplitude(img_cw):.4g})")
    # wavelet-fft is for narrow stripes: at its default 3 levels an 8-column
    # stripe lies mostly in the approximation, and the damping takes the
    # head's own angular mean at the coarse levels (docs/preprocess.md)
    check(a_wl < a_ww, f"wide stripes: large ({a_wl:.3g}) below wavelet-fft ({a_ww:.3g})")
    check(a_w >= 5 * a_wl and a_wl < a_ws,
          f"large: ring amplitude of the wide stripes down >= 5x ({a_w / a_wl:.1f}x) and below sorting's")
    check(a_d >= 8 * a_dd and a_dd < a_ds,
          f"dead: ring amplitude of the wide + dead stripes down >= 8x ({a_d / a_dd:.1f}x) and below sorting's")
    check(ch_l <= 0.005 * ref, f"large: the clean FBP changes by < 0.5 % RMS ({100 * ch_l / ref:.2f} %)")
    check(ch_d <= 0.005 * ref, f"dead: the clean FBP changes by < 0.5 % RMS ({100 * ch_d / ref:.2f} %)")

    def found(err):
        return [int(m) for m in re.findall(r"rings: (\d+) detector columns found striped", err)]
    print(f"     columns found: wide {found(err_wl)} (large), wide + dead {found(err_dd)} (dead), "
          f"clean {found(err_cl)} (large) {found(err_cd)} (dead)")
    check(found(err_dd) and found(err_dd)[0] >= 18 and "dead stripes" in err_dd,
          f"dead: the report names at least the 18 striped columns ({found(err_dd)})")
    check(found(err_cl) == [0] and found(err_cd) == [0], "large, dead: no column found striped in the clean data")
    check("large stripes" in err_wl, "large: the step's effect is reported")

# (d) bad parameters
for name, steps, needle in [
        ("unknown-method", [{"op": "rings", "method": "wide"}], "“method” must be"),
        ("method-number", [{"op": "rings", "method": 5}], "“method” must be"),
        ("snr-zero", [{"op": "rings", "method": "large", "snr": 0}], "“snr” must be a positive number"),
        ("snr-string", [{"op": "rings", "method": "dead", "snr": "3"}], "“snr” must be a positive number"),
        ("snr-sorting", [{"op": "rings", "snr": 3}], "unknown parameter “snr”"),
        ("residual-large", [{"op": "rings", "method": "large", "residual": True}], "unknown parameter “residual”"),
        ("residual-type", [{"op": "rings", "method": "dead", "residual": 1}], "“residual” must be true or false"),
        ("even-size", [{"op": "rings", "method": "large", "size": 50}], "“size” must be an odd integer"),
        ("too-wide", [{"op": "rings", "method": "dead", "size": 2 * C + 1}], "at most the columns")]:
    out_tif = os.path.join(T, name + ".tif")
    r = run("reconstruct", gc, "--preprocess", pipeline("bad-" + name, steps), "--output", out_tif)
    check(r.returncode == 1 and needle in r.stderr and not os.path.exists(out_tif),
          f"bad input ({name}): exit 1 naming it: {r.stderr.strip()[-120:]}")
finish()
