"""Differential cases for shape manipulation (analysis/ops/shape_ops.py)."""
from __future__ import annotations

import itertools

from ..case import Case, T

CASES: list[Case] = []
add = CASES.append

SHAPES = [(), (0,), (3,), (1, 3), (2, 3), (2, 1, 4), (1, 1), (2, 0, 3)]

# view / reshape: targets with -1, 0, invalid negatives, rank 0.
TARGETS = [(), (-1,), (6,), (2, 3), (3, -1), (-1, 3), (-1, -1), (0, -1), (-1, 0), (2, -2),
           (4, -1), (1, 6, 1), (1, -1, 1), (0,), (0, 3), (8,), (2, 4), (1,)]
for shape in [(2, 3), (6,), (), (0, 3), (1,), (2, 4), (3, 0)]:
    x = T(*shape)
    for tgt in TARGETS:
        add(Case("Tensor.view", (x,) + tgt) if tgt else Case("Tensor.view", (x, ())))
        add(Case("Tensor.reshape", (x, tgt)))
        add(Case("torch.reshape", (x, tgt)))
add(Case("Tensor.view", (T(2, 3), [3, 2])))

# flatten / ravel / unflatten
for shape in SHAPES:
    x = T(*shape)
    add(Case("torch.ravel", (x,)))
    add(Case("Tensor.flatten", (x,)))
    for s, e in itertools.product(range(-3, 3), range(-3, 3)):
        add(Case("torch.flatten", (x, s, e)))
for shape, dim, sizes in [((2, 12), 1, (3, 4)), ((2, 12), 1, (-1, 4)), ((2, 12), 1, (5, 4)),
                          ((2, 12), 1, (5, -1)), ((2, 12), -1, (2, 2, 3)), ((2, 12), 0, (1, 2)),
                          ((2, 12), 1, ()), ((2, 12), 2, (3, 4)), ((2, 0), 1, (3, 0)),
                          ((2, 12), 1, (12,)), ((2, 12), 1, (-1,)), ((6,), 0, (2, -1, 1))]:
    add(Case("torch.unflatten", (T(*shape), dim, sizes)))
    add(Case("Tensor.unflatten", (T(*shape), dim, sizes)))

# permute
for shape in [(), (3,), (2, 3), (2, 3, 4)]:
    x = T(*shape)
    r = len(shape)
    for n in range(max(r - 1, 0), r + 2):
        for perm in itertools.product(range(-r - 1, r + 1), repeat=n):
            if n == r or len(CASES) % 7 == 0:
                add(Case("Tensor.permute", (x,) + perm))
                add(Case("torch.permute", (x, perm)))
add(Case("Tensor.permute", (T(2, 3, 4), (2, 0, 1))))

# transpose family, t, adjoint
for shape in [(), (3,), (2, 3), (2, 3, 4)]:
    x = T(*shape)
    for a, b in itertools.product(range(-4, 4), repeat=2):
        add(Case("torch.transpose", (x, a, b)))
    for name in ["Tensor.transpose", "torch.swapaxes", "Tensor.swapaxes", "torch.swapdims",
                 "Tensor.swapdims"]:
        add(Case(name, (x, 0, -1)))
    for name in ["torch.t", "Tensor.t", "torch.adjoint", "Tensor.adjoint"]:
        add(Case(name, (x,)))

# movedim
x = T(2, 3, 4)
for src, dst in [(0, 2), (-1, 0), ((0, 1), (1, 2)), ((0, 1), (1, 1)), ((0, 0), (1, 2)),
                 ((0, 1), (1,)), (3, 0), ((), ()), ((2, 0), (0, 2)), ((0, 1, 2), (2, 1, 0))]:
    add(Case("torch.movedim", (x, src, dst)))
    add(Case("Tensor.moveaxis", (x, src, dst)))
for src in range(-2, 2):
    add(Case("torch.moveaxis", (T(), src, 0)))
    add(Case("Tensor.movedim", (T(3), src, -1)))

# squeeze / unsqueeze
for shape in SHAPES + [(1, 2, 1)]:
    x = T(*shape)
    add(Case("torch.squeeze", (x,)))
    add(Case("Tensor.squeeze_", (x,)))
    for d in range(-4, 4):
        add(Case("Tensor.squeeze", (x, d)))
        add(Case("torch.unsqueeze", (x, d)))
        add(Case("Tensor.unsqueeze_", (x, d)))
    for dims in [(0, -1), (0, 0), (0, 2), ()]:
        add(Case("torch.squeeze", (x, dims)))

# expand / broadcast_to
for shape in [(), (1,), (3,), (2, 3), (1, 3), (3, 1), (2, 0)]:
    x = T(*shape)
    for tgt in [(3,), (2, 3), (-1, 3), (2, -1), (4, 2, 3), (-1, 2, 3), (2, 5), (0, 3), (2, 0),
                (1, 1), (2, 2, 1), (5, -1, -1), (2, 3, 0), (-2, 3)]:
        add(Case("Tensor.expand", (x,) + tgt))
        add(Case("torch.broadcast_to", (x, tgt)))
    add(Case("Tensor.expand", (x, (2, 3))))
    add(Case("Tensor.broadcast_to", (x, (4, 2, 3))))

# repeat / tile
for shape in [(), (3,), (2, 3), (2, 0)]:
    x = T(*shape)
    for reps in [(2,), (2, 1), (1, 2, 3), (0, 2), (2, -1), (-1, 1), (1, 1, 1, 1), ()]:
        if reps:
            add(Case("Tensor.repeat", (x,) + reps))
            add(Case("Tensor.tile", (x,) + reps))
        add(Case("torch.tile", (x, reps)))

# narrow / select
for shape in [(), (3,), (2, 3), (2, 0)]:
    x = T(*shape)
    for dim in (-3, 0, 1, 2):
        for start, length in [(0, 1), (2, 2), (-1, 1), (1, 0), (4, 0), (-4, 0), (0, -1), (3, 0),
                              (-3, 3), (0, 3)]:
            add(Case("torch.narrow", (x, dim, start, length)))
        for index in (-4, -3, -1, 0, 1, 2, 3):
            add(Case("torch.select", (x, dim, index)))
    add(Case("Tensor.narrow", (x, 0, 0, 1)))
    add(Case("Tensor.select", (x, 0, 0)))
    add(Case("Tensor.narrow_copy", (x, -1, 0, 0)))

# roll / flip / rot90
for shape in [(), (3,), (2, 3), (2, 3, 4)]:
    x = T(*shape)
    for shifts, dims in [(1, None), (1, 0), (1, -1), ((1, 2), (0, 1)), ((1, 2), (0,)),
                         ((1, 2), None), (1, 3), ((), ()), (2, (1,))]:
        add(Case("torch.roll", (x, shifts, dims)))
    add(Case("Tensor.roll", (x, 1)))
    for dims in [(0,), (-1,), (0, 0), (0, 1), (3,), ()]:
        add(Case("torch.flip", (x, dims)))
        add(Case("Tensor.flip", (x,) + dims))
    for name in ["torch.fliplr", "torch.flipud", "Tensor.fliplr", "Tensor.flipud"]:
        add(Case(name, (x,)))
    for k, dims in [(1, (0, 1)), (2, (0, 1)), (3, (1, 0)), (1, (0, 0)), (1, (0,)), (-1, (-1, 0))]:
        add(Case("torch.rot90", (x, k, dims)))

# diagonal / diag / diag_embed
for shape in [(), (3,), (2, 3), (3, 3), (2, 3, 4)]:
    x = T(*shape)
    for off in (-3, -1, 0, 1, 5):
        add(Case("torch.diag", (x, off)))
        add(Case("torch.diag_embed", (x, off)))
        for d1, d2 in [(0, 1), (1, 0), (0, 0), (-1, 0), (0, 2), (2, 1)]:
            add(Case("torch.diagonal", (x, off, d1, d2)))
    add(Case("Tensor.diagonal", (x,)))
    add(Case("Tensor.diag", (x,)))
    add(Case("Tensor.diag_embed", (x, 0, 0, 2)))

# atleast_nd
for name in ["torch.atleast_1d", "torch.atleast_2d", "torch.atleast_3d"]:
    for shape in [(), (3,), (2, 3), (2, 3, 4), (0,)]:
        add(Case(name, (T(*shape),)))
    add(Case(name, (T(3), T())))
    add(Case(name, ([T(3), T(2, 2)],)))

# Tensor.unfold
for shape in [(), (5,), (2, 7), (3, 0)]:
    for dim, size, step in [(0, 2, 1), (-1, 3, 2), (1, 8, 1), (0, 0, 1), (0, 2, 0), (1, 1, 3),
                            (2, 1, 1)]:
        add(Case("Tensor.unfold", (T(*shape), dim, size, step)))

# Method and in-place spellings.
for shape in [(), (3,), (2, 3), (2, 3, 4)]:
    x = T(*shape)
    add(Case("Tensor.ravel", (x,)))
    add(Case("Tensor.rot90", (x, 1, (0, 1))))
    add(Case("Tensor.swapaxes_", (x, 0, -1)))
    add(Case("Tensor.swapdims_", (x, -1, 0)))
    add(Case("Tensor.t_", (x,)))
    add(Case("Tensor.transpose_", (x, 0, -1)))
    add(Case("Tensor.unsqueeze", (x, -1)))
    add(Case("torch.narrow_copy", (x, 0, 0, 1)))
