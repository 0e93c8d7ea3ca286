"""A U-Net up block (the common PyTorch U-Net): upsample, pad to the skip connection's size,
concatenate, convolve. Nothing but the cat says the skip's rank; the cat runs only when it
has the upsampled tensor's 4 dims, so the skip is `Tensor[N, in_ch - in_ch//2, x2_H, x2_W]`
(its batch is the other input's `N`, which the cat needs too, and its channels what the conv
after the cat leaves), and the padding by the size difference gives exactly the skip's
height and width."""
import torch
from torch import nn
import torch.nn.functional as F


class Up(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_ch, in_ch // 2, kernel_size=2, stride=2)
        self.conv = nn.Conv2d(in_ch, out_ch, 3, padding=1)

    def forward(self, x1, x2):
        x1 = self.up(x1)
       #^ Tensor[N, in_ch//2, 2*H, 2*W]
        diff_y = x2.size()[2] - x1.size()[2]
        diff_x = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
       #^ Tensor[N, in_ch//2, x2_H, x2_W]
        x = torch.cat([x2, x1], dim=1)
       #^ Tensor[N, in_ch, x2_H, x2_W]
        out = self.conv(x)
       #^ Tensor[N, out_ch, x2_H, x2_W]
        return out

# oracle: Up(16, 8)(torch.randn(2, 16, 7, 7), torch.randn(2, 8, 15, 15))
