"""Idioms of torchvision-style code: a Sequential subclass, functools.partial, f-string
layer names, a dense block that concatenates, eval() mode, and an inverted bottleneck."""
from functools import partial
from typing import List

import torch
from torch import Tensor, nn


class ConvBNAct(nn.Sequential):
    def __init__(self, cin, cout, kernel=3, stride=1, groups=1, norm=nn.BatchNorm2d, act=nn.ReLU):
        padding = (kernel - 1) // 2
        layers = [nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False)]
        if norm is not None:
            layers.append(norm(cout))
        if act is not None:
            layers.append(act(inplace=True))
        super().__init__(*layers)
        self.out_channels = cout


class DenseLayer(nn.Module):
    def __init__(self, cin, growth):
        super().__init__()
        self.body = ConvBNAct(cin, growth)

    def forward(self, inputs: List[Tensor]) -> Tensor:
        x = torch.cat(inputs, 1)
        return self.body(x)


class DenseBlock(nn.ModuleDict):
    def __init__(self, layers, cin, growth):
        super().__init__()
        for i in range(layers):
            self.add_module(f"dense{i + 1}", DenseLayer(cin + i * growth, growth))

    def forward(self, x):
        features = [x]
        for name, layer in self.items():
            new = layer(features)
            features.append(new)
        return torch.cat(features, 1)


class Bottleneck(nn.Module):
    def __init__(self, cin, cout, stride, expand, norm):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            ConvBNAct(cin, hidden, kernel=1, norm=norm),
            ConvBNAct(hidden, hidden, stride=stride, groups=hidden, norm=norm),
            ConvBNAct(hidden, cout, kernel=1, norm=norm, act=None),
        )

    def forward(self, x):
        if self.use_res:
            return x + self.block(x)
        return self.block(x)


class TinyNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        norm = partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01)
        self.stem = ConvBNAct(3, 16, stride=2, norm=norm)
        self.dense = DenseBlock(3, 16, 8)
        stages = []
        cin = 16 + 3 * 8
        for i, (cout, stride) in enumerate([(40, 1), (40, 1), (64, 2)]):
            stages.append(Bottleneck(cin, cout, stride, expand=2, norm=norm))
            cin = cout
        self.stages = nn.Sequential(*stages)
        self.head = nn.Linear(self.stages[-1].block[-1].out_channels, num_classes)

    def forward(self, x):
        x = self.stem(x)
        #   ^ Tensor[2, 16, 16, 16]
        x = self.dense(x)
        #   ^ Tensor[2, 40, 16, 16]
        x = self.stages(x)
        #   ^ Tensor[2, 64, 8, 8]
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        #   ^ Tensor[2, 64]
        return self.head(x)


if __name__ == "__main__":
    model = TinyNet()
    model.eval()
    images = torch.randn(2, 3, 32, 32)
    logits = model(images)
    # ^ Tensor[2, 5]
