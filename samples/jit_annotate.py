"""`torch.jit.annotate(T, value)` tells TorchScript the type of a value and gives the value
back (kornia's HardNet8 reads its PCA buffers so): the shapes go on through it."""
import torch
from torch import nn


class Projector(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim_in))
        self.register_buffer("components", torch.randn(dim_in, dim_out))

    def forward(self, x):
        mean: torch.Tensor = torch.jit.annotate(torch.Tensor, self.mean)
        #^ Tensor[32]
        components = torch.jit.annotate(torch.Tensor, self.components)
        #^ Tensor[32, 8]
        return torch.mm(x - mean, components)


proj = Projector(32, 8)
out = proj(torch.randn(4, 32))
#^ Tensor[4, 8]
