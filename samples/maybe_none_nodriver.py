"""Tensors that may be None, with no example call.

- `nn.Parameter(torch.randn(1, num_mem_kv, dim)) if num_mem_kv > 0 else None`: where the
  test holds, `num_mem_kv` is a size >= 1 (not its default 0); the attribute is a tensor or
  None, and `default(self.mem_kv, fallback)` is never None.
- A layer that is either a positional embedding or `Always(None)`: `if exists(pos):` sees
  the embedding's tensor.
- `nn.LayerNorm(dim) if use_norm else None`, then `if self.norm is not None:`: the layer
  runs in the way where it exists, and the shape after the `if` is known either way; in
  `nn.Sequential(*filter(exists, layers))` such a layer may be there or not."""
import torch
from torch import nn


def exists(val):
    return val is not None


def default(val, d):
    return d if val is None else val


class Always(nn.Module):
    def __init__(self, val):
        super().__init__()
        self.val = val

    def forward(self, *args):
        return self.val


class FixedPositions(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.emb = nn.Parameter(torch.randn(max_len, dim))

    def forward(self, x):
        return self.emb[:x.shape[1]]


class MemoryAttention(nn.Module):
    def __init__(self, dim, max_len, num_mem_kv=0, rotary=True):
        super().__init__()
        self.num_mem_kv = num_mem_kv
        self.mem_kv = nn.Parameter(torch.randn(1, num_mem_kv, dim)) if num_mem_kv > 0 else None
       #^ Tensor[1, num_mem_kv, dim]
        self.pos = FixedPositions(dim, max_len) if rotary else Always(None)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, e = x.shape
        mem = default(self.mem_kv, torch.zeros(1, 0, e))
        x = torch.cat((mem.expand(b, -1, -1), x), dim=1)
       #^ Tensor[b, ?, e]
        pos = self.pos(x)
        if exists(pos):
            x = x + pos
           #^ Tensor[b, ?, max(dim, e)]
        return self.to_out(x)

class OptionalNorm(nn.Module):
    def __init__(self, dim, use_norm=False):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim) if use_norm else None

    def forward(self, x):
        b, t, c = x.shape
        y = self.fc(x)
        if self.norm is not None:
            y = self.norm(y)
        out = y + x
       #^ Tensor[b, t, dim]
        return out

def Sequential(*modules):
    return nn.Sequential(*filter(exists, modules))


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, post_act_ln=False):
        super().__init__()
        self.ff = Sequential(
            nn.Linear(dim, dim * mult),
            nn.LayerNorm(dim * mult) if post_act_ln else None,
            nn.GELU(),
            nn.Linear(dim * mult, dim),
        )

    def forward(self, x):
        b, t, c = x.shape
        out = self.ff(x)
       #^ Tensor[b, t, dim]
        return out

# oracle: MemoryAttention(dim=8, max_len=16, num_mem_kv=2)(torch.randn(2, 5, 8))
# oracle: OptionalNorm(dim=8, use_norm=True)(torch.randn(2, 5, 8))
# oracle: FeedForward(dim=8, post_act_ln=True)(torch.randn(2, 5, 8))
