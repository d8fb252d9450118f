"""ctrecon.Operator and reconstruct() on a helical scan: the grid is the
CLI's (the one rule, ctr_grid_for_scan), and z_range is the CLI's
--z-range.

1. A short helical scan (`simulate --geometry helical`, 1.1 turns, pitch 1,
   8 rows): its direct rays sample no z range fully, its conjugate rays do.
   Operator(geometry) gets the grid of `ctrecon-cli reconstruct --dry-run`
   (180LI's fully sampled range) — it used to raise "samples no z range
   fully" — and so does Operator(dataset) (the dataset's reference holds
   other slices: the CLI's rule keeps its plane).  On 2 turns too.
2. ⟨A x, y⟩ = ⟨x, Aᵀ y⟩ to 1e-5 on that default grid.
3. z_range=(FIRST, LAST, STEP) (or the CLI's text) gives the grid of
   `--dry-run --z-range FIRST:LAST:STEP`, in Operator and reconstruct();
   reconstruct(z_range=...) equals `ctrecon-cli reconstruct --z-range` to
   float rounding (FBP).
4. A bad z range raises ctrecon.InvalidArgument with the CLI's message;
   z_range or rebin on a fan-beam scan, and size=(NX, NY, NZ) on a helical
   scan with or without z_range, raise InvalidArgument with the CLI's
   message too (one check, ctr_grid_check_options).
Needs no shared data.
"""
import os
import re

import numpy as np

from common import adjointness, check, cli, finish, read_tiff, require_module, tempdir

ctrecon = require_module()

GRID = re.compile(r"^grid: (\d+) x (\d+) x (\d+) voxels of (\S+) x (\S+) x (\S+) mm, centre (\S+) (\S+) (\S+) mm$",
                  re.M)


def cli_grid(path, *extra):
    """The grid `reconstruct --dry-run` prints: (nx, ny, nz, dx, dy, dz, cx, cy, cz) or None."""
    r = cli("reconstruct", path, "--dry-run", *extra)
    m = GRID.search(r.stderr)
    if r.returncode != 0 or m is None:
        print(r.stderr)
        return None
    return tuple(int(v) for v in m.groups()[:3]) + tuple(float(v) for v in m.groups()[3:])


def op_grid(g):
    return (g["nx"], g["ny"], g["nz"], g["dx_mm"], g["dy_mm"], g["dz_mm"], g["cx_mm"], g["cy_mm"], g["cz_mm"])


def same_grid(a, b):
    return a is not None and b is not None and a[:3] == b[:3] and all(
        abs(x - y) <= 1e-7 * max(1.0, abs(y)) for x, y in zip(a[3:], b[3:]))


def simulate_helical(folder, turns):
    r = cli("simulate", "--phantom", "shepp-logan", "-g", "helical", "--rows", 8, "--turns", turns, "--views", 60,
            "--cols", 64, "--size", 32, "--i0", 0, "-o", folder)
    if r.returncode != 0:
        raise SystemExit(f"simulate failed: {r.stderr}")
    return os.path.join(folder, "geometry.json")


def raises(fn, cls, want=None):
    """The exception's message when fn() raises cls (and its message is
    @want when given), else None."""
    try:
        fn()
    except cls as e:
        return str(e) if want is None or str(e) == want else None
    except Exception as e:  # noqa: BLE001  (reported, not hidden)
        print(f"raised {type(e).__name__}: {e}")
        return None
    return None


with tempdir() as tmp:
    # --- 1. the default grid is the CLI's -------------------------------------------------
    short = simulate_helical(os.path.join(tmp, "short"), 1.1)
    ds = ctrecon.load(short)
    geo = ctrecon.Geometry(ds)
    want = cli_grid(short, "--no-reference")
    direct = cli("reconstruct", short, "--dry-run", "--no-reference", "--method", "sirt", "--rebin", "none")
    check(geo.helical and want is not None and direct.returncode != 0 and "no z range fully" in direct.stderr,
          f"1.1 turns: 180LI's range exists ({want}), the direct rays' does not (--rebin none: "
          f"{direct.stderr.strip().splitlines()[-1:]})")
    A = None
    try:
        A = ctrecon.Operator(geo)
        got = op_grid(A.grid)
    except ctrecon.Error as e:
        got = f"{type(e).__name__}: {e}"
    check(same_grid(got, want), f"Operator(helical geometry) has the CLI's dry-run grid: {got} = {want}")
    want_ds = cli_grid(short)
    try:
        got_ds = op_grid(ctrecon.Operator(ds).grid)
    except ctrecon.Error as e:
        got_ds = f"{type(e).__name__}: {e}"
    check(same_grid(got_ds, want_ds), f"Operator(helical dataset) has the CLI's dry-run grid: {got_ds} = {want_ds}")

    two = simulate_helical(os.path.join(tmp, "two"), 2)
    want2 = cli_grid(two, "--no-reference")
    try:
        got2 = op_grid(ctrecon.Operator(ctrecon.Geometry(two)).grid)
    except ctrecon.Error as e:
        got2 = f"{type(e).__name__}: {e}"
    check(same_grid(got2, want2), f"2 turns: Operator's grid = the CLI's {got2} = {want2}")

    # --- 2. adjointness on the default grid -------------------------------------------------
    if A is not None:
        adjointness(A, "helical, default grid")

    # --- 3. z_range is --z-range ----------------------------------------------------------------
    if want is not None:
        zr = (-2.0, 2.0, 0.5)
        want_z = cli_grid(short, "--no-reference", "--z-range=-2:2:0.5")
        for form in (zr, "-2:2:0.5", [-2, 2, 0.5]):
            try:
                got_z = op_grid(ctrecon.Operator(geo, z_range=form).grid)
            except ctrecon.Error as e:
                got_z = f"{type(e).__name__}: {e}"
            check(same_grid(got_z, want_z) and want_z[2] == 9,
                  f"Operator(z_range={form!r}) = --z-range -2:2:0.5: {got_z}")
        adjointness(ctrecon.Operator(geo, z_range=zr, size=24), "helical, z_range -2:2:0.5, 24²")

        out = os.path.join(tmp, "cli.tif")
        r = cli("reconstruct", short, "--z-range=-2:2:0.5", "--no-reference", "-o", out)
        try:
            img, _ = ctrecon.reconstruct(ds, z_range=zr, reference=False)
        except ctrecon.Error as e:
            img = None
            print(f"reconstruct raised {type(e).__name__}: {e}")
        if check(r.returncode == 0 and img is not None, "reconstruct() and the CLI with a z range ran"):
            ref = read_tiff(out)
            err = float(np.abs(img - ref).max() / np.abs(ref).max()) if img.shape == ref.shape else float("inf")
            check(img.shape == (9, want_z[1], want_z[0]) and err <= 1e-6,
                  f"reconstruct(z_range=...) = ctrecon-cli reconstruct --z-range: {img.shape}, max diff {err:.2e}")

    # --- 4. bad input ----------------------------------------------------------------------------
    for bad, text in (((2.0, -2.0, 0.5), "2.0:-2.0:0.5"), ("1:2", "1:2"), ((0, 1, 0), "0:1:0"),
                      ((0, 1, float("nan")), "0:1:nan"), (("a", 1, 2), "a:1:2")):
        r = cli("reconstruct", short, "--dry-run", "--z-range=" + text)
        cli_msg = r.stderr.strip().removeprefix("ctrecon-cli reconstruct: ")
        msg = raises(lambda: ctrecon.Operator(geo, z_range=bad), ctrecon.InvalidArgument, cli_msg)
        msg_r = raises(lambda: ctrecon.reconstruct(ds, z_range=bad), ctrecon.InvalidArgument, cli_msg)
        check(r.returncode == 2 and "--z-range takes FIRST:LAST:STEP" in cli_msg and msg is not None
              and msg_r is not None, f"z_range={bad!r}: InvalidArgument with the CLI's message: {msg}")
    msg = raises(lambda: ctrecon.Operator(geo, z_range=(0, 1e6, 1e-3)), ctrecon.InvalidArgument)
    check(msg is not None and "at most 100000" in msg, f"too many slices: InvalidArgument: {msg}")
    # size=(NX, NY, NZ) on a helical scan, with or without z_range: the CLI's
    # refusal of --size NXxNYxNZ (one rule, ctr_grid_check_options) and its
    # message; without z_range Python once made a grid of NZ slices.
    for extra, kw in (([], {}), (["--z-range=-1:1:1"], {"z_range": (-1, 1, 1)})):
        r = cli("reconstruct", short, "--dry-run", "--size", "16x16x4", *extra)
        cli_msg = r.stderr.strip().splitlines()[-1].removeprefix("ctrecon-cli: reconstruct: ")
        msg = raises(lambda: ctrecon.Operator(geo, size=(16, 16, 4), **kw), ctrecon.InvalidArgument, cli_msg)
        msg_r = raises(lambda: ctrecon.reconstruct(ds, size=(16, 16, 4), **kw), ctrecon.InvalidArgument, cli_msg)
        check(r.returncode == 2 and "slices come from --z-range" in cli_msg and msg is not None and msg_r is not None,
              f"size=(16, 16, 4) {kw}: InvalidArgument with the CLI's message ({cli_msg}): {msg}, {msg_r}")
    fan = os.path.join(tmp, "fan")
    r = cli("simulate", "--phantom", "shepp-logan", "-g", "fan-flat", "--views", 30, "--cols", 32, "--size", 16,
            "-o", fan)
    fan_ds = ctrecon.load(os.path.join(fan, "geometry.json"))
    msg = raises(lambda: ctrecon.Operator(fan_ds, z_range=(0, 1, 1)), ctrecon.InvalidArgument)
    msg_r = raises(lambda: ctrecon.reconstruct(fan_ds, z_range=(0, 1, 1)), ctrecon.InvalidArgument)
    check(msg is not None and msg_r is not None and "helical" in msg,
          f"z_range on a fan-beam scan: InvalidArgument: {msg}")
    r = cli("reconstruct", os.path.join(fan, "geometry.json"), "--dry-run", "--rebin", "360li")
    cli_msg = r.stderr.strip().splitlines()[-1].removeprefix("ctrecon-cli: reconstruct: ")
    msg = raises(lambda: ctrecon.reconstruct(fan_ds, rebin="360li"), ctrecon.InvalidArgument, cli_msg)
    check(r.returncode == 2 and msg is not None, f"rebin on a fan-beam scan: the CLI's refusal ({cli_msg}): {msg}")
    check(ctrecon.Operator(fan_ds, z_range=None).shape[1] == (1, 16, 16), "z_range=None on a fan-beam scan: as before")
finish()
