"""Our projector inside SciPy: LSQR on ctrecon.Operator, beside our CGLS.

    python3 scipy_lsqr.py [GEOMETRY.json]   (default: ../shared/data/gel-fan)"""
import sys

import numpy as np
from scipy.sparse.linalg import lsqr

import ctrecon

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/gel-fan/geometry.json"
ds = ctrecon.load(path)
A = ctrecon.Operator(ds, size=64)  # the grid reconstruct(size=64) uses
x = lsqr(A.as_linear_operator(), ds.projections.ravel().astype(np.float64), iter_lim=30)[0]
lsqr_image = x.reshape(A.shape[1]).astype(np.float32)
cgls_image, _ = ctrecon.reconstruct(ds, "cgls", 30, size=64)
diff = np.linalg.norm(lsqr_image - cgls_image) / np.linalg.norm(cgls_image)
print(f"LSQR (SciPy, our operator) against CGLS (ours), 30 iterations: relative difference {diff:.2e}")
