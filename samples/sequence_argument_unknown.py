"""A constructor argument the analysis cannot compute, which the body uses as a sequence
(MADE's masked layers: `len(in_degrees)`, then a comparison with it). An unknown argument
of a constructor is analysed as a size symbol, as a hyperparameter would be; one the body
iterates is no size, and stays Unknown: as a symbol, the mask below showed Tensor[12, 1]
where torch makes [12, 6]."""
import torch
from torch import nn


class MaskedLinear(nn.Linear):
    def __init__(self, in_degrees, out_features):
        super().__init__(len(in_degrees), out_features)
        out_degrees = torch.arange(out_features) % 5 + 1
        mask = (out_degrees[..., None] >= in_degrees).float()
        pair = (mask, out_degrees)
       #^ (?, Tensor[12])
        self.register_buffer("mask", pair[0])

    def forward(self, x):
        return nn.functional.linear(x, self.weight * self.mask, self.bias)


low = torch.min(torch.arange(1, 7)).item()
degrees = torch.randint(low=int(low), high=6, size=[6])
layer = MaskedLinear(degrees, 12)
y = layer(torch.randn(2, 6))
