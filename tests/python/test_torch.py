"""ctrecon.torch: forward and adjoint as autograd functions (issue 32).
The gradient of ⟨A x, w⟩ in x is exactly the engine's Aᵀ w and that of
⟨Aᵀ y, v⟩ in y is A v; values equal Operator.forward/adjoint; dtype, device
and a batch dimension are kept; torch.autograd.gradcheck (fast mode)
passes at float32 tolerances (the products are float32).  Skipped (77)
where torch does not import (Debian: python3-torch, CPU)."""
import sys

import numpy as np

from common import check, finish, require_module, simulate, tempdir

ctrecon = require_module()
check("torch" not in sys.modules and "ctrecon.torch" not in sys.modules, "import ctrecon imports no torch")
try:
    import torch
except ImportError:
    print("torch is not importable here: skipped")
    sys.exit(77)
import ctrecon.torch as ct  # noqa: E402

with tempdir() as tmp:
    ds = ctrecon.load(simulate(tmp))
    A = ctrecon.Operator(ds, size=32)
    data_shape, image_shape = A.shape
    rng = np.random.default_rng(3)
    xn = rng.random(image_shape, dtype=np.float32)
    wn = rng.random(data_shape, dtype=np.float32)

    x = torch.from_numpy(xn.copy()).requires_grad_(True)
    y = ct.forward(A, x)
    check(tuple(y.shape) == data_shape and y.dtype == torch.float32
          and np.array_equal(y.detach().numpy(), A.forward(xn)), "forward(A, x) = Operator.forward(x), float32")
    (y * torch.from_numpy(wn)).sum().backward()
    check(np.array_equal(x.grad.numpy(), A.adjoint(wn)), "d<Ax, w>/dx = A'w exactly")

    v = torch.from_numpy(wn.copy()).requires_grad_(True)
    z = ct.adjoint(A, v)
    check(np.array_equal(z.detach().numpy(), A.adjoint(wn)), "adjoint(A, y) = Operator.adjoint(y)")
    (z * torch.from_numpy(xn)).sum().backward()
    check(np.array_equal(v.grad.numpy(), A.forward(xn)), "d<A'y, v>/dy = A v exactly")

    xb = torch.from_numpy(np.stack([xn, 2 * xn])).double().requires_grad_(True)
    yb = ct.Projector(A)(xb)
    check(yb.dtype == torch.float64 and tuple(yb.shape) == (2, *data_shape)
          and np.allclose(yb[1].detach().numpy(), 2 * A.forward(xn).astype(np.float64), rtol=1e-6),
          f"a batch of two in float64: shape {tuple(yb.shape)}, dtype {yb.dtype}")
    yb.sum().backward()
    check(xb.grad is not None and tuple(xb.grad.shape) == tuple(xb.shape), "the batch's gradient has its shape")

    # gradcheck's fast mode (random directions: a few products, not one per output)
    xs = torch.rand(image_shape, dtype=torch.float64, requires_grad=True)
    ys = torch.rand(data_shape, dtype=torch.float64, requires_grad=True)
    ok = all(torch.autograd.gradcheck(fn, (t,), eps=1e-2, atol=1e-3, rtol=1e-3, fast_mode=True)
             for fn, t in ((lambda t: ct.forward(A, t), xs), (lambda t: ct.adjoint(A, t), ys)))
    check(ok, "torch.autograd.gradcheck (fast mode) of forward and adjoint at float32 tolerances")

    try:
        ct.forward(A, torch.zeros(3, 3))
        check(False, "a wrong shape raises ValueError")
    except ValueError as e:
        check("expected a tensor of shape" in str(e), f"a wrong shape raises ValueError: {e}")
finish()
