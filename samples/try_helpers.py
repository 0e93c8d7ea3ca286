"""Helpers guarded by try/except (monai's issequenceiterable / ensure_tuple_rep): a try body
that ran with every value known and nothing that may raise does not take its handler, so the
features tuple keeps its sizes and every block is built with them."""
import torch
import torch.nn as nn


def is_sequence(obj):
    try:
        if hasattr(obj, "ndim") and obj.ndim == 0:
            return False
    except Exception:
        return False
    return isinstance(obj, (list, tuple)) and not isinstance(obj, str)


def ensure_tuple_rep(tup, dim):
    if not is_sequence(tup):
        return (tup,) * dim
    if len(tup) == dim:
        return tuple(tup)
    raise ValueError(f"Sequence must have length {dim}, got {len(tup)}.")


class TinyUNet(nn.Module):
    def __init__(self, in_chns=1, features=(8, 16, 32)):
        super().__init__()
        fea = ensure_tuple_rep(features, 3)
        self.down_1 = nn.Conv2d(in_chns, fea[0], 3, padding=1)
        self.down_2 = nn.Conv2d(fea[0], fea[1], 3, stride=2, padding=1)
        self.down_3 = nn.Conv2d(fea[1], fea[2], 3, stride=2, padding=1)

    def forward(self, x):
        x1 = self.down_1(x)
       #^ Tensor[1, 8, 32, 32]
        x2 = self.down_2(x1)
       #^ Tensor[1, 16, 16, 16]
        x3 = self.down_3(x2)
       #^ Tensor[1, 32, 8, 8]
        return x3


net = TinyUNet()
out = net(torch.randn(1, 1, 32, 32))
#^ Tensor[1, 32, 8, 8]
