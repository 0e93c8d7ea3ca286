"""Sinusoidal time embedding (diffusion models): the frequency step is a float computed from
a dim, `math.log(10000) / (half_dim - 1)`, and negated. Both stay floats of unknown value,
which scale a tensor without changing its shape."""
import math

import torch
from torch import nn


class TimeEmbedding(nn.Module):
    def __init__(self, n_channels: int):
        super().__init__()
        self.n_channels = n_channels
        self.lin = nn.Linear(n_channels // 4, n_channels)

    def forward(self, t: torch.Tensor):
        b, = t.shape
        half_dim = self.n_channels // 8
        step = math.log(10_000) / (half_dim - 1)
        freqs = torch.exp(torch.arange(half_dim, device=t.device) * -step)
       #^ Tensor[n_channels//8]
        emb = t[:, None] * freqs[None, :]
       #^ Tensor[b, n_channels//8]
        emb = torch.cat((emb.sin(), emb.cos()), dim=1)
        return self.lin(emb)

# oracle: TimeEmbedding(64)(torch.rand(3))
