"""Issue 33's detectability study (packaging/study-iq-fan.json): simulates
the noiseless iq phantom in head-fan-lowdose's fan geometry, runs the study
(FBP Hann, PART stop auto, PWLS at doses 1, ½, ¼, ⅛, three realisations)
and prints, per method and dose, the mean ± standard error over the
realisations of the RMSE (HU), the NPS noise (HU) and f_avg (cycles/mm),
the acrylic insert's TTF f50 (cycles/mm) and d′ (NPW, NPWE), then
equal-dose.csv.  A benchmark, not a test (about 6 minutes on 2 cores):
`meson test --benchmark iq-study`; exits 1 only when the study fails.
"""
import csv
import json
import os
import statistics
import sys
import tempfile

from common import require_cli, run

require_cli()
HERE = os.path.dirname(os.path.abspath(__file__))
STUDY = os.path.join(HERE, "..", "..", "packaging", "study-iq-fan.json")


def mean_se(rows, key):
    v = [float(r[key]) for r in rows if r.get(key, "") != ""]
    if not v:
        return "-"
    se = statistics.stdev(v) / len(v) ** 0.5 if len(v) > 1 else 0.0
    return f"{statistics.mean(v):.3g} ± {se:.2g}" + ("" if len(v) == len(rows) else f" (n {len(v)})")


with tempfile.TemporaryDirectory() as tmp:
    r = run("simulate", "--phantom", "iq", "--i0", 0, "--output", os.path.join(tmp, "sim"), timeout=600)
    if r.returncode != 0:
        print(r.stderr)
        sys.exit(1)
    study = os.path.join(tmp, "study.json")
    with open(STUDY) as fh, open(study, "w") as out:
        json.dump(json.load(fh), out)
    r = run("study", study, "--output", os.path.join(tmp, "out"), timeout=3600)
    print(r.stderr[-3000:])
    if r.returncode != 0:
        sys.exit(1)
    with open(os.path.join(tmp, "out", "study.csv")) as fh:
        rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
    groups = {}
    for row in rows:
        groups.setdefault((row["label"], float(row["dose"])), []).append(row)
    print("method | dose | RMSE HU | NPS noise HU | NPS f_avg | TTF f50 acrylic | d′ NPW | d′ NPWE")
    for (label, dose), g in sorted(groups.items()):
        print(" | ".join([label, f"{dose:g}"] + [mean_se(g, k) for k in
              ("hu_rmse", "nps_noise_hu", "nps_f_avg", "ttf_acrylic_f50", "dprime_npw", "dprime_npwe")]))
    with open(os.path.join(tmp, "out", "equal-dose.csv")) as fh:
        print(fh.read())
