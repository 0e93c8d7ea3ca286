"""A slice bounded by a 0-dim integer tensor (julius' resampler: `y[..., :n]` with `n =
torch.floor(torch.as_tensor(new_sr * length / old_sr)).long()`). The bound is the tensor's
value when it is known, else an int not known: the result keeps its rank either way (the
whole value used to be unknown)."""
import torch
from torch.nn import functional as F


def resample(x, old_sr, new_sr, kernel):
    shape = x.shape
    length = x.shape[-1]
    x = x.reshape(-1, length)
    x = F.pad(x[:, None], (4, 4 + old_sr), mode='replicate')
    ys = F.conv1d(x, kernel, stride=old_sr)
    y = ys.transpose(1, 2).reshape(list(shape[:-1]) + [-1])
    #^ Tensor[2, 2, 1238]
    n = torch.floor(torch.as_tensor(new_sr * length / old_sr)).long()
    y = y[..., :n]
    #^ Tensor[2, 2, 1236]
    return y


out = resample(torch.randn(2, 2, 618), 1, 2, torch.randn(2, 1, 9))
#^ Tensor[2, 2, 1236]
