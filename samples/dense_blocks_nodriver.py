"""DenseNet-style blocks built with add_module in a loop whose trip count is a constructor
parameter, and a demo function nobody calls that builds the model. With no example call,
the blocks are some number of layers that look alike (never none), and a line the model's
own symbolic context could not evaluate claims no size of the demo's context. The demo
builds a context like a factory: the sizes it leaves to the class stay symbols
(`num_init_features`, `num_classes`), so they agree with the class's own context."""
import torch
import torch.nn.functional as F
from torch import nn


class DenseLayer(nn.Module):
    def __init__(self, in_features, growth_rate):
        super().__init__()
        self.norm = nn.BatchNorm2d(in_features)
        self.conv = nn.Conv2d(in_features, growth_rate, 3, padding=1)

    def forward(self, inputs):
        return self.conv(F.relu(self.norm(torch.cat(inputs, 1))))


class DenseBlock(nn.ModuleDict):
    def __init__(self, num_layers, in_features, growth_rate):
        super().__init__()
        for i in range(num_layers):
            self.add_module("layer%d" % (i + 1), DenseLayer(in_features + i * growth_rate, growth_rate))

    def forward(self, x):
        features = [x]
        for name, layer in self.items():
            features.append(layer(features))
        return torch.cat(features, 1)


class DenseNet(nn.Module):
    def __init__(self, block_config: tuple[int, int], growth_rate=8, num_init_features=16, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, num_init_features, 3, padding=1)
        self.features = nn.Sequential()
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module("block%d" % i, DenseBlock(num_layers, num_features, growth_rate))
            num_features = num_features + num_layers * growth_rate
            self.features.add_module("norm%d" % i, nn.BatchNorm2d(num_features))
        self.norm = nn.BatchNorm2d(num_features)
        self.classifier = nn.Linear(num_features, num_classes)

    def forward(self, x):
        x = self.stem(x)
       #^ Tensor[?, num_init_features, ?, ?]
        x = self.norm(self.features(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        logits = self.classifier(x)
       #^ Tensor[?, num_classes]
        return logits


def _demo():
    net = DenseNet(block_config=(2, 3))
    out = net(torch.randn(4, 3, 32, 32))

# oracle: DenseNet(block_config=(2, 2), growth_rate=4, num_init_features=6, num_classes=5)(torch.randn(2, 3, 8, 8))
