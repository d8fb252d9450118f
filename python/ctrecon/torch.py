"""ctrecon.torch: the engine's projector pair as PyTorch autograd functions.

    import ctrecon, ctrecon.torch
    A = ctrecon.Operator(ctrecon.load("geometry.json"), size=128)
    y = ctrecon.torch.forward(A, x)         # x: tensor [z][y][x] (or [B][z][y][x]); y = A x
    loss = ((y - data) ** 2).sum(); loss.backward()   # x.grad = 2 Aᵀ (A x − data)

Imported only on request (`import ctrecon.torch`); needs PyTorch.  The
products run in the engine (float32, on the CPU, the GIL released): tensors
on another device or of another floating dtype are copied to CPU float32
and the result copied back to the input's device and dtype.  The gradient of
forward is the engine's exact adjoint (⟨A x, y⟩ = ⟨x, Aᵀ y⟩ to float
rounding) and the gradient of adjoint is forward, so a learned prior can sit
on either side of the operator.  A leading batch dimension is looped over.
"""
import torch

from ._operator import Operator

__all__ = ["forward", "adjoint", "Projector", "BackProjector"]


def _apply(product, t, in_shape):
    """product (Operator.forward or .adjoint, numpy → numpy) on tensor t of
    shape in_shape or (B, *in_shape); returns a tensor on t's device and of
    t's dtype."""
    a = t.detach().to(device="cpu", dtype=torch.float32).contiguous()
    if tuple(a.shape) == tuple(in_shape):
        out = torch.from_numpy(product(a.numpy()))
    elif a.dim() == len(in_shape) + 1 and tuple(a.shape[1:]) == tuple(in_shape):
        out = torch.stack([torch.from_numpy(product(a[b].numpy())) for b in range(a.shape[0])])
    else:
        raise ValueError(f"expected a tensor of shape {tuple(in_shape)} or (B, *{tuple(in_shape)}), "
                         f"got {tuple(t.shape)}")
    return out.to(device=t.device, dtype=t.dtype if t.dtype.is_floating_point else torch.float32)


class _Forward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, op):
        ctx.op = op
        return _apply(op.forward, x, op.shape[1])

    @staticmethod
    def backward(ctx, g):
        return _apply(ctx.op.adjoint, g, ctx.op.shape[0]), None


class _Adjoint(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y, op):
        ctx.op = op
        return _apply(op.adjoint, y, op.shape[0])

    @staticmethod
    def backward(ctx, g):
        return _apply(ctx.op.forward, g, ctx.op.shape[1]), None


def forward(op: Operator, x: torch.Tensor) -> torch.Tensor:
    """A x as a differentiable tensor: x [z][y][x] (or [B][z][y][x]) in 1/mm
    → [view][row][col] (or [B][view][row][col]) line integrals; backward: Aᵀ."""
    return _Forward.apply(x, op)


def adjoint(op: Operator, y: torch.Tensor) -> torch.Tensor:
    """Aᵀ y as a differentiable tensor: [view][row][col] (or batched) →
    [z][y][x]; backward: A."""
    return _Adjoint.apply(y, op)


class Projector(torch.nn.Module):
    """forward(op, ·) as a module (no parameters)."""

    def __init__(self, op: Operator):
        super().__init__()
        self.op = op

    def forward(self, x):
        return forward(self.op, x)


class BackProjector(torch.nn.Module):
    """adjoint(op, ·) as a module (no parameters)."""

    def __init__(self, op: Operator):
        super().__init__()
        self.op = op

    def forward(self, y):
        return adjoint(self.op, y)
