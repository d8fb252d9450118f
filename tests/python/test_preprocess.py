"""ctrecon.load(preprocess=...) runs the engine's "preprocess" pipeline given
from Python, the same one `ctrecon-cli reconstruct --preprocess FILE.json`
runs: on a simulated scan with zingers and a stripe the loaded projections
give the CLI's image bit for bit; [] overrides a geometry.json's own list;
the engine's refusals raise InvalidArgument with its message."""
import json
import os

import numpy as np

from common import check, cli, finish, read_tiff, require_module, simulate, tempdir

ctrecon = require_module()
STEPS = [{"op": "outliers"}, {"op": "rings", "method": "large"}]


def spoil(folder):
    """Zingers (40 pixels + 4) and a stripe (columns 50-53 + 2: wider than
    the outlier filter's 3 × 3, left to "rings") into the simulated
    sinogram, in place."""
    import tifffile
    tif = os.path.join(folder, "sinogram.tif")
    a = tifffile.imread(tif)
    flat = a.reshape(-1, a.shape[-1])
    rng = np.random.default_rng(3)
    flat[rng.integers(0, flat.shape[0], 40), rng.integers(0, flat.shape[1], 40)] += 4.0
    flat[:, 50:54] += 2.0
    tifffile.imwrite(tif, a)


def raises(cls, what, fn):
    try:
        fn()
    except cls as e:
        return check(True, f"{what} raises {cls.__name__}: {e}")
    except Exception as e:  # noqa: BLE001 (the wrong class is the failure reported)
        return check(False, f"{what} raises {type(e).__name__} ({e}), not {cls.__name__}")
    return check(False, f"{what} raises {cls.__name__} (nothing raised)")


with tempdir() as tmp:
    path = simulate(tmp)
    read_tiff(os.path.join(tmp, "reference.tif"))  # exit 77 without tifffile
    spoil(tmp)
    steps_file = os.path.join(tmp, "steps.json")
    with open(steps_file, "w") as fh:
        json.dump(STEPS, fh)
    try:
        ds = ctrecon.load(path, preprocess=STEPS)
    except TypeError as e:
        check(False, f"load(preprocess=[...]) is accepted: {e}")
        finish()
    plain = ctrecon.load(path)
    changed = int(np.count_nonzero(ds.projections != plain.projections))
    check(changed > 0, f"the steps changed {changed} of {plain.projections.size} line integrals")
    notes = [w for w in ds.warnings if w.startswith(("outliers", "rings"))]
    check(len(notes) == 2 and "rings: 0 " not in notes[1] and not any(w.startswith(("outliers", "rings")) for w in plain.warnings),
          f"each step's effect is a note of Dataset.warnings: {notes}")

    # the CLI's --preprocess on the same file: the same image, bit for bit
    out = os.path.join(tmp, "cli.tif")
    r = cli("reconstruct", path, "--preprocess", steps_file, "-o", out, "--backend", "cpu")
    if check(r.returncode == 0, "the CLI ran with --preprocess"):
        ref = read_tiff(out)
        image, _ = ctrecon.reconstruct(ds, backend="cpu")
        plain_image, _ = ctrecon.reconstruct(plain, backend="cpu")
        check(image.shape == ref.shape and np.array_equal(image, ref),
              f"load(preprocess=list) then reconstruct: the CLI's --preprocess image bit for bit "
              f"(max |diff| {float(np.abs(image - ref).max()):.3g}; without the steps "
              f"{float(np.abs(plain_image - ref).max()):.3g})")
        check(all(n in r.stderr for n in notes), "the CLI printed the same notes")
    else:
        print(r.stderr)

    from_file = ctrecon.load(path, preprocess=steps_file)
    check(np.array_equal(from_file.projections, ds.projections), "preprocess=FILE.json: the list's projections")

    # a geometry.json with its own list: None keeps it, [] runs none, a list replaces it
    with open(path) as fh:
        geo = json.load(fh)
    geo["preprocess"] = STEPS
    own = os.path.join(tmp, "own.json")
    with open(own, "w") as fh:
        json.dump(geo, fh)
    check(np.array_equal(ctrecon.load(own).projections, ds.projections), "None: the file's own list runs")
    check(np.array_equal(ctrecon.load(own, preprocess=[]).projections, plain.projections),
          "preprocess=[]: no step, though the file has a list")
    only_outliers = ctrecon.load(own, preprocess=[{"op": "outliers"}])
    check(not np.array_equal(only_outliers.projections, ds.projections)
          and not any(w.startswith("rings") for w in only_outliers.warnings),
          "preprocess=[outliers] replaces the file's two steps")

    raises(ctrecon.InvalidArgument, "an unknown op", lambda: ctrecon.load(path, preprocess=[{"op": "sharpen"}]))
    raises(ValueError, "an unknown parameter",
           lambda: ctrecon.load(path, preprocess=[{"op": "outliers", "treshold": 3}]))
    raises(ctrecon.InvalidArgument, "a ring size that is even",
           lambda: ctrecon.load(path, preprocess=[{"op": "rings", "size": 20}]))
    raises(ctrecon.InvalidArgument, "a dict that is not a list", lambda: ctrecon.load(path, preprocess={"op": "x"}))
    raises(TypeError, "a value JSON cannot hold", lambda: ctrecon.load(path, preprocess=[{"op": object()}]))
    bad_file = os.path.join(tmp, "bad.json")
    with open(bad_file, "w") as fh:
        fh.write("[{\"op\": ")
    raises(ctrecon.FormatError, "a preprocess file that is not JSON", lambda: ctrecon.load(path, preprocess=bad_file))
    deep_file = os.path.join(tmp, "deep.json")
    with open(deep_file, "w") as fh:   # crashed json-glib's parser before core's JSON path
        fh.write("[" * 100000 + "]" * 100000)
    raises(ctrecon.FormatError, "a preprocess file nested 100,000 deep", lambda: ctrecon.load(path, preprocess=deep_file))
    twice_file = os.path.join(tmp, "twice.json")
    with open(twice_file, "w") as fh:
        fh.write('[{"op": "outliers", "op": "rings"}]')
    raises(ctrecon.FormatError, "a preprocess file with a key given twice",
           lambda: ctrecon.load(path, preprocess=twice_file))
    raises(ctrecon.FileError, "a preprocess file that is absent",
           lambda: ctrecon.load(path, preprocess=os.path.join(tmp, "none.json")))

finish()
