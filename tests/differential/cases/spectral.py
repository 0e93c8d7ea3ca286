"""Differential cases for analysis/ops/spectral.py: stft / istft and the window functions."""
from __future__ import annotations

from ..case import Case, T

CASES: list[Case] = []


def add(api, *args, **kwargs):
    CASES.append(Case(api, tuple(args), dict(kwargs)))


for api in ["torch.hann_window", "torch.hamming_window", "torch.blackman_window", "torch.bartlett_window",
            "torch.kaiser_window"]:
    add(api, 100)
    add(api, 7, periodic=False)
    add(api, 0)

X = T(2, 4096)
for api in ["torch.stft", "Tensor.stft"]:
    add(api, X, 256, 64, 256, T(256), return_complex=True)
    add(api, X, 256, return_complex=True)
    add(api, T(4096), 256, return_complex=True)
    add(api, X, 256, 64, 256, T(256))  # return_complex not given
add("torch.stft", X, 256, 64, 256, T(256), return_complex=False)
add("torch.stft", X, 256, 64, 200, T(200), return_complex=True)
add("torch.stft", X, 256, 64, 200, T(256), return_complex=True)
add("torch.stft", X, 256, 64, 300, T(300), return_complex=True)
add("torch.stft", T(2, 100), 256, 64, return_complex=True)
add("torch.stft", T(2, 129), 256, 64, return_complex=True)
add("torch.stft", T(2, 128), 256, 64, return_complex=True)
add("torch.stft", T(2, 100), 256, 64, center=False, return_complex=True)
add("torch.stft", T(2, 300), 256, 64, center=False, return_complex=True)
add("torch.stft", T(2, 3, 100), 16, 4, return_complex=True)
add("torch.stft", X, 256, 64, onesided=False, return_complex=True)
add("torch.stft", X, 256, 0, return_complex=True)
add("torch.stft", T(2, 4096, dtype="float64"), 256, 64, return_complex=True)
add("torch.stft", T(2, 4096, dtype="complex64"), 256, 64)
add("torch.stft", X, 255, 50, return_complex=True)

S = T(2, 129, 65, dtype="complex64")
for api in ["torch.istft", "Tensor.istft"]:
    add(api, S, 256, 64, 256, T(256))
    add(api, S, 256, 64, 256, T(256), length=4000)
add("torch.istft", T(129, 65, dtype="complex64"), 256, 64, 256, T(256))
add("torch.istft", S, 200, 64)
add("torch.istft", S, 256, 64, 200, T(256))
add("torch.istft", T(2, 129, 65), 256, 64)
add("torch.istft", T(2, 129, 65, dtype="complex128"), 256)
