"""Two idioms of mixture-of-experts code (tensor2tensor's gating, as ported to PyTorch):
`default(val, d)` calls `d()` when it is a function (`inspect.isfunction`), so a layer built
by a lambda is the layer; and `safe_one_hot` asks one_hot for a class count computed from
the values, so the last dim is unknown, the others are not.
"""
# exactness: open
from inspect import isfunction

import torch
import torch.nn.functional as F
from torch import nn


def default(val, default_val):
    default_val = default_val() if isfunction(default_val) else default_val
    return val if val is not None else default_val


def safe_one_hot(indexes, max_length):
    max_index = indexes.max() + 1
    return F.one_hot(indexes, max(max_index + 1, max_length))[..., :max_length]


class Experts(nn.Module):
    def __init__(self, dim, num_experts=4, hidden_dim=64):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(num_experts, dim, hidden_dim))

    def forward(self, x):
        return torch.einsum('end,edh->enh', x, self.w1)


class MoE(nn.Module):
    def __init__(self, dim, num_experts=4, experts=None):
        super().__init__()
        self.experts = default(experts, lambda: Experts(dim, num_experts))
        self.num_experts = num_experts

    def forward(self, x, index):
        hidden = self.experts(x)
        #^ Tensor[4, 16, 64]
        slots = safe_one_hot(index, 8)
        #^ Tensor[4, 16, ?]
        return hidden, slots


moe = MoE(32)
hidden, slots = moe(torch.randn(4, 16, 32), torch.randint(0, 8, (4, 16)))
#^ Tensor[4, 16, 64]
