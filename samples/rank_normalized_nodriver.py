"""An input brought to one rank by an `if` on its rank, with no example call: `if x.ndim ==
3: x = rearrange(x, 'b n d -> b 1 n d')` (Flamingo's perceiver takes media with or without a
time axis). What the op inside that way needs holds on that way only: the input is not
claimed to have rank 3 (its hover used to show `Tensor[B, 1, T, ...]` for a rank-4 input).
Axis names parsed with re.findall, a pattern rewritten with re.sub."""
import re

import torch
from torch import nn
from einops import rearrange


class Resampler(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        if x.ndim == 3:
          #^ Tensor[...]
            x = rearrange(x, 'b n d -> b 1 n d')
        return self.norm(x)


def named_axes(x, spec):
    axes = re.findall(r'[a-z]+', spec)
    pattern = re.sub(r'\s+', ' ', spec)
    flat = rearrange(x, f'{pattern} -> {axes[0]} ({axes[1]} {axes[2]})')
    return flat


z = named_axes(torch.randn(2, 3, 4), 'b  n d')
#^ Tensor[2, 12]


# oracle: Resampler(16)(torch.randn(2, 4, 5, 16))
