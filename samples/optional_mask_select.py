"""A norm applied to the masked positions only: `x.masked_select(mask)` flattens the kept
items to one dim whatever the mask is, so with an optional mask (given by a caller that may
pass None) the tensor after the branch is 1-D one way and 3-D the other: no single rank is
claimed there, and the 3-D shape of the unmasked way is not shown as if it were the only one."""
import torch
from torch import nn


class MaskedNorm(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, mask=None):
        b, t, d = x.shape
        has_mask = mask is not None
        if has_mask:
            initial_x = x
            mask = mask.unsqueeze(-1)
            x = x.masked_select(mask)
            #^ Tensor[?]
        shape = x.shape
        x = x.reshape(-1, d)
        x = self.fn(x)
        x = x.reshape(*shape)
        #^ Tensor[...]
        if has_mask:
            x = initial_x.masked_scatter(mask, x)
        return x


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = MaskedNorm(nn.BatchNorm1d(dim))

    def forward(self, x, input_mask=None):
        h = self.proj(x)
        h = self.norm(h, mask=input_mask)
        out = h + x
        pooled = out.mean(dim=1)
        return pooled


# exactness: open
# oracle: Block(8).forward(torch.randn(2, 5, 8), torch.rand(2, 5) > 0.5)
