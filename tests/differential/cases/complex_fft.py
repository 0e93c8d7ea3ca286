"""Differential cases for analysis/ops/complex_fft.py: polar/complex, view_as_complex/real,
real/imag, and the torch.fft transforms (n/s, dim, norm, dtypes)."""
from __future__ import annotations

from itertools import product

from ..case import Case, T

CASES: list[Case] = []


def add(api, *args, **kwargs):
    CASES.append(Case(api, tuple(args), dict(kwargs)))


for api in ["torch.polar", "torch.complex"]:
    for a, b in product([(2, 3), (3,), (), (4, 1)], [(3,), (2, 3), (4,), (1, 5)]):
        add(api, T(*a), T(*b))
    for da, db in [("float64", "float64"), ("float32", "float64"), ("int64", "int64"),
                   ("float64", "float32"), ("bfloat16", "bfloat16")]:
        add(api, T(2, 3, dtype=da), T(2, 3, dtype=db))
add("torch.complex", T(3, dtype="float16"), T(3, dtype="float16"))

for s in [(2, 3, 2), (2,), (2, 3), (0, 2), (4, 1), ()]:
    for dt in ["float32", "float64", "int64"]:
        add("torch.view_as_complex", T(*s, dtype=dt))
add("torch.view_as_complex", T(3, 2, dtype="float16"))
for s in [(2, 3), (), (0,)]:
    for dt in ["complex64", "complex128", "float32"]:
        add("torch.view_as_real", T(*s, dtype=dt))
        add("Tensor.imag", T(*s, dtype=dt))
        add("torch.imag", T(*s, dtype=dt))
        add("Tensor.real", T(*s, dtype=dt))
        add("torch.real", T(*s, dtype=dt))
add("Tensor.real", T(2, 3, dtype="int64"))

# -- 1-D transforms ------------------------------------------------------------------------
ONE_D = ["torch.fft.fft", "torch.fft.ifft", "torch.fft.rfft", "torch.fft.irfft", "torch.fft.hfft",
         "torch.fft.ihfft"]
for api in ONE_D:
    for s in [(2, 8), (8,), (2, 5), (2, 1), (2, 0), (3, 4, 6), ()]:
        add(api, T(*s))
    for kw in [{"n": 5}, {"n": 5, "dim": 0}, {"n": 0}, {"n": 1}, {"dim": 2}, {"dim": -2},
               {"norm": "ortho"}, {"norm": "x"}, {"n": 16, "dim": -1, "norm": "forward"}]:
        add(api, T(2, 8), **kw)
    for dt in ["float64", "int64", "complex64", "complex128", "bool"]:
        add(api, T(2, 8, dtype=dt))

# -- n-D transforms ------------------------------------------------------------------------
ND = ["torch.fft.fft2", "torch.fft.ifft2", "torch.fft.rfft2", "torch.fft.irfft2",
      "torch.fft.fftn", "torch.fft.ifftn", "torch.fft.rfftn", "torch.fft.irfftn"]
for api in ND:
    for s in [(3, 4, 6), (4, 6), (5,), (2, 1, 1)]:
        add(api, T(*s))
    for kw in [{"s": (2, 3)}, {"s": (2,)}, {"s": (5, 7)}, {"s": (2, 3), "dim": (0,)},
               {"s": (-1, 3)}, {"dim": (0, 0)}, {"dim": (0,)}, {"dim": ()}, {"dim": (0, 2)},
               {"dim": (0, 3)}, {"s": (2, 0)}, {"s": (1, 2, 3, 4)}, {"norm": "ortho"}, {"norm": "no"},
               {"s": (4, 4), "dim": (2, 0)}]:
        add(api, T(3, 4, 6), **kw)
    for dt in ["float64", "int64", "complex64"]:
        add(api, T(3, 4, 6, dtype=dt))
for api in ["torch.fft.fftshift", "torch.fft.ifftshift"]:
    add(api, T(3, 4))
    add(api, T(3, 4), dim=1)
    add(api, T(3, 4), dim=(0, 1))
    add(api, T(3, 4), dim=2)
