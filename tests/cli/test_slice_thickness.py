"""A fan slice's thickness from a DICOM-CT-PD series is taken at the isocentre.

DICOM-CT-PD states the detector's row pitch at the detector
(DetectorElementAxialSpacing); a fan beam's slice is that pitch seen at the
isocentre, pitch·SOD/SDD.  head-fan-lowdose's quarter-dose series (curved
detector, SOD 595 mm, SDD 1085.6 mm, row pitch 2.7368 mm at the detector)
holds the 1.5 mm slice its geometry.json states ("slice_thickness_mm"): the
grid's slice (`reconstruct --dry-run`) and the exported series'
SliceThickness must be 1.5 mm from the DICOM folder as from the
geometry.json.  Before, the folder gave 2.74 mm.  Skips (77) without
../shared/data; the SliceThickness part needs pydicom.
"""
import os
import re
import sys
import tempfile

from common import DATA, check, finish, require_cli, run

require_cli()
HEAD = os.path.join(DATA, "head-fan-lowdose") if DATA else ""
if not HEAD or not os.path.isdir(os.path.join(HEAD, "dicom_quarterdose")):
    print(f"no head-fan-lowdose/dicom_quarterdose in '{DATA}': skipping")
    sys.exit(77)


def grid_dz(src):
    r = run("reconstruct", src, "--dry-run", timeout=300)
    m = re.search(r"grid: \d+ x \d+ x \d+ voxels of [0-9.e+-]+ x [0-9.e+-]+ x ([0-9.e+-]+) mm", r.stderr)
    if r.returncode != 0 or m is None:
        print("     " + r.stderr.strip().replace("\n", "\n     "))
        return float("nan")
    return float(m.group(1))


folder = os.path.join(HEAD, "dicom_quarterdose")
dz_json = grid_dz(os.path.join(HEAD, "geometry.json"))
dz_dicom = grid_dz(folder)
check(abs(dz_json - 1.5) < 1e-9, f"geometry.json: the grid's slice is the stated 1.5 mm (got {dz_json})")
check(abs(dz_dicom - 1.5) < 1e-6,
      f"DICOM-CT-PD folder: the grid's slice is 1.5 mm at the isocentre, not the detector's row pitch (got {dz_dicom})")

try:
    import pydicom
except ImportError:
    pydicom = None
    print("pydicom (python3-pydicom) is not installed: the SliceThickness part is skipped")
if pydicom is not None:
    with tempfile.TemporaryDirectory() as T:
        out = os.path.join(T, "series") + "/"
        r = run("reconstruct", folder, "--size", "64", "--no-reference", "--format", "dicom", "--output", out,
                timeout=600)
        if check(r.returncode == 0, "the DICOM-CT-PD folder reconstructs to a DICOM series"):
            first = sorted(os.listdir(out))[0]
            thickness = float(pydicom.dcmread(os.path.join(out, first)).SliceThickness)
            check(abs(thickness - 1.5) < 1e-4, f"the series' SliceThickness is 1.5 mm (got {thickness})")
        else:
            print("     " + r.stderr.strip().replace("\n", "\n     "))
finish()
