"""mpirun -np 2 ctrecon-cli reconstruct: every rank reads its own share of
the projections (issue 37 item 4) instead of rank 0 reading all and sending.

- savu-parallel-tiff (one 16-bit TIFF per view, counts with a flat), SIRT:
  the image is bit-identical to one process's; rank 0 reads rows 67-134 and
  rank 1 rows 0-66 (of 135) and together they decode exactly the stored
  bytes of the views' strips (tifffile's byte counts: the oracle); the
  dataset's warnings are the one process's.
- head-cone-small (one page per detector row), cone SIRT over z-slabs: each
  rank reads the detector rows of its slab and halo only (fewer than 48),
  and the image is bit-identical to the same run with rank 0 reading and
  sending (CTR_MPI_READ=rank0); FDK (views) equals one process to 1e-5 of
  the maximum (float sums in another order, as test_mpi_equal).
- The claims check (ctr_dataset_check_claims) of a split read is judged on
  rank 0 over every rank's sample: negated line integrals (head-cone-small,
  FDK's views and cone SIRT's overlapping rows) and a flat field with 3 %
  dead pixels (savu) give the one process's warnings word for word, their
  percentiles and fractions included.
- A fall-back: --preprocess with a step reads the whole dataset on every
  rank, says so, and the image is bit-identical to one process's."""
import glob
import json
import os
import re
import tempfile

import numpy as np
import tifffile

from mpi_common import DATA, check, finish, mpi_env, mpirun, require_data, require_mpi, run

require_mpi()
SAVU, CONE = require_data()


def line_bytes(paths, first, last):
    """Stored bytes of lines first..last of every page (uncompressed files),
    the bytes of all pages, and the pages."""
    own = whole = pages = 0
    for p in paths:
        with tifffile.TiffFile(p) as t:
            for page in t.pages:
                assert page.compression == 1
                per_line = page.shape[1] * page.dtype.itemsize
                own += (last - first + 1) * per_line
                whole += sum(page.databytecounts)
                pages += 1
    return own, whole, pages


def read_notes(stderr):
    return {int(m.group(1)): (m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)), m.group(6))
            for m in re.finditer(r"rank (\d+) read (rows|views) (\d+)-(\d+) of (\d+): (\d+) bytes", stderr)}


def warnings(stderr, prefix):
    return sorted(l.split(prefix, 1)[1] for l in stderr.splitlines() if prefix in l)


with tempfile.TemporaryDirectory() as tmp:
    os.environ["CTR_CACHE_DIR"] = os.path.join(tmp, "cache")
    args = ["reconstruct", SAVU, "--method", "sirt", "--iterations", "1"]
    p1 = run(*args, "-o", f"{tmp}/one.tif", env=mpi_env())
    p2 = mpirun(2, *args, "-o", f"{tmp}/two.tif")
    ok = p1.returncode == 0 and p2.returncode == 0
    check(ok, "savu SIRT, 1 process and mpirun -np 2" + ("" if ok else ": " + p2.stderr[-800:]))
    if ok:
        a, b = tifffile.imread(f"{tmp}/one.tif"), tifffile.imread(f"{tmp}/two.tif")
        check(a.shape == b.shape and np.array_equal(a, b), "savu SIRT: 2 ranks reading their rows = 1 process, "
              f"bit-identical (max |diff| {np.abs(a - b).max():.3g})")
        notes = read_notes(p2.stderr)
        views = sorted(glob.glob(os.path.join(DATA, "savu-parallel-tiff", "tiffs", "raw_*.tiff")))
        check(notes.get(0, ())[:4] == ("rows", 67, 134, 135) and notes.get(1, ())[:4] == ("rows", 0, 66, 135),
              f"savu: each rank read its own rows ({notes})")
        # libtiff reads an uncompressed strip in chunks of about 8 KiB (its
        # strip chopping): a rank decodes its lines and at most a chunk more
        # at either end of every page.
        for r, n in sorted(notes.items()):
            own, whole, pages = line_bytes(views, n[1], n[2])
            got = int(n[4])
            check(own <= got <= own + 2 * 8192 * pages and got < whole,
                  f"savu: rank {r} decoded {got} bytes: its rows hold {own}, every row {whole}")
        w1, w2 = warnings(p1.stderr, "ctrecon-cli: warning: "), warnings(p2.stderr, "warning: ")
        check(all(w in w2 for w in w1), f"savu: the one process's warnings are said under mpirun ({w1})")

    # Cone SIRT: z-slabs with halos read the detector rows of slab and halo.
    cargs = ["reconstruct", CONE, "--method", "sirt", "--iterations", "1", "--size", "32", "--pixel-size", "7.7"]
    c2 = mpirun(2, *cargs, "-o", f"{tmp}/c2.tif")
    c0 = mpirun(2, *cargs, "-o", f"{tmp}/c0.tif", env=mpi_env(CTR_MPI_READ="rank0"))
    ok = c2.returncode == 0 and c0.returncode == 0
    check(ok, "cone SIRT mpirun -np 2, reading shares and sent" + ("" if ok else ": " + c2.stderr[-800:]
                                                                    + c0.stderr[-400:]))
    if ok:
        a, b = tifffile.imread(f"{tmp}/c0.tif"), tifffile.imread(f"{tmp}/c2.tif")
        check(np.array_equal(a, b), "cone SIRT: the image of ranks reading their rows = rank 0 sending them")
        notes = read_notes(c2.stderr)
        check(len(notes) == 2 and all(n[0] == "rows" and n[2] - n[1] + 1 < 48 for n in notes.values()),
              f"cone SIRT: each rank read fewer than the 48 rows ({notes})")
        check("read rows" not in c0.stderr, "CTR_MPI_READ=rank0: rank 0 reads and sends")
    f1 = run("reconstruct", CONE, "-o", f"{tmp}/f1.tif", env=mpi_env())
    f2 = mpirun(2, "reconstruct", CONE, "-o", f"{tmp}/f2.tif")
    ok = f1.returncode == 0 and f2.returncode == 0
    check(ok, "FDK 1 process and mpirun -np 2" + ("" if ok else ": " + f2.stderr[-800:]))
    if ok:
        a, b = tifffile.imread(f"{tmp}/f1.tif"), tifffile.imread(f"{tmp}/f2.tif")
        d = float(np.abs(a.astype(np.float64) - b).max() / np.abs(a).max())
        check(d <= 1e-5, f"FDK: 2 ranks reading their views = 1 process (max rel. difference {d:.2e})")
        notes = read_notes(f2.stderr)
        check(notes.get(0, ())[:4] == ("views", 0, 47, 96) and notes.get(1, ())[:4] == ("views", 48, 95, 96),
              f"FDK: each rank read its own views ({notes})")

    # The claims check over every rank's sample.
    cone = json.load(open(CONE))
    for k in ("reference", "peer_result", "variants"):
        cone.pop(k, None)
    neg = -tifffile.imread(os.path.join(os.path.dirname(CONE), "projections.tif"))
    tifffile.imwrite(f"{tmp}/neg.tif", neg)
    cone["projections"] = {"file": f"{tmp}/neg.tif", "layout": "sinogram", "dtype": "float32"}
    with open(f"{tmp}/neg.json", "w") as f:
        json.dump(cone, f)
    savu = json.load(open(SAVU))
    base = os.path.dirname(SAVU)
    savu["projections"]["pattern"] = os.path.join(base, savu["projections"]["pattern"])
    savu["dark"] = os.path.join(base, savu["dark"])
    flat = tifffile.imread(os.path.join(base, savu["flat"]))
    dead = np.random.default_rng(7).random(flat.shape) < 0.03
    dead[:, :4] = False   # every row keeps live columns
    tifffile.imwrite(f"{tmp}/flat.tif", np.where(dead, 0, flat).astype(flat.dtype))
    savu["flat"] = f"{tmp}/flat.tif"
    with open(f"{tmp}/dead.json", "w") as f:
        json.dump(savu, f)
    for what, path, extra in (("negated, FDK views", f"{tmp}/neg.json", []),
                              ("negated, cone SIRT rows", f"{tmp}/neg.json",
                               ["--method", "sirt", "--iterations", "1", "--size", "32", "--pixel-size", "7.7"]),
                              ("dead pixels, SIRT rows", f"{tmp}/dead.json", ["--method", "sirt", "--iterations", "1"])):
        q1 = run("reconstruct", path, *extra, "-o", f"{tmp}/q1.tif", env=mpi_env())
        q2 = mpirun(2, "reconstruct", path, *extra, "-o", f"{tmp}/q2.tif")
        ok = q1.returncode == 0 and q2.returncode == 0
        check(ok, f"claims ({what}): 1 process and 2 ranks" + ("" if ok else ": " + q2.stderr[-800:]))
        if ok:
            w1, w2 = warnings(q1.stderr, "ctrecon-cli: warning: "), warnings(q2.stderr, "warning: ")
            claims = [w for w in w1 if "percentile" in w or "open beam (flat" in w]
            split = re.search(r"rank 1 read (rows|views) \d+-\d+ of \d+: ", q2.stderr) is not None
            check(len(claims) == 1 and all(w in w2 for w in claims) and split,
                  f"claims ({what}): 2 ranks reading their shares warn as 1 process ({claims} / {w2})")

    # Fall-back: a preprocessing step needs the whole projections.
    pre = os.path.join(tmp, "pre.json")
    with open(pre, "w") as f:
        json.dump([{"op": "outliers", "threshold": 5}], f)
    args = ["reconstruct", SAVU, "--method", "sirt", "--iterations", "1", "--preprocess", pre]
    p1 = run(*args, "-o", f"{tmp}/pone.tif", env=mpi_env())
    p2 = mpirun(2, *args, "-o", f"{tmp}/ptwo.tif")
    ok = p1.returncode == 0 and p2.returncode == 0
    check(ok, "savu with --preprocess, 1 process and 2 ranks" + ("" if ok else ": " + p2.stderr[-800:]))
    if ok:
        a, b = tifffile.imread(f"{tmp}/pone.tif"), tifffile.imread(f"{tmp}/ptwo.tif")
        check(np.array_equal(a, b), "fall-back: the image equals one process's, bit-identical")
        check(p2.stderr.count("read the whole dataset (the preprocessing pipeline") == 2
              and "kept rows 67-134 of 135" in p2.stderr,
              "fall-back: every rank says it read the whole dataset, and why")
finish()
