"""A flag of a class nobody builds picks which layer an attribute holds: with no example call
both ways may run, so the attribute is one of the two layers (never the one the way run last
wrote), and a line through it claims only what both ways agree on."""
import torch
from torch import nn


class Stem(nn.Module):
    def __init__(self, stem_width=32, deep_stem=False):
        super().__init__()
        if deep_stem:
            self.conv1 = nn.Sequential(
                nn.Conv2d(3, stem_width, 3, stride=2, padding=1),
                nn.ReLU(),
                nn.Conv2d(stem_width, stem_width * 2, 3, padding=1),
            )
        else:
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)

    def forward(self, x):
        x = self.conv1(x)
       #^ Tensor[N, ?, (H + 1)//2, (W + 1)//2]
        x = self.pool(x)
       #^ Tensor[N, ?, (H + 3)//4, (W + 3)//4]
        return x

# oracle: Stem(stem_width=8, deep_stem=True)(torch.randn(2, 3, 16, 16))
