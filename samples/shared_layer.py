"""One layer handed to two blocks (weight sharing by passing it in): torch has one module
and counts its parameters once (216 here, not 288), and torchinfo lists it at its last
place. The model summary does the same (tests/test_summary_torchinfo.py checks every
sample model against torchinfo)."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.shared = shared
        self.own = nn.Linear(8, 8)

    def forward(self, x):
        return self.own(torch.relu(self.shared(x)))


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        shared = nn.Linear(8, 8)
        self.first = Block(shared)
        self.second = Block(shared)

    def forward(self, x):
        h = self.first(x)
        return self.second(h)


if __name__ == "__main__":
    out = Tied()(torch.randn(2, 8))
    # ^ Tensor[2, 8]
