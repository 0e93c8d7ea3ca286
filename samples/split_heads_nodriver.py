"""Splitting the last dim into heads with the leading dims read from the tensor itself:
`x.view(*x.shape[:-1], heads, -1)` and BERT's `x.size()[:-1] + (heads, head_dim)`. With no
example call the tokens' rank is open (only nn.Linear reads them), but the view keeps the
leading dims whatever they are, so the last dims are known. `-1 in [heads, -1]` is True
whatever heads is."""
import numpy as np
import torch
from torch import nn


def split_last(x, shape):
    "split the last dimension to the given shape (pytorch-pretrained-vit)"
    shape = list(shape)
    if -1 in shape:
        shape[shape.index(-1)] = int(x.size(-1) / -np.prod(shape))
    return x.view(*x.size()[:-1], *shape)


class SplitHeads(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.heads = heads
        self.head_dim = dim // heads

    def forward(self, x):
        q = self.to_q(x)
       #^ Tensor[..., dim]
        q = q.view(*q.shape[:-1], self.heads, -1)
       #^ Tensor[..., heads, dim//heads]
        k = self.to_k(x)
        new_shape = k.size()[:-1] + (self.heads, self.head_dim)
        k = k.view(new_shape)
       #^ Tensor[..., heads, dim//heads]
        v = split_last(self.to_v(x), (self.heads, -1))
       #^ Tensor[..., heads, dim//heads]
        last = k.shape[-1]
        return q * k / last ** 0.5 + v

# oracle: SplitHeads(16)(torch.randn(2, 5, 16))
