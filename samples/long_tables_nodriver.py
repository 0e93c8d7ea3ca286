"""No caller. A long table of sizes as a default (`freqs_per_band`, one width per frequency
band) is one the real model may replace by a table of another length, so the number of
bands it makes is not shown as the default's count (the old hover, `Tensor[..., 12, dim]`,
was wrong for every other table); a short tuple (the stages of a network, up to 8 items)
keeps its length, each item a size of its own."""
import torch
from torch import nn


class BandSplit(nn.Module):
    def __init__(self, dim, freqs_per_band=(2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 12, 16)):
        super().__init__()
        self.to_features = nn.ModuleList([nn.Linear(f, dim) for f in freqs_per_band])
        self.freqs_per_band = freqs_per_band

    def forward(self, x):
        bands = x.split(self.freqs_per_band, dim=-1)
        outs = [to_feature(band) for band, to_feature in zip(bands, self.to_features)]
        out = torch.stack(outs, dim=-2)
       #^ none
        return out

