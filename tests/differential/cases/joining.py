"""Differential cases for joining and splitting (analysis/ops/joining.py)."""
from __future__ import annotations

import itertools

from ..case import Case, T

CASES: list[Case] = []
add = CASES.append

SHAPES = [(), (0,), (2,), (3,), (2, 3), (2, 4), (3, 3), (1, 3), (2, 3, 4), (0, 3)]

# cat / concat / concatenate: pairs of shapes, several dims.
for a, b in itertools.product(SHAPES, repeat=2):
    for dim in (-3, -1, 0, 1, 2):
        add(Case("torch.cat", ([T(*a), T(*b)], dim)))
add(Case("torch.cat", ([],)))
add(Case("torch.cat", ([T(2, 3)],)))
add(Case("torch.cat", ((T(2, 3), T(2, 3), T(2, 3)), 1)))
add(Case("torch.cat", ([T(2, 3), T(2, 3, dtype="int64")],)))
add(Case("torch.cat", ([T(2, 3), T(2, 3, dtype="float64")],)))
add(Case("torch.cat", ([T(2, 3), T(0), T(2, 1)], 1)))
add(Case("torch.cat", ([T(2, 3), T(2, 3)],), {"dim": -1}))
add(Case("torch.concat", ([T(2, 3), T(4, 3)],)))
add(Case("torch.concat", ([T(2, 3), T(4, 3)], 1)))
add(Case("torch.concatenate", ([T(2, 3), T(4, 3)],)))
add(Case("torch.concatenate", ([T(2, 3), T(2, 3)],), {"axis": 1}))

# stack
for a, b in itertools.product([(), (2,), (3,), (2, 3), (2, 4), (0, 3)], repeat=2):
    for dim in (-4, -3, -1, 0, 1, 2, 3):
        add(Case("torch.stack", ([T(*a), T(*b)], dim)))
add(Case("torch.stack", ([],)))
add(Case("torch.stack", ((T(2), T(2), T(2)),)))
add(Case("torch.stack", ([T(2), T(2, dtype="int64")],)))

# hstack / vstack / dstack / column_stack / row_stack
for name in ["torch.hstack", "torch.vstack", "torch.dstack", "torch.column_stack",
             "torch.row_stack"]:
    for a, b in [((), ()), ((3,), (3,)), ((2,), (3,)), ((2, 3), (2, 4)), ((2, 3), (4, 3)),
                 ((2, 3, 4), (2, 3, 1)), ((3,), (3, 2)), ((2, 2, 2), (2, 2, 2)), ((0,), (3,))]:
        add(Case(name, ([T(*a), T(*b)],)))
    add(Case(name, ([],)))

# split by size / by sizes
for shape in [(), (0,), (7,), (10, 3), (2, 6, 4)]:
    x = T(*shape)
    for dim in (-1, 0, 1, 3):
        for size in (0, 1, 2, 3, 4, 7, 11, -1):
            add(Case("torch.split", (x, size, dim)))
        for sizes in ([3, 4], [3, 3], [7], [0, 7], [4, -1], [], [1, 2, 1], [10], [2, 2, 2]):
            add(Case("torch.split", (x, sizes, dim)))
    add(Case("Tensor.split", (x, 2)))
    add(Case("Tensor.split", (x, [1, 1])))
    add(Case("Tensor.split_with_sizes", (x, [3, 4])))
    add(Case("torch.split_with_sizes", (x, [4, 6], -1)))

# chunk
for shape in [(), (0,), (5,), (6,), (10, 3), (3, 0)]:
    x = T(*shape)
    for chunks in (-1, 0, 1, 2, 3, 4, 7):
        for dim in (-1, 0, 1, 2):
            add(Case("torch.chunk", (x, chunks, dim)))
    add(Case("Tensor.chunk", (x, 2)))

# tensor_split
for shape in [(), (7,), (4, 6), (0, 2)]:
    x = T(*shape)
    for arg in (0, 1, 3, 8, -1, [1, 5], [5, 1], [2, 10], [-2], [], (0, 0)):
        for dim in (0, -1, 2):
            add(Case("torch.tensor_split", (x, arg, dim)))
    add(Case("Tensor.tensor_split", (x, 2)))

# hsplit / vsplit / dsplit
for shape in [(), (6,), (4, 6), (4, 5), (2, 2, 4), (0, 3)]:
    x = T(*shape)
    for arg in (1, 2, 3, [1], [1, 3], 0):
        for name in ["torch.hsplit", "torch.vsplit", "torch.dsplit"]:
            add(Case(name, (x, arg)))
    for name in ["Tensor.hsplit", "Tensor.vsplit", "Tensor.dsplit"]:
        add(Case(name, (x, 2)))

# unbind
for shape in [(), (0,), (3,), (2, 3), (2, 0, 4)]:
    for dim in (-4, -1, 0, 1, 2, 3):
        add(Case("torch.unbind", (T(*shape), dim)))
    add(Case("Tensor.unbind", (T(*shape),)))

# meshgrid
for shapes in [[(2,), (3,)], [(2,), (3,), (4,)], [(), (3,)], [(2,)], [(2, 2), (3,)], [(0,), (3,)]]:
    for indexing in ("ij", "xy"):
        ts = [T(*s) for s in shapes]
        add(Case("torch.meshgrid", tuple(ts), {"indexing": indexing}))
        add(Case("torch.meshgrid", (ts,), {"indexing": indexing}))

# block_diag / cartesian_prod
for shapes in [[(2, 3), (1, 1), (4,)], [(), (2,)], [(2, 2, 2)], [(0, 3), (2, 0)], [(3,)]]:
    add(Case("torch.block_diag", tuple(T(*s) for s in shapes)))
for shapes in [[(2,), (3,)], [(2,)], [(2,), (3,), (4,)], [(2, 2), (3,)], [(0,), (3,)], [()]]:
    add(Case("torch.cartesian_prod", tuple(T(*s) for s in shapes)))

# broadcast_tensors: the broadcast shape for each; a mismatch, with the sizes compared in order.
for shapes in [((2, 1, 3), (4, 1)), ((2, 3), (4,)), ((3,), (2, 3), (1, 1, 3)), ((2, 3), (2, 1), (5, 3)),
               ((),), ((), (2, 2)), ((0, 3), (1, 3)), ((0, 3), (2, 3))]:
    add(Case("torch.broadcast_tensors", tuple(T(*s) for s in shapes)))
