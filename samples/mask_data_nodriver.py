"""A constructor parameter handed to `torch.as_tensor` is the data of a tensor (a list, an
array or a tensor of any shape), not a size: with no example call it stays unknown, and the
layer built from its length has an unknown width, where a made-up number symbol gave a 0-d
tensor (`Tensor[]`) that the runtime never makes."""
import torch
from torch import nn


class MaskedCoupling(nn.Module):
    def __init__(self, mask, hidden=16):
        mask = torch.as_tensor(mask)
       #^ none
        super().__init__()
        self.features = len(mask)
        self.register_buffer("chosen", torch.arange(self.features).masked_select(mask > 0))
        self.net = nn.Linear(self.features, hidden)

    def forward(self, x):
        h = self.net(x)
       #^ Tensor[..., hidden]
        return h


# oracle: MaskedCoupling(torch.tensor([1, 0, 1, 0]))(torch.randn(3, 4))
