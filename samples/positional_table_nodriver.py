"""A positional table built from nested comprehensions over `range(max_len)` and
`range(d_model)`, as older transformer code writes it, with no example call: the values are
not known, but there is one row per position and one column per feature, so the tensor made
from it is `Tensor[max_len, d_model]`; a comprehension over `range(d_model)` alone gives
`Tensor[d_model]`."""
import math

import torch
from torch import nn


class SinusoidalTable(nn.Module):
    def __init__(self, d_model, max_len):
        super().__init__()
        table = torch.FloatTensor([[pos / math.pow(10000, 2 * (i // 2) / d_model) for i in range(d_model)]
                                   for pos in range(max_len)])
       #^ Tensor[max_len, d_model]
        self.register_buffer("table", table)
        scale = torch.tensor([1.0 / (1 + i) for i in range(d_model)])
       #^ Tensor[d_model]
        self.register_buffer("scale", scale)

    def forward(self, x):
        return (x + self.table[: x.shape[1]]) * self.scale


# oracle: SinusoidalTable(16, 50)(torch.randn(2, 10, 16))
