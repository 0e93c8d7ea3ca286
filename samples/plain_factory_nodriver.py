"""Factories with no **kwargs, pretrainedmodels style (`def se_resnet50(num_classes=1000):
return SENet(SEBottleneck, [3, 4, 6, 3], num_classes=num_classes)`): nobody calls them,
and the models they build are the contexts of the class's methods. What a factory leaves
to the class, or passes as a number (`width=8`: one way to build it), stays a symbol; a
size that differs between the factories' blocks is `?`; a layer a factory renames after
building (`model.last_linear = model.fc`, also on a model built a second time) is found by
the methods that read it."""
import torch
from torch import nn


class Basic(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1), nn.ReLU())

    def forward(self, x):
        return self.body(x)


class Wide(Basic):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1):
        super().__init__(inplanes, planes * self.expansion, stride)


class Net(nn.Module):
    def __init__(self, block, layers, width=16, num_classes=1000):
        super().__init__()
        self.inplanes = width
        self.stem = nn.Conv2d(3, width, 3, padding=1)
        self.layer1 = self._stage(block, 16, layers[0])
        self.layer2 = self._stage(block, 32, layers[1], stride=2)
        self.fc = nn.Linear(32 * block.expansion, num_classes)

    def _stage(self, block, planes, depth, stride=1):
        first = block(self.inplanes, planes, stride)
        self.inplanes = planes * block.expansion
        return nn.Sequential(first, *[block(self.inplanes, planes) for _ in range(1, depth)])

    def features(self, x):
        x = self.stem(x)
       #^ Tensor[N, width, H, W]
        x = self.layer1(x)
       #^ Tensor[N, ?, H, W]
        return self.layer2(x)

    def logits(self, x):
        x = x.mean(dim=(2, 3))
        return self.last_linear(x)
       #       ^ Tensor[N, num_classes]

    def forward(self, x):
        x = self.features(x)
       #^ Tensor[N, ?, (H + 1)//2, (W + 1)//2]
        x = self.logits(x)
       #^ Tensor[N, num_classes]
        return x


def net_basic(num_classes=1000):
    model = Net(Basic, [1, 1], num_classes=num_classes)
    model.last_linear = model.fc
    return model


def net_wide(pretrained="imagenet"):
    model = Net(Wide, [1, 2], width=8)
    if pretrained:
        model = Net(Wide, [1, 2], width=8, num_classes=1000)  # built again before loading weights
    model.last_linear = model.fc
    return model

# oracle: net_wide()(torch.randn(2, 3, 16, 16))
