"""A DICOM series exported onto a full disk (issue 14, defect 2): the export
fails with "no space left on device" in those words, exit 1, and the series
already in the folder stays as it was, every file byte for byte; no
temporary folder is left behind.  (Before: one slice truncated and
unreadable, slices from the new series mixed with the old, and "I/O
suspension or premature end of stream".)

Needs a small tmpfs, so root (exit 77 otherwise, or where mounting is not
allowed)."""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import tifffile

from common import check, finish, require_cli, run

require_cli()
if os.geteuid() != 0:
    print("not root: cannot mount a small tmpfs; skipping")
    sys.exit(77)


def md5s(folder):
    return {f: hashlib.md5(open(os.path.join(folder, f), "rb").read()).hexdigest()
            for f in sorted(os.listdir(folder))}


with tempfile.TemporaryDirectory() as tmp:
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "ctrecon-full-disk", mnt],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"cannot mount a tmpfs ({r.stderr.strip()}); skipping")
        sys.exit(77)
    try:
        # A fan-beam scan of 48 detector rows (48 slices of 64 x 64: about
        # 9 KiB a DICOM file, 450 KiB a series; of 80 x 80: 13 KiB, 620 KiB).
        r = run("simulate", "--phantom", "head", "--views", 90, "--cols", 96, "--size", 64,
                "--i0", 0, "--output", os.path.join(tmp, "scan"))
        check(r.returncode == 0, "simulate a scan")
        sino = tifffile.imread(os.path.join(tmp, "scan", "sinogram.tif")).astype(np.float32)
        tifffile.imwrite(os.path.join(tmp, "scan", "rows.tif"), np.stack([sino] * 48))
        g = json.load(open(os.path.join(tmp, "scan", "geometry.json")))
        g["detector_rows"] = 48
        g["projections"]["file"] = "rows.tif"
        del g["reference"]
        geo = os.path.join(tmp, "scan", "rows.json")
        json.dump(g, open(geo, "w"))

        series = os.path.join(mnt, "series")
        r = run("reconstruct", geo, "--size", 64, "--format", "dicom", "--output", series)
        ok = check(r.returncode == 0 and len(os.listdir(series)) == 48,
                   f"the first series fits: {len(os.listdir(series)) if os.path.isdir(series) else 0} files")
        if ok:
            before = md5s(series)
            # Leave about 200 KiB: a third of a series.
            st = os.statvfs(mnt)
            free = st.f_bavail * st.f_frsize
            with open(os.path.join(mnt, "filler"), "wb") as f:
                f.write(b"\0" * max(0, free - 200 * 1024))
            # A larger image: each new file needs more room than the old one it
            # replaces, as in the report (the old per-file replacement then
            # failed part way and left a series mixing new and old slices).
            r = run("reconstruct", geo, "--size", 80, "--method", "sirt", "--iterations", 2,
                    "--format", "dicom", "--output", series)
            last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
            check(r.returncode == 1 and "no space left on device" in r.stderr.lower(),
                  f"the second series on a full disk: exit {r.returncode}, '{last[:200]}'")
            check(md5s(series) == before,
                  "the first series is as it was, every file byte for byte")
            check(sorted(os.listdir(mnt)) == ["filler", "series"],
                  f"no temporary left on the disk ({sorted(os.listdir(mnt))})")
            # With room again (the old and the new series side by side until the
            # swap), the new series replaces the old one as a whole.
            os.unlink(os.path.join(mnt, "filler"))
            r = run("reconstruct", geo, "--size", 80, "--method", "sirt", "--iterations", 2,
                    "--format", "dicom", "--output", series)
            after = md5s(series) if os.path.isdir(series) else {}
            check(r.returncode == 0 and len(after) == 48 and not set(after.values()) & set(before.values())
                  and sorted(os.listdir(mnt)) == ["series"],
                  "with room, the new series replaces the old one whole")

        # Issue 38, item 21: a TIFF onto a full disk says so, and where.
        with open(os.path.join(mnt, "filler"), "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError:
                pass
        img = os.path.join(mnt, "img.tif")
        r = run("reconstruct", geo, "--size", 64, "--output", img)
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
        check(r.returncode == 1 and "no space left on device" in last.lower() and mnt in last,
              f"a TIFF on a full disk: exit {r.returncode}, '{last[:200]}'")
        check(sorted(os.listdir(mnt)) == ["filler", "series"], f"no temporary left ({sorted(os.listdir(mnt))})")

        # Item 5: --metrics on the full disk: the run fails, and the image it
        # would have replaced (on another disk) is as it was.
        keep = os.path.join(tmp, "keep.tif")
        r = run("reconstruct", geo, "--size", 64, "--output", keep)
        old = hashlib.md5(open(keep, "rb").read()).hexdigest()
        r = run("reconstruct", geo, "--size", 64, "--method", "sirt", "--iterations", 2, "--output", keep,
                "--metrics", os.path.join(mnt, "m.csv"))
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
        check(r.returncode == 1 and hashlib.md5(open(keep, "rb").read()).hexdigest() == old
              and "no space left on device" in last.lower(),
              f"--metrics on a full disk fails and the image is not replaced: exit {r.returncode}, '{last[:160]}'")
        check(not [f for f in os.listdir(tmp) if f.startswith(".")] and sorted(os.listdir(mnt)) == ["filler", "series"],
              "no temporary left beside the image or the metrics")
    finally:
        subprocess.run(["umount", mnt])

# Item 19: a read-only folder is said before the run, not after its iterations.
with tempfile.TemporaryDirectory() as tmp:
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "ctrecon-read-only", ro],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"cannot mount a read-only tmpfs ({r.stderr.strip()}); skipping that part")
    else:
        try:
            scan = os.path.join(tmp, "scan")
            run("simulate", "--phantom", "disc", "--views", 30, "--cols", 48, "--size", 32, "--i0", 0,
                "--output", scan)
            r = run("reconstruct", os.path.join(scan, "geometry.json"), "--size", 32, "--method", "sirt",
                    "--iterations", 3, "--output", os.path.join(ro, "x.tif"))
            last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
            check(r.returncode == 1 and "read-only file system" in last.lower() and "iteration" not in r.stderr,
                  f"a read-only output folder is refused before the run: '{last[:160]}'")
        finally:
            subprocess.run(["umount", ro])

finish()
