"""Complex numbers from a Python complex literal (`1j * x`), as state-space layers build
their kernels (gated state spaces, S4/DSS): the product is a complex tensor of x's shape,
and `.real`, the FFTs and einsum carry the shapes on."""
import torch
from torch.fft import irfft, rfft
from einops import rearrange

lambda_real = torch.randn(16)
lambda_imag = torch.randn(16)
Lambda = -lambda_real.exp() + 1j * lambda_imag
#^ Tensor[16]
C = torch.randn(16, 16) + 1j * torch.randn(16, 16)
#^ Tensor[16, 16]
steps = torch.arange(24)
S = (rearrange(Lambda, 'n -> n 1') * rearrange(steps, 'l -> 1 l')).exp()
#^ Tensor[16, 24]
K = torch.einsum('h n, n l -> l h', C, S).real
#^ Tensor[24, 16]
u = torch.randn(2, 24, 16)
u_f = rfft(u, n=48, dim=-2)
#^ Tensor[2, 25, 16]
K_f = rfft(K, n=48, dim=-2)
#^ Tensor[25, 16]
y = irfft(u_f * K_f, 48, dim=-2)[..., :24, :]
#^ Tensor[2, 24, 16]
