"""The matrix cache's folder is a trust boundary (issue 38 items 11 and 23).

11. A cache file whose weights were altered and whose checksum was
    recomputed is never used when someone else could have written it: a
    folder writable by others without the sticky bit is not used at all, a
    file writable by others is refused; the run says so and its image is the
    untampered one.
23. The cache keeps within CTR_CACHE_MAX_MB: the least recently used files
    go first, and a matrix larger than the cap is not saved.
"""
import hashlib
import os
import struct
import tempfile
import time
import zlib

import numpy as np
import tifffile

from common import check, finish, require_cli, run

require_cli()

HEADER_END = 128  # magic, version and sizes, key; the checksum follows


def tamper(path, factor):
    """Scales every weight of the cache file @path by @factor and recomputes
    its checksum (CRC-32 in version 4, SHA-256 from version 5)."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    version, K, n_orbits, n_cols, _, _, n_parts, _ = struct.unpack_from("<8I", data, 8)
    nnz = struct.unpack_from("<Q", data, 48)[0]
    head = HEADER_END + (8 if version <= 4 else 32)
    seg_n = n_orbits * n_cols * K * n_parts + 1
    el0 = head + 8 * seg_n
    el = np.frombuffer(bytes(data[el0:el0 + 8 * nnz]), dtype=[("rep", "<u4"), ("w", "<f4")]).copy()
    el["w"] *= factor
    data[el0:el0 + 8 * nnz] = el.tobytes()
    body = bytes(data[head:])
    if version <= 4:
        struct.pack_into("<I", data, HEADER_END, zlib.crc32(body))
    else:
        data[HEADER_END:HEADER_END + 32] = hashlib.sha256(body).digest()
    with open(path, "wb") as f:
        f.write(data)


def image(p):
    return tifffile.imread(p).astype(np.float64)


with tempfile.TemporaryDirectory() as tmp:
    def path(*p):
        return os.path.join(tmp, *p)

    cache = path("cache")
    os.mkdir(cache, 0o700)
    env = dict(os.environ, CTR_CACHE_DIR=cache)
    r = run("simulate", "--phantom", "head", "--views", 120, "--cols", 160, "--size", 64,
            "--i0", 0, "--output", path("scan"))
    if not check(r.returncode == 0, "simulate a small fan-beam scan"):
        finish()
    geo = path("scan", "geometry.json")
    recon = ["reconstruct", geo, "--method", "part", "--iterations", 2]
    r = run(*recon, "--output", path("clean.tif"), env=env)
    files = [f for f in os.listdir(cache) if f.endswith(".scsr")]
    if not check(r.returncode == 0 and len(files) == 1, f"the run fills the cache ({files})"):
        finish()
    cached = os.path.join(cache, files[0])
    clean = image(path("clean.tif"))
    tamper(cached, 0.5)

    # --------------------------------------------------------------- 11 --
    os.chmod(cache, 0o777)
    r = run(*recon, "--output", path("open.tif"), env=env)
    same = r.returncode == 0 and np.allclose(image(path("open.tif")), clean, rtol=1e-4, atol=1e-6)
    check(same and "writable by others without the sticky bit" in r.stderr,
          f"a tampered file in a folder others can write is not used (exit {r.returncode}, "
          f"image {'the clean one' if same else 'changed'})")
    os.chmod(cache, 0o700)
    os.chmod(cached, 0o666)
    r = run(*recon, "--output", path("shared.tif"), env=env)
    same = r.returncode == 0 and np.allclose(image(path("shared.tif")), clean, rtol=1e-4, atol=1e-6)
    check(same and "is writable by others" in r.stderr,
          f"a tampered file others can write is refused and rebuilt (exit {r.returncode}, "
          f"image {'the clean one' if same else 'changed'})")
    mode = os.stat(cached).st_mode & 0o777 if os.path.exists(cached) else None
    check(mode == 0o600, f"the rebuilt file is the owner's alone (mode {oct(mode) if mode else None})")
    # Control: the tampering is real (the owner's own file, digest and all,
    # is trusted: only the owner could have written it).
    tamper(cached, 0.5)
    r = run(*recon, "--output", path("own.tif"), env=env)
    check(r.returncode == 0 and not np.allclose(image(path("own.tif")), clean, rtol=1e-4, atol=1e-6),
          "control: the tampered file changes the image where it is trusted")
    os.unlink(cached)

    # --------------------------------------------------------------- 23 --
    # Three grids (64², 72², 80²: matrices of about 1.8, 2.3, 2.8 MiB) under
    # a 6 MiB cap: A, B, A again (a hit), then C: B, the least recently used,
    # goes; a user's file in the folder is neither counted nor removed.
    for f in os.listdir(cache):
        os.unlink(os.path.join(cache, f))
    user = os.path.join(cache, "notes.txt")
    with open(user, "wb") as f:
        f.write(b"x" * (3 << 20))
    capped = dict(env, CTR_CACHE_MAX_MB="6")

    def cached_now():
        return {f: os.path.getsize(os.path.join(cache, f)) for f in os.listdir(cache) if f.endswith(".scsr")}

    keys = {}
    for size in (64, 72, 64, 80):
        before = set(cached_now())
        r = run(*recon, "--size", size, "--output", path(f"cap{size}.tif"), env=capped)
        new = set(cached_now()) - before
        if new:
            keys[size] = new.pop()
        check(r.returncode == 0, f"a run on a {size}² grid (exit {r.returncode})")
        time.sleep(0.05)   # distinct access times
    left = cached_now()
    check(len(keys) == 3 and keys[64] in left and keys[80] in left and keys[72] not in left
          and sum(left.values()) <= 6 << 20 and os.path.getsize(user) == 3 << 20,
          f"under a 6 MiB cap the least recently used matrix goes ({sorted(left.values())} bytes left), "
          f"a user's file stays")
    r = run(*recon, "--size", 96, "--output", path("cap96.tif"), env=dict(env, CTR_CACHE_MAX_MB="1"))
    check(r.returncode == 0 and "more than the cache's cap" in r.stderr and cached_now() == left,
          f"a matrix larger than the cap is not saved, and nothing is removed for it "
          f"({len(cached_now())} files left)")

finish()
