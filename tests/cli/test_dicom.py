"""DICOM in and out through ctrecon-cli (skips with 77 without ../shared/data).

Input: both DICOM-CT-PD series of ../shared/data (gel-fan: flat detector;
head-fan-lowdose quarter dose: curved detector) reconstructed from the DICOM
folder must equal the reconstruction of the TIFF + geometry.json copy of the
same scan up to the series' 16-bit quantisation: max |difference| <= 1e-3 of
the image maximum (a mirrored, flipped or rotated image misses this by far,
which is checked too).  The same holds for a geometry.json whose projections
have "layout": "dicom".

Output: `--format dicom` writes a CT Image Storage series that dciodvfy
(dicom3tools) accepts without errors and that pydicom (an independent reader)
reads back to the float32 TIFF of the same run in HU, within 1 HU, with the
geometry (ImagePositionPatient, PixelSpacing, orientation, instance order)
the export promises.  The float32 TIFF is ImageJ-compatible (tifffile sees
ImageJ metadata with images = slices = pages).

Bad input (clear message, exit status 1, no crash): a folder mixing two
projection series, duplicate views, a helical series, a file without a
required private tag, a truncated file.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import tifffile

from common import DATA, check, finish, require_cli, run

require_cli()
if not DATA or not os.path.isdir(DATA):
    print(f"no shared data at '{DATA}': skipping")
    sys.exit(77)
try:
    import pydicom
    import pydicom.uid
except ImportError:
    print("pydicom (python3-pydicom) is not installed: skipping")
    sys.exit(77)

MU_WATER = 0.0192
tmp = tempfile.TemporaryDirectory()
T = tmp.name
GEL = os.path.join(DATA, "gel-fan")
HEAD = os.path.join(DATA, "head-fan-lowdose")


def recon(src, out, *extra):
    r = run("reconstruct", src, "--no-reference", *extra, "--output", out, timeout=600)
    if r.returncode != 0:
        print("     " + r.stderr.strip().replace("\n", "\n     "))
    return r


def read_tif(path):
    return tifffile.imread(path).astype(np.float64)


# ------------------------------------------------ DICOM-CT-PD vs TIFF path --
cases = [
    ("gel-fan", os.path.join(GEL, "dicom-ct-pd"), os.path.join(GEL, "geometry.json"), ("--size", "256", "--pixel-size", "0.133333")),
    ("head quarter dose", os.path.join(HEAD, "dicom_quarterdose"), os.path.join(HEAD, "geometry.json"), ("--size", "256", "--pixel-size", "0.95703125")),
]
for name, folder, geo, grid in cases:
    # An iterative method too on the small scan (the head's system matrix is slow on 2 cores).
    methods = (("--method", "fbp"),) + ((("--method", "sirt", "--iterations", "5"),) if name == "gel-fan" else ())
    for method in methods:
        label = f"{name} {' '.join(method[1:])}"
        a_path = os.path.join(T, label.replace(" ", "_") + "-dicom.tif")
        b_path = os.path.join(T, label.replace(" ", "_") + "-tiff.tif")
        ra = recon(folder, a_path, *method, *grid)
        rb = recon(geo, b_path, *method, *grid)
        if not check(ra.returncode == 0 and rb.returncode == 0, f"{label}: DICOM folder and geometry.json reconstruct"):
            continue
        a, b = read_tif(a_path), read_tif(b_path)
        scale = np.abs(b).max()
        d = np.abs(a - b).max() / scale
        worst_flip = min(np.abs(v - b).max() / scale for v in (a[:, ::-1], a[::-1, :], a[::-1, ::-1], a.T))
        print(f"     max |DICOM - TIFF| = {d:.2e} of the image maximum; best mirrored/rotated {worst_flip:.3f}")
        check(a.shape == b.shape and d <= 1e-3, f"{label}: equals the TIFF path within 1e-3 of the maximum ({d:.2e})")
        if method[1] == "fbp":  # sharp image: orientation is decisive (5 SIRT iterations are too smooth)
            check(worst_flip > 0.1, f"{label}: a mirrored or rotated image would fail ({worst_flip:.3f} > 0.1)")

# geometry.json with "layout": "dicom" (the folder given in the JSON).
import json  # noqa: E402

with open(os.path.join(GEL, "geometry.json")) as f:
    g = json.load(f)
g["projections"] = {"layout": "dicom", "folder": os.path.join(GEL, "dicom-ct-pd")}
g.pop("reference", None)
geo_dcm = os.path.join(T, "gel-dicom-layout.json")
with open(geo_dcm, "w") as f:
    json.dump(g, f)
r1 = recon(geo_dcm, os.path.join(T, "layout.tif"), "--size", "128")
r2 = recon(os.path.join(GEL, "geometry.json"), os.path.join(T, "layout-ref.tif"), "--size", "128")
if check(r1.returncode == 0 and r2.returncode == 0, "geometry.json with layout dicom reconstructs"):
    a, b = read_tif(os.path.join(T, "layout.tif")), read_tif(os.path.join(T, "layout-ref.tif"))
    d = np.abs(a - b).max() / np.abs(b).max()
    check(d <= 1e-3, f"layout dicom equals the TIFF path ({d:.2e})")

# The same series re-encoded as Implicit VR Little Endian (private elements
# then carry no VR: the reader must know the DICOM-CT-PD dictionary).
implicit = os.path.join(T, "implicit")
os.mkdir(implicit)
for f in sorted(os.listdir(os.path.join(GEL, "dicom-ct-pd"))):
    d = pydicom.dcmread(os.path.join(GEL, "dicom-ct-pd", f))
    d.file_meta.TransferSyntaxUID = pydicom.uid.ImplicitVRLittleEndian
    d.is_implicit_VR, d.is_little_endian = True, True
    d.save_as(os.path.join(implicit, f), write_like_original=False)
r = recon(implicit, os.path.join(T, "implicit.tif"), "--size", "128")
if check(r.returncode == 0, "Implicit VR DICOM-CT-PD reconstructs"):
    a, b = read_tif(os.path.join(T, "implicit.tif")), read_tif(os.path.join(T, "layout-ref.tif"))
    d = np.abs(a - b).max() / np.abs(b).max()
    check(d <= 1e-3, f"Implicit VR equals the TIFF path ({d:.2e})")

# One file of a DICOM-CT-PD series stands for the whole series in its folder.
r = recon(os.path.join(GEL, "dicom-ct-pd", "proj_0005.dcm"), os.path.join(T, "one.tif"), "--size", "128")
if check(r.returncode == 0 and "72 views" in r.stderr, "one file of the series loads the whole series (72 views)"):
    a, b = read_tif(os.path.join(T, "one.tif")), read_tif(os.path.join(T, "layout-ref.tif"))
    check(np.abs(a - b).max() / np.abs(b).max() <= 1e-3, "and reconstructs like the TIFF path")

# ------------------------------------------------------------- export ------
dciodvfy = shutil.which("dciodvfy")


def verify(path):
    p = subprocess.run([dciodvfy, path], capture_output=True, text=True, timeout=60)
    errors = [l for l in (p.stdout + p.stderr).splitlines() if l.startswith("Error")]
    return errors


for name, src, extra in (("head quarter dose", os.path.join(HEAD, "dicom_quarterdose"), ("--size", "256", "--pixel-size", "0.95703125", "--window", "hann")),
                         ("savu (135 slices)", os.path.join(DATA, "savu-parallel-tiff", "geometry.json"), ("--size", "48"))):
    out_dir = os.path.join(T, name.split()[0] + "-series")
    tif = os.path.join(T, name.split()[0] + "-export.tif")
    rd = recon(src, out_dir + "/", "--format", "dicom", *extra)
    rt = recon(src, tif, *extra)
    if not check(rd.returncode == 0 and rt.returncode == 0, f"{name}: --format dicom and tiff write"):
        continue
    vol = tifffile.imread(tif).astype(np.float64)
    if vol.ndim == 2:
        vol = vol[None]
    files = sorted(os.listdir(out_dir))
    check(len(files) == vol.shape[0] and not any(f.startswith(".") for f in files),
          f"{name}: one file per slice ({len(files)} for {vol.shape[0]}), no temporary files left")
    if dciodvfy:
        for f in (files[0], files[-1]):
            errs = verify(os.path.join(out_dir, f))
            check(not errs, f"{name}: dciodvfy {f}: no errors" + ("" if not errs else f" ({errs[:3]})"))
    else:
        print("     dciodvfy (dicom3tools) not installed: IOD check not run")
    ds = [pydicom.dcmread(os.path.join(out_dir, f)) for f in files]
    ds.sort(key=lambda d: int(d.InstanceNumber))
    hu = np.stack([d.pixel_array * float(d.RescaleSlope) + float(d.RescaleIntercept) for d in ds])
    expect = np.clip(1000.0 * (vol - MU_WATER) / MU_WATER, -32768, 32767)
    dhu = np.abs(hu - expect).max()
    check(dhu <= 1.0, f"{name}: pydicom reads the TIFF's values back in HU within 1 (max {dhu:.3f} HU)")
    check(len({d.SeriesInstanceUID for d in ds}) == 1 and len({d.SOPInstanceUID for d in ds}) == len(ds)
          and len({d.StudyInstanceUID for d in ds}) == 1, f"{name}: one study and series, unique SOP instance UIDs")
    d0 = ds[0]
    n = vol.shape[2]
    px = float(d0.PixelSpacing[1])
    ok_geo = (d0.Modality == "CT" and d0.SOPClassUID == "1.2.840.10008.5.1.4.1.1.2"
              and [float(x) for x in d0.ImageOrientationPatient] == [1, 0, 0, 0, 1, 0]
              and abs(float(d0.ImagePositionPatient[0]) + (n - 1) / 2 * px) < 1e-3 * px
              and abs(float(d0.ImagePositionPatient[1]) + (n - 1) / 2 * float(d0.PixelSpacing[0])) < 1e-3 * px
              and d0.Rows == vol.shape[1] and d0.Columns == vol.shape[2])
    check(ok_geo, f"{name}: CT SOP class, orientation 1\\0\\0\\0\\1\\0, first pixel at (-(n-1)/2 px, -(n-1)/2 px)")
    if len(ds) > 1:
        z = np.array([float(d.ImagePositionPatient[2]) for d in ds])
        dz = np.diff(z)
        check(np.allclose(dz, dz[0]) and abs(abs(dz[0]) - float(d0.SliceThickness)) < 1e-4,
              f"{name}: slice positions evenly spaced by SliceThickness ({dz[0]:.4g})")
    check("iterations" in str(d0.DerivationDescription) or "window" in str(d0.DerivationDescription),
          f"{name}: DerivationDescription names method and parameters: “{d0.DerivationDescription}”")

# A single-row dataset states its slice thickness ("slice_thickness_mm", at
# the isocentre): the grid's dz and the series' SliceThickness follow it
# (head-fan-lowdose: 1.5 mm; before, the 1 mm default of a missing row pitch).
out_dir = os.path.join(T, "thickness-series")
r = recon(os.path.join(HEAD, "geometry.json"), out_dir + "/", "--format", "dicom", "--size", "64")
if check(r.returncode == 0, "head-fan-lowdose geometry.json: --format dicom writes"):
    d0 = pydicom.dcmread(os.path.join(out_dir, sorted(os.listdir(out_dir))[0]))
    check(abs(float(d0.SliceThickness) - 1.5) < 1e-6,
          f"head-fan-lowdose: SliceThickness is the stated 1.5 mm (got {d0.SliceThickness})")
    check(" x 1.5 mm" in r.stderr, "head-fan-lowdose: the grid's slices are 1.5 mm thick")

# ImageJ-compatible float32 stack.
tif = os.path.join(T, "savu-export.tif")
if os.path.exists(tif):
    with tifffile.TiffFile(tif) as t:
        meta = t.imagej_metadata or {}
        check(t.is_imagej and meta.get("images") == len(t.pages) == meta.get("slices")
              and t.pages[0].dtype == np.float32,
              f"TIFF stack is ImageJ float32: images={meta.get('images')} slices={meta.get('slices')} pages={len(t.pages)}")
tif = os.path.join(T, "head-export.tif")
if os.path.exists(tif):
    with tifffile.TiffFile(tif) as t:
        xres = t.pages[0].tags.get("XResolution")
        ok = t.is_imagej and xres is not None and abs(xres.value[1] / xres.value[0] - 0.95703125) < 1e-6
        check(ok, "TIFF image is calibrated for ImageJ (XResolution = 1 / pixel size in mm)")

# --------------------------------------------------------- bad input ------
def expect_error(label, src, needle):
    r = run("reconstruct", src, "--output", os.path.join(T, "bad.tif"))
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    check(r.returncode == 1 and needle.lower() in r.stderr.lower(),
          f"{label}: exit {r.returncode}, message contains “{needle}”: {msg[:150]}")


gel_files = sorted(os.listdir(os.path.join(GEL, "dicom-ct-pd")))
head_files = sorted(os.listdir(os.path.join(HEAD, "dicom_quarterdose")))

mixed = os.path.join(T, "mixed")
os.mkdir(mixed)
for f in gel_files[:3]:
    os.symlink(os.path.join(GEL, "dicom-ct-pd", f), os.path.join(mixed, "gel_" + f))
for f in head_files[:3]:
    os.symlink(os.path.join(HEAD, "dicom_quarterdose", f), os.path.join(mixed, "head_" + f))
expect_error("mixed series in one folder", mixed, "several projection series")

dup = os.path.join(T, "duplicate")
os.mkdir(dup)
for f in gel_files:
    os.symlink(os.path.join(GEL, "dicom-ct-pd", f), os.path.join(dup, f))
os.symlink(os.path.join(GEL, "dicom-ct-pd", gel_files[5]), os.path.join(dup, "copy_of_5.dcm"))
expect_error("duplicate view", dup, "duplicate")

missing = os.path.join(T, "missing")
os.mkdir(missing)
for f in gel_files[:10] + gel_files[12:]:
    os.symlink(os.path.join(GEL, "dicom-ct-pd", f), os.path.join(missing, f))
r = recon(missing, os.path.join(T, "missing.tif"))
check(r.returncode == 0, "two missing views: reconstructs from the 70 present views")

helical = os.path.join(T, "helical")
os.mkdir(helical)
for f in gel_files:
    d = pydicom.dcmread(os.path.join(GEL, "dicom-ct-pd", f))
    d[0x7037, 0x1009].value = "HELICAL"
    d.save_as(os.path.join(helical, f))
expect_error("an axial series tagged HELICAL", helical, "is HELICAL, but the focal centre stays")

notag = os.path.join(T, "notag")
os.mkdir(notag)
for f in gel_files:
    d = pydicom.dcmread(os.path.join(GEL, "dicom-ct-pd", f))
    del d[0x7031, 0x1031]
    d.save_as(os.path.join(notag, f))
expect_error("missing ConstantRadialDistance", notag, "ConstantRadialDistance")

trunc = os.path.join(T, "truncated")
os.mkdir(trunc)
for f in gel_files:
    os.symlink(os.path.join(GEL, "dicom-ct-pd", f), os.path.join(trunc, f))
os.unlink(os.path.join(trunc, gel_files[7]))
with open(os.path.join(GEL, "dicom-ct-pd", gel_files[7]), "rb") as f:
    raw = f.read()
with open(os.path.join(trunc, gel_files[7]), "wb") as f:
    f.write(raw[: len(raw) - 300])
expect_error("truncated file", trunc, gel_files[7])

finish()
