"""Differential cases: max/avg/lp/adaptive pooling and their modules."""
from itertools import product

from tests.differential.case import Case, T

F = "torch.nn.functional."
M = "torch.nn."
CASES: list[Case] = []
add = CASES.append

# max_pool2d: bounded-exhaustive incl. ceil_mode last-window corners and padding limits.
for h, k, s, p, d, c in product((1, 2, 5, 7), (1, 2, 3), (1, 2, 3), (0, 1, 2), (1, 2), (False, True)):
    add(Case(F + "max_pool2d", (T(1, 2, h, h + 1), k), {"stride": s, "padding": p, "dilation": d, "ceil_mode": c}))
# avg_pool2d sweep (no dilation)
for h, k, s, p, c in product((1, 2, 5, 8), (1, 2, 3), (1, 2, 3), (0, 1, 2), (False, True)):
    add(Case(F + "avg_pool2d", (T(1, 2, h, h), k), {"stride": s, "padding": p, "ceil_mode": c}))
# 1d and 3d sweeps
for l, k, s, p, c in product((1, 4, 7), (1, 3), (1, 2), (0, 1), (False, True)):
    add(Case(F + "max_pool1d", (T(2, 3, l), k), {"stride": s, "padding": p, "ceil_mode": c}))
    add(Case(F + "avg_pool1d", (T(2, 3, l), k), {"stride": s, "padding": p, "ceil_mode": c}))
for l, k, s, c in product((2, 5), (2, 3), (1, 2), (False, True)):
    add(Case(F + "max_pool3d", (T(1, 2, l, l, l + 1), k), {"stride": s, "ceil_mode": c}))
    add(Case(F + "avg_pool3d", (T(1, 2, l, l, l + 1), k), {"stride": s, "ceil_mode": c}))

x = T(2, 3, 7, 7)
for api, args, kw in [
    ("max_pool2d", (x, 9), {}), ("max_pool2d", (x, 9), {"ceil_mode": True}), ("max_pool2d", (x, 3), {"padding": 2}),
    ("max_pool2d", (x, 3), {"padding": 2, "dilation": 2}), ("max_pool2d", (x, 0), {}), ("max_pool2d", (x, 2), {"stride": 0}),
    ("max_pool2d", (x, 2), {"padding": -1}), ("max_pool2d", (x, 2), {"dilation": 0}), ("max_pool2d", (T(7, 7), 2), {}),
    ("max_pool2d", (T(3, 7, 7), 2), {}), ("max_pool2d", (T(3, 7, 7), 2), {"return_indices": True}),
    ("max_pool2d", (x, 2), {"return_indices": True, "ceil_mode": True}),
    ("max_pool2d", (T(2, 0, 7, 7), 2), {}), ("max_pool2d", (T(0, 2, 7, 7), 2), {}), ("max_pool2d", (T(2, 2, 0, 7), 2), {}),
    ("max_pool2d", (T(0, 7, 7), 2), {}), ("max_pool2d", (x, (2, 2, 2)), {}), ("max_pool2d", (x, 2), {"stride": (1, 2, 3)}),
    ("max_pool2d", (x, 2), {"padding": (1, 1, 1)}), ("max_pool2d", (x, (3, 1)), {"stride": (2, 1), "padding": (1, 0)}),
    ("max_pool2d", (x, 2), {"stride": []}), ("max_pool2d", (T(2, 3, 5, 5), 2, 2, 1), {"ceil_mode": True}),
    ("max_pool1d", (T(2, 3, 7), 9), {}), ("max_pool1d", (T(2, 3, 7), 3), {"padding": 2}), ("max_pool1d", (T(2, 3, 0), 1), {}),
    ("max_pool1d", (T(7,), 2), {}), ("max_pool1d", (T(3, 7), 2), {}), ("max_pool1d", (T(0, 7), 2), {}),
    ("max_pool1d", (T(0, 2, 7), 2), {}), ("max_pool1d", (T(2, 0, 7), 2), {}), ("max_pool1d", (T(2, 2, 7), (2, 2)), {}),
    ("max_pool1d", (T(2, 2, 7), 3), {"stride": 2, "padding": 1, "dilation": 3}), ("max_pool1d", (T(2, 2, 7), 3), {"dilation": 0}),
    ("max_pool1d", (T(2, 2, 7), 3), {"return_indices": True}),
    ("max_pool3d", (T(2, 3, 7, 7, 7), 9), {}), ("max_pool3d", (T(2, 3, 7, 7, 7), 3), {"padding": 2}),
    ("max_pool3d", (T(7, 7, 7), 3), {}), ("max_pool3d", (T(3, 7, 7, 7), 3), {}), ("max_pool3d", (T(2, 0, 7, 7, 7), 2), {}),
    ("max_pool3d", (T(0, 2, 7, 7, 7), 2), {}), ("max_pool3d", (T(0, 7, 7, 7), 2), {}),
    ("avg_pool2d", (x, 9), {}), ("avg_pool2d", (x, 3), {"padding": 2}), ("avg_pool2d", (x, 0), {}),
    ("avg_pool2d", (x, 2), {"stride": 0}), ("avg_pool2d", (T(7, 7), 2), {}), ("avg_pool2d", (T(2, 0, 7, 7), 2), {}),
    ("avg_pool2d", (T(2, 3, 0, 7), 2), {}), ("avg_pool2d", (T(0, 7, 7), 2), {}), ("avg_pool2d", (x, (2, 2, 2)), {}),
    ("avg_pool2d", (x, 3), {"padding": 1, "count_include_pad": False, "divisor_override": 2}),
    ("avg_pool1d", (T(2, 3, 7), 9), {}), ("avg_pool1d", (T(2, 3, 7), 3), {"padding": 2}), ("avg_pool1d", (T(7,), 3), {}),
    ("avg_pool1d", (T(3, 7), 3), {}), ("avg_pool1d", (T(2, 3, 7), 0), {}), ("avg_pool1d", (T(2, 3, 7), 2), {"stride": 0}),
    ("avg_pool1d", (T(2, 0, 7), 2), {}), ("avg_pool1d", (T(0, 2, 7), 2), {}),
    ("avg_pool3d", (T(2, 3, 7, 7, 7), 9), {}), ("avg_pool3d", (T(2, 3, 7, 7, 7), 3), {"padding": 2}),
    ("avg_pool3d", (T(7, 7, 7), 3), {}), ("avg_pool3d", (T(2, 0, 7, 7, 7), 2), {}), ("avg_pool3d", (T(0, 2, 7, 7, 7), 2), {}),
    ("avg_pool3d", (T(0, 7, 7, 7), 2), {}),
    ("lp_pool2d", (x, 2, 3), {}), ("lp_pool2d", (x, 2, 9), {}), ("lp_pool2d", (x, 2, 3), {"ceil_mode": True}),
    ("lp_pool2d", (x, 2, 3), {"stride": 2}), ("lp_pool1d", (T(2, 3, 7), 2, 3), {}), ("lp_pool1d", (T(2, 3, 7), 1, 2), {"stride": 2}),
    ("lp_pool3d", (T(2, 2, 7, 7, 7), 2, 3), {}),
]:
    add(Case(F + api, args, kw))

# adaptive pools
for h, o in product((1, 3, 7), (1, 2, 5, 0, None)):
    add(Case(F + "adaptive_avg_pool2d", (T(2, 3, h, h + 2), o if o is not None else (None, 2))))
    add(Case(F + "adaptive_max_pool2d", (T(2, 3, h, h + 2), o if o is not None else (2, None))))
for api, args, kw in [
    ("adaptive_avg_pool2d", (x, (3, None)), {}), ("adaptive_avg_pool2d", (x, -1), {}), ("adaptive_avg_pool2d", (T(7, 7), 2), {}),
    ("adaptive_avg_pool2d", (T(2, 3, 0, 7), 2), {}), ("adaptive_avg_pool2d", (T(0, 3, 7, 7), 2), {}),
    ("adaptive_avg_pool2d", (T(2, 0, 7, 7), 2), {}), ("adaptive_avg_pool2d", (T(0, 7, 7), 2), {}),
    ("adaptive_avg_pool2d", (T(3, 0, 7), 2), {}), ("adaptive_avg_pool2d", (T(2, 3, 0, 7), 1), {}),
    ("adaptive_avg_pool2d", (T(2, 3, 0, 7), (1, 1)), {}), ("adaptive_avg_pool2d", (x, (2, 2, 2)), {}),
    ("adaptive_avg_pool2d", (x, (None, None)), {}), ("adaptive_avg_pool2d", (T(3, 7, 7), (2, 3)), {}),
    ("adaptive_max_pool2d", (x, 2), {"return_indices": True}), ("adaptive_max_pool2d", (x, 0), {}),
    ("adaptive_max_pool2d", (T(2, 3, 0, 7), 2), {}), ("adaptive_max_pool2d", (T(2, 0, 7, 7), 2), {}),
    ("adaptive_max_pool2d", (T(0, 3, 7, 7), 2), {}), ("adaptive_max_pool2d", (T(0, 7, 7), 2), {}),
    ("adaptive_max_pool2d", (x, (None, 0)), {}), ("adaptive_max_pool2d", (x, -2), {}),
    ("adaptive_avg_pool1d", (T(2, 3, 7), 2), {}), ("adaptive_avg_pool1d", (T(7,), 2), {}),
    ("adaptive_avg_pool1d", (T(2, 3, 7), (2, 2)), {}), ("adaptive_avg_pool1d", (T(2, 3, 0), 2), {}),
    ("adaptive_avg_pool1d", (T(2, 3, 0), 1), {}), ("adaptive_avg_pool1d", (T(0, 7), 2), {}),
    ("adaptive_avg_pool1d", (T(2, 0, 7), 2), {}), ("adaptive_avg_pool1d", (T(3, 7), (4,)), {}),
    ("adaptive_max_pool1d", (T(2, 3, 0), 2), {}), ("adaptive_max_pool1d", (T(2, 3, 7), 0), {}),
    ("adaptive_max_pool1d", (T(2, 0, 7), 2), {}), ("adaptive_max_pool1d", (T(0, 7), 2), {}),
    ("adaptive_max_pool1d", (T(2, 3, 7), 3), {"return_indices": True}),
    ("adaptive_avg_pool3d", (T(2, 3, 7, 7, 7), (1, None, 2)), {}), ("adaptive_avg_pool3d", (T(2, 3, 0, 7, 7), 1), {}),
    ("adaptive_avg_pool3d", (T(2, 3, 0, 7, 7), 2), {}), ("adaptive_avg_pool3d", (T(2, 0, 7, 7, 7), 2), {}),
    ("adaptive_avg_pool3d", (T(3, 0, 7, 7), 2), {}), ("adaptive_avg_pool3d", (T(0, 7, 7, 7), 2), {}),
    ("adaptive_avg_pool3d", (T(2, 3, 7, 7, 0), 2), {}), ("adaptive_avg_pool3d", (T(3, 0, 7, 7), 1), {}),
    ("adaptive_max_pool3d", (T(3, 7, 7, 7), 1), {}), ("adaptive_max_pool3d", (T(2, 0, 7, 7, 7), 2), {}),
    ("adaptive_max_pool3d", (T(2, 3, 7, 0, 7), 2), {}), ("adaptive_max_pool3d", (T(0, 7, 7, 7), 2), {}),
    ("adaptive_max_pool3d", (T(1, 2, 4, 5, 6), (2, 3, None)), {"return_indices": True}),
    ("max_unpool2d", (T(1, 2, 3, 3), T(1, 2, 3, 3, dtype="int64", high=1), 2), {}),
    ("max_unpool2d", (T(1, 2, 3, 3), T(1, 2, 3, 3, dtype="int64", high=1), 2), {"output_size": (7, 7)}),
    ("max_unpool1d", (T(1, 2, 3), T(1, 2, 3, dtype="int64", high=1), 2), {"stride": 1}),
    ("max_unpool3d", (T(1, 2, 2, 2, 2), T(1, 2, 2, 2, 2, dtype="int64", high=1), 2), {}),
]:
    add(Case(F + api, args, kw))

# modules
for api, ctor, kw, xin in [
    ("MaxPool2d", (2,), {}, T(2, 3, 8, 8)), ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, T(2, 3, 8, 8)),
    ("MaxPool2d", (2,), {"return_indices": True}, T(2, 3, 8, 8)), ("MaxPool2d", (3,), {"stride": 2, "ceil_mode": True}, T(1, 4, 6, 6)),
    ("MaxPool2d", (9,), {}, T(1, 4, 6, 6)), ("MaxPool2d", (3,), {"padding": 2}, T(1, 4, 6, 6)), ("MaxPool2d", (2,), {}, T(4, 6, 6)),
    ("MaxPool2d", (2,), {"dilation": 2}, T(1, 4, 6, 6)), ("MaxPool1d", (2,), {}, T(2, 3, 8)), ("MaxPool1d", (3,), {"stride": 1}, T(3, 8)),
    ("MaxPool1d", (3,), {"return_indices": True}, T(3, 8)), ("MaxPool3d", (2,), {}, T(1, 2, 4, 4, 4)), ("MaxPool3d", (2,), {"ceil_mode": True}, T(2, 5, 5, 5)),
    ("AvgPool2d", (2,), {}, T(2, 3, 8, 8)), ("AvgPool2d", (3,), {"stride": 2, "padding": 1}, T(2, 3, 8, 8)),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}, T(2, 3, 8, 8)), ("AvgPool2d", (9,), {}, T(2, 3, 8, 8)),
    ("AvgPool1d", (2,), {}, T(2, 3, 8)), ("AvgPool1d", (4,), {"padding": 2}, T(2, 3, 8)), ("AvgPool3d", (2,), {}, T(1, 2, 4, 4, 4)),
    ("AvgPool3d", (2,), {"stride": 1}, T(2, 4, 4, 4)),
    ("AdaptiveAvgPool2d", ((1, 1),), {}, T(2, 3, 8, 8)), ("AdaptiveAvgPool2d", (7,), {}, T(2, 3, 5, 5)),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, T(2, 3, 5, 5)), ("AdaptiveAvgPool2d", (1,), {}, T(3, 5, 5)),
    ("AdaptiveAvgPool1d", (1,), {}, T(2, 3, 5)), ("AdaptiveAvgPool3d", (1,), {}, T(2, 3, 5, 5, 5)),
    ("AdaptiveMaxPool2d", (1,), {}, T(2, 3, 5, 5)), ("AdaptiveMaxPool2d", (2,), {"return_indices": True}, T(2, 3, 5, 5)),
    ("AdaptiveMaxPool1d", (3,), {}, T(2, 3, 5)), ("AdaptiveMaxPool3d", ((2, 1, 2),), {}, T(3, 5, 5, 5)),
    ("LPPool2d", (2, 3), {}, T(2, 3, 8, 8)), ("LPPool2d", (2, 3), {"stride": 2}, T(2, 3, 8, 8)), ("LPPool1d", (2, 3), {}, T(2, 3, 8)),
    ("LPPool3d", (2, 2), {}, T(2, 3, 4, 4, 4)),
]:
    add(Case(M + api, (xin,), ctor=ctor, ctor_kwargs=kw))
