"""Differential cases: batch/layer/group/instance/rms norm, local_response_norm, normalize."""
from itertools import product

from tests.differential.case import Case, T

F = "torch.nn.functional."
M = "torch.nn."
CASES: list[Case] = []
add = CASES.append

# BatchNorm modules: rank rules, channel match, training-mode single-value rule.
for api, shapes in [("BatchNorm1d", [(2, 8), (1, 8), (8,), (2, 8, 3), (1, 8, 1), (0, 8), (2, 8, 3, 3), (2, 4), (3, 4, 5)]),
                    ("BatchNorm2d", [(2, 8, 4, 4), (2, 16, 4, 4), (2, 8, 4), (1, 8, 1, 1), (1, 8, 1, 2), (0, 8, 2, 2), (8, 4, 4)]),
                    ("BatchNorm3d", [(1, 8, 2, 2, 2), (1, 8, 1, 1, 1), (1, 8, 2, 2), (2, 4, 1, 1, 1)])]:
    for shape, training, kw in product(shapes, (False, True), ({}, {"track_running_stats": False}, {"affine": False})):
        add(Case(M + api, (T(*shape),), ctor=(8,), ctor_kwargs=kw, training=training))
add(Case(M + "BatchNorm2d", (T(2, 8, 4, 4, dtype="float64"),), ctor=(8,), ctor_kwargs={"affine": False, "track_running_stats": False}))
# functional batch_norm
for args, kw in [
    ((T(2, 8, 3), T(8), T(8)), {}), ((T(2, 8, 3), T(7), T(8)), {}), ((T(2, 8, 3), T(8), T(7)), {}),
    ((T(2, 8, 3), T(8), T(8), T(7)), {}), ((T(2, 8, 3), T(8), T(8), None, T(7)), {}),
    ((T(1, 8, 1), T(8), T(8)), {"training": True}), ((T(1, 8, 1), T(8), T(8)), {"training": False}),
    ((T(8,), T(8), T(8)), {}), ((T(2, 8), None, None), {"training": True}), ((T(1, 8), None, None), {"training": True}),
    ((T(2, 8, 3, 3, 3, 3), T(8), T(8)), {}), ((T(2, 8, 3, 3), T(8), T(8), T(8), T(8)), {"training": True}),
    ((T(0, 8, 3), T(8), T(8)), {"training": True}), ((T(2, 0, 3), T(0), T(0)), {}),
]:
    add(Case(F + "batch_norm", args, kw))

# LayerNorm / layer_norm
for x, ns in product([(2, 10, 32), (10, 32), (32,), (2, 10, 31), (0, 32)], [32, (10, 32), (3, 10, 32), (31,), [32]]):
    add(Case(M + "LayerNorm", (T(*x),), ctor=(ns,)))
add(Case(M + "LayerNorm", (T(2, 10, 31),), ctor=(32,), ctor_kwargs={"elementwise_affine": False}))
add(Case(M + "LayerNorm", (T(2, 10, 32),), ctor=(32,), ctor_kwargs={"bias": False}))
for args in [
    (T(2, 10, 32), (32,), T(31)), (T(2, 10, 32), (32,), T(32), T(31)), (T(2, 10, 32), ()), (T(2, 10, 0), (0,)),
    (T(2, 10, 32), (32,), T(32), T(32)), (T(2, 10, 32), (10, 32), T(10, 32)), (T(2, 10, 32), (10, 32), T(320)),
    (T(2, 10, 32), [10, 32]), (T(5,), (5,)), (T(2, 10, 32), 32),
]:
    add(Case(F + "layer_norm", args))
# RMSNorm / rms_norm
for x, ns in product([(2, 10, 32), (32,), (2, 10, 31)], [32, (10, 32), (31,)]):
    add(Case(M + "RMSNorm", (T(*x),), ctor=(ns,)))
for args in [(T(2, 10, 32), (31,)), (T(2, 10, 32), (32,), T(31)), (T(2, 10, 32), (32,), T(32)), (T(2, 10, 32), [10, 32])]:
    add(Case(F + "rms_norm", args))

# GroupNorm / group_norm
for g, c, x in product((1, 2, 3, 4), (8, 6), [(2, 8, 4), (2, 6, 4), (2, 8), (8,), (2, 8, 3, 3, 3), (0, 8, 3), (2, 6, 2, 2)]):
    add(Case(M + "GroupNorm", (T(*x),), ctor=(g, c)))
add(Case(M + "GroupNorm", (T(2, 8, 4),), ctor=(2, 8), ctor_kwargs={"affine": False}))
add(Case(M + "GroupNorm", (T(2, 6, 4),), ctor=(2, 8), ctor_kwargs={"affine": False}))
for args in [(T(2, 6, 4), 4), (T(2, 8, 4), 4, T(7)), (T(2, 8, 4), 4, None, T(7)), (T(2, 8, 4), 4, T(8), T(8)),
             (T(2, 8, 4), 8), (T(2, 8, 4), 3), (T(2, 8), 2), (T(8,), 2)]:
    add(Case(F + "group_norm", args))

# InstanceNorm / instance_norm
for n, shapes in [(1, [(2, 8, 5), (8, 5), (2, 8, 1), (2, 8, 5, 5), (2, 6, 5), (8, 1), (5,)]),
                  (2, [(2, 8, 4, 4), (2, 6, 4, 4), (8, 4, 4), (8, 4), (2, 8, 1, 1), (1, 8, 1, 2)]),
                  (3, [(2, 8, 5, 5, 5), (8, 2, 2, 2), (2, 6, 2, 2, 2), (2, 8, 1, 1, 1)])]:
    for shape, kw, training in product(shapes, ({}, {"affine": True}, {"track_running_stats": True}), (False, True)):
        add(Case(M + f"InstanceNorm{n}d", (T(*shape),), ctor=(8,), ctor_kwargs=kw, training=training))
for args, kw in [((T(2, 8, 4),), {}), ((T(2, 8, 1),), {}), ((T(2, 8, 4), T(7), T(7)), {}),
                 ((T(2, 8, 4),), {"weight": T(7)}), ((T(8, 4),), {}), ((T(2, 8, 4), T(8), T(8)), {}),
                 ((T(2, 8, 1), T(8), T(8)), {"use_input_stats": False}), ((T(2, 8, 4, 4),), {"weight": T(8), "bias": T(8)})]:
    add(Case(F + "instance_norm", args, kw))

# local_response_norm / normalize
for x in [(2, 8, 4), (2, 8), (2, 8, 4, 4, 4), (2, 8, 3, 3), (8,)]:
    add(Case(F + "local_response_norm", (T(*x), 3)))
    add(Case(M + "LocalResponseNorm", (T(*x),), ctor=(2,)))
for x, d in product([(2, 8), (8,), (), (2, 3, 4)], (0, 1, -1, 2, -3)):
    add(Case(F + "normalize", (T(*x),), {"dim": d}))
add(Case(F + "normalize", (T(2, 3),), {"p": 1.0}))
