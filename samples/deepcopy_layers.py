"""Layers made by deep-copying one (`nn.ModuleList([copy.deepcopy(layer) for _ in range(n)])`,
as early BERT ports build their encoders): each copy is a module with parameters of its own,
so the model summary counts all of them, as torchinfo does."""
import copy

import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.dense = nn.Linear(n, n)
        self.norm = nn.LayerNorm(n)

    def forward(self, x):
        return self.norm(self.dense(x))


class Encoder(nn.Module):
    def __init__(self, n, depth):
        super().__init__()
        layer = Layer(n)
        self.layer = nn.ModuleList([copy.deepcopy(layer) for _ in range(depth)])

    def forward(self, x):
        for m in self.layer:
            x = m(x)
            #^ Tensor[2, 5, 8]
        return x


enc = Encoder(8, 3)
y = enc(torch.randn(2, 5, 8))
