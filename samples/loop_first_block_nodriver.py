"""Stacks built in a loop of `depth` rounds, the first round apart, with no example call.

`for i in range(depth)` with `depth` a size (>= 1) surely runs once with `i == 0`: that round
builds the first conv from `in_ch` channels, the later ones from `width`. So the stack's
input has `in_ch` channels, and a first layer built from other channels than the stem gives
(`in_ch + 1`) fails for every input. Each round appends a conv and an activation: the rounds
are applied in order, a conv then a ReLU, not a conv joined with a ReLU."""
import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self, in_ch, width, depth):
        super().__init__()
        layers = []
        for i in range(depth):
            layers.append(nn.Conv1d(in_ch if i == 0 else width, width, 3, padding=1))
            layers.append(nn.ReLU())
        self.net = nn.Sequential(*layers)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        b, c, t = x.shape
        h = self.net(x)
       #^ Tensor[b, width, t]
        z = h.mean(-1)
       #^ Tensor[b, width]
        return self.head(z)


class Stem(nn.Module):
    def __init__(self, in_ch, width, depth):
        super().__init__()
        self.stem = nn.Conv1d(in_ch, width, 1)
        blocks = []
        for i in range(depth):
            blocks += [nn.Conv1d(width + 1 if i == 0 else width, width, 3, padding=1), nn.ReLU()]
        self.blocks = nn.Sequential(*blocks)

    def forward(self, x):
        y = self.stem(x)
        return self.blocks(y)  # error: shape-mismatch


# oracle: Stack(4, 8, 3)(torch.randn(2, 4, 16))
# oracle: Stack(4, 8, 1)(torch.randn(2, 4, 16))
