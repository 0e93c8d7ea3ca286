"""A ResNet that takes its block class as a parameter, with no factory and no example call.

`ResNet(block, layers)` is built elsewhere (`ResNet(Bottleneck, [3, 4, 6, 3])` in another
file). The body calls `block(...)` and reads `block.expansion`: the file's module classes
with an `expansion` are what it can mean, so its methods run once per such class (a guess
each: shapes are shown, diagnostics of ResNet's own methods are not). Where the two agree
the hover says the dim (the spatial sizes, the batch), where they differ it says `?`."""
import torch
from torch import nn


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):  # (no names: the oracle's blocks run at two sizes)
        return self.relu(self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x))))) + self.shortcut(x))

    def shortcut(self, x):
        return x if self.downsample is None else self.downsample(x)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        width = planes
        self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, planes * self.expansion, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        return self.relu(self.bn3(self.conv3(self.relu(self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x))))))))
                         + self.shortcut(x))

    def shortcut(self, x):
        return x if self.downsample is None else self.downsample(x)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(128 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * block.expansion, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
       #^ Tensor[N, 64, (H + 3)//4, (W + 3)//4]
        x = self.layer1(x)
       #^ Tensor[N, ?, (H + 3)//4, (W + 3)//4]
        x = self.layer2(x)
       #^ Tensor[N, ?, (H + 7)//8, (W + 7)//8]
        x = torch.flatten(self.avgpool(x), 1)
       #^ Tensor[N, ?]
        logits = self.fc(x)
       #^ Tensor[N, num_classes]
        return logits


# oracle: ResNet(BasicBlock, [2, 2], num_classes=10)(torch.randn(2, 3, 64, 64))
