"""ctrecon-cli on bad input: a clear message, a non-zero exit, no crash, and
the user's files untouched.  Also a full simulate → reconstruct round trip that
needs no ../shared data, and Ctrl-C cancellation."""
import json
import os
import signal
import subprocess
import tempfile
import time

from common import CLI, check, finish, require_cli, run

require_cli()

with tempfile.TemporaryDirectory() as tmp:
    def path(*p):
        return os.path.join(tmp, *p)

    # A small simulated dataset made by the CLI itself.
    r = run("simulate", "--phantom", "head", "--views", 120, "--cols", 160, "--size", 64,
            "--i0", 1e5, "--output", path("scan"))
    check(r.returncode == 0 and os.path.exists(path("scan", "geometry.json")),
          "simulate writes geometry.json, sinogram.tif, reference.tif")
    geo = path("scan", "geometry.json")

    for method in ("fbp", "art", "part", "sart", "sirt"):
        r = run("reconstruct", geo, "--method", method, "--iterations", 3,
                "--metrics", path(f"{method}.csv"), "--output", path(f"{method}.tif"))
        ok = r.returncode == 0 and os.path.exists(path(f"{method}.tif"))
        if ok:
            rows = open(path(f"{method}.csv")).read().strip().splitlines()
            ok = rows[0].startswith("iteration,") and len(rows) == (2 if method == "fbp" else 4)
            ssim = float(rows[-1].split(",")[6])
            ok = ok and 0.45 < ssim <= 1.0
        check(ok, f"reconstruct --method {method} on the simulated scan writes image and metrics "
                  f"(stderr tail: {r.stderr.strip().splitlines()[-1] if r.stderr else ''})")
        if method != "fbp":
            check(r.stderr.count(f"{method} iteration") == 3, f"{method}: one stderr line per iteration")

    # The dataset's folder stands for its geometry.json: the same image.
    r = run("reconstruct", path("scan"), "--method", "fbp", "--output", path("fbp-folder.tif"))
    check(r.returncode == 0 and open(path("fbp-folder.tif"), "rb").read() == open(path("fbp.tif"), "rb").read(),
          f"reconstruct DATASET_FOLDER equals reconstruct DATASET_FOLDER/geometry.json (exit {r.returncode})")

    def expect_error(args, needle, what, code=None):
        r = run(*args)
        msg = r.stderr.strip()
        ok = r.returncode != 0 and needle.lower() in msg.lower() and "Traceback" not in msg
        ok = ok and r.returncode < 128  # not killed by a signal
        if code is not None:
            ok = ok and r.returncode == code
        check(ok, f"{what}: exit {r.returncode}, '{msg.splitlines()[-1] if msg else ''}'")

    out = path("out.tif")
    expect_error(["reconstruct", path("missing.json"), "--output", out], "missing.json", "missing geometry file")
    open(path("bad.json"), "w").write("{ not json")
    expect_error(["reconstruct", path("bad.json"), "--output", out], "bad.json", "invalid JSON")
    g = json.load(open(geo))
    for key, value, needle in [("views", 0, "view"), ("source_to_isocenter_mm", -5, "source"),
                               ("source_to_detector_mm", 10, "source"), ("detector_cols", 99, "")]:
        bad = dict(g, **{key: value})
        bad["projections"] = dict(g["projections"], file=path("scan", "sinogram.tif"))
        bad["reference"] = dict(g["reference"], file=path("scan", "reference.tif"))
        open(path("bad2.json"), "w").write(json.dumps(bad))
        expect_error(["reconstruct", path("bad2.json"), "--output", out], needle, f"{key} = {value}")
    expect_error(["reconstruct", geo, "--method", "mlem", "--output", out], "unknown method", "unknown method", 1)
    expect_error(["reconstruct", geo, "--method", "sart", "--relaxation", 3, "--output", out], "relaxation", "relaxation out of range")
    expect_error(["reconstruct", geo, "--method", "pwls", "--delta", "1e-20", "--output", out], "delta",
                 "edge scale below 1e-9 /mm (its 1/delta^2 overflows float: NaN image)")
    expect_error(["reconstruct", geo, "--method", "fbp", "--window", "kaiser", "--output", out], "window", "unknown window")
    expect_error(["reconstruct", geo], "--output", "missing --output", 2)
    expect_error(["reconstruct", geo, "--iterations", "many", "--output", out], "iterations", "non-numeric iterations", 2)
    expect_error(["reconstruct", geo, "--reference", path("scan", "sinogram.tif"), "--output", out],
                 "reference", "reference of the wrong size")
    expect_error(["reconstruct", geo, "--output", path("no", "such", "dir", "x.tif")], "x.tif", "output folder missing")
    expect_error(["frobnicate"], "unknown command", "unknown command", 2)
    expect_error(["reconstruct", geo, "--method", "part", "--matrix", "coo", "--output", out], "--matrix", "unknown matrix format", 2)
    expect_error(["reconstruct", geo, "--method", "part", "--subsets", "odd", "--output", out], "--subsets", "unknown subsets", 2)
    expect_error(["reconstruct", geo, "--method", "part", "--matrix", "scsr", "--subsets", "view", "--output", out],
                 "one view per subset", "SCSR with view subsets refused")
    expect_error(["reconstruct", geo, "--method", "part", "--ray-model", "cone", "--output", out], "--ray-model", "unknown ray model", 2)
    expect_error(["bench", "art", "--geometry", "helix"], "--geometry", "bench art: unknown geometry", 2)
    expect_error(["bench", "art", "--image", 0], "--image", "bench art: image of 0 pixels", 2)
    expect_error(["bench", "lunch"], "usage", "bench: unknown benchmark", 2)

    # CSR and SCSR agree on the simulated scan (parallel ART with orbit subsets
    # on both, different code paths and storage): same image to 1e-4.
    import numpy as np
    import tifffile
    imgs = {}
    for fmt in ("csr", "scsr"):
        r = run("reconstruct", geo, "--method", "part", "--iterations", 3, "--matrix", fmt,
                "--subsets", "orbit", "--output", path(f"part-{fmt}.tif"))
        if check(r.returncode == 0, f"reconstruct --matrix {fmt} --subsets orbit runs"):
            imgs[fmt] = tifffile.imread(path(f"part-{fmt}.tif")).astype(np.float64)
    if len(imgs) == 2:
        d = np.abs(imgs["csr"] - imgs["scsr"]).max() / np.abs(imgs["csr"]).max()
        check(d < 1e-4, f"CSR and SCSR parallel ART agree ({d:.2e} of the maximum)")

    # bench art prints one JSON object with the documented keys (a functional
    # check on a tiny scan, not a timing).
    r = run("bench", "art", "--image", 32, "--views", 16, "--cols", 48, "--iterations", 2)
    try:
        j = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        j = {}
    keys = ("build_s", "matrix_bytes", "nnz", "stored_views", "padding", "iteration_s", "gbps")
    check(r.returncode == 0 and all(k in j for k in keys) and j["stored_views"] == 3,
          f"bench art: JSON with {', '.join(keys)}; 16 views stored as {j.get('stored_views')}")

    # A limited-angle scan (the same 120 views over 20°) is reconstructed
    # with a warning that says how much is missing.
    lim = dict(g, angles_rad=[k * (20.0 / 120) * 3.141592653589793 / 180 for k in range(g["views"])])
    lim.pop("angle_step_rad", None)
    lim["projections"] = dict(g["projections"], file=path("scan", "sinogram.tif"))
    lim["reference"] = dict(g["reference"], file=path("scan", "reference.tif"))
    open(path("limited.json"), "w").write(json.dumps(lim))
    r = run("reconstruct", path("limited.json"), "--method", "fbp", "--output", path("limited.tif"))
    check(r.returncode == 0 and "warning: the views cover 20.0° of the" in r.stderr and "limited-angle" in r.stderr,
          f"a 20° scan reconstructs with a limited-angle warning: "
          f"'{[l for l in r.stderr.splitlines() if 'cover' in l][:1]}'")
    r = run("reconstruct", geo, "--method", "fbp", "--output", path("full.tif"))
    check(r.returncode == 0 and "limited-angle" not in r.stderr, "a full scan has no such warning")

    # --dry-run: the grid line, the same grid as a run's, nothing written.
    r = run("reconstruct", geo, "--dry-run", "--size", 48, "--metrics", path("dry.csv"),
            "--output", path("dry.tif"))
    grid = [l for l in r.stderr.splitlines() if l.startswith("grid: ")]
    check(r.returncode == 0 and grid == ["grid: 48 x 48 x 1 voxels of " + grid[0].split(" of ", 1)[1]] and
          not os.path.exists(path("dry.tif")) and not os.path.exists(path("dry.csv")),
          f"--dry-run prints the grid and writes nothing: {grid}")
    r2 = run("reconstruct", geo, "--size", 48, "--output", path("dry.tif"))
    check(r2.returncode == 0 and grid and grid[0] in r2.stderr.splitlines(),
          "a run reconstructs on the grid --dry-run printed")
    expect_error(["reconstruct", geo, "--dry-run", "--output", path("scan", "sinogram.tif")], "--output",
                 "--dry-run still refuses an output that is an input", code=1)

    # The user's existing output is untouched when a run fails.
    open(out, "wb").write(b"precious")
    run("reconstruct", geo, "--method", "sart", "--relaxation", 3, "--output", out)
    check(open(out, "rb").read() == b"precious", "failed run leaves an existing output file untouched")

    # Ctrl-C cancels between views: exit 130 (128 + SIGINT), "cancelled", output untouched.
    p = subprocess.Popen([CLI, "reconstruct", geo, "--method", "art", "--iterations", "100000",
                          "--output", out], stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    dt = time.monotonic() - t0
    check(p.returncode == 130 and "cancelled" in err and dt < 5,
          f"SIGINT cancels the run in {dt:.2f} s (exit {p.returncode})")
    check(open(out, "rb").read() == b"precious", "cancelled run leaves the output untouched")

finish()
