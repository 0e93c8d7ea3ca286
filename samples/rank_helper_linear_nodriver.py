"""A helper that drops the last dim only for some ranks (N-BEATS' `squeeze_last_dim`), with
no example call: nothing decides the input's rank, so the squeezed tensor has none. A
Linear after it still gives `Tensor[..., units]`: linear raises on a 0-d input, and for any
other rank the last dim is the layer's out_features."""
import torch
from torch import nn


def squeeze_last_dim(tensor):
    if len(tensor.shape) == 3 and tensor.shape[-1] == 1:
        return tensor[..., 0]
    return tensor


class Block(nn.Module):
    def __init__(self, units, backcast_length=10):
        super().__init__()
        self.fc1 = nn.Linear(backcast_length, units)
        self.fc2 = nn.Linear(units, units)

    def forward(self, x):
        x = squeeze_last_dim(x)
        h = torch.relu(self.fc1(x))
        #^ Tensor[..., units]
        return self.fc2(h)


# oracle: Block(32)(torch.randn(2, 10, 1))
