"""ctrecon-cli when a small buffer beside the data cannot be had (issue 38
item 16): FBP's filter rows, one padded row and spectrum a thread, are the
last allocation of a reconstruction of 16 views × 65536 columns; under an
address-space limit that holds everything else (found with one thread) but
not sixteen threads' rows (16 MiB), the run ends with exit 1 and one line
naming the rows, the size and the bound.  Before the change the threads died
in the filter's g_error ("ramp filter: failed to allocate", SIGTRAP).

The calibration's per-view tables: `calibrate` of 2^18 views × 8 columns (fan
beam, conjugate rays) holds the data, one row's sinogram and then the views'
order and angles by angle (7 MiB); under limits 2 to 12 MiB below the
smallest that lets it reach its end, every run that stops ends with exit 1
and one line naming a per-view table, and at least one stops.  Before the change it died with SIGTRAP in GLib's allocator
(the tables' g_new, and g_qsort_with_data's merge buffer).

The noise estimate's edge samples: `noise` of 2^18 views × 8 columns of
noisy line integrals (no counts stated: the estimate from the sinogram)
holds the data, the estimator's 2^20 windows' samples (8 MiB) and last the
sorted copy of their edge samples (4 MiB); under limits 1 to 12 MiB below
the smallest that lets it reach its end, every run that stops ends with
exit 1 and one line naming the bound, and at least one stops in the
estimator's buffers.  Before the change the sorted copy (g_memdup2) died
with SIGTRAP in GLib's allocator (98 and 96 MiB of a 100 MiB end).

The synthetic scan of `bench art`: its --views has no upper bound; 2·10⁹
views' angles (14.9 GiB) under a 2 GiB limit end with exit 1 and one line
naming the angles.  Before the change the geometry's g_new0 died with
SIGTRAP in GLib's allocator.

OMP_STACKSIZE and MALLOC_ARENA_MAX keep the threads' own reservations (8 MiB
stacks, 64 MiB malloc arenas) small and alike at every thread count.
"""
import array
import json
import os
import resource
import struct
import tempfile

from common import check, finish, require_cli, run

require_cli()
if os.environ.get("CTR_SANITIZED") == "1":
    print("skip: ASan reserves terabytes of address space")
    finish()


def write_float_tiff(path, width, height, value, rows_per_strip=1024, pixels=None):
    """An uncompressed float32 TIFF of width × height pixels of one value
    (or the float32 bytes @pixels), in strips (read a strip at a time: the
    reader holds no second copy)."""
    n = (height + rows_per_strip - 1) // rows_per_strip
    counts = [min(rows_per_strip, height - i * rows_per_strip) * width * 4 for i in range(n)]
    tags = 10
    offsets_at = 8 + 2 + tags * 12 + 4
    data_at = offsets_at + 8 * n
    offsets = [data_at + sum(counts[:i]) for i in range(n)]
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 32), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, n, offsets_at), (277, 3, 1, 1), (278, 4, 1, rows_per_strip),
               (279, 4, n, offsets_at + 4 * n), (339, 3, 1, 3)]
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<IH", 8, tags))
        for tag, kind, count, val in entries:
            f.write(struct.pack("<HHI", tag, kind, count)
                    + (struct.pack("<HH", val, 0) if kind == 3 else struct.pack("<I", val)))
        f.write(struct.pack("<I", 0) + struct.pack(f"<{n}I", *offsets) + struct.pack(f"<{n}I", *counts))
        f.write(pixels if pixels is not None else struct.pack("<f", value) * (width * height))


def as_limit(mib):
    def f():
        lim = mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    return f


with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    r = run("simulate", "--phantom", "disc", "--geometry", "fan-flat", "--views", 16, "--cols", 65536,
            "--size", 16, "--i0", 0, "--output", scan, timeout=120)
    if not check(r.returncode == 0, "simulate 16 views × 65536 columns"):
        finish()
    env = dict(os.environ, OMP_STACKSIZE="256K", MALLOC_ARENA_MAX="1", CTR_CACHE_DIR=os.path.join(tmp, "cache"))
    env.pop("CTR_MEMORY_LIMIT_MB", None)
    fbp = ["reconstruct", os.path.join(scan, "geometry.json"), "--method", "fbp", "--size", 16]

    def fbp_under(mib, threads, out="out.tif"):
        return run(*fbp, "-o", os.path.join(tmp, out), timeout=120, env=dict(env, OMP_NUM_THREADS=str(threads)),
                   preexec_fn=as_limit(mib))

    # The smallest limit (MiB) under which one thread reconstructs.
    lo, hi = 16, 4096
    if not check(fbp_under(hi, 1).returncode == 0, "FBP with one thread in 4 GiB"):
        finish()
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fbp_under(mid, 1).returncode == 0:
            hi = mid
        else:
            lo = mid
    print(f"     one thread reconstructs in {hi} MiB of address space")

    # 12 MiB more: the sixteen threads' stacks (4 MiB) and the sinogram fit,
    # their filter rows (16 MiB against the one thread's 1 MiB) do not.
    r = fbp_under(hi + 12, 16, "out16.tif")
    errors = [l for l in r.stderr.splitlines() if l.startswith("ctrecon-cli:")]
    check(r.returncode == 1 and len(errors) == 1
          and "ramp filter's padded rows of 131072 samples × 16 threads" in errors[0]
          and "address-space limit" in errors[0],
          f"FBP with 16 threads in {hi + 12} MiB: exit {r.returncode}, '{r.stderr.strip()[-200:]}'")
    check(0 <= r.returncode < 128, f"no crash or signal (exit {r.returncode})")
    check(not os.path.exists(os.path.join(tmp, "out16.tif")), "no output written")

with tempfile.TemporaryDirectory() as tmp:
    views, cols = 1 << 18, 8
    scan = os.path.join(tmp, "scan")
    os.mkdir(scan)
    with open(os.path.join(scan, "geometry.json"), "w") as f:
        json.dump({"type": "fan", "detector_shape": "flat", "source_to_isocenter_mm": 595.0,
                   "source_to_detector_mm": 1085.6, "kind": "line_integrals", "views": views,
                   "detector_cols": cols, "detector_rows": 1, "detector_pitch_u_mm": 51.05,
                   "angle_start_rad": 0.0, "angle_step_rad": 2 * 3.141592653589793 / views,
                   "projections": {"file": "sinogram.tif", "layout": "sinogram", "dtype": "float32"}}, f)
    write_float_tiff(os.path.join(scan, "sinogram.tif"), cols, views, 1.0)
    env = dict(os.environ, OMP_STACKSIZE="256K", MALLOC_ARENA_MAX="1", OMP_NUM_THREADS="1")
    env.pop("CTR_MEMORY_LIMIT_MB", None)

    def calibrate_under(mib):
        return run("calibrate", os.path.join(scan, "geometry.json"), "-o", os.path.join(tmp, "out.json"),
                   "--no-cross-check", timeout=120, env=env, preexec_fn=as_limit(mib))

    def reaches_end(r):
        # a flat sinogram has no centre to find: the end is that sentence
        return r.returncode == 0 or "no method could find the central ray" in r.stderr

    lo, hi = 16, 1024
    if not check(reaches_end(calibrate_under(hi)), f"calibrate of {views} views in {hi} MiB"):
        finish()
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches_end(calibrate_under(mid)):
            hi = mid
        else:
            lo = mid
    print(f"     the calibration reaches its end in {hi} MiB of address space")

    # 2 to 12 MiB less: the data and the row's sinogram (8 MiB) fit, the
    # views' order and angles by angle (1 + 2 + 4 MiB) do not.  Where the
    # boundary lies moves by a few MiB from run to run (the threads'
    # reservations): every limit that stops the run must stop it cleanly,
    # on a per-view table, and at least one must stop it.
    stopped = 0
    for less in (2, 4, 6, 8, 12):
        r = calibrate_under(hi - less)
        check(0 <= r.returncode < 128, f"calibrate in {hi - less} MiB: no crash or signal (exit {r.returncode})")
        if reaches_end(r):
            continue
        stopped += 1
        errors = [l for l in r.stderr.splitlines() if l.startswith("ctrecon-cli:")]
        check(r.returncode == 1 and len(errors) == 1 and "view" in errors[0] and "address-space limit" in errors[0],
              f"calibrate in {hi - less} MiB: exit {r.returncode}, '{r.stderr.strip()[-200:]}'")
    check(stopped > 0, f"calibrate stopped by the limit in at least one of 2 … 12 MiB below {hi} MiB ({stopped})")

with tempfile.TemporaryDirectory() as tmp:
    views, cols = 1 << 18, 8
    scan = os.path.join(tmp, "scan")
    os.mkdir(scan)
    with open(os.path.join(scan, "geometry.json"), "w") as f:
        json.dump({"type": "fan", "detector_shape": "flat", "source_to_isocenter_mm": 595.0,
                   "source_to_detector_mm": 1085.6, "kind": "line_integrals", "views": views,
                   "detector_cols": cols, "detector_rows": 1, "detector_pitch_u_mm": 1.0,
                   "angle_start_rad": 0.0, "angle_step_rad": 2 * 3.141592653589793 / views,
                   "projections": {"file": "sinogram.tif", "layout": "sinogram", "dtype": "float32"}}, f)
    # line integrals of 0.5 with a noise of ±0.005 (no window of five equal samples)
    noisy = array.array("f", (0.5 + 0.01 * (((i * 2654435761) % 1000) / 1000.0 - 0.5) for i in range(views * cols)))
    write_float_tiff(os.path.join(scan, "sinogram.tif"), cols, views, 0.0, pixels=noisy.tobytes())
    env = dict(os.environ, OMP_STACKSIZE="256K", MALLOC_ARENA_MAX="1", OMP_NUM_THREADS="1")
    env.pop("CTR_MEMORY_LIMIT_MB", None)

    def noise_under(mib):
        return run("noise", os.path.join(scan, "geometry.json"), timeout=120, env=env, preexec_fn=as_limit(mib))

    lo, hi = 16, 1024
    if not check(noise_under(hi).returncode == 0, f"noise of {views} views in {hi} MiB"):
        finish()
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if noise_under(mid).returncode == 0:
            hi = mid
        else:
            lo = mid
    print(f"     the noise estimate reaches its end in {hi} MiB of address space")

    # 1 to 12 MiB less: the data (8 MiB) fit, the estimator's samples (8
    # MiB) and the sorted copy of the edge samples (4 MiB) not all (a few
    # MiB below the end the loader's own transients stop it first).
    stopped = 0
    for less in (1, 2, 3, 4, 6, 8, 12):
        r = noise_under(hi - less)
        check(0 <= r.returncode < 128, f"noise in {hi - less} MiB: no crash or signal (exit {r.returncode})")
        if r.returncode == 0:
            continue
        errors = [l for l in r.stderr.splitlines() if l.startswith("ctrecon-cli:")]
        check(r.returncode == 1 and len(errors) == 1 and "address-space limit" in errors[0],
              f"noise in {hi - less} MiB: exit {r.returncode}, '{r.stderr.strip()[-200:]}'")
        stopped += len(errors) == 1 and "noise estimator" in errors[0]
    check(stopped > 0, f"noise stopped in its estimator by the limit in at least one of 1 … 12 MiB below {hi} MiB "
          f"({stopped})")

r = run("bench", "art", "--views", 2000000000, "--image", 8, "--cols", 2, timeout=60, preexec_fn=as_limit(2048))
errors = [l for l in r.stderr.splitlines() if l.startswith("ctrecon-cli:")]
check(r.returncode == 1 and len(errors) == 1 and "angles of 2000000000 views" in errors[0],
      f"bench art of 2·10⁹ views in 2 GiB: exit {r.returncode}, '{r.stderr.strip()[-200:]}'")

finish()
