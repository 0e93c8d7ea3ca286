"""`if TYPE_CHECKING:` is False when the code runs: what a library imports or defines there
for type checkers only (transformers' __init__ imports every model under it) is not what the
program computes with."""
from typing import TYPE_CHECKING

import torch
from torch import nn

if TYPE_CHECKING:
    HIDDEN = 7  # what a stub would say
else:
    HIDDEN = 4


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(HIDDEN, 2)

    def forward(self, x):
        return self.proj(x)


x = torch.randn(3, HIDDEN)
#^ Tensor[3, 4]
y = Head()(x)
#^ Tensor[3, 2]
