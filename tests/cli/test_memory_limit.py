"""ctrecon-cli under the memory bounds the kernel enforces (issue 38 item
16, issue 36 item 1): the plan estimates the stored matrix, the image, the
data and the work vectors before anything is built and refuses a run that
does not fit, naming both figures and the bound; no abort inside the
allocator (GLib's "failed to allocate", exit 133) and no OOM kill.

  1. an address-space limit (ulimit -v, RLIMIT_AS) too small for the SCSR
     matrix of a 1024² PART run: exit 1, "need … of memory; … available
     (address-space limit, ulimit -v)";
  2. the same under a cgroup v1 memory limit made for the test (skipped
     where none can be made: no cgroup v1 memory controller or no right to
     make a group);
  3. a run that fits states its estimate in the plan's notes;
  4. --dry-run prints the estimate and the automatic matrix choice (on the
     fly under a 400 MiB limit) and refuses a named matrix that does not fit;
  5. `--version` under limits about the program's start never ends by a
     signal; metrics of 2048² images with 140 MiB of address space beyond the
     program's start: computed (SSIM a band of rows at a time, ~4 MiB;
     until stop 41 its whole planes, 160 MiB, were refused here), and with
     8 MiB beyond it the image that does not fit is refused with its size,
     exit 1, one line;
  6. a helical scan without rebinning (the cone-beam pair on a slab;
     ../shared/data/head-helical-ctpd, skipped without it): --dry-run
     states the slab's estimate and what is held beside it, refuses it
     under a limit below the estimate, and the run itself is refused under
     that limit before anything is built.
Before the change, 1 aborted inside GLib while the matrix was built and 2
was killed by the kernel; 5 aborted inside GLib (SIGTRAP); 6's dry run
said only "estimated when the helical route makes its slab", exit 0, and
the run went ahead under any limit.
"""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

from common import CLI, check, finish, require_cli, run

require_cli()
SANITIZED = os.environ.get("CTR_SANITIZED") == "1"
NEED = re.compile(r"need (\d+(?:\.\d+)?)\s(\w+) of memory; (\d+(?:\.\d+)?)\s(\w+) available \(([^)]*)\)")


def as_limit(mib):
    def f():
        lim = mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    return f


def refused(r, bound, what, dt):
    """Exit 1 (not a signal), both figures and @bound in the message."""
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    m = NEED.search(r.stderr)
    ok = (r.returncode == 1 and m is not None and bound in m.group(5))
    check(ok, f"{what}: exit {r.returncode} in {dt:.1f} s, '{last[:200]}'")
    check(0 <= r.returncode < 128, f"{what}: no crash or signal (exit {r.returncode})")
    return m


def own_v1_memory_group():
    """The folder of this process's cgroup v1 memory group, or None."""
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3 and "memory" in parts[1].split(","):
                    d = "/sys/fs/cgroup/memory" + parts[2].rstrip("/")
                    return d if os.path.isdir(d) else "/sys/fs/cgroup/memory"
    except OSError:
        pass
    return None


with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    r = run("simulate", "--phantom", "disc", "--geometry", "fan-flat", "--views", 720, "--cols", 1024,
            "--size", 64, "--i0", 0, "--output", scan, timeout=300)
    if not check(r.returncode == 0, "simulate a 720-view fan scan"):
        finish()
    geo = os.path.join(scan, "geometry.json")
    env = dict(os.environ, CTR_CACHE_DIR=os.path.join(tmp, "cache"))
    env.pop("CTR_MEMORY_LIMIT_MB", None)
    big = ["reconstruct", geo, "--method", "part", "--matrix", "scsr", "--iterations", "1", "--size", "1024",
           "-o", os.path.join(tmp, "big.tif")]

    # 1. ulimit -v: 900 MiB of address space, about a third of it reserved
    # by the libraries before main(); the 1024² SCSR matrix is ~1.1 GiB.
    if SANITIZED:
        print("skip the address-space limit: ASan reserves terabytes of it")
    else:
        t0 = time.monotonic()
        r = run(*big, timeout=300, env=env, preexec_fn=as_limit(900))
        refused(r, "address-space limit", "1024² PART under ulimit -v 900 MiB", time.monotonic() - t0)
        check("failed to allocate" not in r.stderr, "no abort inside GLib's allocator")

    # 2. A cgroup v1 memory group of 600 MiB made for the test.
    group = own_v1_memory_group()
    made = None
    if group is not None:
        cand = os.path.join(group, f"ctrecon-test-{os.getpid()}")
        try:
            os.mkdir(cand)
            with open(os.path.join(cand, "memory.limit_in_bytes"), "w") as f:
                f.write(str(600 << 20))
            made = cand
        except OSError as e:
            print(f"skip the cgroup v1 limit: cannot make a group under {group} ({e.strerror})")
            try:
                os.rmdir(cand)
            except OSError:
                pass
    else:
        print("skip the cgroup v1 limit: no cgroup v1 memory controller")
    if made is not None:
        def join():
            with open(os.path.join(made, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        try:
            t0 = time.monotonic()
            r = run(*big, timeout=300, env=env, preexec_fn=join)
            refused(r, "cgroup v1 limit", "1024² PART in a 600 MiB cgroup v1", time.monotonic() - t0)
        finally:
            for _ in range(50):
                try:
                    os.rmdir(made)
                    break
                except OSError:
                    time.sleep(0.1)

    # 3. A run that fits: the note states the estimate and the bound.
    r = run("reconstruct", geo, "--method", "part", "--iterations", "1", "--size", "128",
            "-o", os.path.join(tmp, "small.tif"), timeout=300, env=env)
    notes = [l for l in r.stderr.splitlines() + r.stdout.splitlines() if "memory: " in l]
    check(r.returncode == 0 and any("estimated (SCSR matrix" in l and "available (" in l for l in notes),
          f"a 128² run states its memory estimate: {notes[:1]}")

    # 4. --dry-run states the estimate and the automatic choice without
    # building anything, and refuses a named matrix that does not fit.
    lim = dict(env, CTR_MEMORY_LIMIT_MB="400")
    dry = ["reconstruct", geo, "--method", "part", "--iterations", "1", "--size", "1024", "--dry-run"]
    r = run(*dry, timeout=120, env=lim)
    out = r.stderr + r.stdout
    check(r.returncode == 0 and "matrix: auto computes the rows on the fly: with the SCSR matrix the run would need"
          in out and "memory: " in out, f"dry run of 1024² PART in 400 MiB: on the fly, said ({out.strip()[-300:]})")
    r = run(*dry, "--matrix", "scsr", timeout=120, env=lim)
    refused(r, "CTR_MEMORY_LIMIT_MB", "dry run of 1024² PART on SCSR in 400 MiB", 0)
    r = run(*dry, timeout=120, env=env)
    check(r.returncode == 0 and "matrix: auto chose the stored SCSR matrix" in r.stderr + r.stdout,
          "dry run of 1024² PART without a limit: the stored matrix")

    # 5. metrics of a 2048² image with 140 MiB of address space beyond what
    # the program needs to start (a CUDA build maps its libraries: ~630 MiB
    # against ~150 without): the two images (32 MiB), a thread's malloc
    # arena (64 MiB of address space) and SSIM's band (~4 MiB) fit, so the
    # metrics are computed (until stop 41 SSIM's whole planes, 160 MiB, were
    # refused here).  With 8 MiB beyond the start the first image (16 MiB)
    # does not fit: one line naming it, exit 1 (before stop 18: GLib's
    # "failed to allocate", SIGTRAP).
    small = os.path.join(tmp, "small2048")
    r = run("simulate", "--phantom", "disc", "--views", 8, "--cols", 32, "--size", 2048, "--i0", 0,
            "--output", small, timeout=300)
    ref = os.path.join(small, "reference.tif")
    if check(r.returncode == 0, "simulate a 2048² reference") and not SANITIZED:
        lo, hi = 16, 16384   # the smallest limit (MiB) under which `--version` starts
        while hi - lo > 8:
            mid = (lo + hi) // 2
            if subprocess.run([CLI, "--version"], capture_output=True, preexec_fn=as_limit(mid)).returncode == 0:
                hi = mid
            else:
                lo = mid
        print(f"     the program starts in {hi} MiB of address space")
        # Just below and above that start no limit may end the program by a
        # signal: the signal thread's stack did not fit between ~96 and ~103
        # MiB and g_thread_new aborted (SIGTRAP); the loader's refusal (127)
        # or a clean start are both fine.
        ends = {m: subprocess.run([CLI, "--version"], capture_output=True, preexec_fn=as_limit(m)).returncode
                for m in range(max(16, hi - 16), hi + 16, 2)}
        check(all(rc >= 0 for rc in ends.values()),
              f"--version under {min(ends)}-{max(ends)} MiB never ends by a signal: {ends}")
        r = run("metrics", ref, ref, timeout=120, env=env, preexec_fn=as_limit(hi + 140))
        check(r.returncode == 0 and '"ssim"' in r.stdout,
              f"metrics of 2048² in {hi + 140} MiB: exit {r.returncode}, '{r.stderr.strip()[-200:]}'")
        r = run("metrics", ref, ref, timeout=120, env=env, preexec_fn=as_limit(hi + 8))
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 1 and len(lines) == 1 and re.search(r"16\.0\sMiB", r.stderr) is not None
              and "address-space limit" in r.stderr,
              f"metrics of 2048² in {hi + 8} MiB refused: exit {r.returncode}, '{r.stderr.strip()[-200:]}'")

# 6. The helical slab (rebin none): estimated by the dry run and checked by
# the run before the volume, the views' data and the pair are allocated.
H = os.path.join(os.environ.get("CTR_SHARED_DATA", ""), "head-helical-ctpd", "geometry.json")
if not os.path.exists(H):
    print("skip the helical slab: ../shared/data/head-helical-ctpd is absent")
else:
    with tempfile.TemporaryDirectory() as tmp:
        slab = ["reconstruct", H, "--method", "sart", "--rebin", "none", "--iterations", "1", "--z-range", "78:84:1.5"]
        r = run(*slab, "--dry-run", timeout=120)
        est = re.search(r"memory: ([\d.]+)\s(\w+) estimated \(image [^,]+, data [^,]+, (?:[^,]+, )*work vectors",
                        r.stderr)
        gh = json.load(open(H))
        raw = f"{gh['views'] * gh['detector_rows'] * gh['detector_cols'] * 4 / 2 ** 20:.1f}\u00a0MiB"  # GLib puts a no-break space before the unit
        check(r.returncode == 0 and est is not None
              and f"the helical projections ({raw}) and the slab's ray masks" in r.stderr,
              f"helical slab, dry run: the slab's estimate and what is held beside it "
              f"({r.stderr.strip()[-300:]})")
        if est is not None:
            need = float(est.group(1)) * {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024}[est.group(2)]
            lim = dict(os.environ, CTR_MEMORY_LIMIT_MB=str(int(need * 0.6)))
            r = run(*slab, "--dry-run", timeout=120, env=lim)
            refused(r, "CTR_MEMORY_LIMIT_MB", f"helical slab, dry run in {int(need * 0.6)} MiB", 0)
            out = os.path.join(tmp, "slab.tif")
            t0 = time.monotonic()
            r = run(*slab, "-o", out, timeout=300, env=lim)
            refused(r, "CTR_MEMORY_LIMIT_MB", f"helical slab, the run in {int(need * 0.6)} MiB",
                    time.monotonic() - t0)
            check(not os.path.exists(out), "helical slab refused: no output written")

finish()
