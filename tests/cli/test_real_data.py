"""ctrecon-cli on the real datasets of ../shared/data (skips with 77 without them).

Each check states its tolerance; the numbers printed are the ones quoted in
closing notes.  Protocols:
  - gel-fan: Pearson correlation with the reference (CIL/ASTRA FBP of a
    720-view pre-scan) over the object (the tube, r < 15 mm) must be >= 0.9;
    orientation: inside the gel (r < 13 mm) the image must correlate better
    with the reference than any of its 7 mirrored/rotated variants.
  - head-fan-lowdose, shepp-logan: the datasets' README protocol (image set to
    0 outside the object disc, RMSE inside it) with our SSIM (docs/design.md §8:
    Gaussian window); the README's SSIM (skimage defaults, 7x7 uniform window)
    is printed beside it for comparison with the published baselines.
"""
import os
import sys
import tempfile

import numpy as np
import tifffile
from skimage.metrics import structural_similarity

from common import DATA, check, finish, require_cli, run

require_cli()
if not DATA or not os.path.isdir(DATA):
    print(f"no shared data at '{DATA}': skipping")
    sys.exit(77)

tmp = tempfile.TemporaryDirectory()


def recon(dataset, method, *extra, name=None):
    out = os.path.join(tmp.name, (name or f"{os.path.basename(os.path.dirname(dataset))}-{method}") + ".tif")
    r = run("reconstruct", dataset, "--method", method, *extra, "--output", out, timeout=900)
    if r.returncode != 0:
        print(r.stderr)
        return None
    last = [l for l in r.stderr.splitlines() if "iteration" in l]
    print("     " + (last[-1] if last else r.stderr.strip().splitlines()[-1]))
    return tifffile.imread(out).astype(np.float64)


def variants(im):
    return {"mirror x": im[:, ::-1], "flip y": im[::-1, :], "rot 180": im[::-1, ::-1],
            "transpose": im.T, "rot 90": np.rot90(im), "rot 270": np.rot90(im, 3),
            "anti-transpose": np.rot90(im, 2).T}


def pearson(a, b, m):
    return np.corrcoef(a[m], b[m])[0, 1]


# ---------------------------------------------------------------- gel-fan --
gel = os.path.join(DATA, "gel-fan")
ref = tifffile.imread(os.path.join(gel, "reference_fbp_pre_scan.tif")).astype(np.float64)
n = ref.shape[0]
yy, xx = np.mgrid[0:n, 0:n]
rr = np.hypot(xx - (n - 1) / 2, yy - (n - 1) / 2) * 0.133333
obj, gel_inside = rr < 15.0, rr < 13.0
for geo, views in (("geometry.json", 72), ("geometry_18views.json", 18)):
    for method, extra in (("fbp", ()), ("fbp", ("--window", "hann")), ("art", ("--iterations", "10")),
                          ("part", ("--iterations", "10")), ("sart", ("--iterations", "10")),
                          ("sirt", ("--iterations", "100"))):
        label = f"gel-fan {views} views {method} {' '.join(extra)}".strip()
        im = recon(os.path.join(gel, geo), method, *extra, name=label.replace(" ", "_"))
        if not check(im is not None and im.shape == ref.shape, f"{label}: runs, on the reference grid"):
            continue
        p_obj, p_in = pearson(im, ref, obj), pearson(im, ref, gel_inside)
        best_other = max(pearson(v, ref, gel_inside) for v in variants(im).values())
        mean_ratio = im[gel_inside].mean() / ref[gel_inside].mean()
        print(f"     Pearson object {p_obj:.3f}, gel {p_in:.3f} (best mirrored/rotated {best_other:.3f}), "
              f"mean attenuation ratio {mean_ratio:.4f}")
        if not (views == 18 and method == "fbp"):
            check(p_obj >= 0.9, f"{label}: Pearson over the object {p_obj:.3f} >= 0.9")
        else:
            print(f"     (18-view FBP is streak-limited; reported, not asserted: {p_obj:.3f})")
        check(p_in > best_other + 0.05, f"{label}: orientation (gel {p_in:.3f} > {best_other:.3f} + 0.05)")
        check(abs(mean_ratio - 1) < 0.03, f"{label}: attenuation scale within 3 % ({mean_ratio:.4f})")

# ------------------------------------------------------ savu-parallel-tiff --
savu = os.path.join(DATA, "savu-parallel-tiff", "geometry.json")
fbp = recon(savu, "fbp", name="savu-fbp")
sirt = recon(savu, "sirt", "--iterations", "20", name="savu-sirt")
if check(fbp is not None and sirt is not None, "savu: FBP and SIRT of every slice run"):
    check(fbp.shape[0] == 135 and sirt.shape[0] == 135, f"savu: 135 slices reconstructed ({fbp.shape})")
    check(np.isfinite(fbp).all() and np.isfinite(sirt).all(), "savu: all values finite (dead pixel masked)")
    c = [np.corrcoef(fbp[z].ravel(), sirt[z].ravel())[0, 1] for z in (20, 67, 110)]
    print(f"     FBP vs SIRT correlation on slices 20/67/110: {c[0]:.3f} {c[1]:.3f} {c[2]:.3f}")
    # The flat is ~1.45x brighter than the open beam (README): a constant 0.37
    # offset that FBP's ramp removes and SIRT fits, so slices with little
    # object differ; the middle slice, through the object, must agree.
    check(c[1] > 0.7, f"savu: FBP and SIRT agree on the middle slice ({c[1]:.3f} > 0.7)")
    # neighbouring slices are alike, distant ones less so: the stack is ordered
    near = np.corrcoef(fbp[60].ravel(), fbp[61].ravel())[0, 1]
    far = np.corrcoef(fbp[10].ravel(), fbp[120].ravel())[0, 1]
    check(near > far, f"savu: slices are a coherent stack (adjacent {near:.3f} > distant {far:.3f})")


# ------------------------------------------------------ head-fan-lowdose --
def readme_metrics(im, truth, radius_px):
    n = truth.shape[0]
    yy, xx = np.mgrid[0:n, 0:n]
    m = np.hypot(xx - (n - 1) / 2, yy - (n - 1) / 2) <= radius_px
    masked = np.where(m, im, 0)
    rmse = np.sqrt(np.mean((im[m] - truth[m]) ** 2))
    dr = truth.max() - truth.min()
    return rmse, structural_similarity(truth, masked, data_range=dr)


head = os.path.join(DATA, "head-fan-lowdose", "geometry.json")
truth = tifffile.imread(os.path.join(DATA, "head-fan-lowdose", "reference.tif")).astype(np.float64)
# (variant, method, extra, largest RMSE allowed in 1/mm): bounds are the README's
# independent FBP numbers (+5 %) and, for iterative methods, the FBP we beat.
cases = [
    ("noiseless", "fbp", (), 0.000308 * 1.05),
    ("noiseless", "fbp", ("--window", "hann"), 0.000503 * 1.05),
    ("full_dose", "fbp", ("--window", "hann"), 0.000638 * 1.05),
    ("quarter_dose", "fbp", ("--window", "hann"), 0.000935 * 1.05),
    ("quarter_dose", "fbp", ("--window", "hann", "--cutoff", "0.7"), 0.000817 * 1.05),
    ("quarter_dose", "part", ("--iterations", "3"), 0.000817),
]
for variant, method, extra, bound in cases:
    label = f"head-fan-lowdose {variant} {method} {' '.join(extra)}".strip()
    im = recon(head, method, "--variant", variant, "--metrics-radius", "122.5", *extra,
               name=label.replace(" ", "_"))
    if not check(im is not None, f"{label}: runs"):
        continue
    rmse, ssim_readme = readme_metrics(im, truth, 128)
    print(f"     RMSE {rmse:.6f} /mm ({rmse / 0.0192 * 1000:.1f} HU), SSIM (README protocol, 7x7) {ssim_readme:.4f}")
    check(rmse <= bound, f"{label}: RMSE {rmse:.6f} <= {bound:.6f}")

# ----------------------------------------------------------- shepp-logan --
for shape in ("equiangular", "equilinear"):
    d = os.path.join(DATA, "shepp-logan-fan", shape)
    truth = tifffile.imread(os.path.join(d, "reference.tif")).astype(np.float64)
    for method, extra, ssim_min in (("fbp", (), 0.93), ("art", ("--iterations", "5"), 0.97)):
        im = recon(os.path.join(d, "geometry.json"), method, "--metrics-radius", "92", *extra,
                   name=f"sl-{shape}-{method}")
        if not check(im is not None, f"shepp-logan {shape} {method}: runs"):
            continue
        rmse, ssim_readme = readme_metrics(im, truth, 128)
        print(f"     RMSE {rmse:.3e} /mm, SSIM (README protocol) {ssim_readme:.4f}")
        check(ssim_readme >= ssim_min, f"shepp-logan {shape} {method}: SSIM {ssim_readme:.4f} >= {ssim_min}")
        mirrored = readme_metrics(im[:, ::-1], truth, 128)[1]
        check(mirrored < ssim_readme - 0.02, f"shepp-logan {shape} {method}: mirrored image scores lower ({mirrored:.4f})")

# -------------------------- shepp-logan-fan-w1 (Q1 of docs/design.md §14) --
# cuART's set-up (720 views x 1024 columns, 512 x 512): parallel ART on the
# symmetry-compressed matrix (the default) must store 91 of 720 views (D4)
# and reach SSIM >= 0.99 against the phantom (cuART Table 2: 0.9901; the
# README's independent FBP: 0.963) within 4 iterations.
w1 = os.path.join(DATA, "shepp-logan-fan-w1")
out = os.path.join(tmp.name, "w1-part.tif")
r = run("reconstruct", os.path.join(w1, "equiangular", "geometry.json"), "--method", "part",
        "--iterations", "4", "--size", "512", "--pixel-size", "0.359375",
        "--reference", os.path.join(w1, "reference_512.tif"), "--output", out, timeout=900)
if check(r.returncode == 0, "shepp-logan-fan-w1 parallel ART (SCSR): runs"):
    lines = [l for l in r.stderr.splitlines() if "iteration" in l or "SCSR" in l]
    print("\n".join("     " + l for l in lines))
    check(any("D4" in l and "91 orbits" in l for l in lines), "shepp-logan-fan-w1: SCSR under D4 stores 91 of 720 views")
    ssim = [float(l.split("SSIM")[1].split()[0]) for l in lines if "SSIM" in l and "iteration" in l]
    check(len(ssim) == 4 and max(ssim) >= 0.99, f"shepp-logan-fan-w1: SSIM {max(ssim or [0]):.4f} >= 0.99 (cuART 0.9901)")

finish()
