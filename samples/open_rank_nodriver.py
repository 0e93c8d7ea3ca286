"""Inputs whose rank nothing fixes, with no example call: `Tensor[..., dim]`.

A block that only applies `nn.Linear`, `nn.LayerNorm`, activations, dropout and residual
additions to its input works on (B, dim), (B, T, dim) or any other rank, so no rank is
claimed; but `nn.Linear(dim, hidden)` says the last dim is `dim`, and every line after it
knows its last dim (`Tensor[..., hidden]`). A layer that disagrees with it fails for every
rank: a must-fail error, with no example call needed.

When no use pins the last dim but every use needs one (`'... (d r) -> ... d r'`), the last
dim is a symbol of its own: `Tensor[..., C]`."""
import torch
from einops import rearrange
from torch import nn


class FeedForward(nn.Module):
    def __init__(self, dim, hidden, dropout=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        h = self.fc1(self.norm(x))
       #^ Tensor[..., hidden]
        h = self.drop(self.act(h))
       #^ Tensor[..., hidden]
        out = self.fc2(h)
       #^ Tensor[..., dim]
        y = out + x
       #^ Tensor[..., dim]
        gates = y.softmax(dim=-1)
       #^ Tensor[..., dim]
        return y * gates


class GatedUnit(nn.Module):
    def __init__(self, dim, inner):
        super().__init__()
        self.proj = nn.Linear(dim, inner * 2)
        self.out = nn.Linear(inner, dim)

    def forward(self, x):
        a, b = self.proj(x).chunk(2, dim=-1)
       #^ Tensor[..., inner]
        return self.out(a * torch.sigmoid(b))


class WrongHead(nn.Module):
    def __init__(self, dim, hidden, classes):
        super().__init__()
        self.body = nn.Linear(dim, hidden)
        self.head = nn.Linear(hidden * 2, classes)

    def forward(self, x):
        h = torch.relu(self.body(x))
       #^ Tensor[..., hidden]
        return self.head(h)  # error: shape-mismatch


def rotate_half(x):
    x = rearrange(x, "... (d r) -> ... d r", r=2)
   #^ Tensor[..., C//2, 2]
    x1, x2 = x.unbind(dim=-1)
   #^ Tensor[..., C//2]
    x = torch.stack((-x2, x1), dim=-1)
   #^ Tensor[..., C//2, 2]
    return rearrange(x, "... d r -> ... (d r)")


# oracle: FeedForward(dim=8, hidden=16)(torch.randn(2, 5, 8))
# oracle: GatedUnit(dim=8, inner=6)(torch.randn(3, 8))
# oracle: rotate_half(torch.randn(2, 3, 8))
