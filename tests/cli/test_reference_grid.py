"""`reconstruct --size N --reference REF.tif` measures on the reference's pixels.

head-fan-lowdose's reference is 256 x 256 pixels of 0.95703125 mm; the
detector's pitch at the isocentre is 1.00636852 mm.  `--size 256` is the
reference's size, so the grid rule (data/ctr-grid.h, one rule for every beam)
keeps the reference's pixel: the grid is 256 pixels of 0.957 mm and a bare
TIFF --reference (which has no grid of its own) is compared pixel for pixel
with an image of the same pixels.  Before, the grid took 1.006 mm pixels and
the FBP was measured against the 0.957 mm reference without a word (RMSE
7.6e-3 /mm instead of about 9e-4).  A grid whose pixels differ from those of
the dataset's reference while the TIFF has its shape is refused with a
message, not measured; where the dataset has no reference (a DICOM series)
the pixels the TIFF is taken to have are stated.

The helical part pins the CLI's default grid of head-helical-ctpd's DICOM
series (no reference): the rule's fully sampled range for 180LI, 44 slices at
table -106.8 ... -55.2 mm (30 for 360LI); /ui/window/default-grid checks that
the window gets the same grid.  Skips (77) without ../shared/data.
"""
import os
import re
import sys
import tempfile

from common import DATA, check, finish, require_cli, run

require_cli()
HEAD = os.path.join(DATA, "head-fan-lowdose") if DATA else ""
if not HEAD or not os.path.isfile(os.path.join(HEAD, "reference.tif")):
    print(f"no head-fan-lowdose in '{DATA}': skipping")
    sys.exit(77)
GEOM = os.path.join(HEAD, "geometry.json")
REF = os.path.join(HEAD, "reference.tif")
GRID = re.compile(r"grid: (\d+) x (\d+) x (\d+) voxels of ([0-9.e+-]+) x ([0-9.e+-]+) x ([0-9.e+-]+) mm")
RMSE = re.compile(r"against the reference: RMSE ([0-9.e+-]+)")


def show(r):
    print("     " + r.stderr.strip().replace("\n", "\n     "))


def grid(r):
    m = GRID.search(r.stderr)
    return (int(m.group(1)), float(m.group(4))) if m else (0, float("nan"))


# 1. --size 256 alone: the reference's grid
r = run("reconstruct", GEOM, "--size", "256", "--reference", REF, "--dry-run", timeout=300)
n, dx = grid(r)
if not check(r.returncode == 0 and n == 256 and abs(dx - 0.95703125) < 1e-7,
             f"--size 256 --reference reference.tif: 256 pixels of the reference's 0.95703125 mm "
             f"(got {n} of {dx} mm)"):
    show(r)

# 2. the same FBP against the bare TIFF and against the dataset's reference:
#    one figure
with tempfile.TemporaryDirectory() as T:
    rmse = []
    for extra in (["--size", "256", "--reference", REF], []):
        r = run("reconstruct", GEOM, "--method", "fbp", "--window", "hann", *extra, "--output",
                os.path.join(T, "fbp.tif"), timeout=600)
        m = RMSE.search(r.stderr)
        rmse.append(float(m.group(1)) if r.returncode == 0 and m else float("nan"))
        if r.returncode != 0 or m is None:
            show(r)
    check(abs(rmse[0] - rmse[1]) <= 1e-3 * rmse[1] and rmse[0] < 1.2e-3,
          f"FBP (Hann) against --reference reference.tif: RMSE {rmse[0]:.4e} /mm, against the dataset's "
          f"reference {rmse[1]:.4e} /mm (quarter dose, about 9e-4)")

# 3. other pixels than the reference's with a TIFF of its shape: refused
r = run("reconstruct", GEOM, "--size", "256", "--pixel-size", "1.00636852", "--reference", REF, "--dry-run",
        timeout=300)
if not check(r.returncode != 0 and "shape of the dataset's reference" in r.stderr and "0.957031" in r.stderr,
             "--pixel-size 1.00636852 with the 0.957 mm reference.tif: refused with both pixel sizes named "
             f"(exit {r.returncode})"):
    show(r)
# ... unless the reference is declared the user's own
r = run("reconstruct", GEOM, "--size", "256", "--pixel-size", "1.00636852", "--reference", REF,
        "--no-reference", "--dry-run", timeout=300)
if not check(r.returncode == 0 and abs(grid(r)[1] - 1.00636852) < 1e-7,
             "--no-reference: a reference of the user's own on the asked pixels is accepted"):
    show(r)

# ... and where the dataset has no reference to check it against (a
#     DICOM-CT-PD series), the pixels it is assumed to have are stated
DCM = os.path.join(HEAD, "dicom_quarterdose")
if os.path.isdir(DCM):
    r = run("reconstruct", DCM, "--size", "256", "--reference", REF, "--dry-run", timeout=300)
    if not check(r.returncode == 0 and "carries no grid: taken to be on the reconstruction grid (256 × 256 pixels of "
                 "1.00637 mm)" in r.stderr,
                 "a DICOM series without a reference: the bare TIFF's assumed pixels (1.00637 mm) are stated"):
        show(r)

# 4. a size other than the reference's: the field of view at the detector's
#    resolution, measured against the resampled dataset reference
r = run("reconstruct", GEOM, "--size", "200", "--dry-run", timeout=300)
n, dx = grid(r)
if not check(r.returncode == 0 and n == 200 and abs(dx - 0.95703125) > 1e-3,
             f"--size 200: not the reference's grid (got {n} pixels of {dx} mm)"):
    show(r)

# 5. helical DICOM-CT-PD without a reference: the rule's slices
HEL = os.path.join(DATA, "head-helical-ctpd", "dicom")
if os.path.isdir(HEL):
    for rebin, want in (([], 44), (["--rebin", "360li"], 30)):
        r = run("reconstruct", HEL, *rebin, "--dry-run", timeout=300)
        m = re.search(r"(\d+) slices at table ([0-9.e+-]+) … ([0-9.e+-]+) mm, step ([0-9.e+-]+) mm", r.stderr)
        got = (int(m.group(1)), float(m.group(2)), float(m.group(3))) if m else (0, 0.0, 0.0)
        ok = r.returncode == 0 and m is not None and got[0] == want and int(GRID.search(r.stderr).group(3)) == want
        if not rebin:
            ok = ok and abs(got[1] + 106.8) < 1e-3 and abs(got[2] + 55.2) < 1e-3
        if not check(ok, f"head-helical-ctpd/dicom {' '.join(rebin) or '(180LI)'}: {got[0]} slices at table "
                         f"{got[1]} … {got[2]} mm (want {want})"):
            show(r)
else:
    print("no head-helical-ctpd/dicom: helical part skipped")
finish()
