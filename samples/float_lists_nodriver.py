"""Per-head slopes as ALiBi computes them, with no example call: a list built by a
comprehension over `range(heads)` whose items are floats of unknown value (`start * ratio
** i`, from `math.log2(heads)`). One item per item of `range(heads)`, each a number: the
tensor made from it is `Tensor[heads]`, and the rearrange after it `Tensor[heads, 1, 1]`."""
# exactness: open
import math

import torch
from torch import nn
from einops import rearrange


def power_of_2_slopes(n):
    start = 2 ** (-2 ** -(math.log2(n) - 3))
    ratio = start
    return [start * ratio ** i for i in range(n)]


class AlibiSlopes(nn.Module):
    def __init__(self, heads):
        super().__init__()
        slopes = torch.Tensor(power_of_2_slopes(heads))
        #^ Tensor[heads]
        self.slopes = nn.Parameter(rearrange(slopes, 'h -> h 1 1'))

    def forward(self, sim):
        return sim * self.slopes


# oracle: AlibiSlopes(4)(torch.randn(2, 4, 6, 6))
