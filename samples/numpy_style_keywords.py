"""NumPy's `keepdims` spelling: torch's native reductions take it as `keepdim` (a capsule
network's squash writes `(s ** 2).sum(dim=-1, keepdims=True)`); `Tensor.norm`, written in
Python, does not."""
import torch


def squash(s, eps=1e-8):
    s2 = (s ** 2).sum(dim=-1, keepdims=True)
    #^ Tensor[2, 4, 1]
    scale = s2 / (1 + s2) / torch.sqrt(s2 + eps)
    return scale * s


caps = squash(torch.randn(2, 4, 16))
#^ Tensor[2, 4, 16]
peak = caps.amax(dim=1, keepdims=True)
#^ Tensor[2, 1, 16]
