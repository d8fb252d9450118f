"""`ctrecon-cli iq` (AAPM TG-233 task-based image quality) against numpy.

Synthetic images written here, no shared data:
- white Gaussian noise (8 pages of 256 x 256): the NPS (radial, variance, f_peak, f_avg)
  equals an independent numpy implementation of TG-233's NPS equation
  (dx*dy/(Nx*Ny) <|DFT2(ROI - mean)|^2>, same tiling and ring binning)
  within 1e-6 relative, is flat at sigma^2*dx^2 and integrates to sigma^2;
- two realisations with --nps-difference and --detrend plane: numpy with a
  least-squares plane (np.linalg.lstsq) and the halving, same tolerance;
- the same noise stored as mu (1/mm) gives the same NPS in HU^2 mm^2;
- a disc blurred by a Gaussian (sigma 1.2 px), next to a noise region: the
  TTF's f50 within 3 % of the Gaussian MTF's; d' (NPW, NPWE) equals a numpy
  integral of TG-233's formulas (scipy's Bessel J1 for the disc, np.trapz
  on 20000 points) over the CLI's own NPS and TTF within 1 %, and the
  closed-form inputs (white NPS, Gaussian MTF) within 2 %;
- the TTF's CNR: huge (or null) on a noiseless background, numpy's |contrast| / ring SD
  on noisy pages, and a TG-233 warning below 15;
- the TTF pooled over 4 faint realisations in 2 files (CNR 2.5 each), with
  the common and with each page's own centre, equals numpy written from
  ctr-ttf.h's steps (the ESF's bins pooled before differentiation) within
  1e-6, its CNR about one page's x sqrt(4); pooled over 3 copies of one
  image it is that image's, exactly;
- bad input fails with a message and writes no JSON.
"""
import json
import os
import sys
import tempfile

import numpy as np
import tifffile
from scipy.special import erf, j1

from common import check, finish, require_cli, run

require_cli()
tmp = tempfile.TemporaryDirectory()
PIX = 0.6
MU_WATER = 0.0192
rng = np.random.default_rng(2033)


def write(name, pages):
    path = os.path.join(tmp.name, name)
    tifffile.imwrite(path, np.asarray(pages, dtype=np.float32), photometric="minisblack")
    return path


def iq(*args):
    out = os.path.join(tmp.name, "iq.json")
    if os.path.exists(out):
        os.remove(out)
    r = run("iq", *args, "--pixel-size", PIX, "--json", out)
    if r.returncode != 0:
        print(r.stderr)
        return None
    with open(out) as f:
        return json.load(f)


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def tiles(ny, nx, n):
    """Corners of the n x n squares tiling a fully covered image, as the C code tiles."""
    return [(x0, y0) for y0 in range(0, ny - n + 1, n) for x0 in range(0, nx - n + 1, n)]


def detrend(roi, plane):
    if not plane:
        return roi - roi.mean()
    n = roi.shape[0]
    y, x = np.mgrid[0:n, 0:n]
    a = np.column_stack([np.ones(n * n), x.ravel(), y.ravel()])
    coef, *_ = np.linalg.lstsq(a, roi.ravel(), rcond=None)
    return roi - (a @ coef).reshape(n, n)


def nps_oracle(pages, n, plane=False, scale=1.0):
    acc = np.zeros((n, n))
    count = 0
    for img in pages:
        for x0, y0 in tiles(img.shape[0], img.shape[1], n):
            roi = detrend(img[y0:y0 + n, x0:x0 + n].astype(np.float64), plane)
            acc += np.abs(np.fft.fft2(roi)) ** 2
            count += 1
    nps = np.fft.fftshift(scale * PIX * PIX / (n * n) * acc / count)
    df = 1 / (n * PIX)
    j = np.arange(n) - n // 2
    k = np.floor(np.hypot(*np.meshgrid(j, j)) + 0.5).astype(int)
    radial = np.array([nps[k == i].mean() for i in range(n // 2 + 1)])
    radial[0] = radial[1]   # the zero frequency, removed by the detrending, takes ring 1's value
    f = np.arange(n // 2 + 1) * df
    return {"variance": nps.sum() * df * df, "radial": radial, "f": f,
            "f_peak": f[1 + np.argmax(radial[1:])], "f_avg": (f * radial).sum() / radial.sum()}


def compare_nps(got, want, what):
    g = np.array(got["radial"])
    ok = np.allclose(g[:, 0], want["f"], rtol=1e-9)
    err = np.max(np.abs(g[:, 1] - want["radial"])) / want["radial"].max()
    errs = [rel(got["variance"], want["variance"]), rel(got["f_avg"], want["f_avg"])]
    check(ok and err < 1e-6 and max(errs) < 1e-6 and got["f_peak"] == want["f_peak"],
          f"{what}: NPS = numpy within {max([err] + errs):.1e} relative (radial, variance, f_avg; f_peak equal)")


# White noise, 3 pages of 192 x 192, sigma 12 HU.
SD = 12.0
noise = rng.normal(0, SD, (8, 256, 256))
white = write("white.tif", noise)
whole = f"rect:0,0,{256 * PIX},{256 * PIX}"
got = iq(white, "--unit", "hu", "--nps-roi", whole, "--nps-size", 64)
if check(got is not None and got["nps"]["rois"] == 128, "iq on white noise: 128 ROIs (16 per page x 8)"):
    compare_nps(got["nps"], nps_oracle(noise, 64), "white noise")
    rad = np.array(got["nps"]["radial"])[1:, 1]
    flat = SD * SD * PIX * PIX
    bands = [rad[i:i + 8].mean() / flat - 1 for i in range(0, 32, 8)]
    check(max(map(abs, bands)) < 0.03 and rel(got["nps"]["variance"], SD * SD) < 0.02,
          f"white noise flat at sigma^2 dx^2 within {100 * max(map(abs, bands)):.1f} % (4 bands of 8 rings, "
          f"128 ROIs), integral {got['nps']['variance']:.2f} vs {SD * SD:.0f}")

# The same noise stored as mu: identical NPS in HU^2 mm^2.
mu = write("white-mu.tif", MU_WATER * (1 + noise / 1000))
got_mu = iq(mu, "--mu-water", MU_WATER, "--nps-roi", whole, "--nps-size", 64)
if check(got_mu is not None, "iq on the mu image"):
    check(rel(got_mu["nps"]["variance"], got["nps"]["variance"]) < 1e-3,
          f"mu -> HU: variance {got_mu['nps']['variance']:.4f} vs {got['nps']['variance']:.4f}")

# Two realisations, plane detrend, the difference halved.
second = rng.normal(0, SD, (1, 256, 256))
ramp = np.add.outer(np.linspace(-30, 30, 256), np.linspace(0, 20, 256))   # same object in both
a = write("a.tif", noise[:1] + ramp)
b = write("b.tif", second + ramp)
got = iq(a, "--unit", "hu", "--nps-roi", whole, "--nps-size", 64, "--nps-difference", b,
         "--detrend", "plane")
if check(got is not None and got["nps"]["difference"], "iq --nps-difference"):
    diff = (noise[:1] + ramp).astype(np.float32) - (second + ramp).astype(np.float32)
    compare_nps(got["nps"], nps_oracle(diff, 64, plane=True, scale=0.5), "difference, plane detrend")


def blurred_disc(d, radius, s, m=801):
    """Unit disc of radius R blurred by a Gaussian of SD s, at distance d (pixels)."""
    x = np.linspace(-radius, radius, m)
    g = np.exp(-0.5 * ((x[None, :] - d[:, None]) / s) ** 2) / (np.sqrt(2 * np.pi) * s)
    chord = erf(np.sqrt(np.maximum(0, radius ** 2 - x ** 2)) / (np.sqrt(2) * s))
    return np.trapz(g * chord[None, :], x, axis=1)


# A disc (R 12 px, +100 HU, Gaussian blur 1.2 px) left, white noise right.
N, R, S_PX, C = 128, 12.0, 1.2, 100.0
yy, xx = np.mgrid[0:N, 0:N]
cx, cy = 31.4, 64.3
img = blurred_disc(np.hypot(xx - cx, yy - cy).ravel(), R, S_PX).reshape(N, N) * C
pages = [img.copy()]
pages[0][:, 64:] = rng.normal(0, SD, (N, 64))
pages += [np.hstack([np.zeros((N, 64)), rng.normal(0, SD, (N, 64))]) for _ in range(47)]
path = write("disc.tif", pages)
xc, yc = (cx - (N - 1) / 2) * PIX, ((N - 1) / 2 - cy) * PIX
insert = f"circle:{xc:.3f},{yc:.3f},{R * PIX}"
nps_roi = f"rect:{32 * PIX},0,{64 * PIX},{N * PIX}"
TASK_D, TASK_C = 4.0, 20.0
got = iq(path, "--unit", "hu", "--insert", insert, "--slice", 0, "--nps-roi", nps_roi, "--nps-size", 32,
         "--task", f"disc:{TASK_D},{TASK_C}")
if check(got is not None and len(got["ttf"]) == 1 and got["dprime"] is not None, "iq with an insert and a task"):
    t = got["ttf"][0]
    s_mm = S_PX * PIX
    f50 = np.sqrt(np.log(2) / 2) / (np.pi * s_mm)
    check(rel(t["f50"], f50) < 0.03 and abs(t["contrast"] - C) < 1
          and np.hypot(t["centre_mm"][0] - xc, t["centre_mm"][1] - yc) < 0.05 * PIX,
          f"TTF f50 {t['f50']:.4f} vs Gaussian {f50:.4f} cycles/mm ({100 * (t['f50'] / f50 - 1):+.2f} %), "
          f"centre within {np.hypot(t['centre_mm'][0] - xc, t['centre_mm'][1] - yc) / PIX:.3f} px")

    def dprime(nps_f, ttf_f):
        f = np.linspace(0, 0.5 / PIX, 20001)
        fs = np.maximum(f, 1e-12)
        w = TASK_C * (TASK_D / 2) * j1(np.pi * TASK_D * fs) / fs
        rho = f * 500 * np.pi / 180
        e = rho ** 1.3 * np.exp(-1.3 / 32 * rho ** 2)
        wt2 = (w * ttf_f(f)) ** 2 * 2 * np.pi * f
        npw = np.trapz(wt2, f) ** 2 / np.trapz(wt2 * nps_f(f), f)
        npwe = np.trapz(wt2 * e ** 2, f) ** 2 / np.trapz(wt2 * e ** 4 * nps_f(f), f)
        return np.sqrt(npw), np.sqrt(npwe)

    rad = np.array(got["nps"]["radial"])
    curve = np.array(t["curve"])
    own = dprime(lambda f: np.interp(f, rad[:, 0], rad[:, 1]), lambda f: np.interp(f, curve[:, 0], curve[:, 1]))
    ideal = dprime(lambda f: np.full_like(f, SD * SD * PIX * PIX), lambda f: np.exp(-2 * (np.pi * s_mm * f) ** 2))
    d = got["dprime"]
    check(rel(d["npw"], own[0]) < 0.01 and rel(d["npwe"], own[1]) < 0.01,
          f"d' NPW {d['npw']:.4f} NPWE {d['npwe']:.4f} vs numpy on the same NPS/TTF {own[0]:.4f} {own[1]:.4f} "
          f"({100 * rel(d['npw'], own[0]):.3f} %, {100 * rel(d['npwe'], own[1]):.3f} %)")
    check(rel(d["npw"], ideal[0]) < 0.02 and rel(d["npwe"], ideal[1]) < 0.02,
          f"d' vs white NPS and Gaussian MTF in closed form {ideal[0]:.4f} {ideal[1]:.4f} "
          f"({100 * rel(d['npw'], ideal[0]):.2f} %, {100 * rel(d['npwe'], ideal[1]):.2f} %)")

# The TTF's contrast-to-noise ratio (TG-233 asks for 15): on the noiseless
# disc it is infinite (null, no warning); on the mean of 4 noisy pages it
# equals |contrast| / the population SD of the background ring
# (R + r_max)/2 < r <= r_max, r_max = R + clamp(R, 10, 30) px, about the
# found centre, recomputed here in numpy; below 15 the CLI warns.
cnr0 = got["ttf"][0]["cnr"] if got is not None else 0
if check(cnr0 is None or cnr0 > 1e4, f"TTF CNR on a noiseless background: {cnr0} (null when infinite)"):
    r = run("iq", path, "--unit", "hu", "--insert", insert, "--slice", 0, "--pixel-size", PIX)
    check("CNR" in r.stdout and "TG-233" not in r.stderr, "no CNR warning on the noiseless disc")
SD_CNR = 24.0
noisy = [img + rng.normal(0, SD_CNR, (N, N)) for _ in range(4)]
npath = write("disc-noisy.tif", noisy)
out_cnr = os.path.join(tmp.name, "cnr.json")
r = run("iq", npath, "--unit", "hu", "--insert", insert, "--pixel-size", PIX, "--json", out_cnr)
if check(r.returncode == 0, "iq on 4 noisy pages of the disc"):
    t = json.load(open(out_cnr))["ttf"][0]
    mean = np.mean(noisy, axis=0)
    tx = t["centre_mm"][0] / PIX + (N - 1) / 2
    ty = (N - 1) / 2 - t["centre_mm"][1] / PIX
    r_max = R + min(max(R, 10), 30)
    dist = np.hypot(xx - tx, yy - ty)
    ring = mean[(dist > (R + r_max) / 2) & (dist <= r_max)]
    want = abs(t["contrast"]) / np.sqrt(np.mean((ring - ring.mean()) ** 2))
    check(t["cnr"] is not None and rel(t["cnr"], want) < 1e-6 and rel(t["cnr"], C / (SD_CNR / 2)) < 0.15,
          f"TTF CNR {t['cnr']} vs numpy {want:.6f} (nominal C/(SD/sqrt 4) {C / (SD_CNR / 2):.3f})")
    check("TG-233" in r.stderr and "CNR" in r.stderr, f"CNR {t['cnr']:.1f} < 15 warned: {r.stderr.strip()[:120]}")



# --- The TTF pooled over realisations (TG-233; Richard et al. 2012) ---------------
# numpy written from the steps of core/quality/ctr-ttf.h: the centre refined
# on the pages' mean (or on each page from it), every page's pixels binned
# by distance (0.1 px bins) and the bins pooled, empty bins filled, the
# half-contrast edge, the tapered central-difference LSF, |DFT| normalised.
def ttf_oracle(pages, guess, radius, each=False):
    pages = [np.asarray(p, dtype=np.float32).astype(np.float64) for p in pages]
    mean = np.mean(pages, axis=0).astype(np.float32).astype(np.float64)
    ny, nx = mean.shape
    yy, xx = np.mgrid[0:ny, 0:nx]
    r_max = radius + min(max(radius, 10), 30)
    n = int(np.ceil(r_max / 0.1))

    def ring(img, c, lo, hi):
        d = np.hypot(xx - c[0], yy - c[1])
        v = img[(d > lo) & (d <= hi)]
        return v.mean(), np.sqrt(max(np.mean(v * v) - v.mean() ** 2, 0))

    def centre(img, c):
        for _ in range(5):
            bg = ring(img, c, (radius + r_max) / 2, r_max)[0]
            contrast = ring(img, c, -1, radius / 2)[0] - bg
            d = np.hypot(xx - c[0], yy - c[1])
            w = np.clip((img - bg) / contrast, 0, 1) * (d <= radius + 3)
            c = ((w * xx).sum() / w.sum(), (w * yy).sum() / w.sum())
        return c

    common = centre(mean, guess)
    sums, hits, bgs, inss, cs = np.zeros(n), np.zeros(n), [], [], []
    for img in pages:
        c = centre(img, common) if each else common
        k = np.floor(np.hypot(xx - c[0], yy - c[1]) / 0.1).astype(int)
        keep = k < n
        sums += np.bincount(k[keep], img[keep], minlength=n)
        hits += np.bincount(k[keep], minlength=n)
        bgs.append(ring(img, c, (radius + r_max) / 2, r_max)[0])
        inss.append(ring(img, c, -1, radius / 2)[0])
        cs.append(c)
    full = hits > 0
    esf = np.interp(np.arange(n), np.flatnonzero(full), sums[full] / hits[full])
    bg = np.mean(bgs)
    contrast = np.mean(inss) - bg
    u = (esf - bg) / contrast - 0.5
    cross = [(k - 0.5 + u[k - 1] / (u[k - 1] - u[k])) * 0.1 for k in range(1, n) if (u[k - 1] > 0) != (u[k] > 0)]
    edge = min(cross, key=lambda r: abs(r - radius))
    w = min(edge, r_max - edge) - 0.2
    r = (np.arange(n) + 0.5) * 0.1
    d = np.abs(r - edge)
    taper = np.where(d <= w / 2, 1.0, 0.5 + 0.5 * np.cos(np.pi * (d - w / 2) / (w / 2)))
    lsf = np.zeros(n)
    lsf[1:-1] = (esf[2:] - esf[:-2]) / 0.2
    lsf = np.where(d <= w, taper * lsf, 0)
    lsf[0] = lsf[-1] = 0
    f_px = 0.5 * np.arange(101) / 100
    mag = np.abs(np.exp(-2j * np.pi * np.outer(f_px, r - edge)) @ lsf)
    ttf = mag / mag[0]
    i = np.flatnonzero(ttf <= 0.5)[0]
    f = f_px / PIX
    f50 = f[i - 1] + (f[i] - f[i - 1]) * (ttf[i - 1] - 0.5) / (ttf[i - 1] - ttf[i])
    sd = ring(mean, common, (radius + r_max) / 2, r_max)[1]
    return {"f": f, "ttf": ttf, "f50": f50, "cnr": abs(contrast) / sd, "centre": np.mean(cs, axis=0),
            "contrast": contrast}


# Four realisations of a faint disc (+40 HU, noise SD 16 HU: CNR 2.5 each)
# in two files of two pages; and a TTF with each page's own centre.
faint = [img * 0.4 + rng.normal(0, 16, (N, N)) for _ in range(4)]
fa, fb = write("faint-a.tif", faint[:2]), write("faint-b.tif", faint[2:])
xg = float(f"{xc:.3f}") / PIX + (N - 1) / 2
yg = (N - 1) / 2 - float(f"{yc:.3f}") / PIX
for centre_mode in ("common", "each"):
    out_p = os.path.join(tmp.name, f"pooled-{centre_mode}.json")
    r = run("iq", fa, fb, "--unit", "hu", "--insert", insert, "--pixel-size", PIX, "--ttf-centre", centre_mode,
            "--json", out_p)
    if check(r.returncode == 0, f"iq pools 4 pages of 2 files ({centre_mode} centre)"):
        got = json.load(open(out_p))
        t = got["ttf"][0]
        want = ttf_oracle(faint, (xg, yg), R, each=centre_mode == "each")
        curve = np.array(t["curve"])
        err = np.max(np.abs(curve[:, 1] - want["ttf"]))
        cxy = np.array([t["centre_mm"][0] / PIX + (N - 1) / 2, (N - 1) / 2 - t["centre_mm"][1] / PIX])
        check(got["pages"] == 4 and t["images_pooled"] == 4 and t["centre"] == centre_mode
              and err < 1e-6 and rel(t["f50"], want["f50"]) < 1e-6 and rel(t["cnr"], want["cnr"]) < 1e-6
              and rel(t["contrast"], want["contrast"]) < 1e-6
              and np.max(np.abs(curve[:, 0] - want["f"])) < 1e-9 and np.max(np.abs(cxy - want["centre"])) < 1e-6,
              f"pooled TTF ({centre_mode}) = numpy: |TTF diff| {err:.1e}, f50 {t['f50']:.5f} vs {want['f50']:.5f}, "
              f"CNR {t['cnr']:.3f} vs {want['cnr']:.3f} (each page {t['cnr_single']:.2f})")
        if centre_mode == "common":
            check(1.6 < t["cnr"] / t["cnr_single"] < 2.4,
                  f"pooled CNR {t['cnr']:.2f} ~ one page's {t['cnr_single']:.2f} x sqrt(4)")
# Pooled over copies of one image: that image's TTF exactly.
one = write("faint-one.tif", faint[:1])
res = []
for files in ([one], [one, one, one]):
    out_c = os.path.join(tmp.name, "copies.json")
    r = run("iq", *files, "--unit", "hu", "--insert", insert, "--pixel-size", PIX, "--json", out_c)
    res.append(json.load(open(out_c))["ttf"][0] if r.returncode == 0 else None)
check(res[0] is not None and res[1] is not None and res[0]["curve"] == res[1]["curve"]
      and res[0]["f50"] == res[1]["f50"] and res[0]["cnr"] == res[1]["cnr"] and res[1]["images_pooled"] == 3,
      "pooled over 3 copies of one image = that image's TTF, CNR and f50 exactly")
small = write("small.tif", [np.zeros((64, 64))])
out = os.path.join(tmp.name, "bad-pooled.json")
for args, what in [([fa, small], "images of different sizes"),
                   ([fa, "--ttf-centre", "middle"], "an unknown --ttf-centre"),
                   ([fa, os.path.join(tmp.name, "missing.tif")], "a missing second image")]:
    r = run("iq", *args, "--unit", "hu", "--insert", insert, "--pixel-size", PIX, "--json", out)
    check(r.returncode in (1, 2) and r.stderr.strip() and not os.path.exists(out),
          f"refused: {what} ({r.stderr.strip()[:90]})")

# Bad input: a message, a non-zero exit, no JSON.
out = os.path.join(tmp.name, "bad.json")
for args, what in [(["--nps-roi", "rect:0,0,5,5"], "an NPS ROI smaller than one square"),
                   (["--insert", "rect:0,0,5,5"], "a rectangular insert"),
                   (["--insert", "circle:0,0,100"], "an insert larger than the image"),
                   (["--nps-roi", whole, "--task", "disc:4"], "a task without a contrast"),
                   (["--nps-roi", whole, "--task", "disc:4,10"], "a task without an insert"),
                   (["--nps-roi", whole, "--detrend", "cubic"], "an unknown detrend"),
                   (["--nps-roi", whole, "--nps-difference", path], "realisations of different sizes")]:
    r = run("iq", white, "--unit", "hu", "--pixel-size", PIX, *args, "--json", out)
    check(r.returncode in (1, 2) and r.stderr.strip() and not os.path.exists(out),
          f"refused: {what} ({r.stderr.strip()[:90]})")

finish()
