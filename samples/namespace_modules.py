"""Bare `nn.Module()` objects used as namespaces of parts, as a VQGAN encoder builds its
levels: `down = nn.Module(); down.block = nn.ModuleList(...)`, then
`self.down[i].block[j](h)` in `forward`. The parts are found through the namespace."""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, ch=8, ch_mult=(1, 2), in_channels=3):
        super().__init__()
        self.conv_in = nn.Conv2d(in_channels, ch, 3, padding=1)
        self.down = nn.ModuleList()
        block_in = ch
        for i_level, mult in enumerate(ch_mult):
            down = nn.Module()
            down.block = nn.ModuleList([nn.Conv2d(block_in, ch * mult, 3, padding=1)])
            block_in = ch * mult
            if i_level != len(ch_mult) - 1:
                down.downsample = nn.Conv2d(block_in, block_in, 3, stride=2, padding=1)
            self.down.append(down)
        self.mid = nn.Module()
        self.mid.block_1 = nn.Conv2d(block_in, block_in, 1)

    def forward(self, x):
        h = self.conv_in(x)
        #^ Tensor[2, 8, 16, 16]
        for i_level in range(len(self.down)):
            h = self.down[i_level].block[0](h)
            if i_level != len(self.down) - 1:
                h = self.down[i_level].downsample(h)
                #^ Tensor[2, 8, 8, 8]
        h = self.mid.block_1(h)
        #^ Tensor[2, 16, 8, 8]
        return h


enc = Encoder()
z = enc(torch.randn(2, 3, 16, 16))
