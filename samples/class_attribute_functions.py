"""A function set on a class after its body (`Cls.make = staticmethod(make)`, hyper-connections'
`HyperConnections.get_init_and_expand_reduce_stream_functions`): reading it from the class
gives the function, so the layers it builds and the blocks handed to them are analysed."""
from functools import partial

import torch
from torch import nn


class Residual(nn.Module):
    def __init__(self, dim, branch=None):
        super().__init__()
        self.branch = branch
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, **kwargs):
        return self.branch(self.norm(x), **kwargs) + x


def get_init_and_expand_reduce_stream_functions(num_streams):
    expand = partial(torch.repeat_interleave, repeats=num_streams, dim=0)
    return partial(Residual), expand


Residual.get_functions = staticmethod(get_init_and_expand_reduce_stream_functions)
Residual.scale_of = classmethod(lambda cls, dim: dim ** -0.5)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, 3 * dim)
        self.scale = Residual.scale_of(dim // heads)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
       #^ Tensor[8, 4, 10, 4]
        attn = (q @ k.transpose(-1, -2) * self.scale).softmax(-1)
       #^ Tensor[8, 4, 10, 10]
        return (attn @ v).transpose(1, 2).reshape(b, n, d)


class Model(nn.Module):
    def __init__(self, dim, depth, num_streams):
        super().__init__()
        init_residual, self.expand = Residual.get_functions(num_streams)
        self.layers = nn.ModuleList([init_residual(dim, branch=Attention(dim, heads=4)) for _ in range(depth)])

    def forward(self, x):
        x = self.expand(x)
       #^ Tensor[8, 10, 16]
        for layer in self.layers:
            x = layer(x)
           #^ Tensor[8, 10, 16]
        return x


model = Model(16, depth=2, num_streams=4)
out = model(torch.randn(2, 10, 16))
# ^ Tensor[8, 10, 16]
