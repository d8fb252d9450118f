"""`ctrecon-cli study` end to end on a small simulated scan.

A 180-view scan of the analytic head (I0 = 5e4) is studied at doses 1, 0.5
and 0.25 with FBP (Hann, two cut-offs) and parallel ART (2 iterations).
Every row of study.csv is checked against separate runs of the same steps:
`simulate-dose --fraction F --seed S`, `reconstruct` (per-iteration metrics
CSV) and `roi` on the written image: RMSE/PSNR/SSIM, the HU RMSE, the ROI
mean/SD/CNR and the noise SD must agree to 1e-5 relative, the iterations and
the best iteration exactly, and --images's run-NN.tif (NN: the row) must
equal the separate run's image.  study.png must be a PNG of the asked size
(decoded with zlib alone, common.py), not blank, with the lines of the three
configurations in three colours.  Bad STUDY.json files fail with a message
naming the key; Ctrl-C cancels and still writes the runs that finished.
Needs no shared data.
"""
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile

import numpy as np
import tifffile

from common import CLI, check, finish, read_png, require_cli, run

require_cli()
tmp = tempfile.TemporaryDirectory()
T = tmp.name
MU_WATER = 0.0192
REL = 1e-5


def rel_ok(a, b, tol=REL):
    if a in ("", None) or b in ("", None):
        return (a in ("", None)) and (b in ("", None))
    a, b = float(a), float(b)
    return abs(a - b) <= tol * max(abs(b), 1e-12) + 1e-12


# --- the scan and the study ---------------------------------------------------
sim = os.path.join(T, "sim")
r = run("simulate", "--views", "180", "--cols", "184", "--size", "96", "--i0", "5e4", "--seed", "2",
        "--output", sim)
if not check(r.returncode == 0, "simulate a small head scan"):
    finish()
ROIS = [
    {"name": "lesion", "shape": "circle", "center_mm": [-35, 35], "radius_mm": 4},
    {"name": "brain", "shape": "circle", "center_mm": [-40, 0], "radius_mm": 6, "role": "background"},
    {"name": "uniform", "shape": "rectangle", "center_mm": [40, -10], "size_mm": [15, 15], "role": "noise"},
]
study = {
    "dataset": "sim/geometry.json",
    "doses": [1, 0.5, 0.25],
    "seed": 4,
    "rois": ROIS,
    "methods": [
        {"method": "fbp", "window": "hann", "cutoff": [0.6, 1.0]},
        {"method": "part", "iterations": 2, "relaxation": 1.0},
    ],
}
sj = os.path.join(T, "study.json")
with open(sj, "w") as fh:
    json.dump(study, fh)
out = os.path.join(T, "out")
r = run("study", sj, "--output", out, "--images")
print("     " + "\n     ".join(l for l in r.stderr.splitlines() if l.startswith("[")))
if not check(r.returncode == 0, "study runs"):
    print(r.stderr)
    finish()
with open(os.path.join(out, "study.csv")) as fh:
    rows = list(csv.DictReader(fh))
check(len(rows) == 9, f"study.csv has 3 doses x 3 configurations = 9 rows ({len(rows)})")
labels = list(dict.fromkeys(r_["label"] for r_ in rows))
check(labels == ["fbp window=hann cutoff=0.6", "fbp window=hann cutoff=1", "part iterations=2 relaxation=1"],
      f"labels name the parameters, one plan per configuration in turn: {labels}")

# --- the same steps, one by one -------------------------------------------------
ref_pixel = json.load(open(os.path.join(sim, "geometry.json")))["reference"]["pixel_size_mm"]
for dose in (1, 0.5, 0.25):
    ds = os.path.join(T, f"dose-{dose}")
    r = run("simulate-dose", os.path.join(sim, "geometry.json"), "--fraction", dose, "--seed", 4, "--output", ds)
    if not check(r.returncode == 0, f"simulate-dose --fraction {dose}"):
        continue
    for k, (method, extra) in enumerate((("fbp", ["--window", "hann", "--cutoff", "0.6"]),
                                         ("fbp", ["--window", "hann", "--cutoff", "1"]),
                                         ("part", ["--iterations", "2", "--relaxation", "1"]))):
        row = [r_ for r_ in rows if float(r_["dose"]) == dose][k]
        img = os.path.join(ds, f"{method}{k}.tif")
        met = os.path.join(ds, f"{method}{k}.csv")
        r = run("reconstruct", os.path.join(ds, "geometry.json"), "--method", method, *extra,
                "--output", img, "--metrics", met)
        if not check(r.returncode == 0, f"dose {dose} {row['label']}: reconstruct"):
            continue
        with open(met) as fh:
            its = list(csv.DictReader(fh))
        last = its[-1]
        best = min(its, key=lambda i: float(i["rmse"]))
        bad = [key for key in ("rmse", "psnr", "ssim") if not rel_ok(row[key], last[key])]
        if not rel_ok(row["hu_rmse"], float(last["rmse"]) / MU_WATER * 1000):
            bad.append("hu_rmse")
        if int(row["iterations"]) != len(its) or int(row["best_iteration"]) != int(best["iteration"]):
            bad.append("iterations")
        r = run("roi", img, "--pixel-size", ref_pixel,
                "--roi", "circle:-35,35,4", "--background", "circle:-40,0,6", "--noise-roi", "rect:40,-10,15,15")
        roi = json.loads(r.stdout) if r.returncode == 0 else None
        if roi is None:
            bad.append("roi failed: " + r.stderr)
        else:
            pairs = (("roi_lesion_mean_hu", roi["rois"][0]["mean_hu"]), ("roi_lesion_sd_hu", roi["rois"][0]["sd_hu"]),
                     ("roi_lesion_cnr", roi["rois"][0]["cnr"]), ("roi_brain_mean_hu", roi["background"]["mean_hu"]),
                     ("roi_brain_sd_hu", roi["background"]["sd_hu"]), ("noise_sd_hu", roi["noise_sd_hu"]))
            bad += [f"{key} {row[key]} vs {v}" for key, v in pairs if not rel_ok(row[key], v)]
        n_row = rows.index(row) + 1
        saved = os.path.join(out, f"run-{n_row:02d}.tif")
        if not os.path.exists(saved):
            bad.append(f"--images wrote no run-{n_row:02d}.tif")
        elif np.max(np.abs(tifffile.imread(saved) - tifffile.imread(img))) > 1e-6 * np.max(np.abs(tifffile.imread(img))):
            bad.append(f"run-{n_row:02d}.tif differs from the separate run's image")
        check(not bad, f"dose {dose} {row['label']}: study.csv = separate runs (RMSE {float(row['hu_rmse']):.1f} HU, "
                       f"SSIM {float(row['ssim']):.4f}, lesion CNR {float(row['roi_lesion_cnr']):.2f})"
              + (": " + "; ".join(bad) if bad else ""))

# --- the figure ---------------------------------------------------------------------
png = os.path.join(out, "study.png")
if check(os.path.exists(png), "study.png written"):
    w, h, rgb = read_png(png)
    check((w, h) == (1400, 620), f"study.png is 1400 x 620 ({w} x {h})")
    non_white = np.any(rgb < 250, axis=2).mean()
    check(non_white > 0.01, f"study.png is not blank ({100 * non_white:.1f} % of the pixels drawn)")
    colours = {(0, 114, 178), (213, 94, 0), (0, 158, 115)}   # Okabe-Ito blue, vermillion, green
    seen = {c for c in colours if np.all(np.abs(rgb - np.array(c)) <= 2, axis=2).sum() > 50}
    check(seen == colours, f"the three configurations' lines are drawn ({len(seen)} of 3 colours)")

# --- bad STUDY.json ---------------------------------------------------------------------
bad_cases = [
    ({**study, "methods": [{"method": "magic"}]}, "magic", "unknown method"),
    ({**study, "methods": [{"method": "fbp", "relaxtion": 1}]}, "relaxtion", "misspelt parameter"),
    ({**study, "methods": [{"method": "fbp", "iterations": 3}]}, "iterations", "parameter that does not apply"),
    ({**study, "methods": [{"method": "part", "relaxation": [1.0, 2.5]}]}, "relaxation", "value out of range"),
    ({**study, "doses": []}, "doses", "no doses"),
    ({**study, "doses": [0.5, -1]}, "dose", "negative dose"),
    ({**study, "dose": [1]}, "dose", "unknown top-level key"),
    ({**study, "rois": [{"name": "a", "shape": "circle", "center_mm": [0, 0]}]}, "radius_mm", "ROI without radius"),
    ({**study, "dataset": "nowhere/geometry.json"}, "nowhere", "missing dataset"),
]
for body, needle, what in bad_cases:
    p = os.path.join(T, "bad.json")
    with open(p, "w") as fh:
        json.dump(body, fh)
    r = run("study", p, "--output", os.path.join(T, "bad-out"))
    check(r.returncode == 1 and needle in r.stderr and not os.path.exists(os.path.join(T, "bad-out", "study.csv")),
          f"refuses {what}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}")
with open(os.path.join(T, "broken.json"), "w") as fh:
    fh.write("{ not json")
r = run("study", os.path.join(T, "broken.json"), "--output", os.path.join(T, "bad-out"))
check(r.returncode == 1 and "JSON" in r.stderr, "refuses a file that is not JSON")

# A dataset without I0: dose 1 runs as is, a lower dose is refused with the reason.
noi0 = json.load(open(os.path.join(sim, "geometry.json")))
noi0.pop("I0")
noi0["projections"]["file"] = os.path.join(sim, noi0["projections"]["file"])
noi0["reference"]["file"] = os.path.join(sim, noi0["reference"]["file"])
with open(os.path.join(T, "noi0.json"), "w") as fh:
    json.dump(noi0, fh)
for doses, ok in (([1], True), ([1, 0.5], False)):
    p = os.path.join(T, "noi0-study.json")
    with open(p, "w") as fh:
        json.dump({**study, "dataset": "noi0.json", "doses": doses, "methods": [study["methods"][0]]}, fh)
    o = os.path.join(T, f"noi0-out-{len(doses)}")
    r = run("study", p, "--output", o)
    if ok:
        check(r.returncode == 0, "without I0, dose 1 reconstructs the data as they are")
    else:
        n = len(list(csv.DictReader(open(os.path.join(o, "study.csv"))))) if os.path.exists(os.path.join(o, "study.csv")) else 0
        check(r.returncode == 1 and "I0" in r.stderr and n == 0,
              "without I0, dose 0.5 is refused with the reason before any reconstruction")

# mu_water: the dataset's own ("mu_water_per_mm") unless STUDY.json sets one.
mu_ds = json.load(open(os.path.join(T, "noi0.json")))
mu_ds["mu_water_per_mm"] = 0.02
with open(os.path.join(T, "mu.json"), "w") as fh:
    json.dump(mu_ds, fh)
for given, want in ((None, 0.02), (0.0192, 0.0192)):
    body = {**study, "dataset": "mu.json", "doses": [1], "methods": [study["methods"][0]], "rois": []}
    if given is not None:
        body["mu_water"] = given
    p = os.path.join(T, "mu-study.json")
    with open(p, "w") as fh:
        json.dump(body, fh)
    o = os.path.join(T, f"mu-out-{want}")
    r = run("study", p, "--output", o)
    row = next(csv.DictReader(open(os.path.join(o, "study.csv")))) if r.returncode == 0 else None
    check(row is not None and rel_ok(row["hu_rmse"], float(row["rmse"]) * 1000 / want),
          f"HU with mu_water {want} ({'STUDY.json' if given else 'the dataset'}'s)")

# --- Ctrl-C: cancelled (exit 130), the finished runs written and marked incomplete -------------
# --- a kill (SIGKILL, no clean-up at all) still leaves the runs that finished --------------------
p = os.path.join(T, "long.json")
with open(p, "w") as fh:
    json.dump({**study, "doses": [1, 0.5, 0.25, 0.1],
               "methods": [{"method": "fbp"}, {"method": "sirt", "iterations": 400}]}, fh)


def rows_and_note(path):
    if not os.path.exists(path):
        return -1, ""
    text = open(path).read().splitlines()
    notes = [t for t in text if t.startswith("#")]
    return len(list(csv.DictReader(t for t in text if not t.startswith("#")))), (notes[-1] if notes else "")


for sig, name in ((signal.SIGINT, "int"), (signal.SIGKILL, "kill")):
    o = os.path.join(T, f"long-out-{name}")
    proc = subprocess.Popen([CLI, "study", p, "--output", o], stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        if line.startswith("[1/"):
            proc.send_signal(sig)
            break
    rest = proc.stderr.read()
    rc = proc.wait(timeout=120)
    n, note = rows_and_note(os.path.join(o, "study.csv"))
    if sig == signal.SIGINT:
        check(rc == 130 and "cancelled" in rest and 1 <= n < 8 and "incomplete" in note and "cancelled" in note,
              f"Ctrl-C cancels (exit {rc}) and writes the {n} finished run(s), marked '{note}'")
    else:
        check(rc == -signal.SIGKILL and 1 <= n < 8 and "incomplete" in note,
              f"a killed study keeps the {n} finished run(s), marked '{note}'")
finish()
