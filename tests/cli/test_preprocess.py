#!/usr/bin/env python3
"""Outlier (zinger) and ring removal, the "preprocess" pipeline of
geometry.json and `reconstruct --preprocess` (core/preprocess/), on
savu-parallel-tiff (issue 34).

The clean data: the line integrals -ln((raw - dark)/(flat - dark)) of
detector rows 112-127 (the container's uniform fill, below the dense
object), computed here with numpy and written as a new line-integral
dataset (view_pages float32 TIFF), so the loader leaves them bit for bit.
The loader's output is read back with preprocess-dump (raw float32).

(a) Zingers: 0.1 % of the pixels (seeded) get the counts of 0.5-3 open
    beams added, as a stray photon burst would: x -> -ln(e^-x + a).  With
    the "outliers" step (defaults): at least 99 % of them are replaced, the
    RMS error left at them is below 5 % of the zingers' RMS size, and at
    most 0.5 % of the clean pixels change (any bit vs the clean data).
(b) Stripes: 6 detector columns made wrong in every row, as miscalibrated
    and dead pixels are: 3 constant offsets (+0.05, -0.08, +0.12), 2
    partial offsets over a range of views (+0.2 over views 20-50, -0.15 over
    views 60-90) and one stuck pixel (its view-10 value over views 10-40).
    FBP (the CLI's default) of clean, striped and striped + "rings" data.
    Ring energy: the difference to the clean reconstruction, averaged over
    the slices and over annuli 1 pixel wide about the rotation axis (the
    image centre), summed in squares over the annuli inside the field of
    view; the object cancels in the difference, so the radial mean is
    the rings' alone.  Target: energy(striped) / energy(striped + rings)
    >= 5.  RMSE to the clean reconstruction outside the stripes' radii
    (pixels more than 3 pixels from every stripe's radius, inside the
    field of view): after "rings" at most 1.02 x that of the uncorrected
    striped image (a stripe's FBP is not confined to its radius, so the
    latter is not 0).  The step's report names 5 or 6 striped detector
    columns on the striped data, none on the clean data.  Printed beside: the clean image's RMS there and what
    "rings" does to the clean data alone.  The same for "method"
    "wavelet-fft" (defaults): energy down >= 3.5x (measured 3.9x; the
    issue's 5x is not reached, docs/preprocess.md), RMSE rising <= 2 %.
(b') The same stripes on rows 60-75, through the dense object: "sorting"
    at its default size 21 damages the object's edges more than it removes
    (ring energy up, RMSE outside the stripes' radii up by more than 50 %;
    the method's, as algotom's, docs/preprocess.md); size 5 brings the
    ring energy down >= 5x with the RMSE rising <= 10 %.
(c) Bad input: an unknown op, an unknown parameter, a negative size, a
    size wider than the detector: clear error, non-zero exit, no output.
Exit 77 when ../shared/data, numpy or tifffile is absent.
"""
import atexit
import json
import re
import os
import shutil
import subprocess
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
SAVU = os.path.join(DATA, "savu-parallel-tiff")
DUMP = os.environ.get("CTR_TEST_PREPROCESS_DUMP")
if not os.path.isdir(SAVU):
    print("../shared/data is absent: skipped")
    sys.exit(77)
if not DUMP or not os.path.exists(DUMP):
    print("CTR_TEST_PREPROCESS_DUMP is not set; run through meson test")
    sys.exit(77)
T = tempfile.mkdtemp(prefix="ctrecon-preprocess-")
atexit.register(shutil.rmtree, T, True)
ROWS = slice(112, 128)

with open(os.path.join(SAVU, "geometry.json")) as fh:
    G = json.load(fh)


def clean_line_integrals(rows=ROWS):
    raw = np.stack([tifffile.imread(os.path.join(SAVU, G["projections"]["pattern"] % k))
                    for k in range(G["views"])]).astype(np.float64)[:, rows]
    dark = tifffile.imread(os.path.join(SAVU, G["dark"])).astype(np.float64)[rows]
    flat = tifffile.imread(os.path.join(SAVU, G["flat"])).astype(np.float64)[rows]
    assert (flat - dark > 0).all()
    return (-np.log(np.maximum(raw - dark, 0.5) / (flat - dark))).astype(np.float32)


def write_dataset(name, li, preprocess=None):
    """@li [view][row][col] as a line-integral dataset; returns its geometry.json."""
    d = os.path.join(T, name)
    os.makedirs(d)
    tifffile.imwrite(os.path.join(d, "li.tif"), np.ascontiguousarray(li, np.float32), photometric="minisblack")
    g = {k: G[k] for k in ("type", "views", "detector_cols", "detector_pitch_u_mm", "detector_pitch_v_mm",
                           "pixel_size_known", "detector_offset_u_mm", "detector_offset_v_mm",
                           "rows_increase_with_v", "angles_rad")}
    g.update(name=name, kind="line_integrals", detector_rows=li.shape[1],
             projections={"layout": "view_pages", "file": "li.tif", "dtype": "float32"})
    if preprocess is not None:
        g["preprocess"] = preprocess
    path = os.path.join(d, "geometry.json")
    with open(path, "w") as fh:
        json.dump(g, fh, indent=1)
    return path


def dump(geometry, *pipeline_file):
    out = geometry + ".raw"
    r = subprocess.run([DUMP, geometry, out, *pipeline_file], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        print("     " + r.stderr.strip())
        return None, r.stderr
    return np.fromfile(out, np.float32).reshape(G["views"], -1, G["detector_cols"]), r.stderr


def reconstruct(geometry, *extra):
    out = geometry + ".tif"
    r = run("reconstruct", geometry, "--output", out, *extra)
    if r.returncode != 0:
        print("     " + r.stderr.strip().replace("\n", "\n     "))
        return None, r.stderr
    return tifffile.imread(out).astype(np.float64), r.stderr


clean = clean_line_integrals()
V, R, C = clean.shape
rng = np.random.default_rng(34)

# (a) zingers
n_z = int(round(0.001 * clean.size))
flat_idx = rng.choice(clean.size, n_z, replace=False)
zmask = np.zeros(clean.size, bool)
zmask[flat_idx] = True
zmask = zmask.reshape(clean.shape)
zing = clean.astype(np.float64).copy()
zing[zmask] = -np.log(np.exp(-zing[zmask]) + rng.uniform(0.5, 3.0, n_z))
zing = zing.astype(np.float32)
gz = write_dataset("zingers", zing, [{"op": "outliers"}])
out, err = dump(gz)
if check(out is not None, "outliers: the zinger dataset loads with its pipeline"):
    replaced = (out != zing) & zmask
    frac_found = replaced.sum() / n_z
    size = np.sqrt(np.mean((zing[zmask] - clean[zmask]).astype(np.float64) ** 2))
    left = np.sqrt(np.mean((out[zmask] - clean[zmask]).astype(np.float64) ** 2))
    changed_clean = ((out != clean) & ~zmask).sum() / (~zmask).sum()
    print(f"     {n_z} zingers (RMS size {size:.3f}); replaced {100 * frac_found:.2f} %; "
          f"RMS error left {left:.4f} ({100 * left / size:.2f} %); clean pixels changed "
          f"{100 * changed_clean:.3f} %")
    check(frac_found >= 0.99, f"outliers: >= 99 % of the zingers replaced ({100 * frac_found:.2f} %)")
    check(left <= 0.05 * size, f"outliers: RMS error left at the zingers <= 5 % of their size "
          f"({100 * left / size:.2f} %)")
    check(changed_clean <= 0.005, f"outliers: <= 0.5 % of the clean pixels changed ({100 * changed_clean:.3f} %)")
    check("outliers:" in err and "pixels replaced" in err, "outliers: the step's effect is reported")

# (b) stripes
AXIS = (C - 1) / 2 - G["detector_offset_u_mm"] / G["detector_pitch_u_mm"]
cols = [92, 73, 107, 58, 121, 43]


def add_stripes(li):
    out = li.copy()
    out[:, :, cols[0]] += 0.05
    out[:, :, cols[1]] -= 0.08
    out[:, :, cols[2]] += 0.12
    out[20:51, :, cols[3]] += 0.2
    out[60:91, :, cols[4]] -= 0.15
    out[10:41, :, cols[5]] = out[10, :, cols[5]]
    return out


striped = add_stripes(clean)
gc = write_dataset("clean", clean)
gs = write_dataset("striped", striped)
pipe = os.path.join(T, "rings.json")
with open(pipe, "w") as fh:
    json.dump([{"op": "rings"}], fh)
img_c, _ = reconstruct(gc)
img_s, _ = reconstruct(gs)
img_r, err_r = reconstruct(gs, "--preprocess", pipe)
img_cr, err_cr = reconstruct(gc, "--preprocess", pipe)   # printed only: what the filter does to clean data
pipe_w = os.path.join(T, "rings-wavelet.json")
with open(pipe_w, "w") as fh:
    json.dump([{"op": "rings", "method": "wavelet-fft"}], fh)
img_w, err_w = reconstruct(gs, "--preprocess", pipe_w)
img_cw, _ = reconstruct(gc, "--preprocess", pipe_w)
if check(img_c is not None and img_s is not None and img_r is not None, "rings: the three reconstructions run"):
    n = img_c.shape[-1]
    yy, xx = np.mgrid[0:n, 0:n]
    rad = np.hypot(yy - (n - 1) / 2, xx - (n - 1) / 2)
    rbin = np.floor(rad + 0.5).astype(int)
    fov = (C - 1) / 2 - abs(AXIS - (C - 1) / 2) - 1   # columns on both sides of the axis
    inside = rad <= fov

    def ring_energy(img, ref=None):
        d = (img - (img_c if ref is None else ref)).mean(axis=0)
        return sum(d[(rbin == k) & inside].mean() ** 2 for k in range(int(fov) + 1)
                   if ((rbin == k) & inside).any())

    e_s, e_r = ring_energy(img_s), ring_energy(img_r)
    radii = [abs(c - AXIS) for c in cols]
    away = inside & np.all([np.abs(rad - r0) > 3 for r0 in radii], axis=0)
    ref_rms = np.sqrt(np.mean(img_c[:, away] ** 2))
    rmse_r = np.sqrt(np.mean((img_r - img_c)[:, away] ** 2))
    rmse_s = np.sqrt(np.mean((img_s - img_c)[:, away] ** 2))
    rmse_cr = np.sqrt(np.mean((img_cr - img_c)[:, away] ** 2)) if img_cr is not None else float("nan")
    print(f"     ring energy striped {e_s:.4g}, after rings {e_r:.4g}: ratio {e_s / max(e_r, 1e-300):.1f}; "
          f"RMSE to the clean image outside the stripes' radii: striped {rmse_s:.4g}, after rings "
          f"{rmse_r:.4g} ({100 * (rmse_r / rmse_s - 1):+.1f} %); clean RMS there {ref_rms:.4g}; "
          f"rings on the clean data change it by {rmse_cr:.4g} RMS")
    check(e_s >= 5 * e_r, f"rings: ring energy falls >= 5x ({e_s / max(e_r, 1e-300):.1f}x)")
    check(rmse_r <= 1.02 * rmse_s, f"rings: RMSE to the clean image outside the stripes' radii rises <= 2 % "
          f"({100 * (rmse_r / rmse_s - 1):+.1f} %)")
    found = [int(m) for m in re.findall(r"rings: (\d+) detector columns found striped", err_r)]
    found_clean = [int(m) for m in re.findall(r"rings: (\d+) detector columns found striped", err_cr)]
    check(found and 5 <= found[0] <= 6, f"rings: the report finds 5 or 6 of the 6 striped columns ({found})")
    check(found_clean == [0], f"rings: the report finds no striped column in the clean data ({found_clean})")
    # wavelet-fft (Münch et al. 2009, defaults): measured 3.9x, below the
    # issue's 5x (docs/preprocess.md); checked here against regression
    if check(img_w is not None and img_cw is not None, "wavelet-fft: the reconstructions run"):
        e_w = ring_energy(img_w)
        rmse_w = np.sqrt(np.mean((img_w - img_c)[:, away] ** 2))
        rmse_cw = np.sqrt(np.mean((img_cw - img_c)[:, away] ** 2))
        found_w = [int(m) for m in re.findall(r"rings: (\d+) detector columns found striped", err_w)]
        print(f"     wavelet-fft: ring energy {e_w:.4g}, ratio {e_s / max(e_w, 1e-300):.1f} (sorting "
              f"{e_s / max(e_r, 1e-300):.1f}); RMSE outside the stripes' radii {rmse_w:.4g} "
              f"({100 * (rmse_w / rmse_s - 1):+.1f} %); on the clean data it changes that by {rmse_cw:.4g} RMS "
              f"(ring energy {ring_energy(img_cw):.4g}); columns found {found_w}")
        check(e_s >= 3.5 * e_w, f"wavelet-fft: ring energy falls >= 3.5x ({e_s / max(e_w, 1e-300):.1f}x; "
              "the issue's 5x is not reached)")
        check(rmse_w <= 1.02 * rmse_s, f"wavelet-fft: RMSE outside the stripes' radii rises <= 2 % "
              f"({100 * (rmse_w / rmse_s - 1):+.1f} %)")

    # (b') the same stripes on rows 60-75, through the object (docs/preprocess.md): "sorting" at
    # its default size 21 damages the object's edges more than it removes (as Vo's algotom does,
    # tests/peers/test_peer_stripes.py); size 5 removes the stripes there
    obj = clean_line_integrals(slice(60, 76))
    go_c, go_s = write_dataset("object-clean", obj), write_dataset("object-striped", add_stripes(obj))
    img_oc, _ = reconstruct(go_c)
    img_os, _ = reconstruct(go_s)
    res = {}
    for size in (21, 5):
        p = os.path.join(T, f"rings-{size}.json")
        with open(p, "w") as fh:
            json.dump([{"op": "rings", "size": size}], fh)
        res[size] = reconstruct(go_s, "--preprocess", p)[0]
    if check(all(x is not None for x in (img_oc, img_os, *res.values())), "object rows: reconstructions run"):
        e_os = ring_energy(img_os, img_oc)
        rm_os = np.sqrt(np.mean((img_os - img_oc)[:, away] ** 2))
        fig = {k: (e_os / max(ring_energy(v, img_oc), 1e-300), np.sqrt(np.mean((v - img_oc)[:, away] ** 2)) / rm_os - 1)
               for k, v in res.items()}
        print("     object rows 60-75: " + "; ".join(f"size {k}: ring energy {r:.1f}x down, RMSE outside the "
                                                     f"stripes' radii {100 * d:+.1f} %" for k, (r, d) in fig.items()))
        check(fig[5][0] >= 5 and fig[5][1] <= 0.10, f"object rows, size 5: ring energy falls >= 5x "
              f"({fig[5][0]:.1f}x), RMSE outside the stripes' radii rises <= 10 % ({100 * fig[5][1]:+.1f} %)")
        check(fig[21][0] < 1 and fig[21][1] > 0.5, f"object rows, size 21 (the default): the method's damage "
              f"to the edges outweighs the stripes ({fig[21][0]:.2f}x, {100 * fig[21][1]:+.0f} %)")

# (c) bad input
for name, steps, needle in [
        ("unknown-op", [{"op": "ringz"}], "unknown op “ringz”"),
        ("unknown-param", [{"op": "outliers", "treshold": 3}], "unknown parameter “treshold”"),
        ("negative-size", [{"op": "rings", "size": -3}], "“size” must be an odd integer"),
        ("even-size", [{"op": "outliers", "size": 4}], "“size” must be an odd integer"),
        ("not-a-list", {"op": "rings"}, "“preprocess”")]:
    g = write_dataset("bad-" + name, clean, steps)
    out_tif = g + ".tif"
    r = run("reconstruct", g, "--output", out_tif)
    check(r.returncode != 0 and needle in r.stderr and not os.path.exists(out_tif),
          f"bad input ({name}) in geometry.json: refused naming it: {r.stderr.strip()[-110:]}")
    bad = os.path.join(T, name + ".json")
    with open(bad, "w") as fh:
        json.dump(steps if isinstance(steps, list) else {"preprocess": steps}, fh)
    r = run("reconstruct", gc, "--preprocess", bad, "--output", out_tif)
    check(r.returncode != 0 and needle in r.stderr and not os.path.exists(out_tif),
          f"bad input ({name}) in --preprocess: refused naming it")
    _, err = dump(g)
    check("error 2:" in err, f"bad input ({name}): CTR_ERROR_FORMAT from the loader")
# A --preprocess file goes through core's one JSON path (issue 38 items 10
# and 15): 100,000 nested brackets crashed the parser (SIGSEGV), a key
# given twice was read as its last value.
for name, text, needle in [
        ("deep", "[" * 100000 + "]" * 100000, "nested more than"),
        ("twice", '[{"op": "outliers", "op": "rings"}]', "the key “op” is given twice")]:
    bad = os.path.join(T, name + ".json")
    with open(bad, "w") as fh:
        fh.write(text)
    out_tif = os.path.join(T, name + ".tif")
    r = run("reconstruct", gc, "--preprocess", bad, "--output", out_tif)
    check(r.returncode == 1 and needle in r.stderr and not os.path.exists(out_tif),
          f"--preprocess {name}: refused with exit 1 ({r.returncode}): {r.stderr.strip()[-110:]}")
wide = os.path.join(T, "wide.json")
with open(wide, "w") as fh:
    json.dump({"preprocess": [{"op": "rings", "size": 2 * C + 1}]}, fh)
r = run("reconstruct", gc, "--preprocess", wide, "--output", os.path.join(T, "wide.tif"))
check(r.returncode != 0 and "at most the columns" in r.stderr, "a ring filter wider than the detector is refused")
finish()
