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
import subprocess
import sys
import threading

import numpy as np

from common import check, finish, require_module, simulate, tempdir

ctrecon = require_module()

# Run in a child interpreter: the geometry and dataset made, the address
# space limited to 4 MiB above what it holds, then each copied.
COPY_UNDER_LIMIT = """
import json, resource, sys
import numpy as np
import ctrecon
g = ctrecon.Geometry(json.loads(sys.argv[1]))
ds = ctrecon.Dataset(g, np.zeros(g.data_shape, np.float32))
with open("/proc/self/status") as fh:
    vm = next(int(line.split()[1]) for line in fh if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (4 << 20), vm + (4 << 20)))
for make in (lambda: ctrecon.Geometry(g), lambda: ctrecon.Geometry(ds)):
    try:
        make()
        print("no exception")
    except ctrecon.OutOfMemory as e:
        print("OutOfMemory:", e)
"""


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

    # A copy of a geometry of 2^20 views (its angles: 8 MiB) under an
    # address-space limit 4 MiB above what the interpreter holds: OutOfMemory
    # naming the angles, where GLib's allocator used to abort the interpreter.
    # (Not under the sanitizers, which an address-space limit stops.)
    big = {k: v for k, v in geo.items() if k != "angles_rad"}
    big.update(views=1 << 20, detector_cols=4, angle_start_rad=0.0, angle_step_rad=1e-5)
    if not os.environ.get("CTR_SANITIZED"):
        child = subprocess.run([sys.executable, "-c", COPY_UNDER_LIMIT, json.dumps(big)], capture_output=True,
                               text=True, timeout=120)
        lines = child.stdout.splitlines()
        check(child.returncode == 0 and len(lines) == 2
              and all(line.startswith("OutOfMemory") and "angles of 1048576 views" in line for line in lines),
              f"Geometry(Geometry), Geometry(Dataset) of 2^20 views beyond ulimit -v: OutOfMemory "
              f"(exit {child.returncode}: {child.stdout.strip()} {child.stderr.strip()[-300:]})")
finish()
