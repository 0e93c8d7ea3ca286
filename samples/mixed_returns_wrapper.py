"""A wrapper (`Residual(fn)`) run around a layer that returns a tuple and around one that
returns a tensor, whose input ShapeSense cannot compute (`torch.vander` is not modelled).
The second call evaluates nothing in the wrapper, so the hover on `out = self.fn(x)` claims
no tuple: on that call the line holds a tensor (compressive-transformer's GRU gating runs
attention, which returns a tuple, and a feed-forward, which returns a tensor).
"""
# exactness: open
import torch
from torch import nn


class WithAux(nn.Module):
    def forward(self, x):
        return x * 2, x.sum()


class Scale(nn.Module):
    def forward(self, x):
        return x * 3


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        out = self.fn(x)
        #^ ?
        out = out if isinstance(out, tuple) else (out,)
        return (out[0] + x, *out[1:])


x = torch.randn(2, 8)
y, aux = Residual(WithAux())(x)
#^ Tensor[2, 8]
z = torch.vander(torch.arange(1.0, 5.0)).reshape(2, 8)
w, = Residual(Scale())(z)
