"""Blocks named after their class (`f'{self.block.__name__}{i}'`, ConTNet's style) in an
OrderedDict turned into a Sequential. The class's `__name__` is its name, so the keys are
known and the Sequential runs its blocks once each. Where the number of blocks is not known
(the class built with no example call), a second block is only a possibility: one that
fails on what the first gives says the Sequential has one block, not that the model fails
(this file used to get a false error on the BatchNorm)."""
from collections import OrderedDict

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, planes, out_planes):
        super().__init__()
        self.bn = nn.BatchNorm2d(planes)
        self.conv = nn.Conv2d(planes, out_planes, 1)

    def forward(self, x):
        return self.conv(self.bn(x))


class Net(nn.Module):
    def __init__(self, block, blocks, planes=8):
        super().__init__()
        self.block = block
        self.layer = self._make_layer(planes, blocks)

    def _make_layer(self, planes, blocks):
        layers = OrderedDict()
        for i in range(0, blocks - 1):
            layers[f'{self.block.__name__}{i}'] = self.block(planes, planes)
        layers[f'{self.block.__name__}{blocks - 1}'] = self.block(planes, planes * 2)
        return nn.Sequential(layers)

    def forward(self, x):
        return self.layer(x)


net = Net(Block, 1)
y = net(torch.randn(2, 8, 14, 14))
#^ Tensor[2, 16, 14, 14]
