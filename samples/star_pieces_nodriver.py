"""Token shifting as lucidrains' GPT variants write it, with no example call: the features
are cut into `amt + 1` pieces, a count the analysis holds as a symbol, and unpacked with a
star (`*x, x_pass = x.chunk(amt + 1, dim=-1)`). Each named piece is one of those pieces
(batch and sequence dims as the input's, the width not known) and the starred ones a list
of them, which a loop over `zip` reads piece by piece."""
# exactness: open
import torch
from torch import nn


def shift_tokens(x, amt):
    cumsum = x.cumsum(dim=1)
    *x, x_pass = x.chunk(amt + 1, dim=-1)
           #^ Tensor[x_B, x_T, ?]
    *x_cumsum, _ = cumsum.chunk(amt + 1, dim=-1)
    shifted = []
    for x_chunk, x_cumsum_chunk in zip(x, x_cumsum):
        delta = x_cumsum_chunk - x_chunk
       #^ Tensor[x_B, x_T, ?]
        shifted.append(delta)
    return torch.cat((*shifted, x_pass), dim=-1)


class ShiftGate(nn.Module):
    def __init__(self, dim, num_shifts):
        super().__init__()
        self.num_shifts = num_shifts
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
       #^ Tensor[x_B, x_T, dim]
        return shift_tokens(h, self.num_shifts)


# oracle: ShiftGate(16, 3)(torch.randn(2, 8, 16))
