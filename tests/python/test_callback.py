"""reconstruct's callback: it sees every iteration in order (a callable of
two arguments also each iterate's image, a copy of its own); returning False
stops the run after that iteration (the image of that iteration comes back,
the same as a run of that many iterations); an exception it raises ends the
run and propagates; other Python threads run while the engine works."""
import sys
import threading

import numpy as np

from common import check, finish, require_module, simulate, tempdir

ctrecon = require_module()

with tempdir() as tmp:
    ds = ctrecon.load(simulate(tmp))
    seen = []
    image, stats = ctrecon.reconstruct(ds, "sirt", 6, callback=lambda s: seen.append(dict(s)))
    check([s["iteration"] for s in seen] == [1, 2, 3, 4, 5, 6] and all(s["n_iterations"] == 6 for s in seen),
          f"the callback saw iterations {[s['iteration'] for s in seen]} of 6")
    check(seen == stats, "the stats returned are those the callback saw")
    res = [s["residual"] for s in stats]
    check(all(b < a for a, b in zip(res, res[1:])), f"SIRT's residual falls: {res[0]:.4g} → {res[-1]:.4g}")

    calls = []

    def stop_at_3(s):
        calls.append(s["iteration"])
        return s["iteration"] < 3

    stopped, st = ctrecon.reconstruct(ds, "sirt", 6, callback=stop_at_3)
    check(calls == [1, 2, 3] and len(st) == 3, f"returning False at 3 stopped the run: calls {calls}")
    three, _ = ctrecon.reconstruct(ds, "sirt", 3)
    check(np.array_equal(stopped, three), "the image of a run stopped at 3 is that of a 3-iteration run")
    check(not np.array_equal(three, image), "and differs from the 6-iteration image")

    # callback(stats, image): the images are the iterates: iteration k's is
    # the k-iteration run's image; they are copies (kept after the run).
    images = []
    last, _ = ctrecon.reconstruct(ds, "sirt", 3, callback=lambda s, im: images.append(im))
    check(len(images) == 3 and all(im.shape == last.shape and im.dtype == np.float32 for im in images),
          f"a two-argument callback got {len(images)} images of shape {last.shape}")
    check(np.array_equal(images[2], three) and np.array_equal(images[2], last),
          "its third image is the 3-iteration run's image")
    one, _ = ctrecon.reconstruct(ds, "sirt", 1)
    check(np.array_equal(images[0], one) and not np.array_equal(images[0], images[1]),
          "its first image is the 1-iteration run's, not the second's (each a copy)")

    class Watcher:
        def __init__(self):
            self.n = 0

        def __call__(self, s, image=None, *rest):
            self.n += image is not None

    w = Watcher()
    ctrecon.reconstruct(ds, "fbp", callback=w)
    check(w.n == 1, "a callable object taking (stats, image) gets FBP's image once")

    def fail(s):
        raise ZeroDivisionError("from the callback")

    try:
        ctrecon.reconstruct(ds, "sirt", 4, callback=fail)
        check(False, "an exception in the callback propagates")
    except ZeroDivisionError as e:
        check(str(e) == "from the callback", f"an exception in the callback propagates: {e!r}")

    # The GIL is released while the engine runs: with a switch interval of
    # 100 s a thread woken by the first callback gets the GIL before the run
    # ends only if the engine lets it go (held, it would wait for the end).
    go, ran = threading.Event(), threading.Event()
    worker = threading.Thread(target=lambda: go.wait(60) and ran.set())
    worker.start()
    seen_ran = []

    def wake_worker(s):
        seen_ran.append(ran.is_set())
        go.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        ctrecon.reconstruct(ds, "sirt", 10, callback=wake_worker)
    finally:
        sys.setswitchinterval(old)
    worker.join(60)
    check(any(seen_ran[1:]), f"another thread ran during the run (seen by callbacks 2..10: {seen_ran[1:]})")
finish()
