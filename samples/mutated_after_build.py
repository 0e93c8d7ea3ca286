"""Layers changed after they are built, as head pruning does: `prune_heads` drops heads
from a set of pruned ones (`set(heads) - self.pruned`, `self.pruned.union(heads)`) and
lowers `self.heads`. A model prunes through its base model, found with
`getattr(self, self.base_prefix, self)` (the model itself when it has no such attribute):
the layers' head counts after pruning are known exactly. (Two layers built alike are one
value to the analysis; pruning one of them is a known gap.)""" 
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.pruned = set()

    def prune_heads(self, heads):
        heads = set(heads) - self.pruned
        self.heads = self.heads - len(heads)
        self.pruned = self.pruned.union(heads)

    def forward(self, x):
        b, t, _ = x.shape
        q = x.new_zeros(b, self.heads, t, self.head_dim)
        return q


class Model(nn.Module):
    base_prefix = "encoder"

    def __init__(self, dim, heads):
        super().__init__()
        self.layers = nn.ModuleList([Attention(dim, heads), Attention(dim, heads * 2)])

    def prune(self, spec):
        base = getattr(self, self.base_prefix, self)
        for i, heads in spec.items():
            base.layers[i].prune_heads(heads)


x = torch.randn(2, 5, 32)
single = Attention(32, 4)
single.prune_heads([1, 2])
q1 = single(x)
#^ Tensor[2, 2, 5, 8]
model = Model(32, 4)
model.prune({0: [1]})
q2 = model.layers[0](x)
#^ Tensor[2, 3, 5, 8]
q3 = model.layers[1](x)
#^ Tensor[2, 8, 5, 4]
