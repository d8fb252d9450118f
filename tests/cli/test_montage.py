"""`ctrecon-cli montage` (core/study/ctr-montage.h) on small known images.

A 20 x 16 reference of water with a 40 HU left half, an image 50 HU above
it, one with a non-finite pixel: every tile's grey level must be its HU
through its window (W 80 / L 40: 0 HU black, 40 HU mid-grey, >= 80 HU
white; the difference W 200 / L 0: +50 HU at 191; ±1 for float32
rounding), the tiles at their
places with room for the captions below (drawn: not white), a NaN pixel
black.  Bad input (captions not one per image, a bad window, images of
different sizes, the output over an input, a zoom out of range) fails
with a message and writes nothing.  Needs no shared data.
"""
import os
import tempfile

import numpy as np
import tifffile

from common import check, finish, read_png, require_cli, run

require_cli()
tmp = tempfile.TemporaryDirectory()
T = tmp.name
MU = 0.0192
W, H, PAD = 20, 16, 12


def mu(hu):
    return (MU * (1 + hu / 1000.0)).astype(np.float32)


hu_ref = np.zeros((H, W))
hu_ref[:, : W // 2] = 40
ref, a, b = (os.path.join(T, n) for n in ("ref.tif", "a.tif", "b.tif"))
tifffile.imwrite(ref, mu(hu_ref))
tifffile.imwrite(a, mu(hu_ref + 50))
img_b = mu(hu_ref)
img_b[3, 4] = np.nan
tifffile.imwrite(b, img_b)
out = os.path.join(T, "m.png")

r = run("montage", "--reference", ref, a, "--caption", "A", b, "--caption", "B", "--difference",
        "--difference-caption", "B - ref", "--window", "40,80", "--mu-water", MU, "--zoom", 1, "--output", out)
check(r.returncode == 0, f"montage of 3 images and a difference runs ({r.stderr.strip()})")
if check(os.path.exists(out), "the PNG is written"):
    w, h, rgb = read_png(out)
    grey = rgb[:, :, 0]
    check(w == PAD + 4 * (W + PAD), f"four tiles side by side: width {w} == {PAD + 4 * (W + PAD)}")
    check(h > PAD + H + 20, f"room below the tiles for captions and windows (height {h})")

    def tile(i):
        x0 = PAD + i * (W + PAD)
        return grey[PAD:PAD + H, x0:x0 + W]

    t0, t1, t2, t3 = (tile(i) for i in range(4))
    check(abs(int(t0[0, 0]) - 128) <= 1 and t0[0, -1] == 0, f"reference: 40 HU mid-grey, 0 HU black ({t0[0, 0]}, {t0[0, -1]})")
    check(t1[0, 0] == 255 and abs(int(t1[0, -1]) - 159) <= 1, f"A: 90 HU white, 50 HU at 159 ({t1[0, 0]}, {t1[0, -1]})")
    check(t2[3, 4] == 0, f"B: a NaN pixel is black ({t2[3, 4]})")
    # The difference is B - reference: 0 HU (mid-grey at W 200 / L 0), the NaN black.
    check(abs(int(t3[0, 0]) - 128) <= 1 and t3[3, 4] == 0, f"difference B - reference: 0 HU at 128, NaN black ({t3[0, 0]}, {t3[3, 4]})")
    below = grey[PAD + H + 2:, PAD:PAD + W * 4]
    check((below < 200).sum() > 20, "captions drawn below the tiles")
    os.unlink(out)

r = run("montage", "--reference", ref, a, "--caption", "A", "--difference", "--window", "40,80", "--zoom", 1, "--output", out)
check(r.returncode == 0, "the default difference caption")
if os.path.exists(out):
    w, h, rgb = read_png(out)
    t = rgb[PAD:PAD + H, PAD + 2 * (W + PAD):PAD + 2 * (W + PAD) + W, 0]
    check(abs(int(t[0, 0]) - 191) <= 1, f"difference A - reference: +50 HU at W 200 / L 0 is 191 ({t[0, 0]})")
    os.unlink(out)

small = os.path.join(T, "small.tif")
tifffile.imwrite(small, np.full((8, 8), MU, np.float32))
bad = [
    ("a caption missing", ["--reference", ref, a, b, "--caption", "A"]),
    ("no image", ["--reference", ref]),
    ("a window without width", ["--reference", ref, a, "--caption", "A", "--window", "40"]),
    ("a window of width 0", ["--reference", ref, a, "--caption", "A", "--window", "40,0"]),
    ("images of different sizes", ["--reference", ref, small, "--caption", "S"]),
    ("zoom 9", ["--reference", ref, a, "--caption", "A", "--zoom", 9]),
    ("a missing file", ["--reference", ref, os.path.join(T, "none.tif"), "--caption", "N"]),
]
for what, args in bad:
    r = run("montage", *args, "--output", out)
    check(r.returncode != 0 and r.stderr.strip() != "" and not os.path.exists(out),
          f"{what}: refused with a message, nothing written (exit {r.returncode}: {r.stderr.strip()[:90]})")

before = open(ref, "rb").read()
r = run("montage", "--reference", ref, a, "--caption", "A", "--output", ref)
check(r.returncode != 0 and open(ref, "rb").read() == before, "the output over an input is refused, the input untouched")
finish()
