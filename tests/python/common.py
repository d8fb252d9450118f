"""Helpers shared by the Python package's tests (run by meson test with
PYTHONPATH at the built package; CTR_PY_BUILT says whether it was built)."""
import os
import subprocess
import sys
import tempfile

CLI = os.environ.get("CTR_CLI")
DATA = os.environ.get("CTR_SHARED_DATA", "")

results = {"passed": 0, "failed": 0}


def check(cond, what):
    results["passed" if cond else "failed"] += 1
    print(f"{'ok  ' if cond else 'FAIL'} {what}", flush=True)
    return cond


def finish():
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


def require_module():
    """The package ctrecon, or exit 77 when this build has none (meson
    printed why); an import failure of a built package is a failure."""
    if os.environ.get("CTR_PY_BUILT") != "1":
        print("the Python package was not built in this build (see meson's message): skipped")
        sys.exit(77)
    import ctrecon
    return ctrecon


def cli(*args):
    """Runs ctrecon-cli; returns CompletedProcess (text)."""
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=300)


def simulate(folder, *extra):
    """A small simulated fan-beam scan (Shepp-Logan, 90 views × 128 columns,
    64 × 64 reference) in @folder; returns its geometry.json."""
    r = cli("simulate", "--phantom", "shepp-logan", "-g", "fan-flat", "--views", 90, "--cols", 128,
            "--size", 64, "--i0", 2e4, "-o", folder, *extra)
    if r.returncode != 0:
        sys.exit(f"simulate failed: {r.stderr}")
    return os.path.join(folder, "geometry.json")


def adjointness(A, label, seed=7):
    """Checks <A x, y> = <x, Aᵀ y> to 1e-5 (random x, y in float32, sums in
    float64) and the products' dtype and shapes, for Operator @A."""
    import numpy as np
    rng = np.random.default_rng(seed)
    x = rng.random(A.shape[1], dtype=np.float32)
    y = rng.random(A.shape[0], dtype=np.float32)
    ax, aty = A.forward(x), A.adjoint(y)
    lhs = float(np.dot(ax.ravel().astype(np.float64), y.ravel()))
    rhs = float(np.dot(x.ravel().astype(np.float64), aty.ravel()))
    rel = abs(lhs - rhs) / abs(lhs)
    return check(ax.dtype == np.float32 and ax.shape == A.shape[0] and aty.shape == A.shape[1] and rel <= 1e-5,
                 f"{label}: <Ax, y> = <x, A'y> to {rel:.2e} (shapes {A.shape})")


def tempdir():
    return tempfile.TemporaryDirectory(prefix="ctrecon-py-")


def read_tiff(path):
    """A float32 TIFF stack as numpy [page][row][col] (tifffile; exit 77
    without it)."""
    try:
        import tifffile
    except ImportError:
        print("tifffile is not installed (Debian: python3-tifffile): skipped")
        sys.exit(77)
    import numpy as np
    a = tifffile.imread(path)
    return a.reshape((-1,) + a.shape[-2:]).astype(np.float32, copy=False)
