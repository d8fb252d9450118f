"""ctrecon.reconstruct gives the CLI's image on the same data and options
(the same engine, grid rule and parameter table): bit-identical on the CPU
(FBP, SIRT, PWLS),
and the same per-iteration metrics as the CLI's --metrics CSV."""
import csv
import json
import os

import numpy as np

from common import DATA, check, cli, finish, read_tiff, require_module, simulate, tempdir

ctrecon = require_module()


def compare(ds, path, tmp, label, cli_args, **py_args):
    out, metrics = os.path.join(tmp, "cli.tif"), os.path.join(tmp, "cli.csv")
    r = cli("reconstruct", path, "-o", out, "--metrics", metrics, "--backend", "cpu", *cli_args)
    if not check(r.returncode == 0, f"{label}: the CLI ran"):
        print(r.stderr)
        return
    ref = read_tiff(out)
    image, stats = ctrecon.reconstruct(ds, backend="cpu", **py_args)
    check(image.shape == ref.shape, f"{label}: shape {image.shape} = the CLI's {ref.shape}")
    if image.shape == ref.shape:
        diff = float(np.abs(image - ref).max())
        check(np.array_equal(image, ref), f"{label}: bit-identical to the CLI's image (max |diff| {diff:.3g}, "
              f"image max {float(ref.max()):.4g} 1/mm)")
    with open(metrics) as fh:
        rows = list(csv.DictReader(fh))
    check(len(rows) == len(stats), f"{label}: {len(stats)} reports, the CLI's CSV {len(rows)}")
    for row, s in zip(rows, stats):
        for key in ("rmse", "ssim"):
            a, b = float(row[key]), s[key]
            if not check(abs(a - b) <= 1e-7 * max(1.0, abs(b)) or (np.isnan(a) and np.isnan(b)),
                         f"{label}: iteration {s['iteration']} {key} {b:.8g} = the CLI's {a:.8g}"):
                break


with tempdir() as tmp:
    path = simulate(tmp)
    ds = ctrecon.load(path)
    compare(ds, path, tmp, "FBP defaults", [])
    compare(ds, path, tmp, "FBP hann 0.8, 96 px", ["--window", "hann", "--cutoff", 0.8, "--size", 96],
            window="hann", cutoff=0.8, size=96)
    compare(ds, path, tmp, "SIRT 3 iterations λ 1.5", ["--method", "sirt", "-n", 3, "--relaxation", 1.5],
            method="sirt", iterations=3, relaxation=1.5)
    compare(ds, path, tmp, "PWLS 4 iterations b 0.2", ["--method", "pwls", "-n", 4, "--beta", 0.2],
            method="pwls", iterations=4, beta=0.2)

    # metrics(): the CLI's `metrics` on the same images, with and without the disc
    image, _ = ctrecon.reconstruct(ds)
    out = os.path.join(tmp, "fbp.tif")
    check(cli("reconstruct", path, "-o", out).returncode == 0, "the CLI wrote the FBP image")
    dx = ds.reference_grid["dx_mm"]
    for radius in (0.0, 100.0):
        r = cli("metrics", out, os.path.join(tmp, "reference.tif"), "--pixel-size", repr(dx), "--radius", radius)
        want = json.loads(r.stdout) if r.returncode == 0 else {}
        got = ctrecon.metrics(image, ds.reference, pixel_size=dx, radius=radius)
        check(want and all(abs(got[k] - want[k]) <= 1e-12 * abs(want[k]) for k in ("rmse", "psnr", "ssim")),
              f"metrics radius {radius} mm: {got} = the CLI's "
              f"{ {k: want.get(k) for k in ('rmse', 'psnr', 'ssim')} }")
    try:
        ctrecon.metrics(image, ds.reference[:, :10])
        check(False, "metrics of different shapes raises")
    except ValueError as e:
        check("same shape" in str(e), f"metrics of different shapes raises: {e}")
    bad = image.copy()
    bad[0, 3, 3] = np.nan
    try:
        ctrecon.metrics(bad, ds.reference)
        check(False, "metrics of an image with NaN raises")
    except ValueError as e:
        check("NaN" in str(e), f"metrics of an image with NaN raises: {e}")

    gel = os.path.join(DATA, "gel-fan", "geometry.json")
    if os.path.exists(gel):
        compare(ctrecon.load(gel), gel, tmp, "gel-fan FBP (measured data)", [])
    else:
        print(f"{gel} absent: the measured-data case is skipped")
finish()
