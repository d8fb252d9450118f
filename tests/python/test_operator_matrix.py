"""ctrecon.Operator's matrix (the CLI's --matrix: auto, scsr, csr, none)
and the plan's notes (issue 32): the stored SCSR and CSR matrices, whose
native orders are packed and permuted, give the same products on natural
arrays as the rows on the fly (to 1e-5 of the largest value, float
rounding: the rows are computed by the same ray code), each pair is
adjoint, on a fan (one and three detector rows) and a parallel scan;
.notes name the matrix chosen and the backend; a bad matrix name raises
InvalidArgument with the CLI's message.  reconstruct(backend=...) records
the plan's notes in stats.notes and warns (RuntimeWarning) when the backend
asked for falls back to the CPU, with the same image as backend='cpu'."""
import warnings

import numpy as np

from common import check, cli, finish, require_module, simulate, tempdir

ctrecon = require_module()
rng = np.random.default_rng(11)


def rel_diff(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def adjoint_gap(A, x, y):
    lhs = float(np.dot(A.forward(x).ravel().astype(np.float64), y.ravel()))
    rhs = float(np.dot(x.ravel().astype(np.float64), A.adjoint(y).ravel()))
    return abs(lhs - rhs) / abs(lhs)


def compare(scan, label, size=None, models=("area", "joseph")):
    for model in models:
        ops = {m: ctrecon.Operator(scan, size=size, ray_model=model, matrix=m) for m in ("scsr", "csr", "none")}
        x = rng.random(ops["none"].shape[1], dtype=np.float32)
        y = rng.random(ops["none"].shape[0], dtype=np.float32)
        fwd, adj = ops["none"].forward(x), ops["none"].adjoint(y)
        for m in ("scsr", "csr"):
            A = ops[m]
            df, da = rel_diff(A.forward(x), fwd), rel_diff(A.adjoint(y), adj)
            check(A.description.startswith("cpu-" + m) and df <= 1e-5 and da <= 1e-5,
                  f"{label}, {model}: matrix {m} ({A.description.split(':')[0]}) = on the fly: forward to "
                  f"{df:.1e}, adjoint to {da:.1e}")
        for m, A in ops.items():
            gap = adjoint_gap(A, x, y)
            check(gap <= 1e-5, f"{label}, {model}, matrix {m}: <Ax, y> = <x, A'y> to {gap:.1e}")


with tempdir() as tmp:
    path = simulate(tmp)
    ds = ctrecon.load(path)
    compare(ds, "fan")
    g3 = dict(ctrecon.Geometry(ds).to_dict(), detector_rows=3)
    compare(ctrecon.Geometry(g3), "fan, three rows", size=32, models=("area",))
    par = ctrecon.load(simulate(tmp + "/par", "-g", "parallel"))
    compare(par, "parallel", models=("area",))

    # The notes: the plan's, naming the matrix and the backend.
    stored = ctrecon.Operator(ds, matrix="scsr")
    fly = ctrecon.Operator(ds, matrix="none")
    auto = ctrecon.Operator(ds)
    check(isinstance(stored.notes, list) and all(isinstance(n, str) for n in stored.notes)
          and any(n.startswith("SCSR") for n in stored.notes) and "backend: cpu" in stored.notes
          and stored.backend == "cpu", f"matrix='scsr': notes {stored.notes}")
    check(any("no stored matrix" in n for n in fly.notes) and not any(n.startswith("SCSR") for n in fly.notes),
          f"matrix='none': notes {fly.notes}")
    check(any(n.startswith("matrix: auto") for n in auto.notes) and auto.description.startswith("cpu-scsr"),
          f"matrix='auto' (a small scan: stored): {auto.description.split(':')[0]}, notes {auto.notes}")
    stored.notes.clear()
    check(len(stored.notes) > 0, ".notes is a copy")
    cone = ctrecon.load(simulate(tmp + "/cone", "-g", "cone-flat", "--rows", 4, "--views", 60, "--cols", 64,
                                 "--size", 32))
    C = ctrecon.Operator(cone, matrix="none")
    check(C.notes and "backend: cpu" in C.notes and C.description.startswith("cpu-cone"),
          f"cone beam: notes {C.notes}")

    # A bad matrix name: InvalidArgument (a ValueError) with the CLI's message.
    r = cli("reconstruct", path, "--method", "sirt", "--matrix", "dense", "-o", tmp + "/never.tif")
    try:
        ctrecon.Operator(ds, matrix="dense")
        check(False, "matrix='dense' raises")
    except ctrecon.InvalidArgument as e:
        check(isinstance(e, ValueError) and r.returncode != 0 and str(e) in r.stderr and "scsr" in str(e),
              f"matrix='dense' raises InvalidArgument with the CLI's message: {e} (CLI: {r.stderr.strip()})")

    # reconstruct(): the plan's notes with the stats; a backend that cannot
    # run here falls back to the CPU with a note and a warning.
    image_cpu, stats_cpu = ctrecon.reconstruct(ds, "sirt", 3, backend="cpu")
    check(isinstance(stats_cpu, list) and len(stats_cpu) == 3 and "backend: cpu" in stats_cpu.notes
          and any(n.startswith("SCSR") for n in stats_cpu.notes), f"stats.notes: {stats_cpu.notes}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        image, stats = ctrecon.reconstruct(ds, "sirt", 3, backend="cuda")
    fell_back = [w for w in caught if issubclass(w.category, RuntimeWarning) and "cuda" in str(w.message)]
    if "backend: cuda" in stats.notes:
        check(not fell_back, f"backend='cuda' with a device: runs there, no warning ({stats.notes})")
    else:
        check(len(fell_back) == 1 and "backend: cpu" in stats.notes
              and any("cuda" in n and n != "backend: cpu" for n in stats.notes)
              and np.array_equal(image, image_cpu),
              f"backend='cuda' without a device: the CPU's image, the note {[n for n in stats.notes if 'cuda' in n]}"
              f" and a RuntimeWarning ({fell_back[0].message if fell_back else 'none'})")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        A = ctrecon.Operator(ds, backend="cuda")
    check((A.backend == "cuda") == (not caught) and A.notes,
          f"Operator(backend='cuda'): runs on {A.backend}, warned {[str(w.message) for w in caught]}")
finish()
