"""Helpers shared by the CLI tests (run with Debian's /usr/bin/python3)."""
import os
import struct
import subprocess
import sys
import zlib

CLI = os.environ.get("CTR_CLI")
DATA = os.environ.get("CTR_SHARED_DATA", "")

results = {"passed": 0, "failed": 0}


def run(*args, timeout=600, **kw):
    """Runs ctrecon-cli with args; returns CompletedProcess (text)."""
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, **kw)


def check(cond, what):
    if cond:
        results["passed"] += 1
        print(f"ok   {what}", flush=True)
    else:
        results["failed"] += 1
        print(f"FAIL {what}", flush=True)
    return cond


def finish():
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


def require_cli():
    if not CLI or not os.path.exists(CLI):
        print("CTR_CLI is not set; run through meson test")
        sys.exit(77)


def read_png(path):
    """(width, height, RGB array) of an 8-bit RGB/RGBA non-interlaced PNG
    (decoded with zlib alone)."""
    import numpy as np

    with open(path, "rb") as fh:
        data = fh.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    img = np.zeros((h, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        out = np.zeros(stride, np.int32)
        for i in range(stride):
            a = out[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 0:
                p = 0
            elif f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[i] = (line[i] + p) & 255
        img[y] = out
        prev = out
    return w, h, img.reshape(h, w, bpp)[:, :, :3]
