"""A stage-building helper called with a count the file does not know, with no example call.

`self._make_layer(32, cfg.blocks)`: `cfg` is whatever the caller passes, so `blocks` is not
known and the helper is first run to see how it uses it (is it a tensor?). That first run
sets `self.inplanes = planes`; the real run must start from the model as it was (16 input
channels), not from what the first run left (32): the stage's first conv takes 16 channels,
and there is no error on this correct model."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.inplanes = 16
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.layer1 = self._make_layer(32, cfg.blocks)

    def _make_layer(self, planes, blocks):
        layers = [nn.Conv2d(self.inplanes, planes, 3, padding=1)]
        self.inplanes = planes
        for _ in range(1, blocks):
            layers.append(nn.Conv2d(self.inplanes, planes, 3, padding=1))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.stem(x)
       #^ Tensor[N, 16, H, W]
        y = self.layer1(x)
       #^ Tensor[N, 32, H, W]
        return y


class Config:
    blocks = 3


# oracle: Net(Config())(torch.randn(2, 3, 8, 8))
