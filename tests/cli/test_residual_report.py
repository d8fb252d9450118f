"""`reconstruct`'s per-iteration data residual (issue 36): by default the
CLI computes it after the last iteration, and after the others only where
the method has it at no cost (SIRT, CGLS), and says so once; with
--residual-every, --metrics or --stop auto after every iteration.  The
images are the same bytes either way, and the last residual the same
number.  (That the residual is the exact ||b − A x|| / ||b|| of the image
reported is test-residual-report's.)
"""
import csv
import math
import os
import re
import tempfile

from common import check, finish, require_cli, run

LINE = re.compile(r"^(\w[\w-]*) iteration (\d+)/(\d+) .*?(?:residual ([\d.e+-]+))?(?:  RMSE.*)?$")


def residuals(stderr):
    """[(iteration, residual or None)] of the per-iteration lines."""
    out = []
    for line in stderr.splitlines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(2)), float(m.group(4)) if m.group(4) else None))
    return out


def main():
    require_cli()
    with tempfile.TemporaryDirectory() as tmp:
        sim = os.path.join(tmp, "sim")
        r = run("simulate", "--geometry", "fan-flat", "--views", 90, "--cols", 96, "--size", 64, "--output", sim)
        if not check(r.returncode == 0, f"simulate ({r.stderr.strip()})"):
            finish()
        gpath = os.path.join(sim, "geometry.json")

        def recon(name, method, *extra):
            out = os.path.join(tmp, f"{name}.tif")
            r = run("reconstruct", gpath, "--method", method, "--iterations", 3, "--size", 64, "--no-reference",
                    "--output", out, *extra)
            if not check(r.returncode == 0, f"{name} runs ({r.stderr.strip()[-300:]})"):
                return r, residuals(r.stderr), None
            with open(out, "rb") as fh:
                return r, residuals(r.stderr), fh.read()

        for method in ("part", "sart", "pwls"):
            r_d, res_d, img_d = recon(f"{method}-default", method)
            r_e, res_e, img_e = recon(f"{method}-every", method, "--residual-every")
            metrics = os.path.join(tmp, f"{method}.csv")
            r_m, res_m, img_m = recon(f"{method}-metrics", method, "--metrics", metrics)
            check([i for i, _ in res_d] == [1, 2, 3], f"{method}: three iteration lines")
            check(res_d[-1][1] is not None and all(x is None for _, x in res_d[:-1]),
                  f"{method} by default: the residual after the last iteration only ({res_d})")
            check("the data residual is computed after the last iteration only" in r_d.stderr,
                  f"{method} by default: the CLI says so")
            check(all(x is not None for _, x in res_e) and all(x is not None for _, x in res_m),
                  f"{method} --residual-every and --metrics: the residual after every iteration")
            check("after the last iteration only" not in r_e.stderr + r_m.stderr,
                  f"{method} --residual-every and --metrics: no such note")
            check(res_d[-1][1] == res_e[-1][1] == res_m[-1][1], f"{method}: the same last residual")
            check(img_d is not None and img_d == img_e == img_m, f"{method}: the same image bytes")
            with open(metrics, newline="") as fh:
                rows = list(csv.DictReader(fh))
            check(len(rows) == 3 and all(math.isfinite(float(x["residual"])) for x in rows),
                  f"{method} --metrics: a finite residual in every row")
        for method in ("sirt", "cgls"):
            _, res, _ = recon(f"{method}-default", method)
            check(len(res) == 3 and all(x is not None for _, x in res),
                  f"{method} by default: the residual after every iteration (free)")
    finish()


if __name__ == "__main__":
    main()
