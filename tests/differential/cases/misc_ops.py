"""Differential cases for analysis/ops/misc_ops.py: repeat_interleave, one_hot, bucketize,
searchsorted, grid_sample, affine_grid, gumbel_softmax, combinations, pad_sequence, diff,
histc, unique, ctc_loss."""
from __future__ import annotations

from itertools import product

from ..case import Case, T

CASES: list[Case] = []


def add(api, *args, **kwargs):
    CASES.append(Case(api, tuple(args), dict(kwargs)))


F = "torch.nn.functional."

# -- repeat_interleave ---------------------------------------------------------------------
for s in [(2, 3), (4,), (), (0, 3)]:
    for r, kw in [(2, {}), (2, {"dim": 1}), (3, {"dim": 0}), (0, {"dim": -1}), (-1, {"dim": 0}),
                  (2, {"dim": 2}), (1, {})]:
        add("torch.repeat_interleave", T(*s), r, **kw)
        add("Tensor.repeat_interleave", T(*s), r, **kw)
add("torch.repeat_interleave", T(2, 3), T(2, dtype="int64", high=1), dim=0)
add("torch.repeat_interleave", T(2, 3), T(3, dtype="int64", high=3), dim=0)
add("torch.repeat_interleave", T(2, 3), T(2, dtype="int64", high=1), dim=0, output_size=0)
add("torch.repeat_interleave", T(2, 3), T(1, dtype="int64", high=3), dim=1)
add("torch.repeat_interleave", T(2, 3), T(2, 2, dtype="int64", high=3), dim=1)
add("torch.repeat_interleave", T(2, 3), T(2), dim=0)
add("torch.repeat_interleave", T(2, 3), T(6, dtype="int64", high=1))
add("torch.repeat_interleave", T(3, dtype="int64", high=1))
add("torch.repeat_interleave", T(3, dtype="int64", high=1), output_size=0)
add("Tensor.repeat_interleave", T(2, 3), T(3, dtype="int64", high=1), dim=1)

# -- one_hot -------------------------------------------------------------------------------
for s in [(3,), (2, 3), (), (0,), (2, 0)]:
    add(F + "one_hot", T(*s, dtype="int64", high=4), 4)
    add(F + "one_hot", T(*s, dtype="int64", high=4), num_classes=6)
    add(F + "one_hot", T(*s, dtype="int64", high=1))
add(F + "one_hot", T(3, dtype="int32", high=4), 4)
add(F + "one_hot", T(3), 4)
add(F + "one_hot", T(3, dtype="int64", high=1), 0)
add(F + "one_hot", T(3, dtype="int64", high=1), 1)
add(F + "one_hot", T(0, dtype="int64", high=1), 0)

# -- bucketize / searchsorted --------------------------------------------------------------
for v, b in product([(2, 3), (3,), (), (0, 2)], [(4,), (2, 4), ()]):
    add("torch.bucketize", T(*v), T(*b))
    add("torch.searchsorted", T(*b), T(*v))
add("torch.bucketize", T(2, 3), T(4), out_int32=True)
add("torch.bucketize", 3.0, T(4))
add("torch.bucketize", T(2, 3), T(4), right=True)
for b, v in [((2, 4), (2, 3)), ((2, 4), (3, 3)), ((2, 4), (2, 3, 3)), ((2, 3, 4), (2, 3, 5)),
             ((2, 3, 4), (2, 2, 5)), ((4,), (2, 3, 5))]:
    add("torch.searchsorted", T(*b), T(*v))
add("torch.searchsorted", T(4), T(2, 3, dtype="float64"))
add("torch.searchsorted", T(4), 3.0)
add("torch.searchsorted", T(2, 4), 3.0)
add("torch.searchsorted", T(4), T(3), side="right")
add("torch.searchsorted", T(4), T(3), side="x")
add("torch.searchsorted", T(4), T(3), side="left", right=True)
add("torch.searchsorted", T(4), T(3), out_int32=True)

# -- grid_sample / affine_grid -------------------------------------------------------------
for x, g in [((2, 3, 5, 6), (2, 4, 7, 2)), ((2, 3, 5, 6), (3, 4, 7, 2)), ((2, 3, 5, 6), (2, 4, 7, 3)),
             ((2, 3, 5, 6, 4), (2, 4, 7, 1, 3)), ((2, 3, 5), (2, 4, 1)), ((2, 3, 5), (2, 4, 2)),
             ((2, 3, 5, 6), (2, 4, 7, 1, 2)), ((2, 3, 0, 6), (2, 4, 7, 2)), ((1, 1, 1, 1), (1, 0, 3, 2)),
             ((2, 3, 5, 6, 4), (2, 4, 7, 1, 2))]:
    for kw in [{}, {"mode": "nearest", "align_corners": True}, {"mode": "bicubic", "align_corners": False}]:
        add(F + "grid_sample", T(*x), T(*g), **kw)
add(F + "grid_sample", T(2, 3, 5, 6), T(2, 4, 7, 2), mode="x")
add(F + "grid_sample", T(2, 3, 5, 6), T(2, 4, 7, 2), padding_mode="border")
add(F + "grid_sample", T(2, 3, 5, 6), T(2, 4, 7, 2), padding_mode="x")
add(F + "grid_sample", T(2, 3, 5, 6), T(2, 4, 7, 2, dtype="float64"))
for th, size in [((2, 2, 3), [2, 3, 5, 6]), ((2, 2, 3), [3, 3, 5, 6]), ((2, 3, 4), [2, 3, 5, 6, 4]),
                 ((2, 2, 3), [2, 3, 5, 6, 4]), ((2, 2, 3), [2, 3, 5]), ((2, 2), [2, 3, 5, 6]),
                 ((2, 2, 3), [2, 3, 0, 6]), ((1, 2, 3), (1, 1, 4, 4)), ((2, 3, 3), [2, 3, 5, 6])]:
    for ac in [False, True]:
        add(F + "affine_grid", T(*th), size, align_corners=ac)
add(F + "affine_grid", T(2, 2, 3, dtype="int64"), [2, 3, 5, 6], align_corners=False)
add(F + "affine_grid", T(2, 2, 3, dtype="float64"), [2, 3, 5, 6], align_corners=False)
for s in [(2, 3), (4,), (2, 3, 4)]:
    add(F + "gumbel_softmax", T(*s))
    add(F + "gumbel_softmax", T(*s), hard=True, dim=0)
    add(F + "gumbel_softmax", T(*s), tau=0.5, dim=3)

# -- combinations / pad_sequence -----------------------------------------------------------
for n in [0, 1, 2, 4, 5]:
    for r in [0, 1, 2, 3, -1]:
        for wr in [False, True]:
            add("torch.combinations", T(n), r=r, with_replacement=wr)
add("torch.combinations", T(2, 3))
add("torch.combinations", T(4, dtype="int64"))
PS = "torch.nn.utils.rnn.pad_sequence"
for seqs in [[T(3, 5), T(2, 5)], [T(3, 5), T(2, 4)], [T(3, 5), T(2, 1)], [T(3), T(5), T(1)],
             [T(3, 5), T(2)], [T(), T()], [], [T(0, 2), T(0, 2)], [T(2, 4, 3), T(6, 4, 3), T(1, 4, 3)],
             [T(3, 5), T(2, 5, dtype="float64")]]:
    add(PS, seqs)
    add(PS, seqs, batch_first=True)
    add(PS, seqs, True, 1.0, "left")
add(PS, (T(3, 5), T(2, 5)))
add(PS, [T(3, 5), T(2, 5)], padding_side="x")

# -- diff / histc / unique -----------------------------------------------------------------
for s in [(3, 4), (5,), (), (0, 3), (3, 0)]:
    for kw in [{}, {"n": 2}, {"n": 5}, {"n": 0}, {"n": -1}, {"dim": 0}, {"dim": 2}]:
        add("torch.diff", T(*s), **kw)
add("Tensor.diff", T(3, 4), n=2, dim=0)
for pre, app, d in [((2, 4), (1, 4), 0), ((2, 3), None, 0), ((4,), None, 0), ((3, 2), (3, 1), 1),
                    (None, (3, 6), -1), ((3, 4), (3, 4), 0)]:
    kw = {"dim": d}
    if pre:
        kw["prepend"] = T(*pre)
    if app:
        kw["append"] = T(*app)
    add("torch.diff", T(3, 4), **kw)
    add("torch.diff", T(3, 4), n=4, **kw)
add("torch.diff", T(4, dtype="bool"))
add("torch.diff", T(4, dtype="int64", high=5))
add("torch.diff", T(4), prepend=T(2, dtype="float64"))
for s in [(3, 4), (0,), ()]:
    for kw in [{}, {"bins": 10}, {"bins": 0}, {"bins": 5, "min": 2, "max": 1}, {"bins": 4, "min": -1, "max": 1}]:
        add("torch.histc", T(*s), **kw)
add("Tensor.histc", T(3, 4), 7)
add("torch.histc", T(3, 4, dtype="int64"))
add("torch.histc", T(3, 4, dtype="float64"), bins=3)
for api in ["torch.unique", "Tensor.unique", "torch.unique_consecutive", "Tensor.unique_consecutive"]:
    for s in [(3, 4), (5,), ()]:
        add(api, T(*s))
        add(api, T(*s), return_inverse=True, return_counts=True)
        add(api, T(*s), return_counts=True, dim=0)
        add(api, T(*s), return_inverse=True, dim=-1)
        add(api, T(*s), dim=2)

# -- ctc_loss ------------------------------------------------------------------------------
CTC = F + "ctc_loss"
for red in ["mean", "sum", "none", "x"]:
    add(CTC, T(10, 2, 5), T(2, 4, dtype="int64", high=5), (10, 10), (4, 3), reduction=red)
    add(CTC, T(10, 5), T(4, dtype="int64", high=5), (10,), (4,), reduction=red)
    add(CTC, T(10, 2, 5), T(7, dtype="int64", high=5), (10, 9), (4, 3), reduction=red)
add(CTC, T(10, 2, 5), T(3, 4, dtype="int64", high=5), (10, 10), (4, 3))
add(CTC, T(10, 2, 5), T(2, 4, dtype="int64", high=5), (10, 10, 10), (4, 3))
add(CTC, T(10, 2, 5), T(2, 4, dtype="int64", high=5), (10, 10), (4,))
add(CTC, T(10, 2, 5), T(2, 4, dtype="int64", high=5), (10, 10), (4, 3), blank=5)
add(CTC, T(10, 2, 5), T(2, 4, dtype="int64", high=5), T(2, dtype="int64", high=1),
    T(2, dtype="int64", high=1), reduction="none")
add(CTC, T(10, 2, 5, dtype="float64"), T(2, 4, dtype="int64", high=5), (10, 10), (4, 3),
    reduction="none")
