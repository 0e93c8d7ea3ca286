"""Differential cases for indexing (analysis/ops/indexing.py).

Index tensors draw values in [0, high); high is kept within the indexed dim so that the
outcome never depends on the random values."""
from __future__ import annotations

import itertools

from ..case import Case, T

CASES: list[Case] = []
add = CASES.append

L = lambda *shape, high=2: T(*shape, dtype="int64", high=high)  # noqa: E731
B = lambda *shape: T(*shape, dtype="bool")  # noqa: E731

X = T(2, 3, 4, 5)
GI = "Tensor.__getitem__"

# Single items.
for item in [0, 1, -1, -2, 2, 5, -3, None, Ellipsis, True, False, slice(None), slice(1, None),
             slice(None, -1), slice(5, 10), slice(-5, 1), slice(None, None, 2), slice(1, 2, 3),
             slice(None, None, -1), slice(None, None, 0), [0, 1, 1], [0, 5], [True, False],
             [[0, 1], [1, 0]], [], L(3), L(2, 2), L(), B(0), B(3), B(2, 2), B(1, 3), T(2)]:
    add(Case(GI, (X, item)))
# Tuples.
for idx in [(0, 0), (0, 0, 0, 0), (0, 0, 0, 0, 0), (1, -1), (Ellipsis, 0), (0, Ellipsis, 0),
            (None, Ellipsis, None), (slice(None), None, 0), (slice(1, None), slice(-2, None),
                                                             slice(None, None, 2), slice(1, -1)),
            ([0, 1], slice(None), [0, 1]), (slice(None), [0, 1], [0, 1]), (0, slice(None), [0, 1]),
            (slice(None), 0, [0, 1]), ([0, 1], 0), ([0, 1], slice(None), 0),
            (slice(None), [0, 1], slice(None), 0), ([0, 1], None, [0, 1]),
            (Ellipsis, [0, 1], [0, 1]), (True, [0, 1]), (Ellipsis, True), (slice(None), B(3, 4, 1)),
            (slice(None), B(3, 3)), (slice(None), slice(None), B(5)),
            (L(2, 1), L(3)), (L(2), L(3)), (L(2), slice(None), L(2)), (0, 3), (slice(None), 3),
            (slice(None), -4), ((), ), (), (0, [0, 2], slice(None)), (None, None, 0, None),
            (Ellipsis, None), (slice(0, 0), 0), (slice(3, 1),), (0, 0, slice(None), [4, 0])]:
    add(Case(GI, (X, idx)))
# Every small shape with every simple item.
for shape in [(), (0,), (3,), (2, 3), (1, 0, 2)]:
    x = T(*shape)
    for item in [0, -1, 2, 3, None, Ellipsis, True, slice(None), slice(1, None), slice(None, 2),
                 slice(-1, None), [0], (0, 0), (None, 0), (Ellipsis, 0), (0, Ellipsis),
                 (slice(None), 0), (slice(None), slice(None)), (slice(None), None)]:
        add(Case(GI, (x, item)))

# gather
for xs, dim, ishape in itertools.product([(2, 3), (3,), (2, 3, 4)], (-1, 0, 1, 3),
                                         [(2, 3), (3, 3), (2, 5), (1, 1), (3,), (2, 3, 1), (0, 2)]):
    add(Case("torch.gather", (T(*xs), dim, L(*ishape))))
add(Case("torch.gather", (T(2, 3), 1, T(2, 3))))
add(Case("Tensor.gather", (T(2, 3), 0, L(1, 3))))

# scatter / scatter_add / scatter_reduce
for xs, dim, ishape, sshape in itertools.product([(2, 3), (3, 4)], (-1, 0, 1, 2),
                                                 [(2, 3), (3, 2), (1, 1), (2,), (0, 3)],
                                                 [(2, 3), (1, 2), (3, 3)]):
    add(Case("torch.scatter", (T(*xs), dim, L(*ishape), T(*sshape))))
    add(Case("torch.scatter_add", (T(*xs), dim, L(*ishape), T(*sshape))))
for xs, ishape in itertools.product([(2, 3), (3, 4)], [(2, 3), (3, 2), (1, 5)]):
    add(Case("Tensor.scatter", (T(*xs), 1, L(*ishape), 1.0)))
    add(Case("torch.scatter", (T(*xs), 0), {"index": L(*ishape), "value": 2.0}))
    add(Case("torch.scatter_reduce", (T(*xs), 1, L(*ishape), T(3, 5), "sum")))
add(Case("Tensor.scatter_add_", (T(2, 3), 1, L(2, 2), T(2, 2))))

# index_select / index_add / index_copy / index_fill
for xs in [(), (3,), (2, 3), (2, 3, 4)]:
    for dim in (-1, 0, 1, 3):
        for ishape in [(4,), (), (2, 2), (0,)]:
            add(Case("torch.index_select", (T(*xs), dim, L(*ishape, high=1))))
        add(Case("torch.index_fill", (T(*xs), dim, L(1, high=1), 1.0)))
    add(Case("Tensor.index_select", (T(*xs), 0, T(2))))
for xs, dim, n, ss in [((2, 3), 0, 2, (2, 3)), ((2, 3), 0, 2, (2, 4)), ((2, 3), 1, 1, (2, 1)),
                       ((2, 3), 1, 2, (2, 1)), ((2, 3), 1, 2, (3,)), ((4,), 0, 2, (2,)),
                       ((2, 3), 0, 1, (1, 3))]:
    add(Case("torch.index_add", (T(*xs), dim, L(n), T(*ss))))
    add(Case("Tensor.index_copy", (T(*xs), dim, L(n, high=1), T(*ss))))

# masked_select / nonzero / take / take_along_dim
# Masks draw random values, so only the cases whose outcome cannot depend on them: errors
# and empty masks.
for xs, ms in [((2, 3), (4,)), ((2, 3), (0, 1)), ((0, 3), (3,)), ((3,), (2, 4))]:
    add(Case("torch.masked_select", (T(*xs), B(*ms))))
for xs in [(), (3,), (2, 3), (0, 2)]:
    add(Case("torch.nonzero", (T(*xs),)))
    add(Case("torch.nonzero", (T(*xs),), {"as_tuple": True}))
    add(Case("torch.argwhere", (T(*xs),)))
    add(Case("Tensor.nonzero", (T(*xs),)))
for xs, ishape in [((2, 3), (2, 2)), ((2, 3), ()), ((4,), (3, 1))]:
    add(Case("torch.take", (T(*xs), L(*ishape))))
for xs, ishape, dim in [((2, 3), (2, 1), 1), ((2, 3), (4,), None), ((2, 3), (1, 5), 1),
                        ((2, 3), (5,), 1), ((2, 3), (3, 1), 1), ((2, 3), (2, 2), 0),
                        ((2, 3, 4), (1, 3, 2), -1), ((2, 3), (2, 1), 2)]:
    add(Case("torch.take_along_dim", (T(*xs), L(*ishape), dim)))

# Method and in-place spellings.
x = T(2, 3)
add(Case("Tensor.argwhere", (x,)))
add(Case("Tensor.index_add", (x, 1, L(2), T(2, 2))))
add(Case("Tensor.index_add_", (x, 0, L(1), T(1, 3))))
add(Case("Tensor.index_copy_", (x, 1, L(1, high=1), T(2, 1))))
add(Case("torch.index_copy", (x, 0, L(1, high=1), T(1, 4))))
add(Case("Tensor.index_fill", (x, 0, L(1), 0.0)))
add(Case("Tensor.index_fill_", (x, 1, L(2, 2), 0.0)))
add(Case("Tensor.masked_select", (x, B(3, 1))))
add(Case("Tensor.scatter_", (x, 1, L(2, 2), T(2, 2))))
add(Case("Tensor.scatter_add", (x, 0, L(3, 3), T(3, 3))))
add(Case("Tensor.scatter_reduce", (x, 1, L(2, 2), T(2, 2), "amax")))
add(Case("Tensor.scatter_reduce_", (x, 1, L(2, 4), T(2, 4), "mean")))
add(Case("Tensor.take", (x, L(4))))
add(Case("Tensor.take_along_dim", (x, L(2, 1), 1)))
add(Case("torch.index_add", (x, 0, L(2, 2), T(4, 3))))
add(Case("torch.index_copy", (x, 0, L(2, 2, high=1), T(4, 3))))
add(Case(GI, (T(2, 0, 3), (slice(None), B(0)))))
add(Case(GI, (T(2, 0, 3), (slice(None), B(0, 3)))))
