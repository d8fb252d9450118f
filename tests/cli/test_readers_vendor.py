"""Nikon XTek (.xtekct) and Bruker SkyScan (.log) scans through ctrecon-cli.

Fixtures made here, never a scanner's file: a small cone-beam Shepp-Logan
scan from `ctrecon-cli simulate` (line integrals p) written as each
scanner's key file and one float32 TIFF per view of intensities
I = white · exp(−p), with a detector offset, an axis off the centre column
and (SkyScan) the optical axis off the middle row.  Each must reconstruct
(FDK) the same volume as its twin: the simulated line integrals with a
geometry.json holding what docs/readers.md says the keys become (offsets,
signs, first angle, sense of rotation, rows from the top): max |diff|
<= 1e-5 (1/mm; the phantom's peak is ~0.02).  A wrong sign in the mapping
moves the volume by pixels and misses this by far (checked: the twin
with the offset's sign flipped differs by more than 1e-3).

Bad input (clear message naming the key or file, non-zero exit, no crash):
a missing key, a key that is not a number, fewer TIFFs than the views, a
TIFF of another size, an empty file.
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import tifffile

from common import check, finish, require_cli, run

require_cli()
WHITE = 60000.0


def simulate(tmp):
    sim = os.path.join(tmp, "sim")
    r = run("simulate", "--phantom", "shepp-logan", "-g", "cone-flat", "--rows", "8", "--views", "90",
            "--cols", "64", "--size", "48", "--radius", "40", "--i0", "0", "-o", sim)
    if r.returncode != 0:
        print(r.stderr)
        sys.exit(1)
    with open(os.path.join(sim, "geometry.json")) as fh:
        geo = json.load(fh)
    p = tifffile.imread(os.path.join(sim, geo["projections"]["file"])).astype(np.float64)
    geo["projections"]["file"] = os.path.join(sim, geo["projections"]["file"])
    geo.pop("reference", None)
    return geo, p


def write_views(folder, names, p):
    for name, view in zip(names, p):
        tifffile.imwrite(os.path.join(folder, name), (WHITE * np.exp(-view)).astype(np.float32))


def write_twin(path, geo, **keys):
    g = dict(geo, rows_increase_with_v=False, **keys)
    with open(path, "w") as fh:
        json.dump(g, fh)
    return path


def fdk(src, out):
    r = run("reconstruct", src, "--method", "fdk", "--no-reference", "-o", out)
    if r.returncode != 0:
        print(r.stderr[-3000:])
    return tifffile.imread(out) if r.returncode == 0 else None


def compare(tmp, label, scan, twin, flipped):
    a = fdk(scan, os.path.join(tmp, label + "-scan.tif"))
    b = fdk(twin, os.path.join(tmp, label + "-twin.tif"))
    c = fdk(flipped, os.path.join(tmp, label + "-flipped.tif"))
    if not check(a is not None and b is not None and c is not None, f"{label}: all three reconstruct"):
        return
    d = float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")
    check(d <= 1e-5, f"{label}: the scan file == its geometry.json twin: max |diff| {d:.3g} <= 1e-5 "
          f"(peak {b.max():.4g})")
    if c.shape != b.shape:
        check(True, f"{label}: the twin with the offset's sign flipped differs (another grid: {c.shape})")
        return
    e = float(np.max(np.abs(c - b)))
    check(e > 1e-3, f"{label}: the twin with the offset's sign flipped differs: max |diff| {e:.3g} > 1e-3")


def nikon_text(geo, views, **over):
    k = {"Name": "fixture", "SrcToObject": repr(geo["source_to_isocenter_mm"]),
         "SrcToDetector": repr(geo["source_to_detector_mm"]),
         "DetectorPixelsX": geo["detector_cols"], "DetectorPixelsY": geo["detector_rows"],
         "DetectorPixelSizeX": repr(geo["detector_pitch_u_mm"]),
         "DetectorPixelSizeY": repr(geo["detector_pitch_v_mm"]),
         "DetectorOffsetX": "0.5", "DetectorOffsetY": "0.3",
         "CentreOfRotationTop": "0.4", "CentreOfRotationBottom": "0.4",
         "Projections": views, "InitialAngle": "10", "AngularStep": "4", "WhiteLevel": repr(WHITE)}
    k.update(over)
    lines = ["[XTekCT]"] + [f"{a}={b}" for a, b in k.items() if b is not None]
    return "\r\n".join(lines) + "\r\n"


def nikon(tmp, geo, p):
    d = os.path.join(tmp, "nikon")
    os.makedirs(d)
    views = geo["views"]
    with open(os.path.join(d, "fixture.xtekct"), "w") as fh:
        fh.write(nikon_text(geo, views))
    write_views(d, [f"fixture_{k + 1:04d}.tif" for k in range(views)], p)
    m = geo["source_to_detector_mm"] / geo["source_to_isocenter_mm"]
    angles = list(np.radians(10 + 4 * np.arange(views)))
    off_u = 0.5 - 0.4 * m
    twin = write_twin(os.path.join(d, "twin.json"), geo, detector_offset_u_mm=off_u,
                      detector_offset_v_mm=0.3, angles_rad=angles)
    flipped = write_twin(os.path.join(d, "flipped.json"), geo, detector_offset_u_mm=0.5 + 0.4 * m,
                         detector_offset_v_mm=0.3, angles_rad=angles)
    compare(tmp, "Nikon", os.path.join(d, "fixture.xtekct"), twin, flipped)
    return d


def skyscan_text(geo, views, **over):
    pu = geo["detector_pitch_u_mm"]
    acq = {"Filename Prefix": "scan~", "Filename Index Length": "8", "Number Of Files": f"  {views}",
           "Number Of Rows": f"  {geo['detector_rows']}", "Number Of Columns": f"  {geo['detector_cols']}",
           "Camera binning": "1x1", "Optical Axis (line)": "  3",
           "Object to Source (mm)": repr(geo["source_to_isocenter_mm"]),
           "Camera to Source (mm)": repr(geo["source_to_detector_mm"]),
           "Image Pixel Size (um)": repr(pu * 1000 * geo["source_to_isocenter_mm"] / geo["source_to_detector_mm"]),
           "Depth (bits)": "16", "Reference Intensity": repr(WHITE), "Rotation Step (deg)": "4.000",
           "Rotation Direction": "CC", "Flat Field Correction": "ON"}
    acq.update(over)
    text = ["[System]", "Scanner=fixture", f"Camera Pixel Size (um)={pu * 1000!r}", "[Acquisition]"]
    text += [f"{a}={b}" for a, b in acq.items() if b is not None]
    text += ["[Reconstruction]", "Postalignment=1.50", "a free-text line without a key"]
    return "\r\n".join(text) + "\r\n"


def skyscan(tmp, geo, p):
    d = os.path.join(tmp, "skyscan")
    os.makedirs(d)
    views = geo["views"]
    with open(os.path.join(d, "scan.log"), "w") as fh:
        fh.write(skyscan_text(geo, views))
    write_views(d, [f"scan~{k:08d}.tif" for k in range(views)], p)
    pu = geo["detector_pitch_u_mm"]
    rows = geo["detector_rows"]
    angles = list(-np.radians(4 * np.arange(views)))
    common = dict(detector_pitch_v_mm=pu, detector_offset_v_mm=(3 - (rows - 1) / 2) * pu, angles_rad=angles)
    twin = write_twin(os.path.join(d, "twin.json"), geo, detector_offset_u_mm=-1.5 * pu, **common)
    flipped = write_twin(os.path.join(d, "flipped.json"), geo, detector_offset_u_mm=1.5 * pu, **common)
    compare(tmp, "SkyScan", os.path.join(d, "scan.log"), twin, flipped)
    return d


def bad(path, expect, what):
    out = os.path.join(os.path.dirname(path), "bad-out.tif")
    r = run("reconstruct", path, "--method", "fdk", "-o", out)
    ok = r.returncode > 0 and expect in r.stderr and not os.path.exists(out)
    if not check(ok, f"{what}: exit {r.returncode}, says “{expect}”"):
        print(r.stderr[-2000:])


def bad_inputs(tmp, geo, nikon_dir, sky_dir):
    views = geo["views"]
    cases = [
        (nikon_dir, "x1.xtekct", nikon_text(geo, views, SrcToObject=None), "“SrcToObject” (section [XTekCT]) is missing", "Nikon: no SrcToObject"),
        (nikon_dir, "x2.xtekct", nikon_text(geo, views, WhiteLevel="bright"), "not a number", "Nikon: WhiteLevel not a number"),
        (nikon_dir, "x3.xtekct", nikon_text(geo, views + 1), "is missing", "Nikon: 91 projections, 90 TIFFs"),
        (nikon_dir, "x4.xtekct", nikon_text(geo, views, DetectorPixelsX=63), "the scan file states 63 columns",
         "Nikon: TIFFs of another width"),
        (nikon_dir, "x5.xtekct", "", "no [section]", "Nikon: an empty file"),
        (nikon_dir, "x6.xtekct", nikon_text(geo, views, Projections="0"), "“Projections” must be a whole number", "Nikon: 0 projections"),
        (sky_dir, "s1.log", skyscan_text(geo, views, **{"Rotation Step (deg)": None}), "Rotation Step",
         "SkyScan: no rotation step"),
        (sky_dir, "s2.log", skyscan_text(geo, views + 5), "is missing", "SkyScan: 95 files, 90 TIFFs"),
        (sky_dir, "s3.log", skyscan_text(geo, views, **{"Number Of Rows": "9"}), "the scan file states 64 columns × 9 rows",
         "SkyScan: TIFFs of another height"),
    ]
    for folder, name, text, expect, what in cases:
        path = os.path.join(folder, name)
        with open(path, "w") as fh:
            fh.write(text)
        bad(path, expect, what)
    # a truncated key file: the text cut in the middle of its keys
    path = os.path.join(nikon_dir, "x7.xtekct")
    with open(path, "w") as fh:
        fh.write(nikon_text(geo, views)[:120])
    bad(path, "is missing", "Nikon: a truncated file")


with tempfile.TemporaryDirectory() as tmp:
    geo, p = simulate(tmp)
    n = nikon(tmp, geo, p)
    s = skyscan(tmp, geo, p)
    bad_inputs(tmp, geo, n, s)
finish()
