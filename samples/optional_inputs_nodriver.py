"""Optional arguments of a forward nobody calls. A `mask=None` the body reads with no test
for None (`rearrange(mask, 'b n -> b () n')`) would make the call raise, so the training
loop passes a tensor: it is an input like `x`, its shape decided from its uses, and a dim
it broadcasts with one of x's is named after it (`mask: Tensor[B, T]`). A `context=None`
the body tests (`if exists(context):`) is run both ways: with None, the default, and given
as a tensor, a guess whose shapes are shown and whose diagnostics are not; a line both ways
reach with different shapes shows their join (`sim`: the keys come from `context` or `x`)."""
import torch
from torch import nn, einsum
from einops import rearrange


def exists(val):
    return val is not None


class MaskedPool(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.to_logits = nn.Linear(dim, heads)

    def forward(self, x, mask=None):
        logits = rearrange(self.to_logits(x), 'b n h -> b h n')
        mask = rearrange(mask, 'b n -> b () n')
      # ^ Tensor[B, 1, T]
        logits = logits.masked_fill(~mask, -1e9)
      # ^ Tensor[B, heads, T]
        attn = logits.softmax(dim=-1)
        return einsum('b h n, b n d -> b h d', attn, x)
             # ^ Tensor[B, heads, dim]


class CrossOrSelf(nn.Module):
    def __init__(self, dim, context_dim):
        super().__init__()
        self.to_kv = nn.Linear(context_dim, dim * 2)
        self.to_kv_self = nn.Linear(dim, dim * 2)

    def forward(self, x, context=None):
        b, n, _ = x.shape
        if exists(context):
            kv = self.to_kv(context)
          # ^ Tensor[b, context_T, 2*dim]
        else:
            kv = self.to_kv_self(x)
          # ^ Tensor[b, n, 2*dim]
        k, v = kv.chunk(2, dim=-1)
        sim = einsum('b i d, b j d -> b i j', x, k)
      # ^ Tensor[b, n, ?]
        return einsum('b i j, b j d -> b i d', sim.softmax(dim=-1), v)
