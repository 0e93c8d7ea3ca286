"""A layer the model may be given (`pos_emb=None`: a rotary embedding when passed in), with
no example call. After `if exists(self.pos_emb): q = self.pos_emb(q)` the query is known on
the way without it only: the hover keeps its rank and claims no size (the other way may
change them), so the lines after it still have a shape where they used to have none. What
is computed from such a value is never a diagnostic: the other way may be the one taken."""
import os

import torch
from torch import nn
from einops import rearrange


def exists(v):
    return v is not None


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64, pos_emb=None):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.pos_emb = pos_emb
        self.to_qkv = nn.Linear(dim, inner * 3, bias=False)
        self.to_logits = nn.Linear(dim_head, 1)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: rearrange(t, 'b n (h d) -> b h n d', h=self.heads), (q, k, v))
        if exists(self.pos_emb):
            q = self.pos_emb(q)
        logits = self.to_logits(q)
        #^ Tensor[?, ?, ?, ?]
        attn = logits.softmax(dim=-2)
        #^ Tensor[?, ?, ?, ?]
        return (attn * v).sum(dim=-2)


# A concrete tensor changed by a call nothing models, on one way only: its rank stays, its
# sizes are not claimed.
t = torch.randn(2, 8)
if os.environ.get("SMOOTH"):
    import scipy.ndimage
    t = torch.from_numpy(scipy.ndimage.gaussian_filter(t.numpy(), 1.0))
u = t * 2
#^ Tensor[?, ?]


class GlobalQuery(nn.Module):
    """What fails whatever the other way gave is still an error: an output letter no input
    has (it was reported when the query was Unknown, and must stay so)."""

    def __init__(self, dim, pos_emb=None):
        super().__init__()
        self.pos_emb = pos_emb

    def forward(self, q, attn):
        b, h, n, d = q.shape
        if exists(self.pos_emb):
            q = self.pos_emb(q)
        return torch.einsum('b h n, b h n d -> b h x', attn, q)  # error: illegal-value
