"""An FFT convolution as Mega's moving average writes it: the transform length comes from
scipy's `next_fast_len` (the least 2-3-5-smooth number not below N + M - 1), so rfft, the
product and irfft have known lengths, and the slice back to N gives the input's shape.
scipy.fft's version also allows 7 and 11 as factors."""
import torch
from torch.fft import irfft, rfft
from scipy.fftpack import next_fast_len
import scipy.fft


def conv1d_fft(x, weights):
    N = x.shape[-2]
    M = weights.shape[-1]
    fast_len = next_fast_len(N + M - 1)
    f_x = rfft(x, n=fast_len, dim=-2)
    #^ Tensor[2, 25, 8]
    f_weight = rfft(weights, n=fast_len, dim=-1)
    #^ Tensor[8, 25]
    out = irfft(f_x * f_weight.t(), fast_len, dim=-2)
    #^ Tensor[2, 48, 8]
    return out[:, :N]


x = torch.randn(2, 24, 8)
w = torch.randn(8, 24)
y = conv1d_fft(x, w)
#^ Tensor[2, 24, 8]
spectrum = torch.fft.fft(torch.randn(3, 97), n=scipy.fft.next_fast_len(97))
#^ Tensor[3, 98]
