"""The study tools from Python: a Dataset made from arrays reconstructs as
the loaded one; simulate_dose thins the counts as Poisson statistics say
(checked in numpy), is deterministic per seed and keeps the reference;
noise_level finds the stated I0, and estimates it from the sinogram when
none is stated; roi's mean and SD equal numpy's over the same pixels; bad
input raises the engine's classes."""
import numpy as np

from common import check, finish, require_module, simulate, tempdir

ctrecon = require_module()


def raises(cls, fn, what):
    try:
        fn()
    except cls as e:
        return check(True, f"{what}: {cls.__name__} ({e})")
    except Exception as e:  # noqa: BLE001 - the wrong class is the failure reported
        return check(False, f"{what}: {type(e).__name__} instead of {cls.__name__} ({e})")
    return check(False, f"{what}: no exception")


with tempdir() as tmp:
    path = simulate(tmp)  # 90 views x 128 columns, I0 = 2e4 stated, Poisson noise
    ds = ctrecon.load(path)
    g = ctrecon.Geometry(path)

    # A Dataset from arrays: the same image as the loaded scan, same grid.
    arr = ctrecon.Dataset(g, ds.projections.astype(np.float64), name="mine", i0=2e4)
    a, _ = ctrecon.reconstruct(ds, "fbp", size=64, pixel_size=0.5, reference=False)
    b, _ = ctrecon.reconstruct(arr, "fbp", size=64, pixel_size=0.5)
    check(np.array_equal(a, b), "Dataset(geometry, projections) reconstructs as the loaded scan")
    check(arr.reference is None and arr.name == "mine" and arr.projections.dtype == np.float32,
          "an arrays Dataset: no reference, its name, float32 projections")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Dataset(g, np.zeros((90, 1, 127))), "a wrong shape")
    bad = ds.projections.copy()
    bad[3, 0, 5] = np.nan
    raises(ctrecon.InvalidData, lambda: ctrecon.Dataset(g, bad), "a NaN in the projections")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Dataset(g, ds.projections, i0=-1.0), "a negative i0")

    # A reference from arrays: on the loaded scan's own reference grid the
    # metrics are the loaded dataset's, bit for bit; without a grid the
    # array lies on the grid reconstruct(size=NX) uses.
    sirt = dict(method="sirt", iterations=3)
    withref = ctrecon.Dataset(g, ds.projections, reference=ds.reference, reference_grid=ds.reference_grid)
    check(withref.reference_grid == ds.reference_grid and np.array_equal(withref.reference, ds.reference),
          f"Dataset(..., reference, reference_grid): the grid {withref.reference_grid}")
    img_l, st_l = ctrecon.reconstruct(ds, **sirt)
    img_a, st_a = ctrecon.reconstruct(withref, **sirt)
    check(np.array_equal(img_l, img_a) and [s["rmse"] for s in st_a] == [s["rmse"] for s in st_l]
          and [s["ssim"] for s in st_a] == [s["ssim"] for s in st_l] and st_a[-1]["has_reference"],
          f"its metrics are the loaded scan's: RMSE {[round(s['rmse'], 7) for s in st_a]}")
    plain = ctrecon.Dataset(g, ds.projections, reference=ds.reference[0])
    pg, want = plain.reference_grid, ctrecon.Operator(g, size=ds.reference.shape[2]).grid
    check(all(abs(pg[k] - want[k]) <= 1e-12 for k in want), f"a reference alone lies on the size-NX grid: {pg}")
    img_p, st_p = ctrecon.reconstruct(plain, "fbp")
    check(img_p.shape == ds.reference.shape and st_p[-1]["has_reference"] and st_p[-1]["rmse"] > 0,
          f"reconstruct of it reports RMSE {st_p[-1]['rmse']:.3g} on its grid {img_p.shape}")
    bad_ref = ds.reference.copy()
    bad_ref[0, 1, 1] = np.inf
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Dataset(g, ds.projections, reference=bad_ref), "an infinite "
           "reference value")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Dataset(g, ds.projections, reference=ds.reference,
                                                            reference_grid={"nx": 3}), "reference_grid nx not the array's")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Dataset(g, ds.projections, reference=ds.reference,
                                                            reference_grid={"dx_mm": -1.0}), "a negative pixel")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Dataset(g, ds.projections, reference=ds.reference,
                                                            reference_grid={"pixel": 1.0}), "an unknown key")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Dataset(g, ds.projections, reference_grid=ds.reference_grid),
           "a grid without a reference")

    # Noise level: the stated I0, and the sinogram's own estimate without it.
    n = ctrecon.noise_level(ds)
    check(n["source"] == "statistics" and n["i0"] == 2e4, f"noise_level: stated I0 {n['i0']:g} ({n['source']})")
    m = ctrecon.noise_level(ctrecon.Dataset(g, ds.projections))
    check(m["source"] == "sinogram" and abs(m["i0"] / 2e4 - 1) < 0.1,
          f"noise_level without I0: estimated {m['i0']:.0f} from the sinogram (simulated at 2e4)")

    # Quarter dose by thinning: for counts N ~ Poisson(I0 e^-b) thinned to
    # N' ~ Binomial(N, F), var(b' - b) = 1/(F I0 e^-b) - 1/(I0 e^-b), so
    # E[(b' - b)^2 I0 e^-b] = 1/F - 1 = 3.
    q, rep = ctrecon.simulate_dose(ds, 0.25, seed=5)
    check(rep["model"] == "thin" and abs(rep["i0_out"] - 0.25 * rep["i0_in"]) < 1e-9 and rep["i0_in"] == 2e4,
          f"simulate_dose: {rep['model']}, I0 {rep['i0_in']:g} -> {rep['i0_out']:g}")
    d = (q.projections - ds.projections).astype(np.float64)
    w = 2e4 * np.exp(-ds.projections.astype(np.float64))
    ratio = float(np.mean(d * d * w))
    check(abs(ratio - 3.0) < 0.15, f"E[(b'-b)^2 I0 e^-b] = {ratio:.3f} (Poisson thinning: 3)")
    q2, _ = ctrecon.simulate_dose(ds, 0.25, seed=5)
    q3, _ = ctrecon.simulate_dose(ds, 0.25, seed=6)
    check(np.array_equal(q.projections, q2.projections) and not np.array_equal(q.projections, q3.projections),
          "the same seed gives the same data, another seed other data")
    _, st = ctrecon.reconstruct(q, "fbp")
    check(st[-1]["has_reference"] and q.reference is not None, "the lower dose keeps the reference (metrics)")
    check(ctrecon.noise_level(q)["i0"] == 5e3, "and states its dose: I0 5000")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.simulate_dose(ds, 0.0), "fraction 0")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.simulate_dose(ds, 0.5, model="magic"), "an unknown model")

    # ROI statistics = numpy over the pixels whose centres lie inside.
    rng = np.random.default_rng(2)
    img = (0.02 + 0.001 * rng.standard_normal((2, 40, 50))).astype(np.float32)
    px = 0.7
    x = (np.arange(50) - 24.5) * px
    y = (19.5 - np.arange(40)) * px
    inside = np.hypot(x[None, :] - 3.0, y[:, None] + 2.0) <= 6.0
    r = ctrecon.roi(img, "circle:3,-2,6", pixel_size=px, mu_water=0.02, slice=1)
    vals = img[1][inside].astype(np.float64)
    check(r["n_pixels"] == inside.sum() and abs(r["mean_mu"] - vals.mean()) < 1e-9
          and abs(r["sd_mu"] - vals.std(ddof=1)) < 1e-9,
          f"roi: {r['n_pixels']} pixels, mean {r['mean_mu']:.6f}, SD {r['sd_mu']:.6f} 1/mm = numpy's")
    check(abs(r["sd_hu"] - 1000 * vals.std(ddof=1) / 0.02) < 1e-6 and np.isfinite(r["noise_sd_hu"]),
          f"roi: SD {r['sd_hu']:.2f} HU, detrended noise {r['noise_sd_hu']:.2f} HU")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.roi(img, "circle:3,-2"), "an ROI text without a radius")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.roi(img, "circle:0,0,5", slice=2), "a slice outside")
    raises(TypeError, lambda: ctrecon.roi(img, (0, 0, 5)), "an ROI as a tuple")
finish()
