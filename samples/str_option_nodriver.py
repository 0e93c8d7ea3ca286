"""A model whose widths come from a string option (`mode="small"`), as MobileViT's
`mode="xxs"` does. Nobody builds `Backbone` here: the real model may be built with another
mode, so the widths the default mode picks are no fact about the model, and the test
`if mode == ...` runs every way. The channel dims they give are unknown; the spatial dims,
the same in every mode, are still known. A string used otherwise (a dict key, an op's
`mode=`) is still the default. (The oracle call builds the mode that is not the default.)"""
import torch
from torch import nn
import torch.nn.functional as F

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU}


class Backbone(nn.Module):
    def __init__(self, mode="small", in_channels=3, act="relu", upsample="nearest"):
        super().__init__()
        if mode == "small":
            widths = [16, 32]
        elif mode == "large":
            widths = [32, 64]
        else:
            raise ValueError(f"unknown mode {mode!r}")
        self.stem = nn.Conv2d(in_channels, widths[0], 3, stride=2, padding=1)
        self.act = ACTIVATIONS[act]()
        self.body = nn.Conv2d(widths[0], widths[1], 3, padding=1)
        self.upsample = upsample

    def forward(self, x):
        x = self.act(self.stem(x))
        #^ Tensor[N, ?, (H + 1)//2, (W + 1)//2]
        x = self.body(x)
        #^ Tensor[N, ?, (H + 1)//2, (W + 1)//2]
        y = F.interpolate(x, scale_factor=2, mode=self.upsample)
        #^ Tensor[N, ?, 2*((H + 1)//2), 2*((W + 1)//2)]
        return y


# oracle: Backbone(mode="large").forward(torch.randn(2, 3, 16, 16))
