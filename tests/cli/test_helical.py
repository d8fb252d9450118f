#!/usr/bin/python3
"""Helical DICOM-CT-PD on real anatomy (issue 19): ../shared/data/head-helical-ctpd,
a 16-row helical scan simulated from the head CT.  Everything about the
dataset is read from its geometry.json (reference slices' z, pixel size,
source z, feed, pitch); the only conventions taken from its README are the
table coordinate of the DICOM-CT-PD series (DetectorFocalCenterAxialPosition
= -z of our frame) and the protocol of head-fan-lowdose (RMSE inside
r = 122.5 mm, HU with mu_water 0.0192 /mm).

Each output page is matched to the reference page at the same z (read from
the page's description, never from its index).  Checked here, on a few
slices each to keep the test short (the closing note of issue 19 has the
full table):
  - quarter-dose DICOM series, FBP (Hann) after 180LI rebinning: median
    RMSE <= 60 HU over 5 slices spread over the reference's z range (the
    README's independent 360LI + FBP: 55 HU at z = 81 mm); pages in
    increasing table coordinate; no mirror in x or y (the upright image
    beats both mirrors by SSIM), none in z (every slice is closest to the
    reference page at its own z);
  - the same as a DICOM series: SliceLocation = the table coordinate,
    increasing with InstanceNumber, ImagePositionPatient's Z = -z;
  - PWLS with its defaults after 180LI: median RMSE <= 42 HU;
  - the noiseless TIFF with a helical geometry.json written here in another
    of its forms than the dataset's own (start + feed per rotation): FBP
    Ram-Lak after 180LI <= 35 HU (README, independent: 32 HU); the CLI's
    metrics only when the reference holds every output slice;
  - the helical iterative path (--rebin none, cone-beam projector on a slab)
    is no worse than the rebinned parallel ART at the same dose, and no
    worse than rebinned SART either; rebinned PART itself stays within 60 HU
    (on this grid 72 rays graze the grid's corners; before they were
    skipped, PART put their noise / their sliver's length into the corner
    pixels and reached 148 HU at z = 81 mm);
  - refusals, non-zero exit and a message that says why, no output file:
    a geometry.json whose pitch factor or feed contradicts its source z, a
    DICOM series with one view ahead of the helix (the next one goes back)
    or a TableFeedPerRotation against the motion, bad options;
  - a series with one view missing still reconstructs, close to the full
    series' slice.
"""
import json
import os
import sys
import tempfile
import time

import numpy as np
import pydicom
import tifffile
from skimage.metrics import structural_similarity

sys.path.insert(0, os.path.dirname(__file__))
from common import DATA, check, finish, require_cli, run  # noqa: E402

require_cli()
H = os.path.abspath(os.path.join(DATA, "head-helical-ctpd"))
if not os.path.exists(os.path.join(H, "geometry.json")):
    print(f"skipped: {DATA} has no head-helical-ctpd")
    sys.exit(77)
tmp = tempfile.TemporaryDirectory()
DICOM = os.path.join(H, "dicom")
G = json.load(open(os.path.join(H, "geometry.json")))
REF = G["reference"]
ref = tifffile.imread(os.path.join(H, REF["file"])).astype(np.float64)
zref = np.asarray(REF["z_mm"], dtype=np.float64)
assert ref.shape[0] == len(zref)
PIX = REF["spacing_xyz_mm"][0]
N = ref.shape[1]
R_MASK_MM = 122.5        # protocol of head-fan-lowdose (README)
MU_WATER = 0.0192        # 1/mm, the datasets' HU convention
yy, xx = np.mgrid[0:N, 0:N]
mask = np.hypot(yy - (N - 1) / 2, xx - (N - 1) / 2) * PIX <= R_MASK_MM
GRID = ["--size", N, "--pixel-size", PIX]
Z0, Z1 = float(zref[0]), float(zref[-1])


def table_range(z_first, z_last, step):
    """--z-range of the DICOM-CT-PD series for the slices z_first..z_last
    (table = -z), and the tables expected in increasing order."""
    n = int(round((z_last - z_first) / step)) + 1
    tables = sorted(-(z_first + step * i) for i in range(n))
    return f"{tables[0]:g}:{tables[-1]:g}:{step:g}", tables


def pages(path):
    """[(table_mm, z_mm, image)] in file order."""
    out = []
    with tifffile.TiffFile(path) as t:
        for p in t.pages:
            kv = dict(line.split("=", 1) for line in p.description.split("\n") if "=" in line)
            out.append((float(kv["table_mm"]), float(kv["z_mm"]), p.asarray().astype(np.float64)))
    return out


def rmse_hu(img, r):
    return np.sqrt(np.mean((img[mask] - r[mask]) ** 2)) / MU_WATER * 1000


def ssim(img, r):
    return structural_similarity(r, np.where(mask, img, 0), data_range=r.max() - r.min())


def page_of(z):
    k = int(np.argmin(np.abs(zref - z)))
    return k if abs(zref[k] - z) < 1e-3 else None


def scores(path):
    """Median RMSE (HU), median SSIM, number of pages with a reference page."""
    rm, ss = [], []
    for _, z, img in pages(path):
        k = page_of(z)
        if k is not None:
            rm.append(rmse_hu(img, ref[k]))
            ss.append(ssim(img, ref[k]))
    if not rm:
        return float("inf"), 0.0, 0
    return float(np.median(rm)), float(np.median(ss)), len(rm)


def recon(src, name, *args, timeout=600):
    out = os.path.join(tmp.name, name + ("" if "dicom" in args else ".tif"))
    t0 = time.monotonic()
    r = run("reconstruct", src, *GRID, *args, "--output", out, timeout=timeout)
    print(f"     {name}: {time.monotonic() - t0:.1f} s wall (for information, not checked)")
    if r.returncode != 0:
        print(r.stderr)
    return out, r


def refused(r, out, words, what):
    """Non-zero exit, a message naming @words, no output file."""
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    ok = r.returncode != 0 and all(w in r.stderr for w in words) and not os.path.exists(out)
    return check(ok, f"{what}: exit {r.returncode}, \"{msg[:160]}\"")


# 0. The same series as the geometry.json's "quarter_dose_dicom" variant:
#    the JSON's geometry (rows along +z) with the DICOM's projections (rows
#    along z_pd = -z) must be read row for row the right way round (it was
#    not: 172.6 HU instead of 56.1 HU at z = 82.5 mm, exit 0).
if "quarter_dose_dicom" in G.get("variants", {}):
    zmid0 = float(zref[len(zref) // 2])
    dz0 = float(REF["spacing_xyz_mm"][2])
    out_v, r = recon(os.path.join(H, "geometry.json"), "fbp-variant", "--variant", "quarter_dose_dicom",
                     "--method", "fbp", "--window", "hann",
                     "--z-range", f"{zmid0 - dz0:g}:{zmid0 + dz0:g}:{dz0:g}")
    if check(r.returncode == 0, "the quarter_dose_dicom variant of geometry.json, FBP (Hann): runs"):
        med, med_ssim, n = scores(out_v)
        check(n == 3 and med <= 60.0,
              f"... in the JSON's table coordinate (+z), its rows the right way round: median RMSE "
              f"{med:.1f} HU <= 60 (SSIM {med_ssim:.4f}, {n} slices)")

# 1. FBP (Hann) after 180LI on the quarter-dose series, 5 slices over the
#    reference's range.
zr, tables5 = table_range(Z0, Z1, (Z1 - Z0) / 4)
fbp_mid = None
out, r = recon(DICOM, "fbp", "--method", "fbp", "--window", "hann", "--z-range", zr)
if check(r.returncode == 0, f"quarter-dose DICOM series, FBP (Hann), 180LI, --z-range {zr}: runs"):
    pg = pages(out)
    tables = [t for t, _, _ in pg]
    check(np.allclose(tables, tables5) and all(abs(t + z) < 1e-6 for t, z, _ in pg),
          f"pages in increasing table coordinate (z_pd = -z): {tables}")
    med, med_ssim, n = scores(out)
    check(n == 5 and med <= 60.0,
          f"FBP (Hann) after 180LI: median RMSE {med:.1f} HU <= 60 (SSIM {med_ssim:.4f}, {n} slices)")
    # No mirror in x or y: the upright image beats both mirrors at the middle slice.
    _, zm, imgm = pg[len(pg) // 2]
    fbp_mid = (zm, imgm)
    rm = ref[page_of(zm)]
    s_up, s_x, s_y = ssim(imgm, rm), ssim(imgm, rm[:, ::-1]), ssim(imgm, rm[::-1, :])
    check(s_up > s_x + 0.1 and s_up > s_y + 0.1,
          f"no mirror in x or y at z = {zm:g} mm: SSIM {s_up:.3f} upright, {s_x:.3f} x-mirrored, "
          f"{s_y:.3f} y-flipped")
    # No mirror (or shift) in z: each slice is closest to the reference page at its z.
    best = []
    for _, z, img in pg:
        errs = [rmse_hu(img, ref[k]) for k in range(ref.shape[0])]
        best.append(abs(zref[int(np.argmin(errs))] - z))
    check(max(best) <= 1.5, f"no mirror in z: every slice's best reference page lies within {max(best):.1f} mm "
          "of its own z (<= 1.5)")

# 2. The same as a DICOM CT series (3 slices): positions in the table coordinate.
zr3, tables3 = table_range(Z0, Z1, (Z1 - Z0) / 2)
folder, r = recon(DICOM, "fbp-dicom", "--method", "fbp", "--window", "hann", "--z-range", zr3,
                  "--format", "dicom")
if check(r.returncode == 0, "FBP as a DICOM CT series: runs"):
    ds = sorted((pydicom.dcmread(os.path.join(folder, f)) for f in os.listdir(folder)),
                key=lambda d: int(d.InstanceNumber))
    loc = [float(d.SliceLocation) for d in ds]
    ipp = [float(d.ImagePositionPatient[2]) for d in ds]
    check(np.allclose(loc, tables3) and np.allclose(ipp, loc),
          f"SliceLocation = table coordinate, increasing with InstanceNumber; ImagePositionPatient Z = -z: {loc}")

# 3. PWLS with its defaults after 180LI: 3 slices.
out, r = recon(DICOM, "pwls", "--method", "pwls", "--z-range", zr3)
if check(r.returncode == 0, "PWLS (defaults) after 180LI: runs"):
    med, med_ssim, n = scores(out)
    check(n == 3 and med <= 42.0,
          f"PWLS (defaults) after 180LI: median RMSE {med:.1f} HU <= 42 (SSIM {med_ssim:.4f}, {n} slices)")

# 4. The noiseless TIFF with a helical geometry.json written here: the feed
#    form (source z from the start and the feed per rotation).
mine = {k: G[k] for k in ("detector_shape", "kind", "views", "detector_cols", "detector_rows",
                          "source_to_isocenter_mm", "source_to_detector_mm", "detector_pitch_u_rad",
                          "detector_pitch_v_mm", "angle_start_rad", "angle_step_rad")}
mine.update({"name": "helical noiseless (test)", "type": "helical",
             "source_z_start_mm": G["source_z_start_mm"],
             "table_feed_per_rotation_mm": G["table_feed_per_rotation_mm"], "pitch_factor": G["pitch_factor"],
             "projections": {"file": os.path.join(H, G["projections"]["file"]), "layout": "view_pages",
                             "dtype": "float32"},
             "reference": dict(REF, file=os.path.join(H, REF["file"]))})
gj = os.path.join(tmp.name, "helical.json")
json.dump(mine, open(gj, "w"))
zrn = f"{Z0:g}:{Z1:g}:{(Z1 - Z0) / 2:g}"
out, r = recon(gj, "noiseless", "--method", "fbp", "--z-range", zrn)
if check(r.returncode == 0, "noiseless TIFF with a helical geometry.json (start + feed): runs"):
    pg = pages(out)
    zs = [z for _, z, _ in pg]
    check(np.allclose(zs, [Z0, (Z0 + Z1) / 2, Z1]) and all(t == z for t, z, _ in pg),
          f"pages in increasing z (table = z): {zs}")
    med, med_ssim, n = scores(out)
    check(n == 3 and med <= 35.0,
          f"noiseless, FBP Ram-Lak after 180LI: median RMSE {med:.1f} HU <= 35 (SSIM {med_ssim:.4f}, {n} slices)")
    check("metrics against the reference" in r.stderr, "slices inside the reference's z range: metrics against it")
# A slice outside the reference's z range (still sampled by the helix): no
# metrics against a reference that is 0 there, and the CLI says so.
z_out = Z0 - 3 * float(REF["spacing_xyz_mm"][2])
out, r = recon(gj, "outside", "--method", "fbp", "--z-range", f"{z_out:g}:{z_out:g}:1")
check(r.returncode == 0 and "does not hold every slice: no metrics" in r.stderr
      and "metrics against the reference" not in r.stderr,
      f"a slice at z = {z_out:g} mm, outside the reference: runs, no metrics against it, says why")

# The same file contradicting itself: refused when read.
for key, value, words in (("pitch_factor", 1.5 * G["pitch_factor"], ["inconsistent feed", "pitch_factor"]),
                          ("table_feed_per_rotation_mm", 0.8 * G["table_feed_per_rotation_mm"],
                           ["inconsistent feed", "table_feed_per_rotation_mm"])):
    bad = dict(mine)
    if key == "table_feed_per_rotation_mm":   # the feed stated next to an explicit z step
        bad.pop("table_feed_per_rotation_mm")
        bad["source_z_step_mm"] = G["source_z_step_mm"]
    bad[key] = value
    bj = os.path.join(tmp.name, f"bad-{key}.json")
    json.dump(bad, open(bj, "w"))
    bad_out = os.path.join(tmp.name, f"bad-{key}.tif")
    r = run("reconstruct", bj, "--z-range", zrn, "--output", bad_out)
    refused(r, bad_out, words, f"geometry.json with {key} = {value:g} against its source z")

# 5. The helical iterative path on a thin slab (the 3 reference slices at
#    the middle of its range; the slab adds its margin) against the rebinned
#    parallel ART and SART at the same dose with their defaults.  2 SART
#    iterations: without a penalty more only add noise on this data.
zmid = float(zref[len(zref) // 2])
dz = float(REF["spacing_xyz_mm"][2])
SLAB = ["--z-range", table_range(zmid - dz, zmid + dz, dz)[0]]
out_p, r1 = recon(DICOM, "part-slab", "--method", "part", *SLAB)
out_s, r2 = recon(DICOM, "sart-slab", "--method", "sart", *SLAB)
out_h, r3 = recon(DICOM, "sart-none", "--method", "sart", "--rebin", "none", "--iterations", "2", *SLAB)
if check(r1.returncode == 0 and r2.returncode == 0 and r3.returncode == 0,
         f"rebinned PART, rebinned SART and helical SART (--rebin none) at z = {zmid:g} ± {dz:g} mm: run"):
    mp, _, n1 = scores(out_p)
    ms, _, n2 = scores(out_s)
    mh, _, n3 = scores(out_h)
    check(n1 == 3 and mp <= 60, f"rebinned PART (defaults): median {mp:.1f} HU <= 60")
    check(n1 == n2 == n3 == 3 and mh <= mp and mh <= ms,
          f"helical iterative (SART, 2 iterations): median {mh:.1f} HU <= rebinned PART {mp:.1f} HU "
          f"and <= rebinned SART (10 iterations) {ms:.1f} HU")
    check("helical iterative:" in r3.stderr, "the plan says which views and rays the slab uses")

# 6. A DICOM series that contradicts itself: one view's focal centre 3 mm
#    ahead of its neighbours (the next view then moves back: refused naming
#    that file), or the first file's TableFeedPerRotation against the motion.
#    The other files are links to the dataset's.
names = sorted(os.listdir(DICOM))
mid = len(names) // 2
for what, name, tag, change, words in (
        ("one view 3 mm ahead along the table", names[mid], (0x7031, 0x1002), lambda v: v - 3.0,
         ["moves back along z", names[mid + 1]]),
        ("TableFeedPerRotation x 1.25", names[0], (0x0018, 0x9310), lambda v: 1.25 * v,
         ["inconsistent feed", "TableFeedPerRotation", names[0]])):
    series = os.path.join(tmp.name, "series-" + str(tag[1]))
    os.mkdir(series)
    for f in names:
        if f != name:
            os.symlink(os.path.join(DICOM, f), os.path.join(series, f))
    ds = pydicom.dcmread(os.path.join(DICOM, name))
    ds[tag].value = change(float(ds[tag].value))
    ds.save_as(os.path.join(series, name))
    bad_out = os.path.join(tmp.name, "bad-series.tif")
    r = run("reconstruct", series, "--z-range", zr3, "--output", bad_out)
    refused(r, bad_out, words, f"DICOM series with {what} ({name})")

# 7. A missing view (the one at the middle of the scan): the series still
#    reconstructs (the rebinning interpolates across the gap in angle), and
#    the slice through that view differs little from the full series' one.
if fbp_mid is not None:
    series = os.path.join(tmp.name, "series-missing")
    os.mkdir(series)
    for f in names:
        if f != names[mid]:
            os.symlink(os.path.join(DICOM, f), os.path.join(series, f))
    zm, imgm = fbp_mid
    out, r = recon(series, "missing", "--method", "fbp", "--window", "hann", "--z-range", f"{-zm:g}:{-zm:g}:1")
    if check(r.returncode == 0, f"series without {names[mid]}: reconstructs"):
        _, z, img = pages(out)[0]
        d = rmse_hu(img, imgm)
        check(z == zm and d <= 5.0, f"one view of {len(names)} missing: the slice at z = {z:g} mm differs from the "
              f"full series' by RMSE {d:.2f} HU <= 5")

# 8. Bad options.
x = os.path.join(tmp.name, "x.tif")
fan = os.path.join(DATA, "head-fan-lowdose", "geometry.json")
if os.path.exists(fan):
    r = run("reconstruct", fan, "--z-range", "0:1:1", "--output", x)
    check(r.returncode == 2 and "for helical" in r.stderr, "--z-range on a fan-beam dataset: exit 2, says why")
r = run("reconstruct", DICOM, "--z-range", f"{-Z0:g}:{-Z1:g}:1", "--output", x)
check(r.returncode == 2 and "FIRST <= LAST" in r.stderr, "--z-range LAST < FIRST: exit 2")
r = run("reconstruct", DICOM, "--z-range", "1:2", "--output", x)
check(r.returncode == 2 and "FIRST:LAST:STEP" in r.stderr, "--z-range without a step: exit 2")
r = run("reconstruct", DICOM, "--rebin", "720li", "--output", x)
check(r.returncode != 0 and "180li, 360li or none" in r.stderr, "--rebin 720li: refused, lists the choices")
r = run("reconstruct", DICOM, "--method", "fdk", "--output", x)
check(r.returncode == 1 and "use fbp" in r.stderr, "--method fdk on a helix: exit 1, points to fbp")
r = run("reconstruct", DICOM, "--method", "fbp", "--rebin", "none", "--output", x)
check(r.returncode == 1 and "rebin" in r.stderr, "fbp without rebinning: exit 1, says why")
check(not os.path.exists(x), "no output written on errors")
finish()
