"""Differential cases for tensor creation (analysis/ops/creation.py)."""
from __future__ import annotations

import itertools

from ..case import DT, Case, T

CASES: list[Case] = []
add = CASES.append

SIZES = [(), (0,), (3,), (2, 3), (0, 2), (2, 0, 4), (-1,), (2, -3), (0, -2), (1, 1, 1, 1)]
for name in ["torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty"]:
    for size in SIZES:
        add(Case(name, size))  # varargs
        add(Case(name, (size,)))  # one tuple
        add(Case(name, (list(size),)))  # one list
    add(Case(name, (), {"size": (2, 3)}))
    add(Case(name, (2, 3), {"dtype": DT("float64")}))
    add(Case(name, (2,), {"requires_grad": True}))
for name in ["torch.zeros", "torch.ones", "torch.empty"]:
    for dt in ["int64", "bool", "int32", "float16"]:
        add(Case(name, (2, 3), {"dtype": DT(dt)}))
for size in SIZES:
    for fill in [1, 2.5, True]:
        add(Case("torch.full", (size, fill)))
add(Case("torch.full", ((2, 3), 1), {"dtype": DT("float64")}))

for args in [(5, (2, 3)), (0, 5, (4,)), (3, 3, (2,)), (0, (2,)), (-3, (2,)), (3, (2, -1)),
             (-2, 2, (3, 3)), (10, ()), (1, (0,))]:
    add(Case("torch.randint", args))
add(Case("torch.randint", (5,), {"size": (2, 3)}))
add(Case("torch.randint", (5, (2,)), {"dtype": DT("int32")}))
for n in [0, 1, 5, -1]:
    add(Case("torch.randperm", (n,)))

LIKE_INPUTS = [T(), T(0), T(2, 3), T(2, 3, dtype="int32"), T(1, 0, 2), T(4, dtype="float64")]
for name in ["torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.randn_like",
             "torch.rand_like"]:
    for x in LIKE_INPUTS:
        add(Case(name, (x,)))
    add(Case(name, (T(2, 3),), {"dtype": DT("float64")}))
for x in LIKE_INPUTS:
    add(Case("torch.full_like", (x, 7)))
    add(Case("torch.randint_like", (x, 5)))
    add(Case("torch.randint_like", (x, 2, 5)))
    add(Case("torch.randint_like", (x, 3, 3)))
add(Case("torch.full_like", (T(2), 1.5), {"dtype": DT("float64")}))

for self_ in [T(2, dtype="int32"), T(3, 4)]:
    for size in [(), (2, 3), (0,), (-1, 3)]:
        for name in ["Tensor.new_zeros", "Tensor.new_ones", "Tensor.new_empty"]:
            add(Case(name, (self_, size)))
            add(Case(name, (self_,) + size))
        add(Case("Tensor.new_full", (self_, size, 1)))
    for data in [[1, 2], [[1.5, 2], [3, 4]], 3, [], [[1, 2], [3]]]:
        add(Case("Tensor.new_tensor", (self_, data)))
    add(Case("Tensor.new_zeros", (self_, (2,)), {"dtype": DT("float64")}))

for n, m in itertools.product([0, 1, 3, -1], [None, 0, 2, -1]):
    add(Case("torch.eye", (n,) if m is None else (n, m)))
add(Case("torch.eye", (3,), {"dtype": DT("int64")}))

for args in [(5,), (0,), (-3,), (1, 5), (5, 1), (3, 3), (0, 5, 2), (0, 6, 2), (5, 0, -1),
             (5, 0, -2), (0, 5, -1), (0, 5, 0), (0.0, 1.0, 0.3), (0, 1, 0.1), (2.5,),
             (-1.5, 1.5), (1.0, 0.0, -0.25), (0, 10, 3), (-7, 7, 4), (10, -10, -3),
             (0.0, 1.0, 0.0), (1.0, 0.0)]:
    add(Case("torch.arange", args))
add(Case("torch.arange", (5,), {"dtype": DT("float64")}))
add(Case("torch.arange", (), {"start": 1, "end": 6, "step": 2}))
add(Case("torch.arange", (), {"end": 4}))

for start, end, steps in itertools.product([0, -1.5], [1, 10.0], [0, 1, 5, -1]):
    add(Case("torch.linspace", (start, end, steps)))
    add(Case("torch.logspace", (start, end, steps)))
add(Case("torch.logspace", (0, 2, 3, 2.0)))

DATA = [1, 2.5, True, [], [1, 2, 3], [1, 2.5], [True, False], [[1, 2], [3, 4]],
        [[1, 2], [3]], [[1, 2], [3, 4, 5]], [[]], [[], []], [[[1], [2]], [[3], [4]]],
        [[1, 2], 3], ((1, 2), (3, 4)), [[1.0, 2.0, 3.0]], [[[1, 2]], [[3, 4]], [[5, 6]]]]
for data in DATA:
    add(Case("torch.tensor", (data,)))
    add(Case("torch.as_tensor", (data,)))
add(Case("torch.tensor", ([1, 2],), {"dtype": DT("float32")}))
add(Case("torch.tensor", ([1.5, 2],), {"dtype": DT("int64")}))

for x in [T(3), T(), T(2, 3), T(3, 3), T(2, 3, 4), T(0, 2), T(2, 2, dtype="int64")]:
    for name in ["torch.tril", "torch.triu", "Tensor.tril", "Tensor.triu", "Tensor.tril_",
                 "Tensor.triu_"]:
        add(Case(name, (x,)))
    add(Case("torch.tril", (x, 1)))
    add(Case("torch.triu", (x, -2)))

for x, n, repl in itertools.product([T(2, 2, 2), T()], [1, 5], [False, True]):
    add(Case("torch.multinomial", (x.__class__(*x.shape, dtype="float32"), n, repl)))
add(Case("Tensor.multinomial", (T(), 1)))

# triu_indices / tril_indices: [2, how many positions], offsets of both signs.
for row, col, offset in [(5, 5, 1), (4, 6, 0), (3, 7, -1), (6, 3, 2), (1, 1, 0), (3, 3, -5), (3, 3, 5), (0, 4, 0)]:
    add(Case("torch.triu_indices", (row, col, offset)))
    add(Case("torch.tril_indices", (row, col, offset)))

# torch.tensor of lists holding 0-d tensors (numbers to torch) and of a 1-d one (an error).
add(Case("torch.tensor", ([T(), 2.0],)))
add(Case("torch.tensor", ([[T(), 0], [1, T()]],)))
add(Case("torch.tensor", ([T(2), T(2)],)))
