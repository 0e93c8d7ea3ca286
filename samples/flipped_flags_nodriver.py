"""A layer with many switches (Demucs' encoder layer), with no example call: too many flags
to build every combination, so the class is built with its defaults and with each flag
flipped alone. `freq` picks the convolution: Conv2d by default, Conv1d when off. Built with
the defaults only, the hover showed the rank-4 shape as the only one; the model also builds
the layer with freq=0 (rank 3), and the hover now claims no rank there."""
import torch
from torch import nn
from torch.nn import functional as F


class EncLayer(nn.Module):
    def __init__(self, chin, chout, kernel_size=8, stride=4, freq=True, norm=True, rewrite=True, pad=True):
        super().__init__()
        norm_fn = lambda d: nn.Identity()  # noqa: E731
        if norm:
            norm_fn = lambda d: nn.GroupNorm(1, d)  # noqa: E731
        pad = kernel_size // 4 if pad else 0
        klass = nn.Conv1d
        self.freq = freq
        self.norm = norm
        self.pad = pad
        if freq:
            kernel_size = [kernel_size, 1]
            stride = [stride, 1]
            pad = [pad, 0]
            klass = nn.Conv2d
        self.conv = klass(chin, chout, kernel_size, stride, pad)
        self.norm1 = norm_fn(chout)
        self.rewrite = None
        if rewrite:
            self.rewrite = klass(chout, 2 * chout, 1, 1, 0)

    def forward(self, x):
        y = self.conv(x)
        #^ Tensor[...]
        y = F.gelu(self.norm1(y))
        if self.rewrite:
            y = F.glu(self.rewrite(y), dim=1)
        return y
