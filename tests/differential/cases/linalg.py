"""Differential cases for analysis/ops/linalg.py: matmul in every rank combination, mm,
bmm, mv, dot, linear, nn.Linear, nn.Bilinear, with shape and dtype errors."""
from __future__ import annotations

from itertools import product

from ..case import DT, Case, T

CASES: list[Case] = []


def add(api, *args, **kwargs):
    CASES.append(Case(api, tuple(args), dict(kwargs)))


def mod(api, ctor, *args, ctor_kwargs=None, **kwargs):
    CASES.append(Case(api, tuple(args), dict(kwargs), ctor=tuple(ctor),
                      ctor_kwargs=dict(ctor_kwargs or {})))


# -- matmul: bounded-exhaustive over ranks 0..4 with matching and mismatching inner dims ----
MM_SHAPES = [(), (3,), (4,), (0,), (2, 3), (3, 4), (4, 3), (1, 3), (0, 3), (3, 0), (2, 2, 3),
             (2, 3, 4), (1, 3, 4), (5, 3, 4), (0, 2, 3), (2, 1, 2, 3), (3, 1, 3, 4)]
for a, b in product(MM_SHAPES, MM_SHAPES):
    add("torch.matmul", T(*a), T(*b))
for a, b in product([(3,), (2, 3), (4, 3), (2, 2, 3), (2, 3, 4), (3, 1, 3, 4)],
                    [(3,), (3, 4), (4, 3), (2, 3, 4), (1, 3, 4)]):
    add("Tensor.matmul", T(*a), T(*b))
    add("Tensor.__matmul__", T(*a), T(*b))
    add("Tensor.__rmatmul__", T(*b), T(*a))

# matmul dtypes: mixed dtypes are an error; same integer dtypes work on CPU.
for da, db in product(["float32", "float64", "int64", "int32"], repeat=2):
    add("torch.matmul", T(2, 3, dtype=da), T(3, 4, dtype=db))
add("torch.matmul", T(3, dtype="int64"), T(3))
add("torch.matmul", T(3), T(3, dtype="float64"))
add("torch.matmul", T(2, 3), T(3, dtype="int64"))
add("torch.matmul", T(2, 2, 3, dtype="float64"), T(3, 4))
add("torch.matmul", T(2, 2, 3), T(2, 3, 4, dtype="int64"))
add("torch.matmul", T(2, 3, dtype="bool"), T(3, 4, dtype="bool"))

# -- mm / bmm / mv / dot ------------------------------------------------------------------
for a, b in product([(2, 3), (3, 4), (0, 3), (3, 0), (3,), (2, 2, 3), ()],
                    [(3, 4), (4, 3), (3, 0), (3,), (2, 3, 4)]):
    add("torch.mm", T(*a), T(*b))
add("Tensor.mm", T(2, 3), T(3, 5))
add("Tensor.mm", T(2, 3), T(2, 5))
add("torch.mm", T(2, 3, dtype="int64"), T(3, 4))
add("torch.mm", T(2, 3, dtype="float64"), T(3, 4, dtype="float64"))
for a, b in product([(2, 2, 3), (1, 2, 3), (2, 0, 3), (0, 2, 3), (2, 3), (3, 2, 2, 3)],
                    [(2, 3, 4), (1, 3, 4), (2, 4, 3), (3, 3, 4), (2, 3, 0), (3, 4)]):
    add("torch.bmm", T(*a), T(*b))
add("Tensor.bmm", T(2, 2, 3), T(2, 3, 5))
add("torch.bmm", T(2, 2, 3), T(2, 3, 4, dtype="float64"))
for a, b in product([(2, 3), (0, 3), (3, 0), (3,), (2, 2, 3), ()],
                    [(3,), (2,), (0,), (3, 1), ()]):
    add("torch.mv", T(*a), T(*b))
add("Tensor.mv", T(4, 3), T(3))
add("torch.mv", T(2, 3, dtype="int64"), T(3))
for a, b in product([(3,), (4,), (0,), (), (1, 3)], [(3,), (4,), (0,), (), (3, 1)]):
    add("torch.dot", T(*a), T(*b))
add("Tensor.dot", T(3), T(3))
add("torch.dot", T(3, dtype="int64"), T(3))
add("torch.dot", T(3, dtype="float64"), T(3, dtype="float64"))

# -- functional linear --------------------------------------------------------------------
for x, w in product([(3,), (2, 3), (2, 4), (5, 2, 3), (0, 3), (2, 0), ()],
                    [(4, 3), (4, 2), (0, 3), (3,), (4, 0)]):
    add("torch.nn.functional.linear", T(*x), T(*w))
for x, w, b in [((2, 3), (4, 3), (4,)), ((2, 3), (4, 3), (5,)), ((2, 3), (4, 3), (1,)),
                ((2, 3), (4, 3), (2, 4)), ((2, 3), (4, 3), (3, 4)), ((2, 3), (4, 3), ()),
                ((5, 2, 3), (4, 3), (2, 1)), ((3,), (4, 3), (4,)), ((3,), (3,), ()),
                ((2, 3), (3,), (2,)), ((2, 3), (4, 3), (1, 2, 4))]:
    add("torch.nn.functional.linear", T(*x), T(*w), T(*b))
add("torch.nn.functional.linear", T(2, 3), T(4, 3), bias=None)
add("torch.nn.functional.linear", T(2, 3, dtype="int64"), T(4, 3))
add("torch.nn.functional.linear", T(2, 3), T(4, 3, dtype="float64"))
add("torch.nn.functional.linear", T(2, 3, dtype="float64"), T(4, 3, dtype="float64"),
    T(4, dtype="float64"))
add("torch.nn.functional.linear", T(2, 3), T(4, 3), T(4, dtype="float64"))

# -- nn.Linear: constructor edge values and forward -----------------------------------------
for in_f, out_f in [(3, 4), (3, 0), (0, 4), (3, -1), (-2, 4), (1, 1)]:
    for x in [(3,), (2, 3), (5, 2, 3), (2, 4), (0, 3), (2, 0), ()]:
        mod("torch.nn.Linear", (in_f, out_f), T(*x))
mod("torch.nn.Linear", (3, 4), T(2, 3), ctor_kwargs={"bias": False})
mod("torch.nn.Linear", (3, 4, False), T(2, 4))
mod("torch.nn.Linear", (3, 4), T(2, 3, dtype="float64"), ctor_kwargs={"dtype": DT("float64")})
mod("torch.nn.Linear", (3, 4), T(2, 3), ctor_kwargs={"dtype": DT("float64")})
mod("torch.nn.Linear", (3, 4), T(2, 3, dtype="int64"))
mod("torch.nn.Linear", (), T(2, 3), ctor_kwargs={"in_features": 3, "out_features": 2})

# -- nn.Bilinear ----------------------------------------------------------------------------
for x1, x2 in [((2, 3), (2, 4)), ((2, 3), (2, 5)), ((2, 4), (2, 4)), ((5, 2, 3), (5, 2, 4)),
               ((2, 3), (3, 4)), ((3,), (4,)), ((0, 3), (0, 4))]:
    mod("torch.nn.Bilinear", (3, 4, 6), T(*x1), T(*x2))
mod("torch.nn.Bilinear", (3, 4, 6), T(2, 3), T(2, 4), ctor_kwargs={"bias": False})
mod("torch.nn.Bilinear", (3, 4, 0), T(2, 3), T(2, 4))
mod("torch.nn.Bilinear", (3, 4, -1), T(2, 3), T(2, 4))
