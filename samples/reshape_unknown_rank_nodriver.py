"""Reshapes of an input whose rank nothing fixes, with no example call.

`x.view(-1, 8)` gives a 2-D tensor whatever x's rank: `Tensor[?, 8]`. The dim that -1
stands for depends on dims nobody knows, so it is `?`, but the rank and the 8 hold, and the
lines after it know them; `torch.flatten(x, 1)` is 2-D at every rank: `Tensor[?, ?]`.
`x.view(3, 8)` says x has 24 elements, not that its last dim is 24: a (4, 6) input fits
too, so the contract names no last dim."""
import torch
from torch import nn


class Tokens(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(8, dim)

    def forward(self, x):
        z = torch.tanh(x)
        flat = z.view(-1, 8)
       #^ Tensor[?, 8]
        h = self.proj(flat)
       #^ Tensor[?, dim]
        return h


class Classifier(nn.Module):
    def __init__(self, d_in, hidden, classes):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        x = torch.flatten(x, 1)
       #^ Tensor[?, ?]
        h = torch.relu(self.fc1(x))
       #^ Tensor[?, hidden]
        return self.fc2(h)


def pairs(x):
    grid = x.view(3, 8)
   #^ Tensor[3, 8]
    return grid.sum(dim=0)


def rows(x):
    y = x.reshape(-1)
   #^ Tensor[?]
    return y


# oracle: Tokens(dim=4)(torch.randn(2, 5, 8))
# oracle: Classifier(d_in=12, hidden=5, classes=3)(torch.randn(2, 3, 4))
# oracle: pairs(torch.randn(4, 6))
# oracle: rows(torch.randn(2, 3, 4))
