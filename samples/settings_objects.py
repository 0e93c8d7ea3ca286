"""Settings handed to a model as an object (`SimpleNamespace(mult=2, use_pos=True)`, an
`argparse.Namespace`) and a mode kept in a 0-d tensor buffer (a spiking neuron's
`reset_mechanism_val`, tested with `== 0`): both are known values, so only the layers and
the branch the model really uses are run, and no shape of a branch it never takes is shown."""
import argparse
from types import SimpleNamespace

import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self, args, dim, self_attention=False):
        super().__init__()
        self.proj = nn.Linear(dim, dim * args.mult)
        self.pos = nn.Linear(dim * args.mult, 3) if args.use_pos and self_attention else None

    def forward(self, x):
        h = self.proj(x)
        if self.pos is not None:
            h = self.pos(h)
            #^ Tensor[2, 3]
        return h


class Neuron(nn.Module):
    reset_dict = {"subtract": 0, "zero": 1}

    def __init__(self, reset_mechanism="subtract"):
        super().__init__()
        self.register_buffer("reset_mechanism_val", torch.as_tensor(self.reset_dict[reset_mechanism]))
        if self.reset_mechanism_val == 0:
            self.state_function = self._base_sub
        elif self.reset_mechanism_val == 1:
            self.state_function = self._base_zero

    def _base_sub(self, x):
        return x - 1

    def _base_zero(self, x):
        zeroed = x[:, :1] * 0
        return zeroed

    def forward(self, x):
        out = self.state_function(x)
        #^ Tensor[2, 5]
        return out


args = SimpleNamespace(mult=2, use_pos=True)
a = Attn(args, 8, self_attention=True)(torch.randn(2, 8))
b = Attn(argparse.Namespace(mult=3, use_pos=False), 8)(torch.randn(2, 8))
#   ^ Tensor[2, 24]
spikes = Neuron()(torch.randn(2, 5))
