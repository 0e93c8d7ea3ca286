"""A batch norm over the positions a mask keeps, as product-key memories write it: the kept
features are selected (how many depends on the mask's values: `Tensor[?]`), normed as rows of
the feature width, and scattered back, which gives the input's shape again. Before
`masked_scatter` was modelled, every line after it was unknown."""
# exactness: open
import torch
from torch import nn


class MaskedBatchNorm1D(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, mask=None):
        b, t, d = x.shape
        initial_x = x
        mask = mask.unsqueeze(-1)
        x = x.masked_select(mask)
        #^ Tensor[?]
        shape = x.shape
        x = self.fn(x.reshape(-1, d))
        #^ Tensor[?, 32]
        x = x.reshape(shape)
        #^ Tensor[?]
        return initial_x.masked_scatter(mask, x)


norm = MaskedBatchNorm1D(nn.BatchNorm1d(32))
out = norm(torch.randn(2, 10, 32), torch.rand(2, 10) > 0.5)
#^ Tensor[2, 10, 32]
bad = torch.randn(2, 10, 32).masked_scatter(torch.ones(2, 10, 1, dtype=torch.int32), torch.randn(640))  # error: dtype-mismatch
