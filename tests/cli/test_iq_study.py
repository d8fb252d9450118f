"""The image-quality phantom and task-based image quality in the dose study.

1. `simulate --phantom iq` (water cylinder of radius 100 mm, six 25 mm
   inserts on a ring of 60 mm at 0°, 60°, … counter-clockwise from +x): the
   reference holds the defined CT numbers (−100, −35, +20, +120, +340, +990
   HU) within 0.5 HU in each insert's central 8 mm disc, and FBP (Hann) of
   a noise-free 360-view scan reads them back within 2 HU (and the water
   centre within 2 HU); so does FDK on every slice of an 8-row cone-beam
   scan of it (`--geometry cone-curved`), and on every slice of a helical
   scan of it (`--geometry helical`, 8 rows, 2 turns, pitch 1; 180LI +
   FBP within 3 HU), where `iq` pooled over the slices gives each insert's
   contrast within 3 HU of its CT number.  The same inserts (10 mm) in the
   head phantom's brain (`--phantom head-iq`): the reference holds their
   CT numbers, FBP reads them within 3 HU, `iq` their contrast against the
   brain within 3 HU.
2. A study of FBP on a noisy scan (I0 1e5) at doses 1 and 0.25 with an
   "iq" block: study.csv has nps_noise_hu, nps_f_peak, nps_f_avg,
   ttf_NAME_f50 per insert, dprime_npw and dprime_npwe; FBP is linear, so
   the NPS noise doubles (ratio 2 within 10 %) and d′ ∝ sqrt(dose): the
   ratio d′(0.25)/d′(1) is 0.5 within 15 % for both observers (single
   slice, 32-pixel NPS squares and a TTF measured on one noisy slice; seeds
   1 to 6 gave 0.46 to 0.54).  The high-contrast inserts' f50 are finite.
3. Bad "iq" blocks fail with a message naming the key.
Needs no shared data.
"""
import csv
import json
import math
import os
import tempfile

import numpy as np
import tifffile

from common import check, finish, require_cli, run

require_cli()
tmp = tempfile.TemporaryDirectory()
T = tmp.name
MU = 0.0192
INSERTS = [("ldpe", -100), ("polystyrene", -35), ("tissue", 20), ("acrylic", 120), ("delrin", 340),
           ("teflon", 990)]
CENTRES = [(60 * math.cos(i * math.pi / 3), 60 * math.sin(i * math.pi / 3)) for i in range(6)]


def hu(v):
    return 1000.0 * (v - MU) / MU


def disc_means(img, dx):
    n = img.shape[-1]
    img = img.reshape(n, n).astype(float)
    yy, xx = np.mgrid[0:n, 0:n]
    X, Y = (xx - (n - 1) / 2) * dx, ((n - 1) / 2 - yy) * dx
    means = [hu(img[(X - cx) ** 2 + (Y - cy) ** 2 <= 8 ** 2]).mean() for cx, cy in CENTRES]
    return means, hu(img[X ** 2 + Y ** 2 <= 30 ** 2]).mean()


# --- 1. the phantom -----------------------------------------------------------
sim0 = os.path.join(T, "sim0")
r = run("simulate", "--phantom", "iq", "--i0", "0", "--views", "360", "--cols", "368", "--size", "128",
        "--output", sim0)
if not check(r.returncode == 0, "simulate --phantom iq"):
    print(r.stderr)
    finish()
dx = 220.0 / 128  # the field of view of a 100 mm phantom: 110 mm radius
ref, ref_water = disc_means(tifffile.imread(os.path.join(sim0, "reference.tif")), dx)
check(all(abs(m - h) < 0.5 for m, (_, h) in zip(ref, INSERTS)) and abs(ref_water) < 0.5,
      f"reference inserts hold their CT numbers: {[round(m, 2) for m in ref]}, water {ref_water:.2f} HU")
fbp = os.path.join(T, "fbp.tif")
r = run("reconstruct", os.path.join(sim0, "geometry.json"), "--window", "hann", "--output", fbp)
check(r.returncode == 0, "FBP of the noise-free scan")
got, water = disc_means(tifffile.imread(fbp), dx)
check(all(abs(m - h) < 2.0 for m, (_, h) in zip(got, INSERTS)) and abs(water) < 2.0,
      f"FBP reads the inserts within 2 HU: {[round(m, 2) for m in got]}, water {water:.2f} HU")

# The same phantom in a circular cone-beam scan (8 rows, curved detector),
# exact line integrals through the phantom extruded along z: FDK reads the
# inserts within 2 HU on every slice.
cone = os.path.join(T, "cone")
r = run("simulate", "--phantom", "iq", "--geometry", "cone-curved", "--rows", "8", "--i0", "0",
        "--views", "360", "--cols", "368", "--size", "128", "--output", cone)
check(r.returncode == 0, "simulate --phantom iq --geometry cone-curved --rows 8")
fdk = os.path.join(T, "fdk.tif")
r = run("reconstruct", os.path.join(cone, "geometry.json"), "--window", "hann", "--output", fdk)
check(r.returncode == 0, "FDK of the noise-free cone-beam scan")
vol = tifffile.imread(fdk)
check(vol.shape == (8, 128, 128), f"FDK volume of 8 slices: {vol.shape}")
worst = max(max(abs(m - h) for m, (_, h) in zip(disc_means(sl, dx)[0], INSERTS)) for sl in vol)
check(worst < 2.0, f"FDK reads the inserts within 2 HU on every slice (worst {worst:.2f} HU)")

# The same phantom on a helix (8 rows of 1 mm, 2 turns of 180 views, pitch 1),
# exact line integrals through the phantom extruded past the helix: the
# helical reconstruction (180LI rebinning, FBP Hann) at the reference's
# slices reads the inserts within 3 HU on every slice, and `iq` on it
# (the TTF pooled over its slices) gives every insert's contrast against
# the water around it within 3 HU of the stated CT numbers.
hel = os.path.join(T, "helical")
r = run("simulate", "--phantom", "iq", "--geometry", "helical", "--rows", "8", "--turns", "2", "--i0", "0",
        "--views", "180", "--cols", "368", "--size", "128", "--output", hel)
if check(r.returncode == 0, "simulate --phantom iq --geometry helical --rows 8 --turns 2"):
    gj = json.load(open(os.path.join(hel, "geometry.json")))
    check(gj["type"] == "helical" and gj["views"] == 360 and abs(gj["pitch_factor"] - 1) < 1e-9
          and abs(gj["table_feed_per_rotation_mm"] - 8) < 1e-9 and len(gj["reference"]["z_mm"]) == 8,
          f"helical geometry.json: {gj['views']} views, pitch {gj['pitch_factor']}, feed "
          f"{gj['table_feed_per_rotation_mm']} mm, reference z {gj['reference']['z_mm']}")
    hfbp = os.path.join(T, "helical-fbp.tif")
    r = run("reconstruct", os.path.join(hel, "geometry.json"), "--window", "hann", "--size", "128",
            "--pixel-size", str(dx), "--output", hfbp)
    if check(r.returncode == 0, "helical reconstruction of the iq scan (180LI, FBP Hann)"):
        hvol = tifffile.imread(hfbp).reshape(-1, 128, 128)
        errs = [max(abs(m - h) for m, (_, h) in zip(disc_means(sl, dx)[0], INSERTS)) for sl in hvol]
        check(len(hvol) == 8 and max(errs) < 3.0,
              f"helical FBP reads the inserts within 3 HU on its {len(hvol)} slices (worst {max(errs):.2f} HU)")
        hj = os.path.join(T, "helical-iq.json")
        r = run("iq", hfbp, "--pixel-size", str(dx), "--json", hj,
                *[a for (cx, cy) in CENTRES for a in ("--insert", f"circle:{cx:.6f},{cy:.6f},12.5")])
        if check(r.returncode == 0, "iq on the helical reconstruction"):
            ttf = json.load(open(hj))["ttf"]
            cerr = [t["contrast"] - h for t, (_, h) in zip(ttf, INSERTS)]
            check(len(ttf) == 6 and all(t["images_pooled"] == 8 for t in ttf) and max(map(abs, cerr)) < 3.0,
                  f"iq on the helical slices: contrasts {[round(t['contrast'], 1) for t in ttf]} HU "
                  f"(stated {[h for _, h in INSERTS]}), f50 {[t['f50'] and round(t['f50'], 3) for t in ttf]} cycles/mm")

for args, what in [(["--turns", "3"], "--turns without --geometry helical"),
                   (["--geometry", "helical", "--pitch", "0"], "a pitch of 0"),
                   (["--geometry", "helical", "--turns", "0.2"], "0.2 turns"),
                   (["--geometry", "helical", "--spectrum", "120kvp"], "a spectrum on a helix")]:
    bad = os.path.join(T, "bad-helical")
    r = run("simulate", "--phantom", "iq", "--views", "90", "--cols", "64", "--size", "32", *args, "--output", bad)
    check(r.returncode == 2 and r.stderr.strip() and not os.path.exists(bad),
          f"simulate refuses {what}: {r.stderr.strip()[:100]}")

# The same inserts (10 mm) in the head phantom's brain (`--phantom head-iq`):
# on a ring of 45 mm about the brain's centre (0, -2), the brain +52.08 HU
# (mu 0.0202) around them.  The reference holds the CT numbers in each
# insert's central 3 mm disc; FBP (Hann) of a noise-free 720-view fan scan
# reads them within 3 HU, and `iq` gives each insert's contrast against the
# brain around it within 3 HU of CT number - 52.08.
BRAIN = 1000 * (0.0202 - MU) / MU
HCENTRES = [(45 * math.cos(i * math.pi / 3), 45 * math.sin(i * math.pi / 3) - 2) for i in range(6)]
head = os.path.join(T, "head-iq")
r = run("simulate", "--phantom", "head-iq", "--i0", "0", "--views", "720", "--cols", "736", "--size", "256",
        "--output", head)
if check(r.returncode == 0, "simulate --phantom head-iq"):
    hdx = 220.0 / 256

    def head_means(img):
        img = img.reshape(256, 256).astype(float)
        yy, xx = np.mgrid[0:256, 0:256]
        X, Y = (xx - 127.5) * hdx, (127.5 - yy) * hdx
        return [hu(img[(X - cx) ** 2 + (Y - cy) ** 2 <= 3 ** 2]).mean() for cx, cy in HCENTRES]
    href = head_means(tifffile.imread(os.path.join(head, "reference.tif")))
    check(max(abs(m - h) for m, (_, h) in zip(href, INSERTS)) < 0.5,
          f"head-iq reference: the inserts hold their CT numbers {[round(m, 2) for m in href]}")
    hrec = os.path.join(T, "head-iq-fbp.tif")
    r = run("reconstruct", os.path.join(head, "geometry.json"), "--window", "hann", "--output", hrec)
    if check(r.returncode == 0, "FBP of the head-iq scan"):
        got = head_means(tifffile.imread(hrec))
        check(max(abs(m - h) for m, (_, h) in zip(got, INSERTS)) < 3.0,
              f"FBP reads the head's inserts within 3 HU: {[round(m, 2) for m in got]}")
        hj = os.path.join(T, "head-iq.json")
        r = run("iq", hrec, "--pixel-size", str(hdx), "--json", hj,
                *[a for (cx, cy) in HCENTRES for a in ("--insert", f"circle:{cx:.6f},{cy:.6f},5")])
        ttf = json.load(open(hj))["ttf"] if r.returncode == 0 else []
        cerr = [t["contrast"] - (h - BRAIN) for t, (_, h) in zip(ttf, INSERTS)]
        check(len(ttf) == 6 and max(map(abs, cerr)) < 3.0,
              f"iq on the head: contrasts against the brain {[round(t['contrast'], 1) for t in ttf]} HU "
              f"(CT number - {BRAIN:.2f}: {[round(h - BRAIN, 1) for _, h in INSERTS]}); "
              f"f50 {[t['f50'] and round(t['f50'], 3) for t in ttf]} cycles/mm")

# --- 2. task-based image quality in the study -----------------------------------
sim = os.path.join(T, "sim")
r = run("simulate", "--phantom", "iq", "--i0", "1e5", "--views", "360", "--cols", "368", "--size", "128",
        "--seed", "3", "--output", sim)
check(r.returncode == 0, "simulate a noisy iq scan")
IQ = {"nps_roi": "circle:0,0,45", "nps_size": 32,
      "inserts": [{"name": n, "center_mm": [round(c[0], 6), round(c[1], 6)], "radius_mm": 12.5}
                  for (n, _), c in zip(INSERTS, CENTRES)],
      "task": "disc:10,50", "task_insert": "delrin"}
study = {"dataset": "sim/geometry.json", "doses": [1, 0.25], "seed": 5,
         "grid": {"size": 256, "pixel_size_mm": 0.86},
         "methods": [{"method": "fbp", "window": "hann"}], "iq": IQ}


def write_study(obj, name):
    path = os.path.join(T, name)
    with open(path, "w") as fh:
        json.dump(obj, fh)
    return path


out = os.path.join(T, "out")
r = run("study", write_study(study, "study.json"), "--output", out)
if not check(r.returncode == 0, "the study with an iq block runs"):
    print(r.stderr)
    finish()
with open(os.path.join(out, "study.csv")) as fh:
    rows = list(csv.DictReader(fh))
cols = ["nps_noise_hu", "nps_f_peak", "nps_f_avg"] + [f"ttf_{n}_f50" for n, _ in INSERTS] + \
       ["dprime_npw", "dprime_npwe"]
check(len(rows) == 2 and all(c in rows[0] for c in cols), f"study.csv has the columns {cols}")
full, quarter = rows[0], rows[1]
noise = float(quarter["nps_noise_hu"]) / float(full["nps_noise_hu"])
check(abs(noise - 2.0) < 0.2, f"NPS noise ×{noise:.3f} at a quarter of the dose (2 expected)")
for obs in ("dprime_npw", "dprime_npwe"):
    ratio = float(quarter[obs]) / float(full[obs])
    check(abs(ratio - 0.5) < 0.075, f"{obs}: {float(full[obs]):.3f} → {float(quarter[obs]):.3f}, "
          f"ratio {ratio:.3f} (sqrt(0.25) = 0.5 within 15 %)")
f50 = [float(row[f"ttf_{n}_f50"]) for row in rows for n in ("delrin", "teflon")]
check(all(0.1 < f < 0.58 for f in f50), f"TTF f50 of delrin and teflon finite, below Nyquist: {f50}")

# --- 3. bad iq blocks --------------------------------------------------------------
BAD = [({**IQ, "nps_roi_typo": 1}, "nps_roi_typo"),
       ({**IQ, "task_insert": "nosuch"}, "nosuch"),
       ({k: v for k, v in IQ.items() if k != "nps_roi"}, "nps_roi"),
       ({**IQ, "task": "disc:0,50"}, "task"),
       ({**IQ, "inserts": [{"name": "a", "center_mm": [0, 0], "radius_mm": 5, "colour": 1}]}, "colour")]
for i, (iq, key) in enumerate(BAD):
    r = run("study", write_study({**study, "iq": iq}, f"bad{i}.json"), "--output", os.path.join(T, f"bad{i}"))
    check(r.returncode != 0 and key in r.stderr, f"bad iq block refused naming “{key}”: {r.stderr.strip()[-120:]}")
finish()
