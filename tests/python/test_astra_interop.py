"""python/examples/astra_interop.py against ASTRA itself: our Geometry from
an ASTRA proj_geom and our forward projection agree with ASTRA's CPU
projectors to a relative RMSE of 1e-4 on each matched ray model (issue 32).

ASTRA comes from the peers' venv (packaging/peer-venv.sh, CTR_PEER_VENV;
skipped with 77 when it cannot be made).  The example runs in THIS
interpreter with the package under test; the venv's site-packages is put
last on sys.path, so numpy (and the rest) stay this interpreter's and only
astra comes from the venv (its wheel runs on numpy >= 1.24)."""
import glob
import os
import re
import subprocess
import sys

from common import check, finish, require_module

TOL = 1e-4
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "python", "examples", "astra_interop.py")

require_module()
venv = os.environ.get("CTR_PEER_VENV", "")
if not venv:
    print("CTR_PEER_VENV is not set (meson test sets it): skipped")
    sys.exit(77)
r = subprocess.run(["sh", os.path.join(HERE, "..", "..", "packaging", "peer-venv.sh"), venv])
if r.returncode != 0:
    print("the peers' venv could not be made: skipped")
    sys.exit(77)
version = f"python{sys.version_info.major}.{sys.version_info.minor}"
site = glob.glob(os.path.join(venv, "lib", version, "site-packages"))
if not site:
    print(f"the peers' venv has no {version} site-packages (another interpreter): skipped")
    sys.exit(77)
RUN = ("import sys, runpy; sys.path.append(sys.argv[1]); sys.argv = sys.argv[2:]; "
       "runpy.run_path(sys.argv[0], run_name='__main__')")
probe = subprocess.run([sys.executable, "-c", RUN.replace("runpy.run_path(sys.argv[0], run_name='__main__')",
                                                          "import astra"), site[0], EXAMPLE],
                       capture_output=True, text=True, timeout=120)
if probe.returncode != 0:
    print(f"ASTRA from {site[0]} does not import beside this interpreter's numpy: skipped\n{probe.stderr[-500:]}")
    sys.exit(77)

r = subprocess.run([sys.executable, "-c", RUN, site[0], EXAMPLE], capture_output=True, text=True, timeout=600)
check(r.returncode == 0, f"astra_interop.py ran (exit {r.returncode}) {r.stderr.strip()[-300:]}")
rows = re.findall(r"^(\S+)\s+ASTRA (\S+)\s+ctrecon (\S+)\s+relative RMSE ([\d.e+-]+)$", r.stdout, re.M)
pairs = [(g, a, o) for g, a, o, _ in rows]
check(pairs == [("parallel", "line", "siddon"), ("parallel", "strip", "area"), ("parallel", "linear", "joseph"),
                ("fanflat", "line_fanflat", "siddon"), ("fanflat_vec", "line_fanflat", "siddon"),
                ("parallel_vec", "line", "siddon")],
      f"the example compared the six matched pairs: {pairs}")
for g, a, o, e in rows:
    check(float(e) <= TOL, f"{g}: ASTRA {a} against ctrecon {o}: relative RMSE {e} <= {TOL}")
finish()
