"""Constant tables built with numpy, then made tensors (numpy arrays are modelled as
tensors): the sinusoid position table of "Attention is all you need" ports, built by a
nested comprehension of `np.power`; N-BEATS' seasonality basis, a list of `np.cos` arrays
that `np.array` stacks; `torch.from_numpy`; and AFT-local's band of a weight, a nested
comprehension of its 0-d items and zeros that torch.Tensor takes as numbers."""
import math

import numpy as np
import torch
from torch import nn


def sinusoid_table(n_position, d_hid):
    def angle(position, hid_idx):
        return position / np.power(10000, 2 * (hid_idx // 2) / d_hid)

    table = np.array([[angle(pos, j) for j in range(d_hid)] for pos in range(n_position)])
    table[:, 0::2] = np.sin(table[:, 0::2])
    table[:, 1::2] = np.cos(table[:, 1::2])
    return torch.FloatTensor(table)


def seasonality_basis(p, t):
    p1, p2 = (p // 2, p // 2) if p % 2 == 0 else (p // 2, p // 2 + 1)
    s1 = torch.tensor(np.array([np.cos(2 * np.pi * i * t) for i in range(p1)])).float()
    #^ Tensor[3, 8]
    s2 = torch.tensor(np.array([np.sin(2 * np.pi * i * t) for i in range(p2)])).float()
    #^ Tensor[3, 8]
    return torch.cat([s1, s2])


def banded(w, s):
    return torch.Tensor([[w[i][j] if math.fabs(i - j) < s else 0 for j in range(w.size(1))]
                         for i in range(w.size(0))])


class Encoder(nn.Module):
    def __init__(self, n_position, d_model):
        super().__init__()
        self.register_buffer("pos_table", sinusoid_table(n_position, d_model))

    def forward(self, x):
        return x + self.pos_table[:x.size(1)].unsqueeze(0)


enc = Encoder(50, 16)
out = enc(torch.randn(2, 10, 16))
#^ Tensor[2, 10, 16]
basis = seasonality_basis(6, np.linspace(0, 1, 8))
#^ Tensor[6, 8]
ones = torch.from_numpy(np.ones((4, 3)))
#^ Tensor[4, 3]
band = banded(torch.randn(6, 6), 2)
#^ Tensor[6, 6]
floor = torch.from_numpy(np.maximum(np.linspace(0, 1, 8), 0.5))  # numpy's rules: no torch error here
