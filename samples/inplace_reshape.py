"""In-place methods that change a tensor's shape (`unsqueeze_`, `transpose_`, `squeeze_`): the
tensor itself holds the new shape afterwards, as an outer-product layer of a recommender
relies on. Treating the call as a copy would flag a correct `torch.mul` below."""
import torch
from torch import nn


class OuterProduct(nn.Module):
    def __init__(self, num_pairs, embed_dim):
        super().__init__()
        self.kernel = nn.Parameter(torch.randn(embed_dim, num_pairs, embed_dim))

    def forward(self, p, q):
        p.unsqueeze_(dim=1)
        #^ Tensor[2, 1, 10, 8]
        kp = torch.sum(torch.mul(p, self.kernel), dim=-1)
        #^ Tensor[2, 8, 10]
        kp = torch.sum(torch.mul(torch.transpose(kp, 2, 1), q), dim=-1)
        #^ Tensor[2, 10]
        return kp


def in_place_views():
    x = torch.randn(4, 1, 6)
    x.squeeze_(1)
    y = x
    #   ^ Tensor[4, 6]
    x.t_()
    z = x + torch.randn(6, 4)
    #   ^ Tensor[6, 4]
    x.transpose_(0, 1)
    w = x + torch.randn(6, 6)  # error: shape-mismatch
    return y, z


layer = OuterProduct(10, 8)
out = layer(torch.randn(2, 10, 8), torch.randn(2, 10, 8))
in_place_views()
