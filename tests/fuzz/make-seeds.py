#!/usr/bin/python3
"""Writes the seed corpus of the fuzz harnesses (tests/fuzz/corpus/NAME)
and the reproducers of the defects of issue 14 (tests/fuzz/reproducers/NAME)
with independent writers (tifffile, pydicom, json).  The outputs are
committed; run this again only to change them:

    /usr/bin/python3 tests/fuzz/make-seeds.py

Seeds are small valid (or nearly valid) inputs covering each format's
variants: libFuzzer mutates them.  Reproducers are inputs that once crashed,
hung or were silently accepted; every harness replays them in every suite.
"""
import io
import json
import math
import os
import sys

import numpy as np
import tifffile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import ctpd  # noqa: E402  (tests/cli/ctpd.py)
import pydicom  # noqa: E402
from pydicom.dataset import FileDataset, FileMetaDataset  # noqa: E402
from pydicom.uid import ExplicitVRLittleEndian, ImplicitVRLittleEndian, generate_uid  # noqa: E402

SEP = b"\n--ctr-next-file--\n"   # fuzz-dicom.c


def out(kind, target, name, data):
    d = os.path.join(HERE, kind, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def tiff_bytes(arr, **kw):
    b = io.BytesIO()
    tifffile.imwrite(b, arr, **kw)
    return b.getvalue()


def tiff_seed(name, arr, **kw):
    """A seed, unless tifffile lacks the codec here (imagecodecs missing)."""
    try:
        out("corpus", "tiff", name, tiff_bytes(arr, **kw))
    except (KeyError, ValueError, ImportError) as e:
        print(f"skip {name}: {e}")


# ----------------------------------------------------------------- TIFF ---
rng = np.random.default_rng(14)
img = (rng.random((5, 7)) * 200).astype(np.float32)
for dt in ("uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "float64"):
    out("corpus", "tiff", f"{dt}.tif", tiff_bytes(img.astype(dt)))
out("corpus", "tiff", "pages.tif", tiff_bytes(np.stack([img, img + 1, img + 2]).astype(np.float32)))
out("corpus", "tiff", "imagej.tif", tiff_bytes(np.stack([img, img]).astype(np.float32), imagej=True))
out("corpus", "tiff", "tiled.tif", tiff_bytes((rng.random((20, 20)) * 60000).astype(np.uint16), tile=(16, 16)))
tiff_seed("deflate.tif", img, compression="zlib")
tiff_seed("deflate-predictor.tif", img.astype(np.uint16), compression="zlib", predictor=True)
tiff_seed("lzw.tif", img.astype(np.uint16), compression="lzw")
tiff_seed("packbits.tif", img.astype(np.uint8), compression="packbits")
out("corpus", "tiff", "bigendian.tif", tiff_bytes(img.astype(">f4")))
out("corpus", "tiff", "bigtiff.tif", tiff_bytes(img.astype(np.int16), bigtiff=True))
out("corpus", "tiff", "strips.tif", tiff_bytes(img, rowsperstrip=2))
out("corpus", "tiff", "rgb.tif", tiff_bytes((rng.random((4, 4, 3)) * 255).astype(np.uint8), photometric="rgb"))

# ---------------------------------------------------- geometry.json -------
# The files fuzz-dataset.c writes beside the JSON: sinogram.tif (4 views x
# 8 columns x 2 rows), views.tif, view_0.tif..view_3.tif, flat.tif,
# dark.tif, reference.tif (8 x 8), pd/ (DICOM-CT-PD, 4 views x 8 channels).
angles = [k * math.pi / 2 for k in range(4)]
fan = {
    "name": "seed", "type": "fan", "detector_shape": "curved", "kind": "line_integrals",
    "views": 4, "detector_cols": 8, "detector_rows": 2,
    "source_to_isocenter_mm": 500.0, "source_to_detector_mm": 900.0,
    "detector_pitch_u_rad": 0.01, "detector_offset_u_rad": 0.0, "detector_pitch_v_mm": 1.0,
    "angles_rad": angles,
    "projections": {"layout": "sinogram", "file": "sinogram.tif", "dtype": "float32"},
    "reference": {"file": "reference.tif", "unit": "1/mm", "pixel_size_mm": 2.0, "center_mm": [0.0, 0.0]},
}


def js(d):
    return json.dumps(d, indent=1).encode()


def variant(base, **kw):
    d = json.loads(json.dumps(base))
    for k, v in kw.items():
        if v is None:
            d.pop(k, None)
        else:
            d[k] = v
    return d


out("corpus", "dataset", "fan-curved.json", js(fan))
out("corpus", "dataset", "fan-flat-step.json",
    js(variant(fan, detector_shape="flat", detector_pitch_u_rad=None, detector_offset_u_rad=None,
               detector_pitch_u_mm=2.0, detector_offset_u_mm=0.5, angles_rad=None,
               angle_start_rad=0.1, angle_step_rad=1.5)))
out("corpus", "dataset", "parallel-views.json",
    js(variant(fan, type="parallel", detector_shape=None, source_to_isocenter_mm=None,
               source_to_detector_mm=None, detector_pitch_u_rad=None, detector_offset_u_rad=None,
               detector_pitch_u_mm=1.0, rows_increase_with_v=False, pixel_size_known=False,
               projections={"layout": "view_pages", "file": "views.tif"},
               reference={"file": "reference.tif", "spacing_xyz_mm": [1, 1, 1], "shape_zyx": [1, 8, 8]})))
out("corpus", "dataset", "per-view.json",
    js(variant(fan, projections={"layout": "one_file_per_view", "pattern": "view_%d.tif",
                                 "first_index": 0, "count": 4}, reference=None)))
out("corpus", "dataset", "counts-flat.json",
    js(variant(fan, kind="counts", flat="flat.tif", dark="dark.tif", reference=None)))
out("corpus", "dataset", "counts-i0.json",
    js(variant(fan, kind="counts", I0=2000.0, reference=None,
               variants={"again": {"layout": "view_pages", "file": "views.tif", "I0": 3000.0}})))
out("corpus", "dataset", "cone.json",
    js(variant(fan, type="cone", detector_shape="flat", detector_pitch_u_rad=None, detector_offset_u_rad=None,
               detector_pitch_u_mm=1.0, detector_offset_v_mm=0.25, reference=None)))
out("corpus", "dataset", "dicom-layout.json",
    js(variant(fan, detector_shape="flat", detector_pitch_u_rad=None, detector_offset_u_rad=None,
               detector_pitch_u_mm=0.5, detector_rows=1, reference=None,
               projections={"layout": "dicom", "folder": "pd"})))
out("corpus", "dataset", "not-object.json", b"[1, 2, 3]")

# Issue 14, defect 4: sizes that used to be allocated before they were checked.
for v, name in ((1e9, "views-1e9"), (2147483647, "views-int-max")):
    out("reproducers", "dataset", f"{name}.json",
        js(variant(fan, views=v, angles_rad=None, angle_start_rad=0.0, angle_step_rad=1e-6)))
# Defect 5: implausible but finite geometry.
flat = dict(detector_shape="flat", detector_pitch_u_rad=None, detector_offset_u_rad=None,
            detector_pitch_u_mm=2.0)
out("reproducers", "dataset", "sdd-1e300.json", js(variant(fan, source_to_detector_mm=1e300, **flat)))
out("reproducers", "dataset", "pitch-1e-300.json", js(variant(fan, **dict(flat, detector_pitch_u_mm=1e-300))))
out("reproducers", "dataset", "angle-1e300.json", js(variant(fan, angles_rad=[0, 1e300, 2, 3])))
out("reproducers", "dataset", "step-0.json", js(variant(fan, angles_rad=None, angle_start_rad=0.2, angle_step_rad=0)))

# Issue 38, item 15: brackets nested 100,000 deep overflowed json-glib's
# recursive descent (geometry.json, STUDY.json, ASTRA JSON); the seed keeps
# a nesting just past the bound for the fuzzer to vary.
out("reproducers", "dataset", "nested-100000.json", b"[" * 100000)
out("corpus", "dataset", "nested-300.json", b'{"type": "fan", "notes": ' + b"[" * 300 + b"]" * 300 + b"}")
# Item 10: a key given twice (the last one won).
out("corpus", "dataset", "duplicate-key.json", js(fan).replace(b'"views":', b'"views": 8,\n "views":', 1))

# ---------------------------------------------------------------- DICOM ---


def dcm_bytes(d):
    b = io.BytesIO()
    d.save_as(b, write_like_original=False)
    return b.getvalue()


def ctpd_file(instance, k, n=4, **kw):
    beta = 2 * math.pi * k / n
    return dcm_bytes(ctpd.ctpd_dataset(instance, math.fmod(beta + math.pi, 2 * math.pi), channels=8, **kw))


out("corpus", "dicom", "ctpd-one.dcm", ctpd_file("1", 0))
out("corpus", "dicom", "ctpd-four.dcm", SEP.join(ctpd_file(str(k + 1), k) for k in range(4)))
out("corpus", "dicom", "ctpd-gap.dcm", SEP.join(ctpd_file(str(i), k) for k, i in enumerate((1, 2, 4))))
out("corpus", "dicom", "ctpd-rows.dcm", SEP.join(ctpd_file(str(k + 1), k, rows=3) for k in range(2)))
d = ctpd.ctpd_dataset("1", 0.5, channels=8)
d.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
d.is_implicit_VR = True
out("corpus", "dicom", "ctpd-implicit.dcm", dcm_bytes(d))


def xa_file(frames=5, rows=6, cols=8, enhanced=False):
    meta = FileMetaDataset()
    sop = "1.2.840.10008.5.1.4.1.1.12.1" + (".1" if enhanced else "")
    meta.MediaStorageSOPClassUID = sop
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    x = FileDataset(None, {}, file_meta=meta, preamble=b"\0" * 128)
    x.is_little_endian, x.is_implicit_VR = True, False
    x.SOPClassUID, x.SOPInstanceUID = sop, meta.MediaStorageSOPInstanceUID
    x.Modality = "XA"
    x.SeriesInstanceUID = "1.2.3.4.9"
    x.InstanceNumber = 1
    x.SamplesPerPixel, x.PhotometricInterpretation = 1, "MONOCHROME2"
    x.Rows, x.Columns, x.NumberOfFrames = rows, cols, frames
    x.BitsAllocated, x.BitsStored, x.HighBit, x.PixelRepresentation = 16, 12, 11, 0
    x.DistanceSourceToPatient = "700"
    x.DistanceSourceToDetector = "1100"
    x.ImagerPixelSpacing = ["0.3", "0.3"]
    x.PositionerPrimaryAngle = "-90"
    x.PositionerPrimaryAngleIncrement = [str(45 * k) for k in range(frames)]
    x.PositionerSecondaryAngle = "0"
    x.PixelData = (np.arange(frames * rows * cols, dtype="<u2") % 4000 + 10).tobytes()
    return dcm_bytes(x)


out("corpus", "dicom", "xa.dcm", xa_file())
out("corpus", "dicom", "xa-one-frame.dcm", xa_file(frames=1))
ct = ctpd.ctpd_dataset("3", 0.0, channels=8)
for tag in list(ct.keys()):
    if tag.group in (0x7029, 0x7031, 0x7037):
        del ct[tag]
out("corpus", "dicom", "ct-image.dcm", dcm_bytes(ct))
raw = ctpd_file("1", 0)
out("corpus", "dicom", "truncated.dcm", raw[: len(raw) - 7])

# Defect 3: InstanceNumber gaps and numbers beyond the IS range.
out("reproducers", "dicom", "instance-9e18.dcm", SEP.join([ctpd_file("1", 0), ctpd_file("9000000000000000000", 1)]))
out("reproducers", "dicom", "instance-2p31.dcm", SEP.join([ctpd_file("1", 0), ctpd_file("2147483648", 1)]))
out("reproducers", "dicom", "instance-gap-2p31.dcm", SEP.join([ctpd_file("1", 0), ctpd_file("2147483647", 1)]))

# ------------------------------------------------- geometry editor fields -
# beam shape SOD SDD cols rows pitch_u pitch_v offset_u offset_v views start step size pixel
fields = [
    "1\n1\n595\n1085.6\n736\n1\n0.0011\n1\n0\n0\n720\n0\n0.5\n512\n0.5",
    "1\n0\n100\n300\n282\n1\n0.4\n0.4\n0,1\n0\n72\n0\n5\n256\n0.2",
    "0\n0\n0\n0\n160\n135\n1\n1\n0\n0\n91\n-88\n2\n160\n1",
    "2\n0\n1000\n1536\n64\n48\n6.4\n6.4\n0\n0\n96\n90\n3.75\n128\n2",
]
for i, f in enumerate(fields):
    out("corpus", "geometry", f"fields-{i}.txt", f.encode())
# Defect 6: a pixel of 8.6e-9 mm over a 220 mm field of view.
out("reproducers", "geometry", "pixel-8.6e-9.txt", b"1\n1\n595\n1085.6\n736\n1\n0.0011\n1\n0\n0\n720\n0\n0.5\n512\n8.6e-9")
# Defect 5: SDD 1e300 (flat), one step of 0.
out("reproducers", "geometry", "sdd-1e300.txt", b"1\n0\n595\n1e300\n736\n1\n1.2\n1\n0\n0\n720\n0\n0.5\n512\n0.5")
out("reproducers", "geometry", "step-0.txt", b"1\n0\n595\n1085.6\n736\n1\n1.2\n1\n0\n0\n720\n0\n0\n512\n0.5")
print("seeds written under", HERE)
