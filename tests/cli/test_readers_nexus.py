"""NeXus NXtomo input through ctrecon-cli (h5py writes the files; skips with
77 without h5py, or when this build has no NeXus support, after checking
that such a build says so).

savu-parallel-tiff (../shared/data; skipped when absent) written as NXtomo:
its 91 uint16 projections, its dark and its flat in one float32 stack with
image_key (2 dark, 2 flat, 0 projection) and rotation_angle in degrees, the
frames at /entry/instrument/detector/data with /entry/data/data a link to
them (the NXtomo layout).  Three flat frames, one of them three times too
bright, and two equal darks: the median flat is the TIFF's flat, a mean
would not be.
  - a geometry.json naming the file ("layout": "nexus", no "flat"/"dark")
    reconstructs the same image as the TIFF geometry.json: max |diff| == 0;
  - `reconstruct FILE.nxs` (parallel beam, the axis at the centre column,
    pitch 1 pixel) equals the TIFF geometry.json with detector_offset_u_mm
    0: max |diff| <= 1e-6 (the angles go through degrees and back).

Bad input (clear message naming what is wrong, non-zero exit, no HDF5 error
stack on stderr, no crash): no frames, frames of rank 2, rotation_angle or
image_key of another length than the frames, no projection frame, an
image_key of 7, no flat on a direct read, a geometry.json whose views
disagree with the file, 10^15 voxels declared (refused before allocating),
frames of strings.  2^18 flat frames of 1 × 2 pixels with the memory
limit (CTR_MEMORY_LIMIT_MB) at 0.5 MiB: one pixel's samples for the median
(1 MiB) are refused with exit 1 and a message naming them (issue 38;
before: allocated with g_new whatever the limit, GLib's abort where the
memory was really short).
"""
import json
import os
import sys
import tempfile

import numpy as np

from common import DATA, check, finish, require_cli, results, run

require_cli()
HAVE_NEXUS = os.environ.get("CTR_HAVE_NEXUS", "1") == "1"


def write_nxtomo(path, frames, keys, angles_deg, layout="link"):
    import h5py

    with h5py.File(path, "w") as f:
        entry = f.create_group("entry")
        entry.attrs["NX_class"] = "NXentry"
        entry.create_dataset("definition", data="NXtomo")
        det = entry.create_group("instrument").create_group("detector")
        if layout != "none":
            det.create_dataset("data", data=frames)
        det.create_dataset("image_key", data=np.asarray(keys, np.int32))
        sample = entry.create_group("sample")
        sample.create_dataset("rotation_angle", data=np.asarray(angles_deg, np.float64))
        sample["rotation_angle"].attrs["units"] = "degrees"
        data = entry.create_group("data")
        data.attrs["NX_class"] = "NXdata"
        if layout == "link":
            data["data"] = det["data"]


def recon(src, out):
    r = run("reconstruct", src, "--method", "fbp", "--no-reference", "-o", out)
    if r.returncode != 0:
        print(r.stderr)
    return r


def bad(path, expect, what):
    r = run("reconstruct", path, "--method", "fbp", "-o", path + ".out.tif")
    ok = (r.returncode > 0 and expect in r.stderr and "HDF5-DIAG" not in r.stderr
          and not os.path.exists(path + ".out.tif"))
    if not check(ok, f"{what}: exit {r.returncode}, says “{expect}”"):
        print(r.stderr[-2000:])


def savu_part(tmp):
    import tifffile

    src = os.path.join(DATA, "savu-parallel-tiff")
    if not os.path.isdir(src):
        print("no savu-parallel-tiff: its comparison is skipped")
        return
    with open(os.path.join(src, "geometry.json")) as fh:
        geo = json.load(fh)
    views = [tifffile.imread(os.path.join(src, "tiffs", f"raw_{k:05d}.tiff")) for k in range(geo["views"])]
    flat = tifffile.imread(os.path.join(src, geo["flat"])).astype(np.float32)
    dark = tifffile.imread(os.path.join(src, geo["dark"])).astype(np.float32)
    frames = np.concatenate([np.stack([dark, dark, flat, flat * 3, flat]),
                             np.stack(views).astype(np.float32)])
    keys = [2, 2, 1, 1, 1] + [0] * len(views)
    angles = np.degrees(np.asarray(geo["angles_rad"]))
    angles = np.concatenate([np.full(5, angles[0]), angles])
    nxs = os.path.join(tmp, "savu.nxs")
    write_nxtomo(nxs, frames, keys, angles)

    tiff_geo = dict(geo)
    for k in ("flat", "dark"):
        tiff_geo[k] = os.path.join(src, geo[k])
    tiff_geo["projections"] = dict(geo["projections"], pattern=os.path.join(src, geo["projections"]["pattern"]))
    twin = {k: v for k, v in tiff_geo.items() if k not in ("flat", "dark")}
    twin["projections"] = {"layout": "nexus", "file": nxs}
    paths = {}
    for name, g in (("tiff", tiff_geo), ("twin", twin),
                    ("tiff0", dict(tiff_geo, detector_offset_u_mm=0.0))):
        paths[name] = os.path.join(tmp, name + ".json")
        with open(paths[name], "w") as fh:
            json.dump(g, fh)
    img = {}
    for name, p in (("tiff", paths["tiff"]), ("twin", paths["twin"]), ("tiff0", paths["tiff0"]), ("nxs", nxs)):
        out = os.path.join(tmp, name + ".tif")
        r = recon(p, out)
        check(r.returncode == 0, f"reconstruct {os.path.basename(p)}")
        img[name] = tifffile.imread(out) if r.returncode == 0 else None
    if img["tiff"] is None or img["twin"] is None or img["nxs"] is None or img["tiff0"] is None:
        return
    d = float(np.max(np.abs(img["twin"] - img["tiff"])))
    check(img["twin"].shape == img["tiff"].shape and d == 0.0,
          f"geometry.json naming the NXtomo == the TIFFs: max |diff| {d:.3g} (peak {img['tiff'].max():.4g})")
    d = float(np.max(np.abs(img["nxs"] - img["tiff0"])))
    check(img["nxs"].shape == img["tiff0"].shape and d <= 1e-6,
          f"reconstruct savu.nxs == the TIFFs with the axis at the centre: max |diff| {d:.3g} <= 1e-6")


def bad_part(tmp):
    f = np.ones((4, 3, 5), np.float32) * 100
    f[0] = 1000
    cases = [
        ("no-frames", dict(layout="none"), "no NXtomo frames"),
        ("rank2", dict(frames=np.ones((4, 15), np.float32)), "rank 3"),
        ("angles", dict(angles=[0, 1, 2]), "rotation_angle"),
        ("keys", dict(keys=[1, 0, 0]), "image_key"),
        ("no-proj", dict(keys=[1, 1, 2, 2]), "no projection"),
        ("key7", dict(keys=[1, 0, 7, 0]), "image_key of frame 2 is 7"),
        ("no-flat", dict(keys=[2, 0, 0, 0]), "no flat field"),
    ]
    for name, kw, expect in cases:
        p = os.path.join(tmp, name + ".nxs")
        write_nxtomo(p, kw.get("frames", f), kw.get("keys", [1, 0, 0, 0]), kw.get("angles", [0, 0, 90, 180]),
                     layout=kw.get("layout", "link"))
        bad(p, expect, name)
    import h5py

    p = os.path.join(tmp, "huge.nxs")
    with h5py.File(p, "w") as fh:  # declared, never written: a few bytes on disk
        fh.create_dataset("entry/data/data", shape=(100000, 100000, 100000), dtype="f4")
        fh["entry/sample/rotation_angle"] = np.zeros(100000)
    bad(p, "of memory", "10^15 voxels declared: refused before allocating")
    p = os.path.join(tmp, "strings.nxs")
    with h5py.File(p, "w") as fh:
        fh["entry/data/data"] = np.array([[["a", "b"]]] * 3, dtype="S1")
        fh["entry/sample/rotation_angle"] = [0.0, 1.0, 2.0]
    bad(p, "cannot read frame 0", "frames that are not numbers")
    p = os.path.join(tmp, "good.nxs")
    write_nxtomo(p, f, [1, 0, 0, 0], [0, 0, 90, 180])
    g = {"type": "parallel", "kind": "counts", "views": 4, "detector_cols": 5, "detector_rows": 3,
         "detector_pitch_u_mm": 1, "detector_pitch_v_mm": 1, "angles_rad": [0, 1, 2, 3],
         "projections": {"layout": "nexus", "file": p}}
    j = os.path.join(tmp, "views.json")
    with open(j, "w") as fh:
        json.dump(g, fh)
    bad(j, "holds 3 projections", "geometry.json with 4 views, the file 3")
    # the flats' median out of memory: an error, not an abort
    n = 1 << 18
    p = os.path.join(tmp, "flats.nxs")
    write_nxtomo(p, np.ones((n + 1, 1, 2), np.float32), [0] + [1] * n, np.zeros(n + 1))
    r = run("reconstruct", p, "--method", "fbp", "-o", p + ".out.tif", env=dict(os.environ, CTR_MEMORY_LIMIT_MB="0.5"))
    check(r.returncode == 1 and "the per-pixel median of 262144 flat frames need 1.0" in r.stderr
          and "CTR_MEMORY_LIMIT_MB" in r.stderr and not os.path.exists(p + ".out.tif"),
          f"2^18 flat frames in 0.5 MiB: exit {r.returncode}, “{r.stderr.strip()[-200:]}”")


with tempfile.TemporaryDirectory() as tmp:
    not_hdf5 = os.path.join(tmp, "text.nxs")
    with open(not_hdf5, "w") as fh:
        fh.write("this is not HDF5\n")
    if not HAVE_NEXUS:
        bad(not_hdf5, "no NeXus/HDF5 support", "a build without libhdf5 says so")
        if results["failed"]:
            finish()
        print("this build reads no NeXus: the rest is skipped")
        sys.exit(77)
    bad(not_hdf5, "is not an HDF5 file", "a .nxs that is not HDF5")
    try:
        import h5py  # noqa: F401
    except ImportError:
        print("no h5py (python3-h5py): skipping")
        sys.exit(77)
    bad_part(tmp)
    if DATA and os.path.isdir(DATA):
        savu_part(tmp)
    else:
        print(f"no shared data at '{DATA}': the savu comparison is skipped")
finish()
