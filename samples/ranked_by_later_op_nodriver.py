"""An input that only nn.Linear touches admits every rank, so it is `Tensor[..., dim]` at
first. A later op may run at one rank only: here an einsum over heads split off with
`x.view(*x.shape[:-1], heads, d)`. The key and value inputs then have that rank, since any
other would make the einsum fail. Nothing names their leading dims, so the names are made
up after the parameter (`key_B`), except a dim the einsum broadcasts with a named one: the
key's batch letter is the query's `batch` (from `length, batch, _ = query.shape`), and the
value's dims are the key's.
This is a sequence-first layout (`[length, batch, dim]`)."""
import torch
from torch import nn


class SplitHeads(nn.Module):
    def __init__(self, dim, heads, head_dim):
        super().__init__()
        self.proj = nn.Linear(dim, heads * head_dim)
        self.heads = heads
        self.head_dim = head_dim

    def forward(self, x):
        lead = x.shape[:-1]
        return self.proj(x).view(*lead, self.heads, self.head_dim)


class SequenceFirstAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.q = SplitHeads(dim, heads, dim // heads)
        self.k = SplitHeads(dim, heads, dim // heads)
        self.v = SplitHeads(dim, heads, dim // heads)
        self.out = nn.Linear(dim, dim)

    def forward(self, query, key, value):
        length, batch, _ = query.shape
        q = self.q(query)
       #^ Tensor[length, batch, heads, dim//heads]
        k = self.k(key)
       #^ Tensor[key_B, batch, heads, dim//heads]
        scores = torch.einsum('ibhd,jbhd->ijbh', q, k)
        attn = scores.softmax(dim=1)
        v = self.v(value)
       #^ Tensor[key_B, batch, heads, dim//heads]
        mixed = torch.einsum('ijbh,jbhd->ibhd', attn, v)
        flat = mixed.reshape(length, batch, -1)
        out = self.out(flat)
       #^ Tensor[length, batch, dim]
        return out

# oracle: SequenceFirstAttention(16, 4)(torch.randn(5, 2, 16), torch.randn(7, 2, 16), torch.randn(7, 2, 16))
