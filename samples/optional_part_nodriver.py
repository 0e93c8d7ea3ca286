"""A part a constructor builds only when a None default is given (`if
exists(rel_pos_length):` makes the relative position tables), and that `forward` uses on the
same test, with no example call. As for bool flags, the model is built once per value: with
None (the default) and with the size given, a symbol. Each instance's `forward` sees its own
attributes, so the tables' shapes reach the code that reads them. A None default picked in a
helper or `a if t else b` (`dim_out = default(dim_out, dim)`) is no such flag: the ways
join, keeping the parameter's symbol."""
import torch
from torch import nn, einsum


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


class RelPosAttention(nn.Module):
    def __init__(self, dim, *, rel_pos_length=None, dim_out=None, dim_key=32):
        super().__init__()
        dim_out = default(dim_out, dim)
        self.rel_pos_length = rel_pos_length
        self.to_q = nn.Conv2d(dim, dim_key, 1)
        self.to_out = nn.Conv2d(dim_key, dim_out, 1)
        if exists(rel_pos_length):
            self.rel_rows = nn.Parameter(torch.randn(2 * rel_pos_length - 1, dim_key))

    def forward(self, img):
        q = self.to_q(img)
        if exists(self.rel_pos_length):
            bias = einsum('b d x y, r d -> b r x y', q, self.rel_rows)
          # ^ Tensor[N, 2*rel_pos_length - 1, H, W]
            q = q + bias.mean(dim=1, keepdim=True)
        return self.to_out(q)
             # ^ Tensor[N, dim_out, H, W]
