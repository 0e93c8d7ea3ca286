"""Channel counts given as a list default, scaled by a width multiplier (a detection neck).

Nobody builds `Neck` here: the training script that does may pass other channel counts
than `[64, 128, 256]`, and here it does. Each item of a list of ints is then a size of its
own (`in_channels_1`), as the items of a tuple default are: a hover showing 128 would be
wrong for the model this file is used with. So is the float `width` the body rounds into
sizes: `int(in_channels[1] * width)` is `in_channels_1*width`, never the default's number. The skip input `c4` is only ever joined to
another tensor: the cat tells its rank once the other input's is known."""
import torch
from torch import nn


class Neck(nn.Module):
    def __init__(self, in_channels=[64, 128, 256], width=1.0):
        super().__init__()
        self.lateral = nn.Conv2d(int(in_channels[2] * width), int(in_channels[1] * width), 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.fuse = nn.Conv2d(int(2 * in_channels[1] * width), int(in_channels[0] * width), 3, padding=1)

    def forward(self, c4, c5):
        lat = self.lateral(c5)
       #^ Tensor[N, in_channels_1*width, H, W]
        up = self.up(lat)
        merged = torch.cat([up, c4], 1)
       #^ Tensor[N, C + in_channels_1*width, 2*H, 2*W]
        out = self.fuse(merged)
       #^ Tensor[N, in_channels_0*width, 2*H, 2*W]
        return out


# oracle: Neck(in_channels=[8, 16, 24], width=0.5)(torch.randn(2, 8, 8, 8), torch.randn(2, 12, 4, 4))
