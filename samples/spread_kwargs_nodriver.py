"""A block nobody builds that spreads its `**kwargs` into a layer, with tuple defaults.

- `nn.Conv2d(in_ch, out_ch, k, stride, padding, dilation=1, groups=..., bias=..., **kwargs)`:
  every parameter that changes a shape is given, so whatever `kwargs` holds (padding_mode,
  device, dtype) the output has the shape the given ones make; leave `dilation` out and
  `kwargs` may hold it, so no shape would be claimed.
- `stride=(1, 1)` is a default like `stride=1`: each item is a symbol (`stride_0`,
  `stride_1`), since the real model may pass another stride."""
import torch
from torch import nn


class SplitConv(nn.Module):
    def __init__(self, in_ch, out_ch, kernel_size, stride=(1, 1), padding=(1, 1), radix=2, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch * radix, kernel_size, stride, padding, dilation=1, groups=radix, bias=False,
                              **kwargs)
        self.radix = radix

    def forward(self, x):
        b, c, h, w = x.shape
        x = x.float()
       #^ Tensor[b, radix*(in_ch//radix), h, w]
        x = self.conv(x)
       #^ Tensor[b, out_ch*radix, (h - kernel_size + 2*padding_0)//stride_0 + 1, (-kernel_size + 2*padding_1 + w)//stride_1 + 1]
        parts = torch.split(x, x.shape[1] // self.radix, dim=1)
        return sum(parts)

# oracle: SplitConv(in_ch=4, out_ch=3, kernel_size=3, stride=(2, 1), padding=(1, 2), padding_mode="zeros")(torch.randn(2, 4, 9, 8))

