"""numpy oracle of water's beam hardening for the CLI tests (base/ctr-spectrum.h
restated independently): the NIST water table, the built-in "120kvp"
spectrum's weights, p(L) = -ln sum_k w_k exp(-mu(E_k) L), and Herman's
polynomial fitted to them as ctr_beamhard_fit() states it."""
import numpy as np

# NIST X-Ray Mass Attenuation Coefficients, water (liquid), mu/rho cm^2/g
NIST_KEV = np.array([10, 15, 20, 30, 40, 50, 60, 80, 100, 150.0])
NIST_MU_RHO = np.array([5.329, 1.673, 0.8096, 0.3756, 0.2683, 0.2269, 0.2059, 0.1837, 0.1707, 0.1505])
# the built-in "120kvp" spectrum (ctr-spectrum.c)
SPEC_KEV = np.arange(20, 111, 10.0)
SPEC_W = np.array([0.0724, 0.2068, 0.2011, 0.1612, 0.1224, 0.0900, 0.0644, 0.0434, 0.0263, 0.0120])
SPEC_W = SPEC_W / SPEC_W.sum()


def mu_water(kev):
    """mu of water (1/mm) at kev, the NIST table interpolated log-log."""
    return np.exp(np.interp(np.log(kev), np.log(NIST_KEV), np.log(NIST_MU_RHO))) / 10.0


def line_integral(length_mm, kev=SPEC_KEV, w=SPEC_W):
    """The polychromatic line integral of water paths length_mm (any shape)."""
    length_mm = np.asarray(length_mm, dtype=np.float64)
    return -np.log(np.exp(-length_mm[..., None] * mu_water(kev)) @ w)


def spectrum_fit(p_max, mu_ref, degree=3):
    """a1..a_degree of the least-squares polynomial through the origin that maps
    p(L) onto mu_ref L over 256 paths L evenly spaced in [0, L_max],
    p(L_max) = p_max (ctr_beamhard_fit's statement)."""
    lo, hi = 0.0, 1e4
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if line_integral(mid) < p_max else (lo, mid)
    lengths = np.linspace(0, 0.5 * (lo + hi), 256)
    p = line_integral(lengths)
    a = np.stack([p ** (k + 1) for k in range(degree)], axis=1)
    return np.linalg.lstsq(a, mu_ref * lengths, rcond=None)[0]


def poly(a, p):
    """a1 p + a2 p^2 + ... of the coefficients a."""
    return sum(c * np.asarray(p) ** (k + 1) for k, c in enumerate(a))
