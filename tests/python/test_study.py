"""ctrecon.study(): the same rows as `ctrecon-cli study` on the same
STUDY.json (every figure to the CSV's 8 significant digits), from a path
or a dict, on the dataset it names or a Dataset given; the callback sees
each run with its image and can stop the study; bad specs raise the
engine's classes."""
import csv
import json
import os

import numpy as np

from common import check, cli, finish, require_module, simulate, tempdir

ctrecon = require_module()


def close(a, b):
    if b == "":
        return np.isnan(a)
    return abs(a - float(b)) <= 1e-7 * max(1.0, abs(float(b)))


with tempdir() as tmp:
    path = simulate(tmp)  # I0 2e4 stated
    spec = {"dataset": path, "doses": [1, 0.5], "seed": 3,
            "rois": [{"name": "centre", "shape": "circle", "center_mm": [0, 0], "radius_mm": 8, "role": "noise"}],
            "methods": [{"method": "fbp", "window": "hann"}, {"method": "sirt", "iterations": 5}]}
    study_json = os.path.join(tmp, "study.json")
    with open(study_json, "w") as fh:
        json.dump(spec, fh)
    r = cli("study", study_json, "-o", os.path.join(tmp, "out"))
    check(r.returncode == 0, f"ctrecon-cli study ran {r.stderr.strip()[-200:]}")
    with open(os.path.join(tmp, "out", "study.csv")) as fh:
        want = list(csv.DictReader(fh))

    seen = []
    rows = ctrecon.study(study_json, callback=lambda row, image: seen.append((row["label"], image.shape)))
    check(len(rows) == len(want) == 4, f"study(path): {len(rows)} rows, the CLI's {len(want)}")
    same = all(row["method"] == w["method"] and row["label"] == w["label"] and row["dose"] == float(w["dose"])
               and all(close(row[k], w[k]) for k in ("rmse", "psnr", "ssim", "hu_rmse", "noise_sd_hu", "best_rmse"))
               and row["iterations"] == int(w["iterations"]) for row, w in zip(rows, want))
    check(same, "every row's figures equal the CLI's study.csv (8 significant digits)")
    check(len(seen) == 4 and all(s[1] == (1, 64, 64) for s in seen), f"the callback saw 4 runs with images: {seen}")

    from_dict = ctrecon.study(spec)
    check([r["rmse"] for r in from_dict] == [r["rmse"] for r in rows], "study(dict) = study(path)")

    # A Dataset given (here the same scan held in memory) instead of "dataset".
    ds = ctrecon.load(path)
    no_name = {k: v for k, v in spec.items() if k != "dataset"}
    given = ctrecon.study(no_name, dataset=ds)
    check([r["rmse"] for r in given] == [r["rmse"] for r in rows], "study(dict, dataset=Dataset) = study(path)")

    calls = []
    part = ctrecon.study(spec, callback=lambda row, image: calls.append(1) or len(calls) < 2)
    check(len(part) == 2 and len(calls) == 2, f"returning False after the 2nd run stopped it: {len(part)} rows")

    def fails():
        ctrecon.study(dict(spec, doses=[1, 0.5], frobnicate=1))
    try:
        fails()
        check(False, "an unknown key raises")
    except ctrecon.FormatError as e:
        check("frobnicate" in str(e), f"an unknown key: FormatError naming it ({e})")
    try:
        ctrecon.study(dict(spec, doses=[1, -2]))
        check(False, "a negative dose raises")
    except ctrecon.InvalidArgument as e:
        check(True, f"a negative dose: InvalidArgument ({e})")
    try:
        ctrecon.study(no_name, dataset=ctrecon.Dataset(ds, ds.projections))  # no I0 for dose 0.5
        check(False, "a lower dose of a scan of unknown dose raises")
    except ctrecon.InvalidData as e:
        check(True, f"a lower dose of a scan of unknown dose: InvalidData ({e})")
finish()
