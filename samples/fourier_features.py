"""Fourier features of positions (Perceiver-style): the scales are broadcast over a rank
only known from the input, with an index built as `(*((None,) * (k - 1)), Ellipsis)`."""
import math

import torch


def fourier_encode(x, max_freq, num_bands=4):
    x = x.unsqueeze(-1)
    orig_x = x
    scales = torch.linspace(1., max_freq / 2, num_bands)
    scales = scales[(*((None,) * (len(x.shape) - 1)), Ellipsis)]
   #^ Tensor[1, 1, 1, 4]
    x = x * scales * math.pi
    x = torch.cat([x.sin(), x.cos()], dim=-1)
    x = torch.cat((x, orig_x), dim=-1)
   #^ Tensor[6, 5, 2, 9]
    return x


axis_pos = [torch.linspace(-1., 1., steps=size) for size in (6, 5)]
pos = torch.stack(torch.meshgrid(*axis_pos, indexing='ij'), dim=-1)
#^ Tensor[6, 5, 2]
enc = fourier_encode(pos, 10., 4)
#^ Tensor[6, 5, 2, 9]
