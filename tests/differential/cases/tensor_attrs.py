"""Differential cases for tensor attributes and size queries (analysis/ops/tensor_attrs.py)."""
from __future__ import annotations

from ..case import DT, Case, T

CASES: list[Case] = []
add = CASES.append

SHAPES = [(), (0,), (3,), (2, 3), (1, 0), (2, 3, 4), (1, 2, 1, 3)]
for shape in SHAPES:
    x = T(*shape)
    for name in ["Tensor.shape", "Tensor.ndim", "Tensor.dtype", "Tensor.T", "Tensor.mT",
                 "Tensor.H", "Tensor.mH", "Tensor.data"]:
        add(Case(name, (x,)))
    for name in ["Tensor.size", "Tensor.dim", "Tensor.ndimension", "Tensor.numel",
                 "torch.numel", "Tensor.nelement", "Tensor.__len__"]:
        add(Case(name, (x,)))
    for d in range(-len(shape) - 1, len(shape) + 1):
        add(Case("Tensor.size", (x, d)))
    add(Case("Tensor.size", (x,), {"dim": -1}))
add(Case("Tensor.dtype", (T(2, dtype="int64"),)))
add(Case("Tensor.dtype", (T(2, dtype="bool"),)))

for a, b in [((2, 3), (6,)), ((2, 3), (3, 2)), ((2, 3), (5,)), ((0, 3), (0,)), ((), (1,)),
             ((1,), ()), ((2, 3), (1, 6, 1)), ((4,), (2, 3))]:
    add(Case("Tensor.view_as", (T(*a), T(*b))))
    add(Case("Tensor.reshape_as", (T(*a), T(*b))))
for a, b in [((2, 3), (4, 2, 3)), ((1, 3), (5, 3)), ((2, 3), (2, 4)), ((2, 3), (3,)),
             ((), (2, 2)), ((3, 1), (3, 0)), ((1,), (0,)), ((2, 1), (2, 1))]:
    add(Case("Tensor.expand_as", (T(*a), T(*b))))
for dt in ["float64", "int32", "bool"]:
    add(Case("Tensor.type", (T(2, 3), DT(dt))))
