"""Shapes edited as lists before a reshape/expand: a slice of a shape replaced by one merged
size (reformer's merge_dims), or one item set (expand_dim)."""
import math

import torch


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
