"""A class attribute holding a function defined elsewhere, before the methods
(`load_tf_weights = load_tf_weights_in_gpt2` in pytorch-transformers' GPT-2): the class is
still the class its body defines, so `super(Block, self).__init__(...)` reaches the base's
constructor and the layers it builds are known."""
import torch
from torch import nn


def init_weights(module):
    return module


class Base(nn.Module):
    def __init__(self, dim, *inputs, **kwargs):
        super(Base, self).__init__()
        self.dim = dim


class Block(Base):
    weight_init = init_weights

    def __init__(self, dim):
        super(Block, self).__init__(dim)
        self.proj = nn.Linear(self.dim, 2 * self.dim)

    def forward(self, x):
        y = self.proj(x)
        #^ Tensor[2, 5, 32]
        return y


block = Block(16)
out = block(torch.randn(2, 5, 16))
#^ Tensor[2, 5, 32]
