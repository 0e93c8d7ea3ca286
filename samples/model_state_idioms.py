"""Idioms of model code that keep or change a model's state, each read as Python runs it:

- a `while` whose test is decided runs round by round (braindecode's Ensure4d adds a
  trailing dim until the input has four);
- `layers[name] = ...` fills an nn.ModuleDict, and `name in layers` reads it
  (pytorch-forecasting's prescalers);
- `copy.deepcopy` keeps a layer held at two places one layer (an attention kept as
  `self.self_attn` and inside a residual wrapper stores its weights where both see them);
- two models built with the same arguments are two models: pruning one leaves the other;
- `torch.abs` of a complex tensor is real (open-unmix's magnitude spectrogram feeds a
  Linear);
- a method kept as an attribute (`self.state_function = self._base`) stays the method of
  the model that keeps it (snntorch's neurons update their own membrane state);
- `isinstance(cfg, Dict)` of a config object is False (transformer-lens' `Config.unwrap`
  takes a dict or a config).
"""
from copy import deepcopy
from dataclasses import dataclass
from typing import Dict

import torch
from torch import nn


class Ensure4d(nn.Module):
    def forward(self, x):
        while len(x.shape) < 4:
            x = x.unsqueeze(-1)
        return x


class Prescaled(nn.Module):
    def __init__(self, sizes, prescalers=None):
        super().__init__()
        self.sizes = sizes
        self.prescalers = nn.ModuleDict()
        for name, size in sizes.items():
            if prescalers is not None and name in prescalers:
                self.prescalers[name] = prescalers[name]
            else:
                self.prescalers[name] = nn.Linear(1, size)
        self.out = nn.Linear(sum(sizes.values()), 4)

    def forward(self, x):
        parts = []
        for name in self.sizes.keys():
            e = x[name]
            if name in self.prescalers:
                e = self.prescalers[name](e)
            parts.append(e)
        flat = torch.cat(parts, dim=-1)
       #^ Tensor[2, 6]
        return self.out(flat)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.attn = torch.empty(0)

    def prune(self, k):
        self.heads = self.heads - k

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        w = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        self.attn = w
        return w @ v


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return x + self.fn(x)


class Encoder(nn.Module):
    def __init__(self, d, attn):
        super().__init__()
        self.self_attn = attn
        self.residual = Residual(attn)

    def forward(self, x):
        return self.residual(x)


class Stack(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers = nn.ModuleList([deepcopy(layer) for _ in range(n)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Magnitude(nn.Module):
    def __init__(self, bins):
        super().__init__()
        self.fc = nn.Linear(bins, 8)

    def forward(self, spec):
        mag = torch.abs(torch.view_as_complex(spec))
        return self.fc(mag)


@dataclass
class Config:
    d_model: int
    n_heads: int

    @classmethod
    def unwrap(cls, config):
        return cls(**config) if isinstance(config, Dict) else config


class Head(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = Config.unwrap(cfg)
        self.w = nn.Parameter(torch.empty(self.cfg.n_heads, self.cfg.d_model))


class Neuron(nn.Module):
    def __init__(self):
        super().__init__()
        self.state_function = self._decay
        self.register_buffer("mem", torch.zeros(0), False)

    def _decay(self, x):
        return 0.9 * self.mem + x

    def forward(self, x):
        if not self.mem.shape == x.shape:
            self.mem = torch.zeros_like(x)
        self.mem = self.state_function(x)
        return self.mem


x4 = Ensure4d()(torch.randn(2, 3, 10))
#^ Tensor[2, 3, 10, 1]
p = Prescaled({"price": 3, "volume": 3}, prescalers={"price": nn.Linear(1, 3)})
y = p({"price": torch.randn(2, 1), "volume": torch.randn(2, 1)})
#^ Tensor[2, 4]
stack = Stack(Encoder(8, Attention(8, 2)), 2)
h = stack(torch.randn(2, 5, 8))
w = stack.layers[0].self_attn.attn
#^ Tensor[2, 5, 5]
a1 = Attention(8, 4)
a2 = Attention(8, 4)
a1.prune(1)
a2.prune(2)
n1 = torch.zeros(a1.heads, 3)
#^ Tensor[3, 3]
n2 = torch.zeros(a2.heads, 3)
#^ Tensor[2, 3]
m = Magnitude(5)(torch.randn(2, 7, 5, 2))
#^ Tensor[2, 7, 8]
legacy = torch.FloatTensor((x4.shape[0], 1, 1, 1), device="cpu")
#^ Tensor[4]
head_w = Head(Config(16, 4)).w
#^ Tensor[4, 16]
s1 = Neuron()(torch.randn(2, 5))
#^ Tensor[2, 5]
s2 = Neuron()(torch.randn(3, 4))
#^ Tensor[3, 4]
