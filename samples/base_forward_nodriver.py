"""A base class that only defines forward, and subclasses that build the layers it uses
(pretrainedmodels' SENet bottlenecks): with no example call, the base's forward runs on the
subclasses' symbolic instances, so its lines show what every subclass computes."""
import torch
from torch import nn


class Bottleneck(nn.Module):
    def forward(self, x):
        out = self.conv1(x)
       #^ Tensor[N, planes, H, W]
        out = self.conv2(torch.relu(out))
       #^ Tensor[N, ?, H, W]
        return torch.relu(out + self.skip(x))


class WideBottleneck(Bottleneck):
    def __init__(self, inplanes, planes):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1)
        self.conv2 = nn.Conv2d(planes, planes * 2, 3, padding=1)
        self.skip = nn.Conv2d(inplanes, planes * 2, 1)


class NarrowBottleneck(Bottleneck):
    def __init__(self, inplanes, planes):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1)
        self.skip = nn.Conv2d(inplanes, planes, 1)

# oracle: WideBottleneck(inplanes=3, planes=4)(torch.randn(2, 3, 8, 8))
