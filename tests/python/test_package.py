"""ctrecon.load and the package's errors: the arrays' documented shapes and
dtypes, the geometry dict, and bad paths / bad parameters raising the
documented classes with the engine's message (the CLI's, for parameters)."""
import os

import numpy as np

from common import check, cli, finish, require_module, simulate, tempdir

ctrecon = require_module()

check(issubclass(ctrecon.Error, RuntimeError), "ctrecon.Error is a RuntimeError")
check(issubclass(ctrecon.InvalidArgument, ctrecon.Error) and issubclass(ctrecon.InvalidArgument, ValueError),
      "ctrecon.InvalidArgument is a ctrecon.Error and a ValueError")

with tempdir() as tmp:
    path = simulate(tmp)
    ds = ctrecon.load(path)
    p = ds.projections
    check(isinstance(p, np.ndarray) and p.dtype == np.float32 and p.shape == (90, 1, 128)
          and p.flags["C_CONTIGUOUS"], f"projections float32 [view][row][col] C order: {p.dtype} {p.shape}")
    check(np.isfinite(p).all() and p.max() > 1.0, f"projections are line integrals (max {p.max():.3f})")
    g = ds.geometry
    check(g["beam"] == "fan" and g["n_views"] == 90 and g["n_rows"] == 1 and g["n_cols"] == 128,
          f"geometry: {g['beam']} {g['n_views']} × {g['n_rows']} × {g['n_cols']}")
    check(abs(g["sod_mm"] - 595.0) < 1e-9 and abs(g["sdd_mm"] - 1085.6) < 1e-9,
          f"geometry distances SOD {g['sod_mm']} SDD {g['sdd_mm']} mm")
    a = g["angles"]
    check(a.dtype == np.float64 and a.shape == (90,) and abs(a[1] - a[0] - 2 * np.pi / 90) < 1e-6,
          f"angles float64 [n_views], step {a[1] - a[0]:.6f} rad")
    r = ds.reference
    check(r is not None and r.dtype == np.float32 and r.shape == (1, 64, 64), f"reference [z][y][x] {r.shape}")
    check(ds.reference_grid["nx"] == 64 and ds.path == os.path.abspath(path), "reference grid and path")
    # the array is a view of the dataset's buffer and outlives the dataset
    del ds
    check(float(p.sum()) > 0, "projections array valid after the dataset is gone")

    ds = ctrecon.load(path)
    image, stats = ctrecon.reconstruct(ds)
    check(image.dtype == np.float32 and image.shape == (1, 64, 64) and image.flags["C_CONTIGUOUS"],
          f"FBP image float32 [z][y][x] on the reference's grid: {image.shape}")
    check(len(stats) == 1 and stats[0]["iteration"] == 1 and stats[0]["n_iterations"] == 1
          and stats[0]["method"] == "fbp" and stats[0]["has_reference"] and 0 < stats[0]["ssim"] <= 1,
          f"FBP reports once, with metrics: {stats[0]}")

    try:
        text = repr(ds)
    except ValueError as e:
        text = f"ValueError: {e}"
    check(text.startswith("<ctrecon.Dataset '") and "90 views × 1 rows × 128 columns, with a reference>" in text,
          f"repr(dataset): {text}")

    # bad paths and files
    try:
        ctrecon.load(os.path.join(tmp, "missing.json"))
        check(False, "a missing file raises")
    except ctrecon.FileError as e:
        check("missing.json" in str(e), f"a missing file raises FileError naming it: {e}")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as fh:
        fh.write("{ not json")
    try:
        ctrecon.load(bad)
        check(False, "invalid JSON raises")
    except ctrecon.FormatError as e:
        check("bad.json" in str(e), f"invalid JSON raises FormatError: {e}")
    try:
        ctrecon.load(None)
        check(False, "load(None) raises")
    except TypeError:
        check(True, "load(None) raises TypeError")

    # bad parameters: ValueError with the engine's message, the one the CLI prints
    def raises(what, exc, **kw):
        try:
            ctrecon.reconstruct(ds, **kw)
        except exc as e:
            check(True, f"{what}: {type(e).__name__}: {e}")
            return str(e)
        except Exception as e:  # noqa: BLE001
            check(False, f"{what}: raised {type(e).__name__}: {e}")
            return ""
        check(False, f"{what}: nothing raised")
        return ""

    msg = raises("relaxation out of range", ValueError, method="sirt", iterations=2, relaxation=5)
    r = cli("reconstruct", path, "-o", os.path.join(tmp, "x.tif"), "--method", "sirt", "--relaxation", 5)
    check(r.returncode != 0 and msg and msg in r.stderr, f"the same message as the CLI's: {r.stderr.strip()}")
    msg = raises("unknown parameter", ValueError, method="sirt", frobnicate=1)
    check("frobnicate" in msg and "relaxation" in msg, "the message names it and the method's parameters")
    raises("a parameter the method does not use", ValueError, method="fbp", relaxation=1.0)
    raises("iterations 0", ValueError, method="sirt", iterations=0)
    raises("an unknown window name", ValueError, window="nonsense")
    raises("a parameter of the wrong type", ValueError, method="sirt", relaxation=[1])
    raises("an unknown method", ctrecon.InvalidArgument, method="nonsense")
    raises("size 0", ValueError, size=0)
    raises("size of two numbers", ValueError, size=(64, 64))
    raises("an unknown backend", ValueError, backend="abacus")
    raises("a method for another beam", ctrecon.Error, method="fdk")
    raises("a callback that is not callable", TypeError, callback=3)
    try:
        ctrecon.reconstruct(path)
        check(False, "a path instead of a Dataset raises")
    except TypeError as e:
        check(True, f"a path instead of a Dataset raises TypeError: {e}")
# The type hints (__init__.pyi, PEP 561's py.typed beside it) name every
# public name, and every public attribute of the classes, that the package
# has: a name added without its hint fails here.
import ast  # noqa: E402

pkg = os.path.dirname(ctrecon.__file__)
check(os.path.exists(os.path.join(pkg, "py.typed")), "py.typed ships beside the package")
with open(os.path.join(pkg, "__init__.pyi")) as fh:
    stub = ast.parse(fh.read())
hinted = {}
for node in stub.body:
    if isinstance(node, ast.ClassDef):
        hinted[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    elif isinstance(node, ast.FunctionDef):
        hinted[node.name] = set()
missing = sorted(set(ctrecon.__all__) - set(hinted))
check(not missing, f"every name of ctrecon.__all__ has a hint (missing: {missing})")
for name in ("Dataset", "Geometry", "Operator"):
    public = {a for a in dir(getattr(ctrecon, name)) if not a.startswith("_")}
    lacking = sorted(public - hinted.get(name, set()))
    check(not lacking, f"{name}: every public attribute has a hint (missing: {lacking})")
finish()
