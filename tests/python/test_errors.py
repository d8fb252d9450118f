"""Every exception class of the package raised by a bad input (issue 32),
each carrying the engine's message: FileError, FormatError, InvalidGeometry,
InvalidData, InvalidArgument (also a ValueError), Unsupported, OutOfMemory;
Failed (an internal failure: FFTW could not plan), Cancelled (the engine
cancelled otherwise than by the caller) and BackendUnavailable (a device
failing during a run: a backend that cannot start falls back to the CPU
with a note) have no input that causes them and are checked as classes.  Ctrl-C during a
reconstruction (SIGINT from another thread, the GIL released) stops it and
raises KeyboardInterrupt."""
import json
import os
import signal
import threading

import numpy as np

from common import check, finish, require_module, simulate, tempdir

ctrecon = require_module()


def raises(cls, fn, what, needle=""):
    try:
        fn()
    except cls as e:
        return check(type(e) is cls and isinstance(e, ctrecon.Error) and needle in str(e),
                     f"{what}: {cls.__name__} ({e})")
    except Exception as e:  # noqa: BLE001 - the wrong class is the failure reported
        return check(False, f"{what}: {type(e).__name__} instead of {cls.__name__} ({e})")
    return check(False, f"{what}: no exception")


with tempdir() as tmp:
    path = simulate(tmp)
    ds = ctrecon.load(path)
    with open(path) as fh:
        geo = json.load(fh)

    raises(ctrecon.FileError, lambda: ctrecon.load(os.path.join(tmp, "missing.json")), "a missing file",
           "missing.json")
    with open(os.path.join(tmp, "bad.json"), "w") as fh:
        fh.write("{ not json")
    raises(ctrecon.FormatError, lambda: ctrecon.load(os.path.join(tmp, "bad.json")), "a file that is not JSON",
           "bad.json")
    neg = dict(geo, source_to_isocenter_mm=-5.0)
    with open(os.path.join(tmp, "neg.json"), "w") as fh:
        json.dump(neg, fh)
    raises(ctrecon.InvalidGeometry, lambda: ctrecon.load(os.path.join(tmp, "neg.json")),
           "a negative source distance")
    bad = ds.projections.copy()
    bad[1, 0, 2] = np.inf
    raises(ctrecon.InvalidData, lambda: ctrecon.Dataset(ctrecon.Geometry(ds), bad), "an infinite projection")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.reconstruct(ds, "sirt", 2, relaxation=-1.0),
           "a negative relaxation", "relaxation")
    check(issubclass(ctrecon.InvalidArgument, ValueError), "InvalidArgument is also a ValueError")
    raises(ctrecon.Unsupported, lambda: ctrecon.Geometry.from_astra({"type": "parallel3d"}),
           "an ASTRA geometry type not read", "parallel3d")
    raises(ctrecon.OutOfMemory, lambda: ctrecon.reconstruct(ds, size=(65536, 65536, 65536)),
           "a 65536³ volume (1 PiB)", "PiB")
    # A GPU backend named where none can run leaves Operator and reconstruct
    # to the CPU with a note and a RuntimeWarning, as the CLI
    # (test_operator_matrix); BackendUnavailable is checked as a class below.
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Operator(ds, backend="quantum"), "an unknown backend",
           "quantum")
    check(ctrecon.Operator(ds, size=16, backend="cpu").shape[1] == (1, 16, 16), "Operator(backend='cpu') is made")
    for cls in (ctrecon.Failed, ctrecon.Cancelled, ctrecon.BackendUnavailable):
        check(issubclass(cls, ctrecon.Error) and cls.__doc__, f"{cls.__name__}: a ctrecon.Error ({cls.__doc__})")

    # Ctrl-C: SIGINT while the engine runs (GIL released) stops the run
    # between iterations and raises KeyboardInterrupt.
    first = threading.Event()
    seen = []

    def on_iteration(stats):
        seen.append(stats["iteration"])
        first.set()

    killer = threading.Thread(target=lambda: first.wait(60) and os.kill(os.getpid(), signal.SIGINT))
    killer.start()
    try:
        ctrecon.reconstruct(ds, "sirt", 5000, callback=on_iteration)
        check(False, "SIGINT during SIRT 5000: no KeyboardInterrupt")
    except KeyboardInterrupt:
        check(0 < len(seen) < 5000, f"SIGINT during SIRT 5000: KeyboardInterrupt after {len(seen)} iterations")
    killer.join()
    image, stats = ctrecon.reconstruct(ds, "sirt", 2)
    check(len(stats) == 2 and np.isfinite(image).all(), "the next reconstruction runs normally")
finish()
