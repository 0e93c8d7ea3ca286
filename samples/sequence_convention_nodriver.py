"""Multi-head attention as the simple-bert port writes it, with no example call: the input
goes only through Linear layers, so no op pins its rank, but the heads are split off its
last dim and then dims are swapped by position (`transpose(1, 2)`), which reads it as a
batch of sequences. The convention of sequence models then names it `[x_B, x_T, dim]`.
The mask's last dim is made up (no layer gives it), so it is not ranked by convention; it is
decided again with x so ranked (as if x were annotated), and the scores it is added to then
give it rank 2."""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


def split_last(x, shape):
    shape = list(shape)
    if -1 in shape:
        shape[shape.index(-1)] = int(x.size(-1) / -np.prod(shape))
    return x.view(*x.size()[:-1], *shape)


def merge_last(x, n_dims):
    s = x.size()
    return x.view(*s[:-n_dims], -1)


class MultiHeadedSelfAttention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.proj_q = nn.Linear(dim, dim)
        self.proj_k = nn.Linear(dim, dim)
        self.proj_v = nn.Linear(dim, dim)
        self.n_heads = num_heads

    def forward(self, x, mask):
        q, k, v = self.proj_q(x), self.proj_k(x), self.proj_v(x)
        #^ Tensor[x_B, x_T, dim]
        q, k, v = (split_last(x, (self.n_heads, -1)).transpose(1, 2) for x in [q, k, v])
        scores = q @ k.transpose(-2, -1) / np.sqrt(k.size(-1))
        #^ Tensor[x_B, num_heads, x_T, x_T]
        if mask is not None:
            mask = mask[:, None, None, :].float()
            #^ Tensor[mask_B, 1, 1, mask_T]
            scores -= 10000.0 * (1.0 - mask)
        scores = F.softmax(scores, dim=-1)
        h = (scores @ v).transpose(1, 2).contiguous()
        #^ Tensor[x_B, x_T, num_heads, dim//num_heads]
        return merge_last(h, 2)


# oracle: MultiHeadedSelfAttention(32, 4)(torch.randn(2, 17, 32), torch.ones(2, 17))
