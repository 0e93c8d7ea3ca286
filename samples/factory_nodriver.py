"""A model class whose block type and depths come from factory functions, torchvision
style (`resnet18(**kwargs)` builds `ResNet(BasicBlock, [2, 2, 2, 2], **kwargs)`): with no
example call the factory's instance is the context of forward, and what the factory spreads
through **kwargs (num_classes here) stays a symbol."""
import torch
from torch import nn


class Block(nn.Module):
    expansion = 2

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(inplanes, planes * self.expansion, 3, stride=stride, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


class Net(nn.Module):
    def __init__(self, block, layers, num_classes=1000):
        super().__init__()
        self.inplanes = 16
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.layer1 = self._make_layer(block, 16, layers[0])
        self.layer2 = self._make_layer(block, 32, layers[1], stride=2)
        self.fc = nn.Linear(32 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        layers = [block(self.inplanes, planes, stride)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.stem(x)
       #^ Tensor[N, 16, H, W]
        x = self.layer1(x)
       #^ Tensor[N, 32, H, W]
        x = self.layer2(x)
       #^ Tensor[N, 64, (H + 1)//2, (W + 1)//2]
        x = x.mean(dim=(2, 3))
        logits = self.fc(x)
       #^ Tensor[N, num_classes]
        return logits


def tiny_net(**kwargs):
    return Net(Block, [1, 2], **kwargs)

# oracle: tiny_net(num_classes=7)(torch.randn(2, 3, 16, 16))
