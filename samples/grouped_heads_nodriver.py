"""Heads split into groups of a size the analysis holds as a symbol (`x.split(per_group,
dim=1)`): the pieces' count is not known, but each piece has the input's rank, so the
layers applied to them tell the input's rank as if applied to the input itself (a Conv1d
per group: rank 3). An einops pattern that names an axis only one side has is wrong
whatever the tensor is: flagged even on a way of an `if` the analysis cannot decide."""
import torch
from einops import rearrange
from torch import nn


class GroupedHeadConvs(nn.Module):
    def __init__(self, dim_head, heads, groups, causal=False):
        super().__init__()
        self.per_group = heads // groups
        self.causal = causal
        self.convs = nn.ModuleList([nn.Conv1d(dim_head * self.per_group, dim_head * self.per_group, 3, padding=1)
                                    for _ in range(groups)])

    def forward(self, x):
        parts = x.split(self.per_group, dim=1)
        outs = [rearrange(conv(rearrange(p, "b h d n -> b (h d) n")), "b (h d) n -> b h d n", h=self.per_group)
                for conv, p in zip(self.convs, parts)]
        y = torch.cat(outs, dim=1)
       #^ Tensor[N, ?, dim_head, W]
        if self.causal:
            n = y.shape[-1]
            mask = torch.ones(n, n, dtype=torch.bool).triu(1)
            mask = rearrange(mask, "i j -> () () i jx")  # error: illegal-value
        return y


# oracle: GroupedHeadConvs(4, 4, 2)(torch.randn(2, 4, 4, 6))
