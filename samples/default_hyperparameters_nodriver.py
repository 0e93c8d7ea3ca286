"""A size check that fails only for a model built with other hyperparameters than its defaults.

With no example call, `patch` and `window` are symbols (the model may be built with other
values), and the assert says the image side is a multiple of `patch * window`. The conv then
needs a side of at least 2: that fails for `patch = window = 1` and a 1-pixel image, but with
the defaults (4 and 7) the side is a multiple of 28. A warning whose counterexample needs a
model built otherwise is noise: none is given (the inputs themselves stay free)."""
import torch
from torch import nn


class RegionStem(nn.Module):
    def __init__(self, patch=4, window=7, dim=32):
        super().__init__()
        self.region = patch * window
        self.conv = nn.Conv2d(3, dim, 8, stride=4, padding=3)

    def forward(self, x):
        h, w = x.shape[-2:]
        assert h % self.region == 0 and w % self.region == 0
        y = self.conv(x)
       #^ Tensor[N, dim, (H + 2)//4, (W + 2)//4]
        return y


# oracle: RegionStem(dim=8)(torch.randn(2, 3, 28, 56))
