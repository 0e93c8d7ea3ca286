"""Blocks indexed by the step of a loop (TabNet style: `self.att_transformers[step](x)`),
where the number of steps is a constructor parameter: with no example call the list has an
unknown length, and any index gives a block like the ones the loop appended."""
import torch
from torch import nn


class Steps(nn.Module):
    def __init__(self, dim, hidden, n_steps):
        super().__init__()
        self.n_steps = n_steps
        self.shared = nn.Linear(dim, hidden)
        self.blocks = nn.ModuleList()
        for _ in range(n_steps):
            self.blocks.append(nn.Linear(hidden, hidden))
        self.gates = nn.ModuleList([nn.Linear(hidden, 1) for _ in range(n_steps)])

    def forward(self, x):
        b, d = x.shape
        h = self.shared(x)
        total = torch.zeros_like(h)
        for step in range(self.n_steps):
            out = self.blocks[step](h)
           #^ Tensor[b, hidden]
            gate = torch.sigmoid(self.gates[step](out))
           #^ Tensor[b, 1]
            total = total + gate * out
        last = self.blocks[-1](h)
       #^ Tensor[b, hidden]
        return total + last

# oracle: Steps(6, 8, 3)(torch.randn(4, 6))
