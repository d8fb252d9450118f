"""Noise realisations and the equal-d′ dose in `ctrecon-cli study`.

A noiseless 180-view scan of the iq phantom, re-sampled at I0 = 1e5
("dose_model": "resample", so dose 1 gets its own realisations too), is
studied at doses 1 and 0.25 with FBP Hann (cut-off 1, the reference) and FBP
Hann cut-off 0.5 (smoother: higher d′), two realisations each:
1. study.csv has a `realisation` column: 0 and 1 for every dose × method
   (8 rows), and the two realisations differ (different seeds).
2. equal-dose.csv holds, per observer, the reference's mean d′ at dose 1
   with its standard error (s/√n), and for the other method the dose where
   its mean d′, interpolated linearly against ln(dose), meets it, with the
   delta-method standard error — all recomputed here in numpy from
   study.csv's rows; a method above the target at every dose is "below the
   lowest dose".  The same for d′ with the TTF pooled over the
   realisations (observers npw_pooled and npwe_pooled, from study.csv's
   dprime_*_pooled columns), in lines after the first two observers'.
3. "reference" naming the second configuration by label makes it the
   reference; on a noisy scan (thinning) dose 1 is one realisation (the data
   as they are) and the reference's standard error is 0; realisation r of
   a dose is `simulate-dose --seed SEED+r` (the run's image equals a
   separate simulate-dose + reconstruct).
4. Bad keys fail naming the key; without an iq task no equal-dose.csv.
   The study warns when its insert's TTF CNR falls below TG-233's 15,
   with the range that `iq` measures on the saved run images.  The TTF
   pooled over a method and dose's realisations (ttf_NAME_f50_pooled,
   ttf_NAME_cnr_pooled) is the same on each of their rows and equals `iq`
   pooling their saved images; with one realisation it is its own f50.
   d' with each run's NPS and that pooled TTF (dprime_*_pooled) equals a
   numpy integral of TG-233's formulas over `iq`'s NPS and pooled TTF within 1 %.
5. study.png has a third panel (d′ NPW) with a task — its frame's left edge
   at 2/3 of the width — and two without (the error bars were looked at,
   not tested).
Needs no shared data.
"""
import csv
import json
import math
import os
import tempfile

import numpy as np
import tifffile
from scipy.special import j1

from common import check, finish, read_png, require_cli, run

require_cli()
tmp = tempfile.TemporaryDirectory()
T = tmp.name

sim = os.path.join(T, "sim")
r = run("simulate", "--phantom", "iq", "--i0", "0", "--views", "180", "--cols", "368", "--size", "128",
        "--output", sim)
if not check(r.returncode == 0, "simulate a noiseless iq scan"):
    print(r.stderr)
    finish()
c = (60 * math.cos(4 * math.pi / 3), 60 * math.sin(4 * math.pi / 3))
IQ = {"nps_roi": "circle:0,0,45", "nps_size": 16,
      "inserts": [{"name": "delrin", "center_mm": [round(c[0], 6), round(c[1], 6)], "radius_mm": 12.5}],
      "task": "disc:10,50"}
METHODS = [{"method": "fbp", "window": "hann"}, {"method": "fbp", "window": "hann", "cutoff": 0.5}]
study = {"dataset": "sim/geometry.json", "doses": [1, 0.25], "seed": 5, "i0": 1e5, "dose_model": "resample",
         "realisations": 2, "grid": {"size": 128, "pixel_size_mm": 1.72}, "methods": METHODS, "iq": IQ}


def write_study(obj, name):
    path = os.path.join(T, name)
    with open(path, "w") as fh:
        json.dump(obj, fh)
    return path


def run_study(obj, name):
    out = os.path.join(T, name)
    r = run("study", write_study(obj, name + ".json"), "--output", out)
    return r, out


def read_csv(path):
    with open(path) as fh:
        return [row for row in csv.DictReader(line for line in fh if not line.startswith("#"))]


def expected(rows, observer, ref_label):
    """The equal-d′ dose from the rows, written from the definition."""
    col = "dprime_" + observer
    by = {}
    for row in rows:
        if row[col] != "":
            by.setdefault(row["label"], {}).setdefault(float(row["dose"]), []).append(float(row[col]))

    def stats(v):
        v = np.array(v)
        return v.mean(), (v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else float("nan"))
    t, se_t = stats(by[ref_label][1.0])
    se_t = 0.0 if math.isnan(se_t) else se_t
    res = {}
    for label, pts in by.items():
        doses = sorted(pts)
        st = [stats(pts[d]) for d in doses]
        res[label] = ("below the lowest dose" if all(m > t for m, _ in st) else "not reached", None, None)
        for (da, (ya, sa)), (db, (yb, sb)) in zip(zip(doses, st), zip(doses[1:], st[1:])):
            if (ya - t) * (yb - t) <= 0 and ya != yb:
                f = (t - ya) / (yb - ya)
                x = math.log(da) + f * (math.log(db) - math.log(da))
                dx_dy = (math.log(db) - math.log(da)) / (yb - ya)
                se = math.exp(x) * abs(dx_dy) * math.sqrt(se_t ** 2 + (1 - f) ** 2 * sa ** 2 + f ** 2 * sb ** 2)
                res[label] = ("reached", math.exp(x), se)
                break
        if label == ref_label:
            res[label] = ("reference", 1.0, 0.0)
    return t, se_t, res


def close(a, b, tol=2e-5):
    return abs(a - b) <= tol * max(abs(b), 1e-9)


# --- 1. realisations ---------------------------------------------------------
r, out = run_study(study, "out")
if not check(r.returncode == 0, "the study with 2 realisations runs"):
    print(r.stderr)
    finish()
rows = read_csv(os.path.join(out, "study.csv"))
keys = [(row["label"], float(row["dose"]), row["realisation"]) for row in rows]
want = [(lab, d, str(k)) for lab in ("fbp window=hann", "fbp window=hann cutoff=0.5") for d in (1.0, 0.25)
        for k in range(2)]
check(keys == want, f"study.csv: 8 rows, realisations 0 and 1 per dose and method ({len(rows)} rows)")
pairs = [(float(rows[i]["dprime_npw"]), float(rows[i + 1]["dprime_npw"])) for i in range(0, len(rows), 2)]
check(all(a != b for a, b in pairs), f"the two realisations differ (d′ NPW pairs {pairs})")

# --- 2. equal-dose.csv against numpy ---------------------------------------------
path = os.path.join(out, "equal-dose.csv")
check(os.path.exists(path), "equal-dose.csv written")
eq = read_csv(path) if os.path.exists(path) else []
OBSERVERS = ["npw", "npwe", "npw_pooled", "npwe_pooled"]
check(len(eq) == 8 and [e["observer"] for e in eq] == [o for o in OBSERVERS for _ in range(2)],
      f"equal-dose.csv: one line per observer (each run's TTF, then the pooled TTF) and method ({len(eq)})")
statuses = set()
for e in eq:
    t, se_t, res = expected(rows, e["observer"], "fbp window=hann")
    status, dose, se = res[e["label"]]
    if "pooled" not in e["observer"]:
        statuses.add(status)
    ok = e["status"] == status and close(float(e["target_dprime"]), t) and close(float(e["target_se"]), se_t)
    if dose is not None:
        ok = ok and close(float(e["equal_dose"]), dose, 1e-4) and close(float(e["equal_dose_se"]), se, 1e-3)
    else:
        ok = ok and e["equal_dose"] == "" and e["equal_dose_se"] == ""
    check(ok, f"{e['observer']} {e['label']}: {e['status']} {e['equal_dose']} ± {e['equal_dose_se']} "
          f"(numpy: {status} {dose} ± {se}; target {t:.4f} ± {se_t:.4f})")
check(statuses == {"reference", "reached", "below the lowest dose"},
      f"the study shows a crossing, the reference and one below the lowest dose: {sorted(statuses)}")
check("equal-d′ dose (NPW)" in r.stderr and "between doses 0.25 and 1" in r.stderr,
      "stderr states the equal-d′ dose")

# --- 3. reference by label; noisy data: dose 1 as the data are -----------------------
r, out2 = run_study({**study, "reference": "fbp window=hann cutoff=0.5"}, "out2")
eq2 = read_csv(os.path.join(out2, "equal-dose.csv")) if r.returncode == 0 else []
check(r.returncode == 0 and [e["status"] for e in eq2 if e["label"].endswith("0.5")] == ["reference"] * len(OBSERVERS),
      "\"reference\" by label: the second configuration is the reference")
noisy = os.path.join(T, "noisy")
r = run("simulate", "--phantom", "iq", "--i0", "1e5", "--views", "180", "--cols", "368", "--size", "128",
        "--seed", "3", "--output", noisy)
obj3 = {**study, "dataset": "noisy/geometry.json", "dose_model": "auto"}
out3 = os.path.join(T, "out3")
r = run("study", write_study(obj3, "out3.json"), "--output", out3, "--images")
rows3 = read_csv(os.path.join(out3, "study.csv")) if r.returncode == 0 else []
real3 = [(float(x["dose"]), x["realisation"]) for x in rows3 if x["method"] == "fbp"][:3]
check(real3 == [(1.0, "0"), (0.25, "0"), (0.25, "1")],
      f"noisy data: dose 1 is one realisation (the data), 0.25 two: {real3}")
eq3 = read_csv(os.path.join(out3, "equal-dose.csv")) if r.returncode == 0 else []
check(len(eq3) == 8 and all(float(e["target_se"]) == 0 for e in eq3), "one realisation at dose 1: target se 0")
# The TTF's CNR over the runs (TG-233 asks for 15): the study's warning
# states the lowest and highest CNR of its insert, which `iq` on each saved
# run image gives too.
cnrs = []
for k in range(len(rows3)):
    jpath = os.path.join(T, f"cnr-{k}.json")
    ri = run("iq", os.path.join(out3, f"run-{k + 1:02d}.tif"), "--pixel-size", "1.72", "--insert",
             "circle:%s,%s,%s" % (*IQ["inserts"][0]["center_mm"], IQ["inserts"][0]["radius_mm"]), "--json", jpath)
    if ri.returncode == 0:
        cnrs.append(json.load(open(jpath))["ttf"][0]["cnr"])
want_warn = f"CNR is {min(cnrs):.1f}–{max(cnrs):.1f} on one slice" if cnrs else "?"
check(len(cnrs) == len(rows3) > 0 and min(cnrs) < 15 and "“delrin”" in r.stderr and want_warn in r.stderr,
      f"the study warns of its insert's low CNR, as `iq` measures its runs ({want_warn})")
def num(v):
    return float("nan") if v in ("", None) else float(v)


def same(a, b):
    """Equal within the CSV's 8 digits, or both not measured (f50 beyond Nyquist: NaN, null)."""
    a, b = num(a), num(b)
    return (math.isnan(a) and math.isnan(b)) or close(a, b, 1e-7)


# The TTF pooled over a method and dose's realisations: the same on each of
# their rows, and what `iq` gives pooling their saved images; with one
# realisation (dose 1, the data) its own f50.
ins = "circle:%s,%s,%s" % (*IQ["inserts"][0]["center_mm"], IQ["inserts"][0]["radius_mm"])
groups = {}
for k, row in enumerate(rows3):
    groups.setdefault((row["label"], row["dose"]), []).append(k)
pooled_ok = []
for (label, dose), ks in groups.items():
    vals = {(rows3[k]["ttf_delrin_f50_pooled"], rows3[k]["ttf_delrin_cnr_pooled"]) for k in ks}
    jpath = os.path.join(T, "pooled.json")
    ri = run("iq", *[os.path.join(out3, f"run-{k + 1:02d}.tif") for k in ks], "--pixel-size", "1.72",
             "--insert", ins, "--json", jpath)
    t = json.load(open(jpath))["ttf"][0] if ri.returncode == 0 else None
    f50_p, cnr_p = (num(v) for v in next(iter(vals)))
    ok = len(vals) == 1 and t is not None and same(f50_p, t["f50"]) and close(cnr_p, t["cnr"], 1e-7)
    if len(ks) == 1:
        ok = ok and same(f50_p, num(rows3[ks[0]]["ttf_delrin_f50"]))
    pooled_ok.append(ok)
    check(ok, f"{label} at {dose}: pooled f50 {f50_p} (CNR {cnr_p}) over {len(ks)} realisation(s) = `iq` on "
          f"their images ({t['f50'] if t else None}); single f50s {[rows3[k]['ttf_delrin_f50'] for k in ks]}")
check(len(pooled_ok) == 4, f"pooled TTFs for 2 methods x 2 doses ({len(pooled_ok)})")


def dprime_np(nps_f, ttf_f, pix, d_mm, c_hu):
    """TG-233's d' (NPW, NPWE; the eye filter at 500 mm, as test_iq.py), a numpy integral."""
    f = np.linspace(0, 0.5 / pix, 20001)
    fs = np.maximum(f, 1e-12)
    w = c_hu * (d_mm / 2) * j1(np.pi * d_mm * fs) / fs
    rho = f * 500 * np.pi / 180
    e = rho ** 1.3 * np.exp(-1.3 / 32 * rho ** 2)
    wt2 = (w * ttf_f(f)) ** 2 * 2 * np.pi * f
    return (math.sqrt(np.trapz(wt2, f) ** 2 / np.trapz(wt2 * nps_f(f), f)),
            math.sqrt(np.trapz(wt2 * e ** 2, f) ** 2 / np.trapz(wt2 * e ** 4 * nps_f(f), f)))


# d' with each run's own NPS and the pooled TTF (dprime_*_pooled): numpy's
# integral over `iq`'s NPS of the run and TTF of the pooled images within
# 1 %; with one realisation the run's own d'.
for (label, dose), ks in groups.items():
    if label != "fbp window=hann cutoff=0.5":
        continue
    tj = os.path.join(T, "pooled-ttf.json")
    run("iq", *[os.path.join(out3, f"run-{k + 1:02d}.tif") for k in ks], "--pixel-size", "1.72", "--insert", ins,
        "--json", tj)
    curve = np.array(json.load(open(tj))["ttf"][0]["curve"])
    for k in ks:
        nj = os.path.join(T, "run-nps.json")
        run("iq", os.path.join(out3, f"run-{k + 1:02d}.tif"), "--pixel-size", "1.72", "--nps-roi", IQ["nps_roi"],
            "--nps-size", IQ["nps_size"], "--json", nj)
        rad = np.array(json.load(open(nj))["nps"]["radial"])
        want = dprime_np(lambda f: np.interp(f, rad[:, 0], rad[:, 1]), lambda f: np.interp(f, curve[:, 0], curve[:, 1]),
                         1.72, 10, 50)
        got = (num(rows3[k]["dprime_npw_pooled"]), num(rows3[k]["dprime_npwe_pooled"]))
        ok = all(abs(g / w - 1) < 0.01 for g, w in zip(got, want))
        if len(ks) == 1:
            ok = ok and rows3[k]["dprime_npw_pooled"] == rows3[k]["dprime_npw"] \
                and rows3[k]["dprime_npwe_pooled"] == rows3[k]["dprime_npwe"]
        check(ok, f"{label} at {dose}, run {k + 1}: d' with the pooled TTF NPW {got[0]:.4f} NPWE {got[1]:.4f} "
              f"(numpy {want[0]:.4f} {want[1]:.4f}; with the run's own TTF {rows3[k]['dprime_npw']} "
              f"{rows3[k]['dprime_npwe']})")
# realisation r is `simulate-dose --seed S+r`: run 3 (FBP Hann, dose 0.25,
# realisation 1) is the reconstruction of simulate-dose --seed 6
ds = os.path.join(T, "quarter-seed6")
r = run("simulate-dose", os.path.join(noisy, "geometry.json"), "--fraction", "0.25", "--seed", "6",
        "--output", ds)
img = os.path.join(T, "quarter-seed6.tif")
r2 = run("reconstruct", os.path.join(ds, "geometry.json"), "--window", "hann", "--size", "128",
         "--pixel-size", "1.72", "--output", img)
if check(r.returncode == 0 and r2.returncode == 0, "simulate-dose --seed 6 and reconstruct"):
    run2, run3 = (tifffile.imread(os.path.join(out3, f"run-0{k}.tif")).astype(float) for k in (2, 3))
    sep = tifffile.imread(img).astype(float)
    d3, d2 = np.abs(run3 - sep).max(), np.abs(run2 - sep).max()
    check(d3 <= 1e-6 * np.abs(sep).max() and d2 > 1e-3 * np.abs(sep).max(),
          f"realisation 1 is seed + 1: run-03 equals simulate-dose --seed 6 (max diff {d3:.3g}), "
          f"run-02 (seed 5) does not ({d2:.3g})")

# --- 4. bad keys; no task, no equal-dose.csv -------------------------------------------
BAD = [({**study, "realisations": 0}, "realisations"), ({**study, "realisations": 1.5}, "realisations"),
       ({**study, "reference": "nosuch"}, "reference"), ({**study, "reference": "fbp"}, "reference"),
       ({**study, "reference": 3}, "reference")]
for i, (obj, key) in enumerate(BAD):
    r, _ = run_study(obj, f"bad{i}")
    check(r.returncode != 0 and key in r.stderr, f"bad “{key}” refused: {r.stderr.strip()[-110:]}")
r, out4 = run_study({**study, "iq": {k: v for k, v in IQ.items() if k != "task"}, "realisations": 1}, "notask")
check(r.returncode == 0 and not os.path.exists(os.path.join(out4, "equal-dose.csv")),
      "without a task no equal-dose.csv")


# --- 5. the figure -------------------------------------------------------------------
def frame_rows(png):
    """Rows with the panel frame's grey (0.3, antialiased: any grey darker
    than the grid's 0.88) in the columns where a third panel's left edge
    would be (x = 2/3 W + 72)."""
    w, h, rgb = read_png(png)
    x = int(2 * w / 3 + 72)
    strip = rgb[:, x - 2:x + 3].astype(int)
    grey = (strip.max(axis=2) == strip.min(axis=2)) & (strip[:, :, 0] < 200)
    return int(grey.any(axis=1).sum()), h


n3, h = frame_rows(os.path.join(out, "study.png"))
n2, _ = frame_rows(os.path.join(out4, "study.png"))
check(n3 > h / 2 and n2 < 60, f"study.png: a third panel with a task ({n3} frame rows of {h}), none without ({n2})")
finish()
