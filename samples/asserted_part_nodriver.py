"""A part handed to a constructor with no annotation but an isinstance assert, with no
example call: `assert isinstance(net, SirenNet)` says what `net` is, as `net: SirenNet`
would, so the model is built with a generic instance of that class (siren-pytorch's
SirenWrapper, which draws a coordinate grid through the net)."""
import torch
from torch import nn


class CoordNet(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.fc = nn.Linear(dim_in, dim_out)

    def forward(self, coords):
        return self.fc(coords)


class GridWrapper(nn.Module):
    def __init__(self, net, size):
        super().__init__()
        assert isinstance(net, CoordNet), 'GridWrapper needs a CoordNet'
        self.net = net
        axes = [torch.linspace(-1, 1, steps=size), torch.linspace(-1, 1, steps=size)]
        grid = torch.stack(torch.meshgrid(*axes, indexing='ij'), dim=-1)
        self.register_buffer('grid', grid.reshape(-1, 2))

    def forward(self):
        out = self.net(self.grid)
       #^ Tensor[size*size, dim_out]
        return out


# oracle: GridWrapper(CoordNet(2, 3), 4)()
