"""The examples in python/examples run against the package as installed
here, on small simulated scans, and print what they say they print (the
figures the API itself gives for the same runs)."""
import os
import re
import subprocess
import sys

from common import check, finish, require_module, simulate, tempdir

ctrecon = require_module()
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "examples")


def run(name, *args):
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *map(str, args)], capture_output=True,
                       text=True, timeout=300)
    check(r.returncode == 0, f"{name} ran (exit {r.returncode}) {r.stderr.strip()[-300:]}")
    return r.stdout


with tempdir() as tmp:
    head = simulate(os.path.join(tmp, "head"), "--phantom", "head", "-g", "fan-curved", "--views", 180,
                    "--cols", 256, "--size", 96)
    out = run("quarter_dose.py", head)
    rows = re.findall(r"^(FBP|PWLS)\s+RMSE\s+([\d.]+) HU\s+brain noise\s+([\d.]+) HU\s+SSIM ([\d.]+)$", out, re.M)
    check([r[0] for r in rows] == ["FBP", "PWLS"], f"quarter_dose.py printed FBP and PWLS: {rows}")
    ds = ctrecon.load(head)
    _, stats = ctrecon.reconstruct(ds, "fbp", window="hann")
    want = 1000 * stats[-1]["rmse"] / 0.0192
    check(rows and abs(float(rows[0][1]) - want) < 0.051, f"its FBP RMSE {rows[0][1] if rows else '?'} HU "
          f"is the API's {want:.1f} HU")

    fan = simulate(os.path.join(tmp, "fan"))
    out = run("scipy_lsqr.py", fan)
    m = re.search(r"relative difference ([\d.e+-]+)", out)
    check(m is not None and float(m.group(1)) < 0.05, f"scipy_lsqr.py: LSQR and CGLS agree ({out.strip()})")
finish()
