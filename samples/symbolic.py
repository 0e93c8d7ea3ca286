"""Symbolic shapes from annotations and asserts: errors for every shape, warnings for some."""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

head = nn.Linear(3 * 32 * 32, 10)
conv3 = nn.Conv2d(3, 8, 3)
conv4 = nn.Conv2d(4, 8, 3)


def classify(x: Float[Tensor, "B 3 32 32"]):
    flat = x.view(x.shape[0], -1)
    #      ^ Tensor[B, 3072]
    bad = x.view(x.shape[0], 1000)  # error: shape-mismatch
    return head(flat)


def pool4(x: Float[Tensor, "B C H W"]):
    return x.reshape(x.shape[0], x.shape[1], x.shape[2] // 4, 4, x.shape[3])  # warning: shape-mismatch


def halve(x: Float[Tensor, "N 16"]):
    return x.view(x.shape[0], 2, 8)
    #      ^ Tensor[N, 2, 8]


def must_fail(x: Float[Tensor, "B C 28 28"]):
    a = conv3(x)  # warning: shape-mismatch
    b = conv4(x)  # error: shape-mismatch
    return a, b


def shape_comment(images):
    x = images.flatten(1)  # shape: [N, 3072]
    return head(x)
    #      ^ Tensor[N, 10]


def circulant(weight: Float[Tensor, "h d"]):
    # a slice bound that is a negative symbol counts from the end, as a negative int does
    d = weight.shape[-1]
    tiled = torch.nn.functional.pad(weight, (0, d)).repeat(1, d)
    cut = tiled[:, :-d]
    #^ Tensor[h, -d + 2*d*d]
    return cut.reshape(weight.shape[0], d, 2 * d - 1)
    #           ^ Tensor[h, d, 2*d - 1]
