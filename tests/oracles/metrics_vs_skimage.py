#!/usr/bin/python3
"""`ctrecon-cli metrics` against scikit-image and numpy (docs/design.md §8).

SSIM must agree with skimage.metrics.structural_similarity(gaussian_weights=True,
sigma=1.5, use_sample_covariance=False, data_range=ref.max() - ref.min()) to 1e-4;
RMSE, PSNR (skimage.metrics.peak_signal_noise_ratio) and Pearson to 1e-6 relative;
the masked protocol of head-fan-lowdose/README.md (image set to 0 outside the
disc, RMSE inside, SSIM over the whole masked image) against a numpy
reimplementation; a line profile against a numpy bilinear interpolation.

Images: the real ones of $CTR_SHARED_DATA (the head slice of head-fan-lowdose
blurred, noisy and shifted; ctsim's FBP of the Shepp-Logan scan against its
phantom; the gel-fan reference); synthetic numpy images only when the data are
absent.  Written as float32 TIFFs into a temporary folder.

Environment: CTR_CLI (path of ctrecon-cli), CTR_SHARED_DATA (../shared/data).
Exit 0 when every comparison passes, 1 otherwise, 77 (skip) without CTR_CLI.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import tifffile
from scipy import ndimage
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

SSIM_TOL = 1e-4
REL_TOL = 1e-6

passed = 0
failed = 0


def check(name, ok, detail):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)


def rel_close(a, b, tol=REL_TOL):
    if a is None or b is None:
        return a is None and b is None
    if not (np.isfinite(a) and np.isfinite(b)):
        return a == b
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)


def skimage_ssim(img, ref, data_range, dtype=np.float64):
    return structural_similarity(ref.astype(dtype), img.astype(dtype),
                                 gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=data_range)


def disc_mask(shape, pixel, radius):
    """Pixel centres within @radius mm of the grid centre (ctr-volume.h grid)."""
    ny, nx = shape
    x = (np.arange(nx) - (nx - 1) / 2.0) * pixel
    y = ((ny - 1) / 2.0 - np.arange(ny)) * pixel
    return x[None, :] ** 2 + y[:, None] ** 2 <= radius * radius * (1 + 1e-12)


def bilinear_profile(img, pixel, p0, p1, n):
    """numpy bilinear sampling, mm coordinates (x right, y up, origin at centre)."""
    ny, nx = img.shape
    t = np.linspace(0.0, 1.0, n)
    x = p0[0] + t * (p1[0] - p0[0])
    y = p0[1] + t * (p1[1] - p0[1])
    fx = x / pixel + (nx - 1) / 2.0
    fy = (ny - 1) / 2.0 - y / pixel
    x0 = np.floor(fx).astype(int)
    y0 = np.floor(fy).astype(int)
    tx, ty = fx - x0, fy - y0
    assert (x0 >= 0).all() and (x0 + 1 < nx).all() and (y0 >= 0).all() and (y0 + 1 < ny).all()
    v = (img[y0, x0] * (1 - tx) * (1 - ty) + img[y0, x0 + 1] * tx * (1 - ty)
         + img[y0 + 1, x0] * (1 - tx) * ty + img[y0 + 1, x0 + 1] * tx * ty)
    return t * np.hypot(p1[0] - p0[0], p1[1] - p0[1]), v


def write_tiff(path, arr):
    """float32, one page per slice (minisblack: a 3-page stack is not RGB)."""
    tifffile.imwrite(path, np.ascontiguousarray(arr, dtype=np.float32), photometric="minisblack")


def run_cli(cli, image, reference, *args):
    cmd = [cli, "metrics", image, reference, *[str(a) for a in args]]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}: {res.stderr.strip()}")
    return json.loads(res.stdout)


def compare(cli, tmp, name, img, ref, pixel, radius=None, profile=None):
    """One image pair: unmasked metrics, and the masked protocol when @radius."""
    img = np.ascontiguousarray(img, dtype=np.float32)
    ref = np.ascontiguousarray(ref, dtype=np.float32)
    ipath = os.path.join(tmp, f"{name}-image.tif")
    rpath = os.path.join(tmp, f"{name}-reference.tif")
    write_tiff(ipath, img)
    write_tiff(rpath, ref)
    i64, r64 = img.astype(np.float64), ref.astype(np.float64)
    data_range = float(r64.max() - r64.min())

    out = run_cli(cli, ipath, rpath, "--pixel-size", repr(pixel))
    check(f"{name} data_range", rel_close(out["data_range"], data_range, 1e-12),
          f"cli {out['data_range']:.9g} numpy {data_range:.9g}")
    s64 = skimage_ssim(i64, r64, data_range)
    s32 = skimage_ssim(img, ref, data_range, np.float32)
    d = abs(out["ssim"] - s64)
    check(f"{name} ssim", d <= SSIM_TOL and abs(out["ssim"] - s32) <= SSIM_TOL,
          f"cli {out['ssim']:.8f} skimage {s64:.8f} |diff| {d:.2e} "
          f"(skimage on float32: |diff| {abs(out['ssim'] - s32):.2e})")
    rmse = float(np.sqrt(np.mean((i64 - r64) ** 2)))
    check(f"{name} rmse", rel_close(out["rmse"], rmse),
          f"cli {out['rmse']:.10g} numpy {rmse:.10g} rel {abs(out['rmse'] - rmse) / rmse:.1e}")
    psnr = float(peak_signal_noise_ratio(r64, i64, data_range=data_range))
    check(f"{name} psnr", rel_close(out["psnr"], psnr),
          f"cli {out['psnr']:.10g} skimage {psnr:.10g} rel {abs(out['psnr'] - psnr) / abs(psnr):.1e}")
    pearson = float(np.corrcoef(i64.ravel(), r64.ravel())[0, 1])
    check(f"{name} pearson", rel_close(out["pearson"], pearson),
          f"cli {out['pearson']:.10g} numpy {pearson:.10g}")

    if radius is not None:
        out = run_cli(cli, ipath, rpath, "--pixel-size", repr(pixel), "--radius", repr(radius))
        mask = disc_mask(ref.shape, pixel, radius)
        masked = np.where(mask, i64, 0.0)
        rmse_m = float(np.sqrt(np.mean((masked[mask] - r64[mask]) ** 2)))
        psnr_m = float(10 * np.log10(data_range ** 2 / np.mean((masked[mask] - r64[mask]) ** 2)))
        ssim_m = skimage_ssim(masked, r64, data_range)
        pear_m = float(np.corrcoef(masked[mask], r64[mask])[0, 1])
        ok = (out["mask_pixels"] == int(mask.sum()) and rel_close(out["rmse"], rmse_m)
              and rel_close(out["psnr"], psnr_m) and abs(out["ssim"] - ssim_m) <= SSIM_TOL
              and rel_close(out["pearson"], pear_m))
        check(f"{name} masked r={radius:g} mm", ok,
              f"pixels {out['mask_pixels']}/{int(mask.sum())} "
              f"rmse {out['rmse']:.8g}/{rmse_m:.8g} psnr {out['psnr']:.8g}/{psnr_m:.8g} "
              f"ssim {out['ssim']:.8f}/{ssim_m:.8f} |diff| {abs(out['ssim'] - ssim_m):.2e}")

    if profile is not None:
        p0, p1, n = profile
        out = run_cli(cli, ipath, rpath, "--pixel-size", repr(pixel), "--profile",
                      f"{p0[0]!r},{p0[1]!r},{p1[0]!r},{p1[1]!r}", "--samples", n)
        s, vi = bilinear_profile(i64, pixel, p0, p1, n)
        _, vr = bilinear_profile(r64, pixel, p0, p1, n)
        prof = out["profile"]
        scale = max(float(np.abs(r64).max()), 1e-30)
        err = max(max(abs(p["image"] - a), abs(p["reference"] - b)) for p, a, b in zip(prof, vi, vr))
        serr = max(abs(p["s_mm"] - t) for p, t in zip(prof, s))
        check(f"{name} profile", len(prof) == n and err <= 1e-6 * scale and serr <= 1e-9,
              f"{len(prof)} samples, max |value diff| {err:.1e} (scale {scale:.3g}), "
              f"max |s diff| {serr:.1e} mm")


def stack_checks(cli, tmp, ref, imgs, pixel):
    """Several pages: the CLI's means over slices and --slice Z."""
    ref = ref.astype(np.float32)
    stack_i = np.stack([a.astype(np.float32) for a in imgs])
    stack_r = np.stack([ref * (1.0 + 0.5 * k) for k in range(len(imgs))]).astype(np.float32)
    ipath, rpath = os.path.join(tmp, "stack-image.tif"), os.path.join(tmp, "stack-reference.tif")
    write_tiff(ipath, stack_i)
    write_tiff(rpath, stack_r)
    s64, r64 = stack_i.astype(np.float64), stack_r.astype(np.float64)
    data_range = float(r64.max() - r64.min())    # one range over the whole volume
    ssim = np.mean([skimage_ssim(s64[k], r64[k], data_range) for k in range(len(imgs))])
    rmse = np.mean([np.sqrt(np.mean((s64[k] - r64[k]) ** 2)) for k in range(len(imgs))])
    out = run_cli(cli, ipath, rpath, "--pixel-size", repr(pixel))
    check(f"stack of {len(imgs)} mean over slices",
          abs(out["ssim"] - ssim) <= SSIM_TOL and rel_close(out["rmse"], rmse)
          and rel_close(out["data_range"], data_range, 1e-12),
          f"ssim {out['ssim']:.8f}/{ssim:.8f} rmse {out['rmse']:.8g}/{rmse:.8g}")
    k = len(imgs) - 1
    dr_k = float(r64[k].max() - r64[k].min())
    out = run_cli(cli, ipath, rpath, "--pixel-size", repr(pixel), "--slice", k)
    ssim_k = skimage_ssim(s64[k], r64[k], dr_k)
    rmse_k = float(np.sqrt(np.mean((s64[k] - r64[k]) ** 2)))
    check(f"stack --slice {k}",
          abs(out["ssim"] - ssim_k) <= SSIM_TOL and rel_close(out["rmse"], rmse_k),
          f"ssim {out['ssim']:.8f}/{ssim_k:.8f} rmse {out['rmse']:.8g}/{rmse_k:.8g}")


def synthetic_reference(n=256):
    """A Shepp-Logan-like set of ellipses, 1/mm scale, for runs without data."""
    y, x = np.mgrid[-1:1:n * 1j, -1:1:n * 1j]
    img = np.zeros((n, n))
    for (cx, cy, a, b, v) in [(0, 0, 0.69, 0.92, 0.02), (0, -0.0184, 0.6624, 0.874, -0.004),
                              (0.22, 0, 0.11, 0.31, -0.002), (-0.22, 0, 0.16, 0.41, -0.002),
                              (0, 0.35, 0.21, 0.25, 0.001), (0, -0.605, 0.023, 0.023, 0.001)]:
        img[((x - cx) / a) ** 2 + ((y - cy) / b) ** 2 <= 1] += v
    return ndimage.gaussian_filter(img, 0.7)


def run_all(cli, tmp, data, rng):
    head_path = os.path.join(data, "head-fan-lowdose", "reference.tif") if data else ""
    have_data = bool(head_path) and os.path.isfile(head_path)
    if have_data:
        print(f"real images from {data}")
        head = tifffile.imread(head_path).astype(np.float64)
        px = 0.95703125
        blurred = ndimage.gaussian_filter(head, 1.0)
        noisy = head + rng.normal(0.0, 0.002, head.shape)
        shifted = np.zeros_like(head)
        shifted[:, 1:] = head[:, :-1]           # one pixel to +x
        compare(cli, tmp, "head-blurred", blurred, head, px, radius=122.5,
                profile=((-100.0, 20.0), (90.0, -35.5), 301))
        compare(cli, tmp, "head-noisy", noisy, head, px, radius=122.5)
        compare(cli, tmp, "head-shifted", shifted, head, px, radius=122.5)
        # non-square (256 rows × 200 columns): catches x/y mix-ups
        compare(cli, tmp, "head-crop-256x200", blurred[:, 30:230] + 0.001 * noisy[:, 30:230],
                head[:, 30:230], px, radius=90.0, profile=((-80.0, -110.0), (85.0, 120.0), 97))
        stack_checks(cli, tmp, head, [blurred, noisy, shifted], px)

        sl = os.path.join(data, "shepp-logan-fan", "equiangular")
        compare(cli, tmp, "shepp-logan-ctsim-fbp",
                tifffile.imread(os.path.join(sl, "ctsim_fbp.tif")),
                tifffile.imread(os.path.join(sl, "reference.tif")), 0.71875, radius=90.0,
                profile=((-85.0, 0.3), (85.0, 0.3), 237))

        gel = tifffile.imread(os.path.join(data, "gel-fan",
                                           "reference_fbp_pre_scan.tif")).astype(np.float64)
        gel_img = ndimage.gaussian_filter(gel, 0.8) + rng.normal(0.0, 0.001, gel.shape)
        compare(cli, tmp, "gel-fan-smoothed-noisy", gel_img, gel, 0.13333299424828687,
                radius=16.0)
    else:
        print("CTR_SHARED_DATA has no head-fan-lowdose/reference.tif: synthetic images")
        ref = synthetic_reference()
        px = 1.0
        compare(cli, tmp, "synthetic-blurred", ndimage.gaussian_filter(ref, 1.0), ref, px,
                radius=120.0, profile=((-100.0, 20.0), (90.0, -35.5), 301))
        compare(cli, tmp, "synthetic-noisy", ref + rng.normal(0, 0.002, ref.shape), ref, px,
                radius=120.0)
        shifted = np.zeros_like(ref)
        shifted[:, 1:] = ref[:, :-1]
        compare(cli, tmp, "synthetic-shifted", shifted, ref, px, radius=120.0)
        compare(cli, tmp, "synthetic-crop-256x200", ndimage.gaussian_filter(ref, 1.0)[:, 30:230],
                ref[:, 30:230], px, radius=90.0,
                profile=((-80.0, -110.0), (85.0, 120.0), 97))
        stack_checks(cli, tmp, ref, [ndimage.gaussian_filter(ref, 1.0), shifted], px)


def main():
    cli = os.environ.get("CTR_CLI")
    if not cli:
        print("CTR_CLI is not set: skipping")
        return 77
    if not os.access(cli, os.X_OK):
        print(f"FAIL: CTR_CLI={cli} is not an executable")
        return 1
    data = os.environ.get("CTR_SHARED_DATA", "")
    rng = np.random.default_rng(20240611)

    with tempfile.TemporaryDirectory(prefix="ctr-metrics-") as tmp:
        try:
            run_all(cli, tmp, data, rng)
        except Exception as e:  # a CLI failure or bad output is one failed check
            check("run", False, f"{type(e).__name__}: {e}")

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
