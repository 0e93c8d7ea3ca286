"""Shapes edited as lists before a reshape/expand: a slice of a shape replaced by one merged
size (reformer's merge_dims), or one item set (expand_dim); sequences compared with numbers
and with other kinds of sequences (efficientnet's `stride == 1` with stride = [1])."""
import math

import torch
from torch import nn


def merge_dims(ind_from, ind_to, tensor):
    shape = list(tensor.shape)
    arr_slice = slice(ind_from, ind_to + 1)
    shape[arr_slice] = [math.prod(shape[arr_slice])]
    return tensor.reshape(*shape)


def merge_with_minus_one(tensor):
    shape = list(tensor.shape)
    shape[1:3] = [-1]
    return tensor.reshape(shape)


def expand_dim(dim, k, t):
    t = t.unsqueeze(dim)
    expand_shape = [-1] * len(t.shape)
    expand_shape[dim] = k
    return t.expand(*expand_shape)


x = torch.randn(2, 4, 6, 8)
m = merge_dims(0, 1, x)
#^ Tensor[8, 6, 8]
n = merge_with_minus_one(x)
#^ Tensor[2, 24, 8]
e = expand_dim(1, 3, torch.randn(2, 5))
#^ Tensor[2, 3, 5]
e2 = expand_dim(-1, 4, torch.randn(2, 5))
#^ Tensor[2, 5, 4]


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = [stride]  # block arguments keep strides as lists
        self.cin, self.cout = cin, cout
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x):
        inputs = x
        x = self.conv(x)
        if self.stride == 1 and self.cin == self.cout:  # [1] == 1 is False: never taken
            x = x + inputs
        if list(x.shape[-2:]) == (5, 5):  # a list never equals a tuple
            x = x.flatten(1)
        if x.shape[-2:] == (5, 5):  # torch.Size is a tuple
            x = x * 2
        return x


b = Block(8, 16, 1)(torch.randn(2, 8, 5, 5))
#^ Tensor[2, 16, 5, 5]
