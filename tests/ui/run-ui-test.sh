#!/bin/sh
# run-ui-test.sh — the window end to end under Xvfb, checked by its screenshot.
#
# usage: run-ui-test.sh PATH/TO/ctrecon BUILD_DIR
# env:   CTR_SHARED_DATA (../shared/data), CTR_CLI (ctrecon-cli),
#        CTR_PYTHON (a python3 with numpy; default /usr/bin/python3)
#
# Opens a dataset (gel-fan from the shared data, or a small simulated scan when
# that is absent), reconstructs 8 SIRT iterations, saves the window as
# BUILD_DIR/ui-screenshot.png and checks that the picture is not blank: the
# dark slice area must hold a grey-level image, the plot coloured curves.
# Exit 77 (skipped) without xvfb-run or without any dataset.
set -eu

app=${1:?usage: run-ui-test.sh CTRECON BUILD_DIR}
build_dir=${2:?usage: run-ui-test.sh CTRECON BUILD_DIR}
python=${CTR_PYTHON:-/usr/bin/python3}
shot="$build_dir/ui-screenshot.png"

if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "SKIP: xvfb-run not found (Debian package xvfb)"
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ctrecon-ui-test.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

dataset=
if [ -n "${CTR_SHARED_DATA:-}" ] && [ -f "$CTR_SHARED_DATA/gel-fan/geometry.json" ]; then
  dataset="$CTR_SHARED_DATA/gel-fan/geometry.json"
elif [ -n "${CTR_CLI:-}" ] && [ -x "$CTR_CLI" ] &&
     "$CTR_CLI" simulate --views 180 --cols 256 --output "$work/sim" >"$work/simulate.log" 2>&1; then
  dataset="$work/sim/geometry.json"
else
  echo "SKIP: no dataset (no \$CTR_SHARED_DATA/gel-fan and ctrecon-cli simulate failed)"
  cat "$work/simulate.log" 2>/dev/null || true
  exit 77
fi
echo "dataset: $dataset"

rm -f "$shot"
status=0
timeout 240 xvfb-run -a -s "-screen 0 1280x900x24" \
  env G_DEBUG=fatal-criticals GSETTINGS_BACKEND=memory GTK_A11Y=none \
      GDK_BACKEND=x11 LIBGL_ALWAYS_SOFTWARE=1 NO_AT_BRIDGE=1 \
      DBUS_SESSION_BUS_ADDRESS=disabled: \
  "$app" --method sirt --iterations 8 --run --screenshot "$shot" "$dataset" \
  >"$work/app.log" 2>&1 || status=$?
cat "$work/app.log"
if [ "$status" -ne 0 ]; then
  echo "FAIL: ctrecon exited with status $status"
  exit 1
fi
if [ ! -s "$shot" ]; then
  echo "FAIL: no screenshot at $shot"
  exit 1
fi

# Decode the PNG with zlib (no imaging library needed) and look at it.
"$python" - "$shot" <<'PY'
import struct, sys, zlib
import numpy as np

path = sys.argv[1]
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"


def decode_with_pixbuf(path):
    import gi
    gi.require_version("GdkPixbuf", "2.0")
    from gi.repository import GdkPixbuf
    pb = GdkPixbuf.Pixbuf.new_from_file(path)
    n, rs = pb.get_n_channels(), pb.get_rowstride()
    buf = np.frombuffer(pb.get_pixels(), np.uint8)
    rows = [buf[y * rs:y * rs + pb.get_width() * n] for y in range(pb.get_height())]
    return np.stack(rows).reshape(pb.get_height(), pb.get_width(), n)[:, :, :3].astype(int)


def decode_with_zlib(data):
    """Plain PNG decoder (8/16-bit grey/RGB/RGBA, not interlaced)."""
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    assert interlace == 0, "interlaced PNG"
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    bpp = channels * depth // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    img = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        out = np.zeros(stride, np.int32)
        if f == 0:
            out = line
        elif f == 2:
            out = (line + prev) & 255
        else:
            for x in range(stride):
                a = out[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                out[x] = (line[x] + p) & 255
        img[y] = out
        prev = out
    px = img.reshape(h, w, bpp)
    if depth == 16:
        px = px[:, :, 0::2]            # high bytes
    return px[:, :, :3].astype(int) if channels >= 3 else np.repeat(px[:, :, :1], 3, 2).astype(int)


try:
    rgb = decode_with_pixbuf(path)
except Exception:
    rgb = decode_with_zlib(data)
h, w = rgb.shape[:2]

print(f"screenshot {w}x{h}, {len(data) // 1024} KiB")
assert w >= 800 and h >= 600, "window too small"
assert len(data) > 20 * 1024, "PNG suspiciously small"

# The slice: grey pixels (R = G = B) in the dark area left of centre.
grey = (rgb[:, :, 0] == rgb[:, :, 1]) & (rgb[:, :, 1] == rgb[:, :, 2])
region = rgb[h // 8: 7 * h // 8, w // 4: 2 * w // 3]
greymask = grey[h // 8: 7 * h // 8, w // 4: 2 * w // 3]
levels = np.unique(region[greymask][:, 0])
print(f"grey levels in the slice area: {len(levels)}")
assert len(levels) >= 32, "the slice area shows no reconstructed image"
dark = (region[greymask][:, 0] < 40).mean()
print(f"dark fraction of the slice area: {dark:.2f}")

# The plot: the residual curve in GNOME blue (#1c71d8) right of the slice.
blue = (abs(rgb[:, :, 0] - 0x1c) < 40) & (abs(rgb[:, :, 1] - 0x71) < 40) & (abs(rgb[:, :, 2] - 0xd8) < 40)
n_blue = int(blue[h // 10:, w // 2:].sum())   # below the header bar
print(f"residual-curve pixels: {n_blue}")
assert n_blue > 150, "no convergence curve in the plot"
print("ok")
PY
echo "screenshot: $shot"
