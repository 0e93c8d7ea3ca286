"""A custom autograd Function whose `forward` is a classmethod (`def forward(cls, ctx, X,
alpha, dim, ...)`, as entmax writes its bisection): `Fn.apply(X, alpha, dim)` binds the class
first, then the ctx, so `dim` is the `dim` the caller passed (and no false error says a
dimension is out of range)."""
import torch
from torch.autograd import Function


class BisectFunction(Function):
    @classmethod
    def _p(cls, X, alpha):
        return torch.clamp(X, min=0) ** (1 / (alpha - 1))

    @classmethod
    def forward(cls, ctx, X, alpha=1.5, dim=-1, n_iter=25):
        max_val, _ = X.max(dim=dim, keepdim=True)
        #^ Tensor[2, 1, 5]
        p = cls._p(X - max_val, alpha)
        ctx.save_for_backward(p)
        return p / p.sum(dim=dim, keepdim=True)

    @classmethod
    def backward(cls, ctx, dY):
        (Y,) = ctx.saved_tensors
        return dY * Y, None, None, None


def entmax_bisect(X, alpha=1.5, dim=-1, n_iter=25):
    return BisectFunction.apply(X, alpha, dim, n_iter)


out = entmax_bisect(torch.randn(2, 7, 5), 1.5, 1, 25)
#     ^ Tensor[2, 7, 5]
