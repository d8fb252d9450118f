"""Inputs checked against what they claim (issue 38, the input half).
Needs no ../shared/data.  Each section failed on the main branch before its
fix; the number is the issue's item:
  15. JSON nested ~100,000 deep is refused before the parser recurses (it
      overflowed the stack: geometry.json, STUDY.json, ASTRA JSON);
  10. a key given twice in one JSON object is refused (the last one won);
  22. sizes beyond 32 bits are reported as written, not wrapped; memory
      sizes read as MiB/GiB/TiB as fits; the DICOM series choice names its
      option;
   9. non-helical angles over more than two turns (degrees given as
      radians) are refused;
   6. a flat field that is not above the dark (all zero, swapped with the
      dark, a whole row) is refused, a masked fraction above 1 % is said;
   7. the sample format of the projection files is checked against the
      kind and "dtype" the geometry.json states, the same in every view;
  13. metrics on a reference that covers fewer slices, or holds NaN;
   8. DICOM-CT-PD files without Rescale Slope/Intercept, without
      DetectorShape, or disagreeing with the series;
  12. line integrals that cannot be line integrals of the scanned object
      (negated, counts, scaled) are said with the figure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import tifffile

from common import check, finish, require_cli, run

require_cli()


def last_line(text):
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def refused(args, needle, what, timeout=120):
    """Exit 1 (not a signal) with @needle in the message."""
    r = run(*args, timeout=timeout)
    ok = r.returncode == 1 and needle.lower() in r.stderr.lower()
    check(ok, f"{what}: exit {r.returncode}, '{last_line(r.stderr)[:200]}'")
    return r


def warned(args, needle, what, timeout=120):
    """Exit 0 with a warning holding @needle."""
    r = run(*args, timeout=timeout)
    ok = r.returncode == 0 and "warning" in r.stderr.lower() and needle.lower() in r.stderr.lower()
    check(ok, f"{what}: exit {r.returncode}, '{last_line(r.stderr)[:200]}'")
    return r


def quiet(args, what, timeout=300):
    """Exit 0 without a warning."""
    r = run(*args, timeout=timeout)
    ok = r.returncode == 0 and "warning" not in r.stderr.lower()
    check(ok, f"{what}: exit {r.returncode}, '{last_line(r.stderr)[:200]}'")
    return r


with tempfile.TemporaryDirectory() as tmp:
    def path(*p):
        return os.path.join(tmp, *p)

    r = run("simulate", "--phantom", "head", "--views", 90, "--cols", 96, "--size", 48,
            "--i0", 0, "--output", path("scan"))
    if not check(r.returncode == 0, "simulate a small fan-beam scan"):
        finish()
    geo = path("scan", "geometry.json")
    with open(geo) as f:
        base = json.load(f)

    def write_geo(name, d=None, text=None):
        p = path("scan", name)
        with open(p, "w") as f:
            f.write(text if text is not None else json.dumps(d, indent=1))
        return p

    def variant(**kw):
        d = json.loads(json.dumps(base))
        for k, v in kw.items():
            if v is None:
                d.pop(k, None)
            else:
                d[k] = v
        return d

    quiet(["reconstruct", geo, "--dry-run"], "the simulated scan loads without a warning")

    # ----------------------------------------------------------------- 15 --
    deep = "[" * 100000 + "]" * 100000
    deep_obj = '{"a": ' + deep + "}"
    refused(["reconstruct", write_geo("deep.json", text=deep_obj), "--dry-run"], "nested",
            "geometry.json nested 100,000 deep")
    with open(path("STUDY.json"), "w") as f:
        f.write(deep_obj)
    refused(["study", path("STUDY.json"), "-o", path("study-out")], "nested", "STUDY.json nested 100,000 deep")
    with open(path("astra.json"), "w") as f:
        f.write(deep_obj)
    refused(["import-geometry", path("astra.json"), "-o", path("imported.json")], "nested",
            "ASTRA JSON nested 100,000 deep")
    refused(["project", write_geo("deep2.json", text=deep_obj), path("scan", "reference.tif"), "-o", path("p.tif")],
            "nested", "project with a geometry.json nested 100,000 deep")
    # Brackets inside strings do not count.
    quiet(["reconstruct", write_geo("brackets.json", variant(notes="[" * 1000)), "--dry-run"],
          "a string of 1000 '[' is not nesting")

    # ----------------------------------------------------------------- 10 --
    text = json.dumps(base, indent=1)
    dup = text.replace('"views":', '"views": 7,\n "views":', 1)
    refused(["reconstruct", write_geo("dup.json", text=dup), "--dry-run"], "“views” is given twice",
            "geometry.json with “views” twice")
    dup_inner = text.replace('"layout":', '"layout": "view_pages",\n  "layout":', 1)
    refused(["reconstruct", write_geo("dup2.json", text=dup_inner), "--dry-run"], "given twice",
            "a key twice inside “projections”")
    # The same key in two different objects is fine.
    two = variant(variants={"again": dict(base["projections"])})
    quiet(["reconstruct", write_geo("two.json", two), "--dry-run"], "the same key in two objects")
    with open(path("STUDY2.json"), "w") as f:
        f.write('{"dataset": "scan/geometry.json", "doses": [1], "doses": [0.5]}')
    refused(["study", path("STUDY2.json"), "-o", path("study-out2")], "given twice", "STUDY.json with “doses” twice")

    # ----------------------------------------------------------------- 22 --
    for key, value, needle in (("views", "18446744073709551688", "18446744073709551688"),
                               ("views", "-18446744073709551615", "-18446744073709551615"),
                               ("detector_cols", str(2 ** 32 + 282), "between 1 and 2147483647")):
        t = json.dumps(base, indent=1).replace(f'"{key}": {base[key]}', f'"{key}": {value}', 1)
        refused(["reconstruct", write_geo("big.json", text=t), "--dry-run"], needle,
                f"“{key}”: {value} reported as written")
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import ctpd
    except ImportError:
        ctpd = None
    if ctpd is not None:
        two = path("two-series")
        ctpd.write_series(two, ["1", "2", "3", "4"], series_uid="1.2.3.4.5.6")
        for name in ctpd.write_series(path("other"), ["1", "2", "3", "4"], series_uid="1.2.3.4.5.7"):
            os.rename(path("other", name), path("two-series", "b_" + name))
        r = refused(["reconstruct", two, "--dry-run"], "one of its files", "two series in a folder: says how to choose")
        check("b_view_0000.dcm" in r.stderr, "… and names a file of each series")
        r = run("reconstruct", path("two-series", "b_view_0000.dcm"), "--dry-run")
        check(r.returncode == 0, f"… and one file of a series loads that series: exit {r.returncode}")

    # ------------------------------------------------------------------ 9 --
    deg = [a * 180 / np.pi for a in base["angles_rad"]]
    refused(["reconstruct", write_geo("deg.json", variant(angles_rad=deg)), "--dry-run"], "in degrees",
            "angles in degrees given as “angles_rad”")
    refused(["reconstruct", write_geo("deg2.json", variant(angles_rad=None, angle_start_rad=0,
                                                           angle_step_rad=4.0)), "--dry-run"], "in degrees",
            "an angle step of 4 (degrees) given as “angle_step_rad”")
    two_turns = [a * 2 for a in base["angles_rad"]]
    quiet(["reconstruct", write_geo("two-turns.json", variant(angles_rad=two_turns)), "--dry-run"],
          "two turns on a circular orbit load")

    # ------------------------------------------------------------------ 6 --
    # Counts: I = 5000·exp(-p) + 100 over a dark of 100, flat 5100.
    sino = tifffile.imread(path("scan", "sinogram.tif")).astype(np.float64)
    counts = (5000 * np.exp(-sino) + 100).astype(np.float32)
    tifffile.imwrite(path("scan", "counts.tif"), counts)
    cols = counts.shape[-1]
    tifffile.imwrite(path("scan", "dark.tif"), np.full((1, cols), 100, np.float32))
    tifffile.imwrite(path("scan", "flat.tif"), np.full((1, cols), 5100, np.float32))
    tifffile.imwrite(path("scan", "zero.tif"), np.zeros((1, cols), np.float32))
    holes = np.full((1, cols), 5100, np.float32)
    holes[0, 10:13] = 0
    tifffile.imwrite(path("scan", "holes.tif"), holes)
    proj = dict(base["projections"], file="counts.tif")

    def counts_geo(name, flat, dark):
        return write_geo(name, variant(kind="counts", projections=proj, flat=flat, dark=dark, reference=None))
    quiet(["reconstruct", counts_geo("counts.json", "flat.tif", "dark.tif"), "--dry-run"],
          "counts with a right flat and dark load without a warning")
    refused(["reconstruct", counts_geo("zero-flat.json", "zero.tif", "dark.tif"), "--dry-run"],
            "not above the dark", "an all-zero flat field")
    refused(["reconstruct", counts_geo("swapped.json", "dark.tif", "flat.tif"), "--dry-run"],
            "flat and dark swapped", "flat and dark swapped")
    warned(["reconstruct", counts_geo("holes.json", "holes.tif", "dark.tif"), "--dry-run"],
           "3.1 % of the detector pixels", "3 of 96 flat-field pixels at 0")
    # Two detector rows, the second one dead in the flat.
    counts2 = np.stack([counts, counts])                             # sinogram: a page per row
    tifffile.imwrite(path("scan", "counts2.tif"), counts2)
    tifffile.imwrite(path("scan", "dark2.tif"), np.full((2, cols), 100, np.float32))
    flat2 = np.full((2, cols), 5100, np.float32)
    flat2[1] = 0
    tifffile.imwrite(path("scan", "flat2.tif"), flat2)
    refused(["reconstruct", write_geo("row.json", variant(kind="counts", detector_rows=2, detector_pitch_v_mm=1.0,
                                                          projections=dict(proj, file="counts2.tif"),
                                                          flat="flat2.tif", dark="dark2.tif", reference=None)),
             "--dry-run"], "detector row 1", "a flat field with a zero row")

    # ------------------------------------------------------------------ 7 --
    for dt in ("uint16", "int16", "int32", "uint8"):
        tifffile.imwrite(path("scan", f"int-{dt}.tif"), (sino * 1000).astype(dt))
        refused(["reconstruct", write_geo(f"int-{dt}.json", variant(projections=dict(
            base["projections"], file=f"int-{dt}.tif", dtype=None))), "--dry-run"],
            f"holds {dt} samples, but the key “kind” says “line_integrals”", f"{dt} TIFF stated as line integrals")
    refused(["reconstruct", write_geo("dtype.json", variant(kind="counts", projections=dict(proj, dtype="uint16"),
                                                            flat="flat.tif", dark="dark.tif", reference=None)),
             "--dry-run"], "the key “dtype” is “uint16” but", "“dtype”: “uint16” on a float32 file")
    views = path("scan", "views")
    os.mkdir(views)
    one_view = tifffile.imread(path("scan", "counts.tif"))
    for k in range(one_view.shape[0]):
        tifffile.imwrite(os.path.join(views, f"v{k:03d}.tif"),
                         one_view[k:k + 1].astype(np.uint16 if k != 40 else np.float32))
    per_view = dict(layout="one_file_per_view", pattern="views/v%03d.tif", first_index=0, count=one_view.shape[0])
    refused(["reconstruct", write_geo("mixed.json", variant(kind="counts", projections=per_view, flat="flat.tif",
                                                            dark="dark.tif", reference=None)), "--dry-run"],
            "the views before it hold uint16", "one float32 view among uint16 views")
    tifffile.imwrite(os.path.join(views, "v040.tif"), one_view[40:41].astype(np.uint16))
    quiet(["reconstruct", write_geo("uint16.json", variant(kind="counts", projections=dict(per_view, dtype="uint16"),
                                                           flat="flat.tif", dark="dark.tif", reference=None)),
           "--dry-run"], "uint16 counts, one file per view, as stated")

    # ----------------------------------------------------------------- 13 --
    # A cone-beam dataset whose reference holds 4 slices, reconstructed on 12.
    cone_dir = path("cone")
    os.mkdir(cone_dir)
    n = 24
    cone = {"name": "cone", "type": "cone", "detector_shape": "flat", "kind": "line_integrals",
            "views": 36, "detector_cols": 32, "detector_rows": 12, "source_to_isocenter_mm": 500.0,
            "source_to_detector_mm": 1000.0, "detector_pitch_u_mm": 2.0, "detector_pitch_v_mm": 2.0,
            "angles_rad": [2 * np.pi * k / 36 for k in range(36)],
            "projections": {"layout": "view_pages", "file": "proj.tif", "dtype": "float32"}}
    z, y, x = np.mgrid[0:4, 0:n, 0:n]
    vol = (((x - n / 2) ** 2 + (y - n / 2) ** 2) < (n / 3) ** 2).astype(np.float32) * 0.02
    tifffile.imwrite(os.path.join(cone_dir, "ref.tif"), vol, photometric="minisblack")
    cone_geo = os.path.join(cone_dir, "geometry.json")
    with open(cone_geo, "w") as f:
        json.dump(cone, f)
    # (project never writes over the file the geometry names: a new name, then renamed)
    r = run("project", cone_geo, os.path.join(cone_dir, "ref.tif"), "-o", os.path.join(cone_dir, "p0.tif"))
    if check(r.returncode == 0, f"project a small cone-beam scan: exit {r.returncode}"):
        os.rename(os.path.join(cone_dir, "p0.tif"), os.path.join(cone_dir, "proj.tif"))
        cone["reference"] = {"file": "ref.tif", "unit": "1/mm", "spacing_xyz_mm": [1, 1, 1], "shape_zyx": [4, n, n]}
        with open(cone_geo, "w") as f:
            json.dump(cone, f)
        r = refused(["reconstruct", cone_geo, "--method", "fdk", "--size", "24x24x12", "-o", path("cone.tif")],
                    "8 of the image's 12 slices", "a reference of 4 slices on a grid of 12 (PSNR was inf)")
        check(not os.path.exists(path("cone.tif")), "… and nothing is written")
        r = run("reconstruct", cone_geo, "--method", "fdk", "--size", "24x24x4", "-o", path("cone4.tif"))
        check(r.returncode == 0 and "inf" not in r.stdout, f"… the 4 slices it holds: exit {r.returncode}")
    nan_img = np.full((32, 32), 0.0192, np.float32)
    nan_img[16, 16] = np.nan
    tifffile.imwrite(path("nan.tif"), nan_img)
    r = refused(["roi", path("nan.tif"), "--roi", "circle:0,0,5"], "not finite", "roi over a NaN pixel")
    check("null" not in r.stdout, "… prints no figures of null")
    quiet(["roi", path("nan.tif"), "--roi", "circle:-8,-8,4"], "roi beside the NaN pixel")

    # ----------------------------------------------------------------- 12 --
    def li_geo(name, data):
        tifffile.imwrite(path("scan", name + ".tif"), data.astype(np.float32))
        return write_geo(name + ".json", variant(projections=dict(base["projections"], file=name + ".tif")))
    warned(["reconstruct", li_geo("negated", -sino), "--dry-run"], "negated",
           "negated line integrals")
    warned(["reconstruct", li_geo("scaled", sino * 1000), "--dry-run"], "scaled (×1000)",
           "line integrals ×1000")
    warned(["reconstruct", li_geo("counts-as-li", counts), "--dry-run"], "detector counts",
           "float counts stated as line integrals")
    tifffile.imwrite(path("scan", "low-flat.tif"), np.full((1, cols), 510, np.float32))
    warned(["reconstruct", counts_geo("low-flat.json", "low-flat.tif", "dark.tif"), "--dry-run"],
           "flat field (open beam) too low", "a flat field 10× too low")

    # ------------------------------------------------------------------ 8 --
    if ctpd is not None:
        def pd_series(name, change):
            folder = path(name)
            os.makedirs(folder)
            for k in range(8):
                beta = 2 * np.pi * k / 8
                d = ctpd.ctpd_dataset(str(k + 1), float(np.fmod(beta + np.pi, 2 * np.pi)), channels=16,
                                      values=np.full((16, 1), 20, dtype=np.uint16))
                change(k, d)
                d.save_as(os.path.join(folder, f"view_{k:04d}.dcm"), write_like_original=False)
            return folder

        def no_slope(k, d):
            del d.RescaleSlope
            del d.RescaleIntercept
        refused(["reconstruct", pd_series("pd-noslope", no_slope), "--dry-run"], "RescaleSlope (0028,1053) is missing",
                "DICOM-CT-PD without RescaleSlope/Intercept")

        def one_no_slope(k, d):
            if k == 3:
                no_slope(k, d)
        refused(["reconstruct", pd_series("pd-noslope1", one_no_slope), "--dry-run"], "RescaleSlope",
                "one DICOM-CT-PD file without RescaleSlope")

        def no_shape(k, d):
            del d[0x7029100B]
        warned(["reconstruct", pd_series("pd-noshape", no_shape), "--dry-run"], "DetectorShape (7029,100B) is absent",
               "DICOM-CT-PD without DetectorShape: said")

        def log_no(k, d):
            if k == 5:
                d.add_new(0x70390010, "LO", "PreprocessingFlagsModule")
                d.add_new(0x70391009, "CS", "NO")
                d.add_new(0x70330010, "LO", "SourceDynamicsModule")
                d.add_new(0x70331065, "FD", [1e5])
        refused(["reconstruct", pd_series("pd-log", log_no), "--dry-run"], "LogFlag (7039,1009) is NO (raw counts)",
                "one file's LogFlag disagrees with the series")

        def bits32(k, d):
            if k == 2:
                d.BitsAllocated, d.BitsStored, d.HighBit = 32, 32, 31
                d.PixelData = np.full((16, 1), 20, dtype="<u4").tobytes()
        refused(["reconstruct", pd_series("pd-bits", bits32), "--dry-run"], "BitsAllocated (0028,0100) is 32",
                "one file's BitsAllocated disagrees with the series")
        quiet(["reconstruct", pd_series("pd-good", lambda k, d: None), "--dry-run"], "a whole DICOM-CT-PD series loads")

    # Every command that loads a dataset says its warnings.
    r = run("noise", path("scan", "negated.json"))
    check("warning" in r.stderr and "negated" in r.stderr, "noise says the dataset's warnings")
finish()
