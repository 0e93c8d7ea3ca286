"""itertools over known lists: a recommender's pairwise field interactions
(`itertools.combinations(embeds, 2)`), memories walked with `zip_longest`, channel offsets
from `accumulate`. Each yields known items, so the loops over them run with their shapes."""
import itertools
from itertools import zip_longest

import torch
from torch import nn


class InnerProduct(nn.Module):
    def forward(self, embeds):
        row, col = [], []
        for r, c in itertools.combinations(embeds, 2):
            row.append(r)
            col.append(c)
        p = torch.cat(row, dim=1)
        #^ Tensor[2, 6, 8]
        q = torch.cat(col, dim=1)
        return torch.sum(p * q, dim=2)


def walk(past, new, layers):
    outs = []
    for p, n, layer in zip_longest(past, new, layers):
        y = layer(torch.cat([p, n], dim=-1))
        #^ Tensor[2, ?]
        outs.append(y)
    ends = list(itertools.accumulate([4, 8, 16]))
    x = torch.randn(3, ends[-1])
    #^ Tensor[3, 28]
    pairs = list(itertools.product(range(2), range(3)))
    grid = torch.zeros(len(pairs), 5)
    #^ Tensor[6, 5]
    return outs, x, grid


scores = InnerProduct()([torch.randn(2, 1, 8) for _ in range(4)])
walk([torch.randn(2, 3)] * 2, [torch.randn(2, 5)] * 2, [nn.Linear(8, 4), nn.Linear(8, 6)])
