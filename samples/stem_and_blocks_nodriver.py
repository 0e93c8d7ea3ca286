"""A stem built first and blocks appended in a loop of unknown count (`for _ in
range(depth)`), as a Sequential and as a ModuleList: the stem runs first, then the block any
number of times. No example call: the shapes are symbolic."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, depth, width=32):
        super().__init__()
        layers = [nn.Conv2d(3, width, 3, padding=1)]
        for _ in range(depth):
            layers.append(nn.Conv2d(width, width, 3, padding=1))
        self.body = nn.Sequential(*layers)
        self.blocks = nn.ModuleList([nn.Conv2d(3, width, 3, stride=2, padding=1)])
        for _ in range(depth):
            self.blocks.append(nn.Conv2d(width, width, 3, padding=1))

    def forward(self, x):
        y = self.body(x)
       #^ Tensor[N, width, H, W]
        for i, blk in enumerate(self.blocks):
            x = blk(x)
        z = x
       #^ Tensor[N, width, (H + 1)//2, (W + 1)//2]
        return y.mean() + z.mean()

# oracle: Net(depth=2, width=8)(torch.randn(2, 3, 16, 16))
