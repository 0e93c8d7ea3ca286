"""Subclasses of `torch.distributions.Transform` (normalizing flows): `t(x)` runs the
class's `_call(x)`, `t.inv(y)` its `_inverse(y)`, and `self.__call__(x)` inside a method does
the same, so the spline's shapes follow the calls. `abs(t)` of a tensor is `torch.abs(t)`."""
import math

import torch
from torch.distributions import Transform, constraints


class MonotonicSpline(Transform):
    domain = constraints.real
    codomain = constraints.real
    bijective = True

    def __init__(self, widths, slope=1e-3):
        super().__init__()
        widths = widths / (1 + abs(2 * widths / math.log(slope)))
        #^ Tensor[3, 4, 6]
        self.knots = torch.cumsum(torch.softmax(widths, dim=-1), dim=-1)

    def _call(self, x):
        k = torch.searchsorted(self.knots, x[..., None]).squeeze(-1)
        #^ Tensor[3, 4]
        return x * 2.0 + k

    def _inverse(self, y):
        x = (y - 1.0) / 2.0
        #^ Tensor[3, 4]
        return x

    def log_abs_det_jacobian(self, x, y):
        return torch.full_like(x, math.log(2.0))

    def call_and_ladj(self, x):
        y = self.__call__(x)
        #^ Tensor[3, 4]
        return y, self.log_abs_det_jacobian(x, y)


t = MonotonicSpline(torch.randn(3, 4, 6))
x = torch.randn(3, 4).contiguous()
y = t(x)
#^ Tensor[3, 4]
x_back = t.inv(y)
#^ Tensor[3, 4]
y2, ladj = t.call_and_ladj(x)
#   ^ Tensor[3, 4]
