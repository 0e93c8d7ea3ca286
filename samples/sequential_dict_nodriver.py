"""nn.Sequential of an OrderedDict filled by way or in a loop, with no example call.

The head's layers depend on `representation_size`, None by default: the model may be built
with a number, so both ways are kept, and where `representation_size` is given it is that
number (its symbol), not None. The Sequential is one of the two Sequentials: calling it calls
each, and both end in a Linear to `num_classes`. The encoder's blocks are put in the dict in
a loop of `num_layers` rounds, under keys made in the loop: a Sequential of blocks that
look alike, each keeping the shape. Neither is a Sequential of nothing (the input as is)."""
from collections import OrderedDict

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc(self.norm(x))


class Classifier(nn.Module):
    def __init__(self, dim, num_layers, num_classes=1000, representation_size=None):
        super().__init__()
        blocks: OrderedDict[str, nn.Module] = OrderedDict()
        for i in range(num_layers):
            blocks[f"block_{i}"] = Block(dim)
        self.blocks = nn.Sequential(blocks)
        head: OrderedDict[str, nn.Module] = OrderedDict()
        if representation_size is None:
            head["head"] = nn.Linear(dim, num_classes)
        else:
            head["pre_logits"] = nn.Linear(dim, representation_size)
            head["act"] = nn.Tanh()
            head["head"] = nn.Linear(representation_size, num_classes)
        self.head = nn.Sequential(head)

    def forward(self, x):
        b, n, d = x.shape
        h = self.blocks(x)
       #^ Tensor[b, n, dim]
        first = h[:, 0]
        logits = self.head(first)
       #^ Tensor[b, num_classes]
        return logits


# oracle: Classifier(16, 2, num_classes=5)(torch.randn(2, 7, 16))
# oracle: Classifier(16, 3, num_classes=5, representation_size=8)(torch.randn(2, 7, 16))
