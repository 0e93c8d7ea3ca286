"""A `default(val, d)` helper that calls `d` when it is a function (`inspect.isfunction`)
and returns it as is otherwise: handed a layer class (`nn.GELU`) it returns the class, which
the constructor then builds. A layer class is no function, so the activation is a GELU and
keeps the shape (it used to be one of "the class" and "a GELU built", and the line after it
showed nothing)."""
import math
from inspect import isfunction

import torch
from torch import nn


def default(x, val):
    if x is not None:
        return x
    return val if not isfunction(val) else val()


class GELU_(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * torch.pow(x, 3))))


GELU = nn.GELU if hasattr(nn, 'GELU') else GELU_


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, activation=None):
        super().__init__()
        activation = default(activation, GELU)
        self.w1 = nn.Linear(dim, dim * mult)
        self.act = activation()
        self.w2 = nn.Linear(dim * mult, dim)

    def forward(self, x):
        x = self.w1(x)
        x = self.act(x)
        #^ Tensor[2, 16, 128]
        return self.w2(x)


ff = FeedForward(32)
out = ff(torch.randn(2, 16, 32))
#^ Tensor[2, 16, 32]
