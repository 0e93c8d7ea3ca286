"""`layer.__class__ = Other` after building: the same object answers with the other class's
methods from then on (zuko's MonotonicMLP turns its Linear layers into MonotonicLinear this
way), so calling it runs `Other.forward`, and the model summary names the new class."""
import torch
from torch import nn


class Linear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features))

    def forward(self, x):
        return x @ self.weight.t()


class GatedLinear(Linear):
    def forward(self, x):
        y = x @ self.weight.t()
        return torch.stack((y, torch.sigmoid(y)), dim=-1)


class MLP(nn.Sequential):
    def __init__(self, dims):
        super().__init__(*[Linear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        for layer in self:
            layer.__class__ = GatedLinear


single = Linear(4, 8)
single.__class__ = GatedLinear
out = single(torch.randn(2, 4))
#^ Tensor[2, 8, 2]
