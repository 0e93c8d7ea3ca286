"""Axis bookkeeping in plain Python: the permutation that brings each axis last
(set arithmetic on axis indices), its inverse (sorted pairs, operator.itemgetter), and
shift amounts from a tensor's values (2 ** torch.arange(n)).tolist()."""
from math import pi
from operator import itemgetter

import torch
import torch.nn as nn
import torch.nn.functional as F


def inverse_of(perm):
    pairs = sorted(zip(perm, range(len(perm))))
    return list(map(itemgetter(1), pairs))


def permutations_for(num_axes, emb_dim):
    total = num_axes + 2
    out = []
    for axis in [i for i in range(1, total) if i != emb_dim]:
        rest = set(range(total)) - {axis, emb_dim}
        out.append([*rest, axis, emb_dim])
    return out


class AxisAttention(nn.Module):
    def __init__(self, perm, dim):
        super().__init__()
        self.perm = perm
        self.inv = inverse_of(perm)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        moved = x.permute(*self.perm)
       #^ Tensor[2, ?, ?, 16]
        shape = moved.shape
        *_, t, d = shape
        flat = moved.reshape(-1, t, d)
       #^ Tensor[?, ?, 16]
        flat = self.proj(flat)
        back = flat.reshape(*shape).permute(*self.inv)
       #^ Tensor[2, 16, 4, 8]
        return back


class Shifts(nn.Module):
    def forward(self, x, count):
        amounts = (2 ** torch.arange(count)).tolist()
        outs = []
        for amount in amounts:
            shifted = F.pad(x, (0, 0, amount, -amount))
           #^ Tensor[2, 12, 16]
            outs.append(shifted)
        return torch.cat(outs, dim=-1)


def names_in_any_order(x):
    names = sorted({"b", "a"} | {"c"})
    for name in {"keys", "values"}:
        y = x.flatten(1)
       #^ Tensor[2, 128]
    return names


x = torch.randn(2, 16, 4, 8)
for perm in permutations_for(2, 1):
    y = AxisAttention(perm, 16)(x)
   #^ Tensor[2, 16, 4, 8]
z = Shifts()(torch.randn(2, 12, 16), 3)
#^ Tensor[2, 12, 48]
n = names_in_any_order(torch.randn(2, 16, 8))


def rotate_half(x):
    x = x.reshape(*x.shape[:-1], 2, -1)
   #^ Tensor[..., 2, 16, 2, 8]
    x1, x2 = x.unbind(dim=-2)
    return torch.cat((-x2, x1), dim=-1)


q, k = map(rotate_half, (torch.randn(2, 2, 16, 16), torch.randn(2, 16, 16)))
angles = torch.linspace(-1., 1., steps=6).unsqueeze(-1) * torch.ones(1, 2) * pi
#^ Tensor[6, 2]
