"""reconstruct(residual=...): which iterations report the data residual,
as the CLI's `reconstruct` does with the same options (issue 36's rule,
CtrReconOptions.residual).

1. residual="final" is the CLI's default: PART and PWLS report it after
   the last iteration only (NaN before), SIRT after every one (free); the
   residuals the CLI prints (%.4e) are Python's, and where the CLI prints
   none Python's is NaN.
2. residual="every" is --residual-every: a finite residual every iteration,
   the CLI's printed ones and equal (1e-7) to its --metrics CSV.
3. The default: "final" without a callback, "every" with one; the image
   is the same bytes for every choice.
4. A bad value (an unknown name, a number) raises ctrecon.InvalidArgument
   (a ValueError) naming the choices.
5. Each report's noise_residual (the residual at the noise level, where
   stop="auto" stops): PART's finite, one value for the run; PWLS's NaN.
Small fan-beam scan (60 views x 64 columns), 3 iterations, CPU backend;
needs no shared data.
"""
import csv
import math
import os
import re

from common import check, cli, finish, require_module, simulate, tempdir

ctrecon = require_module()

LINE = re.compile(r"^(\w[\w-]*) iteration (\d+)/(\d+) .*?(?:residual ([\d.e+-]+))?(?:  RMSE.*)?$")
N = 3


def cli_residuals(path, tmp, method, *extra):
    """The residual text the CLI prints per iteration (None where it
    prints none), and the --metrics CSV's residuals when asked for."""
    out, metrics = os.path.join(tmp, "cli.tif"), os.path.join(tmp, "cli.csv")
    if os.path.exists(metrics):
        os.remove(metrics)
    r = cli("reconstruct", path, "--method", method, "-n", N, "--backend", "cpu", "--no-reference", "-o", out,
            *extra)
    options = " ".join(x for x in map(str, extra) if x.startswith("--")) or "(defaults)"
    if not check(r.returncode == 0, f"{method} {options}: the CLI ran"):
        print(r.stderr)
        return None, None
    printed = [m.group(4) for m in map(LINE.match, r.stderr.splitlines()) if m]
    rows = None
    if os.path.exists(metrics):
        with open(metrics, newline="") as fh:
            rows = [float(row["residual"]) for row in csv.DictReader(fh)]
    return printed, rows


def shown(x):
    """A residual as the CLI prints it (None: NaN, not printed)."""
    return None if math.isnan(x) else f"{x:.4e}"


with tempdir() as tmp:
    path = simulate(tmp, "--views", 60, "--cols", 64, "--size", 32)
    ds = ctrecon.load(path)

    def py(method, **kw):
        image, stats = ctrecon.reconstruct(ds, method, N, backend="cpu", reference=False, **kw)
        return image, [s["residual"] for s in stats]

    for method in ("part", "pwls", "sirt"):
        free = method == "sirt"
        # --- 1. "final" is the CLI's default ------------------------------------------------
        printed, _ = cli_residuals(path, tmp, method)
        img_final, final = py(method, residual="final")
        want_nan = [False] * N if free else [True] * (N - 1) + [False]
        check([math.isnan(x) for x in final] == want_nan,
              f"{method} residual='final': NaN at {[math.isnan(x) for x in final]} (want {want_nan})")
        check(printed is not None and [shown(x) for x in final] == printed,
              f"{method} residual='final' = the CLI's default: {[shown(x) for x in final]} = {printed}")
        # --- 2. "every" is --residual-every (and --metrics' CSV) --------------------------------
        printed_e, rows = cli_residuals(path, tmp, method, "--residual-every", "--metrics",
                                        os.path.join(tmp, "cli.csv"))
        img_every, every = py(method, residual="every")
        check(all(math.isfinite(x) for x in every), f"{method} residual='every': finite every iteration {every}")
        check(printed_e is not None and [shown(x) for x in every] == printed_e,
              f"{method} residual='every' = --residual-every: {[shown(x) for x in every]} = {printed_e}")
        check(rows is not None and len(rows) == N
              and all(abs(a - b) <= 1e-7 * abs(a) for a, b in zip(rows, every)),
              f"{method} residual='every' = the --metrics CSV to 1e-7: {every} = {rows}")
        check(final[-1] == every[-1], f"{method}: the same last residual either way ({final[-1]!r})")
        # --- 3. the default -----------------------------------------------------------------------
        img_plain, plain = py(method)
        img_cb, with_cb = py(method, callback=lambda s: None)
        check([shown(x) for x in plain] == [shown(x) for x in final],
              f"{method}: the default without a callback is 'final' ({[shown(x) for x in plain]})")
        check(all(math.isfinite(x) for x in with_cb),
              f"{method}: the default with a callback is 'every' ({[shown(x) for x in with_cb]})")
        check(all(img_final.tobytes() == img.tobytes() for img in (img_every, img_plain, img_cb)),
              f"{method}: the same image bytes for every residual choice")

    # --- 4. bad values ------------------------------------------------------------------------
    for bad in ("sometimes", "", 3, 1.5, True):
        try:
            ctrecon.reconstruct(ds, "sart", 1, residual=bad)
            check(False, f"residual={bad!r} raises")
        except ctrecon.InvalidArgument as e:
            check(isinstance(e, ValueError) and "every" in str(e) and "final" in str(e),
                  f"residual={bad!r}: InvalidArgument naming the choices: {e}")
        except Exception as e:  # noqa: BLE001  (reported, not hidden)
            check(False, f"residual={bad!r}: raised {type(e).__name__}: {e}")

    # --- 5. noise_residual: where stop="auto" would stop (semi-convergence told) ---------------
    _, part = ctrecon.reconstruct(ds, "part", N, backend="cpu", reference=False)
    _, pwls = ctrecon.reconstruct(ds, "pwls", N, backend="cpu", reference=False)
    level = [s["noise_residual"] for s in part]
    check(all(math.isfinite(x) and 0 < x < 1 and x == level[0] for x in level),
          f"part: noise_residual finite, in (0, 1), one level for the run: {level}")
    check(all(math.isnan(s["noise_residual"]) for s in pwls),
          f"pwls (regularised): noise_residual NaN: {[s['noise_residual'] for s in pwls]}")
finish()
