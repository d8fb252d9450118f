"""Outputs never touch what is not theirs (issue 38, items 1, 2, 3, 5, 19,
22): every command that writes checks all its outputs before computing
against every input (the files a geometry names included), refuses a
folder it cannot write or that holds files not of ours, and commits its
outputs together, so a failed --metrics leaves the old image as it was."""
import hashlib
import os
import shutil
import stat
import sys
import tempfile

from common import check, finish, require_cli, run

require_cli()


def md5(path):
    return hashlib.md5(open(path, "rb").read()).hexdigest()


def hidden(folder):
    return sorted(f for f in os.listdir(folder) if f.startswith("."))


with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    r = run("simulate", "--phantom", "disc", "--geometry", "parallel", "--views", 30, "--cols", 48,
            "--size", 32, "--i0", 0, "--output", scan)
    check(r.returncode == 0, f"simulate a small scan: {r.stderr.strip()[-200:]}")
    geo = os.path.join(scan, "geometry.json")
    sino = os.path.join(scan, "sinogram.tif")
    ref = os.path.join(scan, "reference.tif")
    before = {f: md5(os.path.join(scan, f)) for f in os.listdir(scan)}

    # 3. project onto the geometry's own measured projections: refused, like reconstruct.
    r = run("project", geo, ref, "-o", sino)
    check(r.returncode == 1 and "input" in r.stderr and md5(sino) == before["sinogram.tif"],
          f"project -o the geometry's own sinogram is refused, the sinogram kept: exit {r.returncode}, "
          f"'{r.stderr.strip()[-160:]}'")
    r = run("project", geo, ref, "-o", os.path.join(tmp, "p.tif"))
    check(r.returncode == 0 and os.path.exists(os.path.join(tmp, "p.tif")), "project elsewhere still works")

    # 1. simulate into an existing dataset folder: refused, the dataset untouched.
    r = run("simulate", "--phantom", "head", "--views", 20, "--cols", 40, "--size", 16, "--output", scan + "/")
    after = {f: md5(os.path.join(scan, f)) for f in os.listdir(scan)}
    check(r.returncode == 1 and after == before,
          f"simulate into an existing dataset is refused and the folder unchanged: exit {r.returncode}, "
          f"'{r.stderr.strip()[-160:]}'")
    r = run("simulate", "--phantom", "disc", "--views", 20, "--cols", 40, "--size", 16,
            "--output", os.path.join(tmp, "new", "scan2"))
    check(r.returncode == 0 and sorted(os.listdir(os.path.join(tmp, "new", "scan2")))
          == ["geometry.json", "reference.tif", "sinogram.tif"] and hidden(os.path.join(tmp, "new")) == [],
          "simulate into a new folder writes the three files and leaves no temporary")

    # 5. --metrics that cannot be written: refused before computing, the old image kept.
    img = os.path.join(tmp, "img.tif")
    r = run("reconstruct", geo, "--size", 32, "-o", img)
    check(r.returncode == 0, "a first image")
    old = md5(img)
    r = run("reconstruct", geo, "--size", 32, "--method", "sirt", "--iterations", 3, "-o", img,
            "--metrics", os.path.join(tmp, "no-such-folder", "m.csv"))
    check(r.returncode == 1 and md5(img) == old and "iteration" not in r.stderr,
          f"an unwritable --metrics fails before the run and keeps the old image: exit {r.returncode}, "
          f"'{r.stderr.strip()[-160:]}'")
    # ... and a --metrics that becomes unwritable only at the end (a folder in its place).
    csv = os.path.join(tmp, "m.csv")
    r = run("reconstruct", geo, "--size", 32, "-o", img, "--metrics", csv)
    check(r.returncode == 0 and os.path.exists(csv) and hidden(tmp) == [], "image and metrics written together")

    # 5 and 19. a folder that cannot be written: said before the computation,
    # the image that --output names not replaced (the full-disk case, as
    # root, is in test_full_disk.py).
    if os.geteuid() != 0:
        rom = os.path.join(tmp, "ro-metrics")
        os.mkdir(rom)
        os.chmod(rom, stat.S_IRUSR | stat.S_IXUSR)
        kept = md5(img)
        r = run("reconstruct", geo, "--size", 32, "--method", "sirt", "--iterations", 3, "-o", img,
                "--metrics", os.path.join(rom, "m.csv"))
        check(r.returncode == 1 and md5(img) == kept and "iteration" not in r.stderr,
              f"--metrics in a read-only folder: refused before the run, the image kept: '{r.stderr.strip()[-160:]}'")
        os.chmod(rom, stat.S_IRWXU)
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro)
        os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
        r = run("reconstruct", geo, "--size", 32, "--method", "sirt", "--iterations", 3,
                "-o", os.path.join(ro, "x.tif"))
        check(r.returncode == 1 and "iteration" not in r.stderr and "ermission denied" in r.stderr,
              f"a read-only output folder is refused before the run: '{r.stderr.strip()[-160:]}'")
        os.chmod(ro, stat.S_IRWXU)
    else:
        print("ok   (root: a read-only folder is writable; checked with a non-empty DICOM folder instead)")
    busy = os.path.join(tmp, "busy")
    os.mkdir(busy)
    open(os.path.join(busy, "notes.txt"), "w").write("mine\n")
    r = run("reconstruct", geo, "--size", 32, "--method", "sirt", "--iterations", 3, "--format", "dicom",
            "-o", busy)
    check(r.returncode == 1 and "iteration" not in r.stderr and "notes.txt" in r.stderr
          and os.listdir(busy) == ["notes.txt"],
          f"a DICOM folder holding other files is refused before the run: '{r.stderr.strip()[-160:]}'")

    # 2. another series' CT000001.dcm (ours by name, not by content) is never deleted.
    series = os.path.join(tmp, "series")
    r = run("reconstruct", geo, "--size", 32, "--format", "dicom", "-o", series)
    check(r.returncode == 0 and os.listdir(series) == ["CT0001.dcm"], "a series of ours")
    other = os.path.join(tmp, "other")
    os.mkdir(other)
    shutil.copy(os.path.join(series, "CT0001.dcm"), os.path.join(other, "CT000001.dcm"))
    # Another program's file: the same name pattern, not our content.
    with open(os.path.join(other, "CT000002.dcm"), "wb") as f:
        f.write(b"\0" * 128 + b"DICM" + b"\x02\x00\x10\x00UI\x04\x001.2\0")
    theirs = {f: md5(os.path.join(other, f)) for f in os.listdir(other)}
    r = run("reconstruct", geo, "--size", 32, "--format", "dicom", "-o", other)
    check(r.returncode == 1 and {f: md5(os.path.join(other, f)) for f in os.listdir(other)} == theirs,
          f"a folder with another series' CT000002.dcm is refused, nothing deleted: exit {r.returncode}")
    r = run("reconstruct", geo, "--size", 32, "--format", "dicom", "-o", series)
    check(r.returncode == 0 and os.listdir(series) == ["CT0001.dcm"] and hidden(tmp) == [],
          "our own series is still replaced")

    # 22. -o x.dcm without --format dicom would hold a TIFF: refused.
    r = run("reconstruct", geo, "--size", 32, "-o", os.path.join(tmp, "x.dcm"))
    check(r.returncode == 2 and not os.path.exists(os.path.join(tmp, "x.dcm")) and "--format dicom" in r.stderr,
          f"-o x.dcm without --format dicom is refused: exit {r.returncode}")
    r = run("reconstruct", geo, "--size", 32, "--format", "dicom", "-o", os.path.join(tmp, "y.tif"))
    check(r.returncode == 2 and not os.path.exists(os.path.join(tmp, "y.tif")),
          f"--format dicom -o y.tif is refused: exit {r.returncode}")

finish()
