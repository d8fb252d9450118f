"""ctrecon-cli against hostile and careless input (issue 14): nothing lost,
nothing hangs, nothing silently wrong.  Needs no ../shared/data.

Each section is one defect found by probing the CLI as an attacker and a
careless user would; each check failed before its fix:
  1. outputs that resolve to an input (symlinks and hard links followed) or
     to an existing non-regular file are refused, the inputs untouched;
     inputs that are FIFOs fail at once instead of blocking;
  3. DICOM InstanceNumbers: absurd numbers and gaps are refused at once (no
     hang), a small gap is a visible warning;
  4. sizes from a file are checked against the machine's memory before
     anything is allocated (a clear message with the figure, no abort);
  5. implausible but finite geometry is refused;
  6. the default grid never overflows, no SSIM above 1 is printed;
  8. the matrix cache: a FIFO in its place does not block a run, orphaned
     temporaries of ours are removed and nothing else (a user's look-alike,
     another namespace's or a locked temporary stays), SIGTERM cancels like
     Ctrl-C.
(2, the DICOM export on a full disk, is tests/cli/test_full_disk.py; 7, the
leak in bench art, is caught by the sanitizer build of the whole suite.)
"""
import hashlib
import fcntl
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

from common import CLI, check, finish, require_cli, run

require_cli()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import ctpd
except ImportError:  # pydicom missing
    ctpd = None

# Under the sanitizers (packaging/run-sanitizers.sh) an address-space limit
# would stop ASan before main(); the checks below must then hold without it.
SANITIZED = os.environ.get("CTR_SANITIZED") == "1"


def md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def last_line(text):
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def limited(gib):
    """preexec_fn: cap the address space so that a regression cannot take
    the shared machine's memory (the old code tried to allocate 16 GiB)."""
    def f():
        if not SANITIZED:
            lim = gib << 30
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    return f


def refused(args, needle, what, timeout=60, **kw):
    """The run must fail with exit 1 (not a signal, not a hang) and a message
    containing @needle."""
    t0 = time.monotonic()
    try:
        r = run(*args, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        check(False, f"{what}: still running after {timeout} s")
        return None
    dt = time.monotonic() - t0
    ok = r.returncode == 1 and needle.lower() in r.stderr.lower()
    check(ok, f"{what}: exit {r.returncode} in {dt:.1f} s, '{last_line(r.stderr)[:160]}'")
    return r


with tempfile.TemporaryDirectory() as tmp:
    def path(*p):
        return os.path.join(tmp, *p)

    env_cache = dict(os.environ, CTR_CACHE_DIR=path("cache"))
    r = run("simulate", "--phantom", "head", "--views", 120, "--cols", 160, "--size", 64,
            "--i0", 0, "--output", path("scan"))
    if not check(r.returncode == 0, "simulate a small fan-beam scan"):
        finish()
    geo = path("scan", "geometry.json")
    sino = path("scan", "sinogram.tif")
    ref = path("scan", "reference.tif")

    # ------------------------------------------------------------------ 1 --
    # On a copy: a regression here destroys the copy, not the later sections' scan.
    shutil.copytree(path("scan"), path("scan1"))
    geo, sino, ref = (path("scan1", f) for f in ("geometry.json", "sinogram.tif", "reference.tif"))
    before = {p: md5(p) for p in (geo, sino, ref)}
    refused(["reconstruct", geo, "--output", sino], "input", "--output is the input sinogram")
    os.symlink(sino, path("link.tif"))
    refused(["reconstruct", geo, "--output", path("link.tif")], "input",
            "--output is a symlink to the input sinogram")
    os.link(ref, path("hard.tif"))
    refused(["reconstruct", geo, "--output", path("hard.tif")], "input",
            "--output is a hard link to the dataset's reference")
    refused(["reconstruct", geo, "--output", path("o.tif"), "--metrics", geo], "input",
            "--metrics is the geometry.json")
    refused(["reconstruct", geo, "--output", path("same.tif"), "--metrics", path("same.tif")],
            "another output", "--metrics and --output are the same file")
    refused(["reconstruct", geo, "--reference", ref, "--output", ref], "input",
            "--output is the --reference")
    check(all(md5(p) == h for p, h in before.items()), "the dataset's files are untouched")
    check(not os.path.exists(path("o.tif")) and not os.path.exists(path("same.tif")),
          "a refused run writes nothing")
    os.mkfifo(path("fifo.tif"))
    refused(["reconstruct", geo, "--output", path("fifo.tif")], "not a regular file",
            "--output is an existing FIFO", timeout=30)
    check(stat.S_ISFIFO(os.lstat(path("fifo.tif")).st_mode), "the FIFO is still a FIFO")
    if os.geteuid() == 0:
        # A copy of /dev/full's device node (char 1:7), never the real one.
        os.mknod(path("full"), stat.S_IFCHR | 0o666, os.makedev(1, 7))
        refused(["reconstruct", geo, "--output", path("full")], "not a regular file",
                "--output is a character device (like /dev/full)")
        check(stat.S_ISCHR(os.lstat(path("full")).st_mode), "the device node is still a device node")
    else:
        print("skip --output on a device node (needs root for mknod)")
    os.mkdir(path("sim2"))
    os.mkfifo(path("sim2", "sinogram.tif"))
    refused(["simulate", "--views", 16, "--cols", 32, "--size", 16, "--output", path("sim2")],
            "not empty", "simulate into a folder whose sinogram.tif is a FIFO", timeout=30)
    check(stat.S_ISFIFO(os.lstat(path("sim2", "sinogram.tif")).st_mode), "the FIFO is still a FIFO")

    if ctpd is not None:
        ctpd.write_series(path("pd"), [str(i + 1) for i in range(8)])
        pd_before = {f: md5(path("pd", f)) for f in os.listdir(path("pd"))}
        refused(["reconstruct", path("pd"), "--format", "dicom", "--output", path("pd")], "input",
                "--format dicom into the folder of the DICOM input")
        r = run("reconstruct", path("pd"), "--output", path("pd", "view_0003.dcm"), timeout=60)
        check(r.returncode == 2 and "--format dicom" in r.stderr,
              f"--output is one of the DICOM input files (a .dcm name for a TIFF): exit {r.returncode}")
        os.link(path("pd", "view_0003.dcm"), path("view3.tif"))
        refused(["reconstruct", path("pd"), "--output", path("view3.tif")], "input",
                "--output is a hard link to one of the DICOM input files")
        check({f: md5(path("pd", f)) for f in os.listdir(path("pd"))} == pd_before,
              "the DICOM input folder is untouched")
    geo, sino, ref = (path("scan", f) for f in ("geometry.json", "sinogram.tif", "reference.tif"))

    # Inputs that are FIFOs: an error at once, not a run that waits forever
    # for a writer (the geometry.json itself, and a sinogram it names).
    os.mkfifo(path("fifo.json"))
    refused(["reconstruct", path("fifo.json"), "--output", path("x.tif")], "not a regular file",
            "the geometry.json is a FIFO", timeout=30)
    os.mkfifo(path("fifo-sino.tif"))
    with open(path("scan", "geometry.json")) as f:
        gj = json.load(f)
    gj["projections"]["file"] = path("fifo-sino.tif")
    gj.pop("reference", None)
    with open(path("fifo-sino.json"), "w") as f:
        json.dump(gj, f)
    refused(["reconstruct", path("fifo-sino.json"), "--output", path("x.tif")], "not a regular file",
            "the sinogram named by the geometry.json is a FIFO", timeout=30)

    # ------------------------------------------------------------------ 3 --
    if ctpd is not None:
        ctpd.write_series(path("gap-huge"), ["1", "9000000000000000000"], views_per_turn=4)
        refused(["reconstruct", path("gap-huge"), "--output", path("g.tif")], "InstanceNumber",
                "InstanceNumbers 1 and 9e18", timeout=20)
        ctpd.write_series(path("gap-is"), ["1", "2147483648"], views_per_turn=4)
        refused(["reconstruct", path("gap-is"), "--output", path("g.tif")], "InstanceNumber",
                "InstanceNumber 2^31 (beyond the IS range)", timeout=20)
        ctpd.write_series(path("gap-span"), ["1", "2147483647"], views_per_turn=4)
        refused(["reconstruct", path("gap-span"), "--output", path("g.tif")], "missing",
                "InstanceNumbers 1 and 2^31 - 1 (a gap of 2^31 - 3 views)", timeout=20)
        ctpd.write_series(path("gap-small"), ["1", "2", "4", "5", "6", "7", "8", "9"])
        r = run("reconstruct", path("gap-small"), "--output", path("g.tif"), timeout=60)
        warn = [l for l in r.stderr.splitlines() if "warning" in l.lower() and "missing" in l.lower()]
        check(r.returncode == 0 and len(warn) == 1 and "3" in warn[0],
              f"one missing view: reconstructs with a visible warning ('{warn[0] if warn else ''}')")
    else:
        print("skip the DICOM cases: pydicom is not installed")

    # ------------------------------------------------------------------ 4 --
    g = json.load(open(geo))
    g["projections"]["file"] = sino
    g["reference"]["file"] = ref

    def variant(name, **changes):
        v = json.loads(json.dumps(g))
        for k, val in changes.items():
            if val is None:
                v.pop(k, None)
            else:
                v[k] = val
        p = path(name + ".json")
        with open(p, "w") as f:
            json.dump(v, f)
        return p

    for views in (1e9, 2147483647):
        j = variant(f"views-{views:g}", views=views, angles_rad=None, angle_start_rad=0,
                    angle_step_rad=1e-6)
        r = refused(["reconstruct", j, "--output", path("v.tif")], "memory",
                    f"\"views\": {views:g} refused before allocating", timeout=20,
                    preexec_fn=limited(4))
        if r is not None:
            check("GiB" in r.stderr or "TiB" in r.stderr or "PiB" in r.stderr,
                  "  the message states the memory needed and the machine's")

    # ------------------------------------------------------------------ 5 --
    flat = dict(detector_shape="flat", detector_pitch_u_rad=None, detector_offset_u_rad=None,
                detector_pitch_u_mm=0.8, detector_offset_u_mm=0.0)
    refused(["reconstruct", variant("sdd", source_to_detector_mm=1e300, **flat), "--output", path("p.tif")],
            "source to detector", "SDD 1e300 mm (flat detector)")
    refused(["reconstruct", variant("pitch", **dict(flat, detector_pitch_u_mm=1e-300)), "--output", path("p.tif")],
            "pitch", "detector pitch 1e-300 mm")
    angles = list(g["angles_rad"])
    angles[7] = 1e300
    refused(["reconstruct", variant("angle", angles_rad=angles), "--output", path("p.tif")],
            "angle", "one angle of 1e300 rad")
    refused(["reconstruct", variant("step0", angles_rad=None, angle_start_rad=0.3, angle_step_rad=0),
             "--output", path("p.tif")], "angle", "angle_step_rad 0 (every view at one angle)")
    check(not os.path.exists(path("p.tif")), "no image written for an implausible geometry")

    # ------------------------------------------------------------------ 6 --
    r = refused(["reconstruct", geo, "--pixel-size", 8.6e-9, "--output", path("px.tif")], "pixel",
                "--pixel-size 8.6e-9 mm (an image of 2.6e10 pixels across)")
    if r is not None:
        # Not a size that wrapped round (the old code printed 198 × 198 or
        # 4106558869 × 4106558869, depending on the compiler).
        check("more than 4294967295" in last_line(r.stderr) and "SSIM" not in r.stderr
              and not os.path.exists(path("px.tif")),
              "  the message says how large; no metrics printed, no image written")
    refused(["reconstruct", geo, "--pixel-size", 1e-4, "--output", path("px.tif")], "pixel",
            "--pixel-size 1e-4 mm (2.2 million pixels across)")
    # A grid that sees only a constant part of the reference (the centre of
    # a uniform disc): SSIM and PSNR are undefined (data range 0); say so
    # instead of printing numbers.
    run("simulate", "--phantom", "disc", "--views", 120, "--cols", 160, "--size", 64, "--i0", 0,
        "--output", path("disc"))
    r = run("reconstruct", path("disc", "geometry.json"), "--size", 32, "--pixel-size", 0.01,
            "--output", path("tiny.tif"))
    ssims = [float(m) for m in re.findall(r"SSIM (-?[0-9.]+)", r.stderr)]
    check(r.returncode == 1 and "constant" in r.stderr and all(s <= 1 for s in ssims),
          f"a grid inside a constant part of the reference: exit {r.returncode}, "
          f"'{last_line(r.stderr)[:150]}'")

    # ------------------------------------------------------------------ 8 --
    r = run("reconstruct", geo, "--method", "part", "--iterations", 1, "--output", path("c.tif"),
            env=env_cache)
    scsr = [f for f in os.listdir(path("cache"))] if os.path.isdir(path("cache")) else []
    if check(r.returncode == 0 and len(scsr) == 1 and scsr[0].endswith(".scsr"),
             f"parallel ART fills the matrix cache ({scsr})"):
        cached = path("cache", scsr[0])
        os.unlink(cached)
        os.mkfifo(cached)
        try:
            r = run("reconstruct", geo, "--method", "part", "--iterations", 1, "--output", path("c.tif"),
                    env=env_cache, timeout=60)
            check(r.returncode == 0, f"a FIFO in place of the cache file does not block the run "
                                     f"(exit {r.returncode}, '{last_line(r.stderr)[:100]}')")
        except subprocess.TimeoutExpired:
            check(False, "a FIFO in place of the cache file blocks the run (60 s)")
        if stat.S_ISFIFO(os.lstat(cached).st_mode):
            os.unlink(cached)
        # The clean-up removes only orphans that are provably ours: our exact
        # temporary name, our magic, no writer holding its lock.
        key = scsr[0][:-len(".scsr")]
        old = time.time() - 2 * 86400
        orphan = path("cache", f".{key}.scsr.tmp-Ab12Cd")
        kept = {
            "a user's file": path("cache", "head.scsr.backup"),
            "an unhidden look-alike": path("cache", scsr[0] + ".Xy12Zq"),
            "another PID namespace's temporary": path("cache", f".{key}.scsr.4000000.Ab12Cd"),
            "a temporary without our magic": path("cache", f".{key}.scsr.tmp-Zz99Yy"),
            "a temporary whose writer holds its lock": path("cache", f".{key}.scsr.tmp-Qw34Er"),
        }
        for p in [orphan, *kept.values()]:
            with open(p, "wb") as f:
                f.write(b"half a matrix" if p.endswith("Zz99Yy") else b"CTRSCSR\0half a matrix")
            os.utime(p, (old, old))
        live = open(kept["a temporary whose writer holds its lock"], "rb")
        fcntl.flock(live, fcntl.LOCK_EX)
        r = run("reconstruct", geo, "--method", "part", "--iterations", 1, "--output", path("c.tif"),
                env=env_cache)
        live.close()
        gone = [w for w, p in kept.items() if not os.path.exists(p)]
        check(r.returncode == 0 and not os.path.exists(orphan) and not gone,
              f"the cache clean-up removes an orphaned temporary of ours "
              f"({'removed' if not os.path.exists(orphan) else 'kept'}) and nothing else (removed: {gone})")
        for p in kept.values():
            if os.path.exists(p):
                os.unlink(p)

    # SIGTERM cancels between views like Ctrl-C: exit 130, "cancelled", output untouched.
    out = path("term.tif")
    with open(out, "wb") as f:
        f.write(b"precious")
    p = subprocess.Popen([CLI, "reconstruct", geo, "--method", "art", "--iterations", "100000",
                          "--output", out], stderr=subprocess.PIPE, text=True, env=env_cache)
    time.sleep(2.0)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        err = ""
    temps = [f for f in os.listdir(path("cache")) if not f.endswith(".scsr")] if os.path.isdir(path("cache")) else []
    check(p.returncode == 130 and "cancelled" in err and open(out, "rb").read() == b"precious" and not temps,
          f"SIGTERM cancels the run (exit {p.returncode}), output untouched, no temporary left ({temps})")

finish()
