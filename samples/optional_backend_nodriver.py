"""A flag that switches to a layer from a package this environment does not have: with no
example call the flag may be either way, but the way that imports the missing package raises
ImportError there, so the stem is the nn.Conv2d one (and the flag is False after that `if`)
and its shapes are known."""
import torch
from torch import nn


class Stem(nn.Module):
    def __init__(self, stem_width=64, rectified_conv=False, rectify_avg=False):
        super().__init__()
        if rectified_conv:
            from rfconv_not_installed import RFConv2d
            conv_layer = RFConv2d
        else:
            conv_layer = nn.Conv2d
        # where the code goes on, rectified_conv is False: no average_mode for nn.Conv2d
        conv_kwargs = {"average_mode": rectify_avg} if rectified_conv else {}
        self.conv1 = conv_layer(3, stem_width, kernel_size=7, stride=2, padding=3, bias=False, **conv_kwargs)
        self.bn1 = nn.BatchNorm2d(stem_width)

    def forward(self, x):
        x = self.conv1(x)
       #^ Tensor[N, stem_width, (H + 1)//2, (W + 1)//2]
        x = torch.relu(self.bn1(x))
       #^ Tensor[N, stem_width, (H + 1)//2, (W + 1)//2]
        return x

# oracle: Stem(stem_width=8)(torch.randn(2, 3, 16, 16))
