"""Python idioms around model code: U-Net skip lists (append / pop), zip over ModuleLists and
a ParameterList, functools.partial layers, getattr(nn, name), dict configs, torch.FloatTensor tables."""
import enum
import math
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F


class UNetSkips(nn.Module):
    def __init__(self, chans=(8, 16, 32)):
        super().__init__()
        self.downs = nn.ModuleList()
        self.ups = nn.ModuleList()
        prev = 3
        for c in chans:
            self.downs.append(nn.Conv2d(prev, c, 3, padding=1))
            prev = c
        for c in reversed(chans[:-1]):
            self.ups.append(nn.Conv2d(prev + c, c, 3, padding=1))
            prev = c

    def forward(self, x):
        skips = []
        for down in self.downs:
            x = F.relu(down(x))
           #^ Tensor[2, ?, ?, ?]
            skips.append(x)
            x = F.max_pool2d(x, 2)
           #^ Tensor[2, ?, ?, ?]
        x = skips.pop()
       #^ Tensor[2, 32, 4, 4]
        for up in self.ups:
            x = F.interpolate(x, scale_factor=2)
           #^ Tensor[2, ?, ?, ?]
            skip = skips.pop()
           #^ Tensor[2, ?, ?, ?]
            x = torch.cat([x, skip], dim=1)
           #^ Tensor[2, ?, ?, ?]
            x = up(x)
           #^ Tensor[2, ?, ?, ?]
        return x


class Zipped(nn.Module):
    def __init__(self, dim, depth, config):
        super().__init__()
        norm = partial(nn.LayerNorm, eps=1e-6)
        act = getattr(nn, config["act"])
        self.attns = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
        self.ffs = nn.ModuleList([nn.Sequential(norm(dim), nn.Linear(dim, config["hidden"]), act(), nn.Linear(config["hidden"], dim)) for _ in range(depth)])
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(dim)) for _ in range(depth)])
        pe = torch.FloatTensor([[math.sin(p / 10000 ** (i / dim)) for i in range(dim)] for p in range(config["max_len"])])
       #^ Tensor[10, 12]
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.shape[1]]
       #^ Tensor[2, 7, 12]
        for (attn, ff), scale in zip(zip(self.attns, self.ffs), self.scales):
                       #^ Tensor[12]
            x = x + attn(x) * scale
           #^ Tensor[2, 7, 12]
            x = x + ff(x)
           #^ Tensor[2, 7, 12]
        return x


net = UNetSkips()
img = torch.randn(2, 3, 16, 16)
#^ Tensor[2, 3, 16, 16]
out = net(img)
#^ Tensor[2, 8, 16, 16]
z = Zipped(12, 2, {"act": "GELU", "hidden": 24, "max_len": 10})
seq = torch.randn(2, 7, 12)
#^ Tensor[2, 7, 12]
y = z(seq)
#^ Tensor[2, 7, 12]


# `del` of a list's item and a dict's key (litgpt's batched_index_select moves a dim to the
# front with a permutation built this way)
def batched_index_select(t, dim, idx):
    *batch_shape, idx_size = idx.shape
    res = torch.index_select(t, dim, idx.reshape(-1))
    res = res.view(*t.shape[:dim], -1, idx_size, *t.shape[dim + 1:])
    dims = [dim] + list(range(res.dim()))
    del dims[dim + 1]
    res = res.permute(dims)
   #^ Tensor[2, 1, 4, 3, 5]
    return res.view(*batch_shape, *res.shape[1:])


picked = batched_index_select(torch.randn(1, 4, 6, 5), 2, torch.tensor([[0, 1, 2], [3, 4, 5]]))
#^ Tensor[2, 1, 4, 3, 5]
options = {"act": "GELU", "hidden": 24, "max_len": 10}
del options["max_len"]
counts = torch.zeros(len(options))
#^ Tensor[2]


# The functional Enum API (fastai's `NormType = Enum('NormType', 'Batch ... Spectral')`) and a
# member tested with `in` a tuple of members: the layers the constructor picks by it
NormType = enum.Enum("NormType", "Batch BatchZero Weight Spectral")


class NormedConv(nn.Sequential):
    def __init__(self, ni, nf, norm_type=NormType.Batch):
        bn = norm_type in (NormType.Batch, NormType.BatchZero)
        layers = [nn.Conv1d(ni, nf, 1), nn.ReLU()]
        if bn:
            layers.append(nn.BatchNorm1d(nf))
        if norm_type == NormType.Spectral:
            layers.append(nn.Conv1d(nf, 2 * nf, 1))
        super().__init__(*layers)


signal = torch.randn(2, 4, 9)
plain = NormedConv(4, 8)(signal)
#^ Tensor[2, 8, 9]
doubled = NormedConv(4, 8, norm_type=NormType.Spectral)(signal)
#^ Tensor[2, 16, 9]
flags = enum.IntFlag("Flags", ["A", "B", "C"])
bits = torch.zeros(flags.C.value)
#^ Tensor[4]
