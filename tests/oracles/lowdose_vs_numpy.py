#!/usr/bin/python3
"""PWLS and CGLS against dense numpy solutions on a small problem (issue 13).

`test-lowdose --dump DIR` writes a 16 x 16 fan-beam problem (32 views x 32
columns, Poisson noise at I0 = 5e3 with I0 stated): the system matrix A as a
dense float32 array, the data b, the statistical weights W the solver uses
(ctr-noise.h), and what the product computed through the plan:
  - PWLS with the quadratic penalty (delta = 1, strength b = beta), no
    non-negativity, one subset, 1500 iterations: it must equal the solution
    of (A'WA + beta H) x = A'Wb, H the Hessian of
    R(x) = sum over 8-neighbour pairs w_jk (x_j - x_k)^2 / 2 with w = 1 for
    the 4 nearest, 1/sqrt(2) for the diagonal neighbours (built here from
    that definition), to a relative error < 1e-3;
  - CGLS, 400 iterations from 0: it must equal numpy.linalg.lstsq's
    minimum-norm least-squares solution to a relative error < 1e-3.
Exit 0 when both agree, 1 otherwise, 77 without the test program.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

prog = os.environ.get("CTR_TEST_LOWDOSE")
if not prog or not os.path.exists(prog):
    print("CTR_TEST_LOWDOSE is not set; run through meson test")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run([prog, "--dump", tmp], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(1)
    meta = json.load(open(os.path.join(tmp, "meta.json")))
    nr, npx, nx, ny, beta = meta["rays"], meta["pixels"], meta["nx"], meta["ny"], meta["beta"]
    load = lambda name: np.fromfile(os.path.join(tmp, name), dtype=np.float32).astype(np.float64)
    A = load("A.f32").reshape(nr, npx)
    b, w = load("b.f32"), load("w.f32")
    x_pwls, x_cgls = load("pwls.f32"), load("cgls.f32")

# The quadratic penalty's Hessian from its definition.
H = np.zeros((npx, npx))
for iy in range(ny):
    for ix in range(nx):
        j = iy * nx + ix
        for dx, dy, wt in ((1, 0, 1.0), (0, 1, 1.0), (1, 1, 2 ** -0.5), (-1, 1, 2 ** -0.5)):
            kx, ky = ix + dx, iy + dy
            if 0 <= kx < nx and 0 <= ky < ny:
                k = ky * nx + kx
                H[j, j] += wt
                H[k, k] += wt
                H[j, k] -= wt
                H[k, j] -= wt

AtW = A.T * w
x_direct = np.linalg.solve(AtW @ A + beta * H, AtW @ b)
x_lsq = np.linalg.lstsq(A, b, rcond=None)[0]

ok = True
for name, x, ref, tol in (("PWLS (quadratic)", x_pwls, x_direct, 1e-3), ("CGLS", x_cgls, x_lsq, 1e-3)):
    rel = np.linalg.norm(x - ref) / np.linalg.norm(ref)
    good = rel < tol
    ok &= good
    print(f"{'ok  ' if good else 'FAIL'} {name}: relative error {rel:.2e} against the dense numpy solution (< {tol:g})")
print(f"condition number of A'WA + beta H: {np.linalg.cond(AtW @ A + beta * H):.3g}; of A: {np.linalg.cond(A):.3g}")
sys.exit(0 if ok else 1)
