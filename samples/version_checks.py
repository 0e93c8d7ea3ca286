"""Code kept for Python 2 (`sys.version_info[0] == 2 and isinstance(act, unicode)`, as an early
BERT port tests its activation): the analysis runs on Python 3, so such a test takes its
Python 3 way and the activation a config names is looked up, not left Unknown."""
import sys

import torch
from torch import nn


def swish(x):
    return x * torch.sigmoid(x)


ACT2FN = {"relu": torch.relu, "swish": swish}


class Intermediate(nn.Module):
    def __init__(self, hidden, inner, act):
        super().__init__()
        self.dense = nn.Linear(hidden, inner)
        if isinstance(act, str) or (sys.version_info[0] == 2 and isinstance(act, unicode)):  # noqa: F821
            self.act = ACT2FN[act]
        else:
            self.act = act

    def forward(self, x):
        y = self.act(self.dense(x))
        #^ Tensor[2, 12, ?]
        return y


a = Intermediate(32, 48, "relu")(torch.randn(2, 12, 32))
b = Intermediate(32, 40, swish)(torch.randn(2, 12, 32))
if sys.version_info >= (3, 8):
    c = torch.zeros(sys.version_info.major)
    #   ^ Tensor[3]
