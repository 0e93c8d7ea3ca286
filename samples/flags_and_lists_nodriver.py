"""Idioms of attention code with no example call: a flag the forward asserts on, a tuple that
one way maps over, outputs appended to a list in branches, and `.type(q.dtype)`.

- `assert not (self.receives_context and context is None)`: where the forward goes on,
  `receives_context` is False, so `if not self.receives_context:` takes one way only.
- `projs = map(f, projs)` on one way of an undecided `if`: a tuple one way, a map the other;
  what is unpacked from it joins item by item.
- `out.append(...)` under two undecided tests: the list holds some of those tensors, and
  `torch.cat(out, dim=1)` still has every dim they agree on."""
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, seq_len, heads=4, k=16, receives_context=False, local_heads=0):
        super().__init__()
        self.heads = heads
        self.seq_len = seq_len
        self.receives_context = receives_context
        self.local_heads = local_heads
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(dim, dim * 2, bias=False)
        self.proj_k = nn.Parameter(torch.zeros(seq_len, k))
        self.proj_v = nn.Parameter(torch.zeros(seq_len, k))

    def forward(self, x, context=None):
        assert not (self.receives_context and context is None), 'context needed'
        b, n, d = x.shape
        if not self.receives_context:
            q, kv = self.to_q(x), self.to_kv(x)
        else:
            q, kv = self.to_q(x), self.to_kv(context)
        q = q.type(x.dtype)
       #^ Tensor[b, n, dim]
        k, v = kv.chunk(2, dim=-1)
       #^ Tensor[b, n, dim]
        projs = (self.proj_k, self.proj_v)
        if n < self.seq_len:
            projs = map(lambda t: t[:n], projs)
        k, v = map(lambda a: torch.einsum('bnd,nk->bkd', *a), zip((k, v), projs))
       #^ Tensor[b, k, dim]
        q = q.reshape(b, n, self.heads, -1).transpose(1, 2)
        out = []
        if self.local_heads > 0:
            out.append(q[:, :self.local_heads])
        if self.heads > self.local_heads:
            out.append(q[:, self.local_heads:])
        attn = torch.cat(out, dim=1)
       #^ Tensor[b, ?, n, dim//heads]
        return attn.transpose(1, 2).reshape(b, n, -1), k

# oracle: Attention(dim=8, seq_len=6, heads=2, k=3)(torch.randn(2, 5, 8))
