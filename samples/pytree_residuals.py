"""A residual wrapper that hands a branch's output through torch.utils._pytree (lucidrains'
hyper-connections wrap every attention and feed-forward block so): the first leaf gets the
residual, the rest of the structure is rebuilt as it was. A branch returning a tuple keeps
its tuple, one returning a tensor keeps its tensor."""
import torch
from torch import nn
from torch.utils._pytree import tree_flatten, tree_map, tree_unflatten


class Residual(nn.Module):
    def __init__(self, branch):
        super().__init__()
        self.branch = branch

    def forward(self, x, **kwargs):
        out = self.branch(x, **kwargs)
        (branch_out, *rest), tree_spec = tree_flatten(out)
        branch_out = branch_out + x
        return tree_unflatten((branch_out, *rest), tree_spec)


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_v = nn.Linear(dim, dim)

    def forward(self, x, value_residual=None):
        v = self.to_v(x)
        return v, v[:, None]


attn = Residual(Attention(16))
out_a, values = attn(torch.randn(2, 8, 16))
# ^ Tensor[2, 8, 16]
_, values = attn(torch.randn(2, 8, 16))
#  ^ Tensor[2, 1, 8, 16]
ff = Residual(nn.Linear(16, 16))
out_b = ff(torch.randn(2, 8, 16))
# ^ Tensor[2, 8, 16]
halves = tree_map(lambda t: t[..., :8], {"a": out_b, "b": (out_a, values)})
firsts = halves["b"][0]
# ^ Tensor[2, 8, 8]
