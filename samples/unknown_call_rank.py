"""A def the file calls twice, where one call cannot compute the value at all: the second
`Attn` gets its weights from a library that is not installed (opaque). Its result may have
any rank, so the hover claims none: `Tensor[...]`, with the one shape known listed as a
variant. (Before, the other call's rank stood, `Tensor[?, ?, ?, ?]`: fair-esm's attention
weights are averaged over the heads on one path, rank 3 where the other path has 4.)"""
import torch
from torch import nn
import fancy_attention  # not installed here: its functions are Unknown


class Attn(nn.Module):
    def __init__(self, fancy):
        super().__init__()
        self.fancy = fancy

    def weights(self, x):
        if self.fancy:
            return fancy_attention.weights(x)
        return x.unsqueeze(1)

    def forward(self, x):
        w = self.weights(x)
       #^ Tensor[...]
        return w


plain = Attn(False)(torch.randn(2, 5, 8))
#^ Tensor[2, 1, 5, 8]
other = Attn(True)(torch.randn(2, 5, 8))

# oracle: skip (imports fancy_attention, a library that is not installed)
