"""`param.data = tensor` swaps what a parameter holds: a loss that casts its weights to the
input's dtype on each call (`self.W.data = to_dtype(self.W.data, dtype)`) multiplies a
float64 input with float64 weights, not with the float32 ones it was built with, so there is
no dtype error; and a weight resized this way has the new shape from there on. Mixed
precision is off when a model file runs on its own (`torch.is_autocast_enabled()`)."""
import torch
from torch import nn


def to_dtype(x, dtype):
    if not torch.is_autocast_enabled():
        if x.dtype != dtype:
            x = x.type(dtype)
    return x


class CosineHead(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.W = nn.Parameter(torch.randn(dim, classes))

    def cast_types(self, dtype):
        self.W.data = to_dtype(self.W.data, dtype)

    def grow(self, classes):
        self.W.data = torch.randn(self.W.shape[0], classes)

    def forward(self, x):
        self.cast_types(x.dtype)
        logits = x @ self.W
        return logits


head = CosineHead(8, 4)
out = head(torch.randn(2, 8, dtype=torch.float64))
#^ Tensor[2, 4]
wide_head = CosineHead(8, 4)
wide_head.grow(6)
wider = wide_head(torch.randn(3, 8))
#^ Tensor[3, 6]
