"""A factory function nobody calls that builds a model from layers (MLP-Mixer style): its
parameters go to layer constructors (`nn.LayerNorm(dim)`, `nn.Conv1d(num_patches, ...)`),
which take sizes, never tensors, so they are ints and the model it builds is a context of
the block's forward."""
from functools import partial

import torch
from torch import nn


class PreNormResidual(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.fn = fn
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        y = self.fn(self.norm(x)) + x
       #^ Tensor[N, ?, dim]
        return y


def token_mixer(num_patches, dim, expansion=4):
    dense = partial(nn.Conv1d, kernel_size=1)
    inner = num_patches * expansion
    return PreNormResidual(dim, nn.Sequential(dense(num_patches, inner), nn.GELU(), dense(inner, num_patches)))

# oracle: token_mixer(6, 8)(torch.randn(2, 6, 8))
