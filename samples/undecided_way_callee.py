"""A call made on a way of an `if` the analysis cannot decide meets what that way assumed,
and the way may never run: here `prepare` would reshape the empty targets made when none
are given (`view(0, -1)` fails), but the fitting way is taken only when the environment
asks for it, which the analysis cannot know. Nothing a call on that way raises is
reported (its shapes are still shown), as nothing the way itself raises is."""
import os

import torch
from torch import nn


def prepare(y, n):
    return y.view(n, -1)


class CachedModel(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, y=None):
        if y is None:
            y = torch.zeros(0)
        h = self.proj(x)
        if os.environ.get("SAMPLE_FIT_TARGETS") == "1":
            self.targets = prepare(y, y.shape[0])
            out = h * 2
           #^ Tensor[3, 4]
        else:
            out = h + 1
           #^ Tensor[3, 4]
        return out


model = CachedModel(4)
a = model(torch.randn(3, 4), torch.randn(3, 2))
b = model(torch.randn(3, 4))
c = prepare(torch.randn(6), 3)
#^ Tensor[3, 2]
