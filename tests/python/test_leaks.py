"""No leaks across repeated calls (issue 32): 200 reconstructions (FBP,
SIRT with a callback that keeps nothing, PWLS with the two-argument callback
that receives each iterate) of a small scan (36 views x 48 columns, 32²) leave the resident set within
5 % of what it was after the first 20 (the allocator and caches warmed)."""
import os

from common import check, finish, require_module, simulate, tempdir

ctrecon = require_module()


def rss_kib():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


if not os.path.exists("/proc/self/statm"):
    print("no /proc/self/statm: skipped")
    raise SystemExit(77)

with tempdir() as tmp:
    ds = ctrecon.load(simulate(tmp, "--views", 36, "--cols", 48, "--size", 32))  # the last value counts
    runs = [lambda: ctrecon.reconstruct(ds, "fbp", window="hann"),
            lambda: ctrecon.reconstruct(ds, "sirt", 3, callback=lambda s: None),
            lambda: ctrecon.reconstruct(ds, "pwls", 3, callback=lambda s, image: image is not None)]
    base = None
    for i in range(200):
        image, stats = runs[i % 3]()
        if i == 19:
            base = rss_kib()
    end = rss_kib()
    check(end <= 1.05 * base, f"200 reconstructions: RSS {base} KiB after 20, {end} KiB after 200 "
          f"({100.0 * (end - base) / base:+.1f} %, limit +5 %)")
finish()
