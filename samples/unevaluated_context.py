"""A def two callers run: one with a rank-3 tensor, one with a tensor ShapeSense cannot compute
(`torch.vander` is not modelled), which is rank 4 when the file runs. The second context
evaluates none of the def's lines, so its hovers claim no shape: the first caller's is not
the only one (a mixture-of-experts gate run on tokens and on expert groups). Its last dim
is the same in both, and shown.
"""
# exactness: open
import torch
from torch import nn


def top1(t):
    values, index = t.topk(k=1, dim=-1)
    #^ Tensor[..., 1]
    return values.squeeze(-1), index.squeeze(-1)


class Gate(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.w = nn.Parameter(torch.randn(dim, experts))

    def forward(self, x):
        gates = (x @ self.w).softmax(dim=-1)
        #^ Tensor[..., 4]
        return top1(gates)


gate = Gate(8, 4)
tokens = torch.randn(2, 16, 8)
g1, i1 = gate(tokens)
#^ Tensor[2, 16]
groups = torch.vander(torch.arange(1.0, 9.0)).reshape(2, 2, 2, 8)
g2, i2 = gate(groups)
