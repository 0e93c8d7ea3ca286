"""Stage widths given as a tuple default (`dims=(32, 64, 160, 256)`), with no example call.

The model may be built with other widths, so each item is a size of its own (`dims_0` ...
`dims_3`, the defaults shown as a variant); the number of items stays, since the code is
written for that many stages. Heads split each width, whatever it is."""
import torch
from torch import nn
from einops import rearrange


class StageAttention(nn.Module):
    def __init__(self, *, dim, heads):
        super().__init__()
        self.heads = heads
        self.to_q = nn.Conv2d(dim, dim, 1, bias=False)

    def forward(self, x):
        q = self.to_q(x)
        q = rearrange(q, 'b (h c) x y -> (b h) (x y) c', h=self.heads)
       #^ Tensor[N*heads_3, H*W, dims_3//heads_3]
        return q


class Stages(nn.Module):
    def __init__(self, *, dims=(32, 64, 160, 256), heads=(1, 2, 5, 8), channels=3):
        super().__init__()
        widths = (channels, *dims)
        self.embeds = nn.Sequential(*[nn.Conv2d(a, b, 3, padding=1) for a, b in zip(widths[:-1], widths[1:])])
        self.attns = nn.ModuleList([StageAttention(dim=d, heads=h) for d, h in zip(dims, heads)])

    def forward(self, x):
        x = self.embeds(x)
       #^ Tensor[N, dims_3, H, W]
        last = self.attns[-1](x)
       #^ Tensor[N*heads_3, H*W, dims_3//heads_3]
        return last


# oracle: Stages(dims=(16, 32, 40, 64), heads=(1, 2, 2, 4))(torch.randn(2, 3, 8, 8))
