"""Differential cases: convolutions, transposed convolutions, unfold/fold."""
from itertools import product

from tests.differential.case import Case, T

F = "torch.nn.functional."
CASES: list[Case] = []
add = CASES.append

# conv2d: bounded-exhaustive over input size, kernel, stride, padding, dilation.
for h, k, s, p, d in product((1, 3, 5), (1, 2, 3), (1, 2), (0, 1), (1, 2)):
    add(Case(F + "conv2d", (T(1, 2, h, h + 1), T(3, 2, k, k)), {"stride": s, "padding": p, "dilation": d}))
# conv1d / conv3d sweeps
for l, k, s, p in product((1, 2, 4, 7), (1, 3, 4), (1, 3), (0, 2)):
    add(Case(F + "conv1d", (T(2, 3, l), T(4, 3, k)), {"stride": s, "padding": p}))
for l, k, s in product((2, 4), (1, 3), (1, 2)):
    add(Case(F + "conv3d", (T(1, 2, l, l, l + 1), T(2, 2, k, k, k)), {"stride": s}))
# padding strings, unbatched, groups, bias, errors
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5)), {"padding": "same"}))
add(Case(F + "conv2d", (T(2, 3, 8, 9), T(16, 3, 4, 4)), {"padding": "same", "dilation": 2}))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5)), {"padding": "valid"}))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5)), {"padding": "same", "stride": 2}))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5)), {"padding": "bad"}))
add(Case(F + "conv2d", (T(2, 3, 0, 8), T(16, 3, 1, 1)), {"padding": "same"}))
add(Case(F + "conv2d", (T(2, 3, 0, 8), T(16, 3, 3, 3)), {"padding": 2}))
add(Case(F + "conv1d", (T(2, 3, 8), T(4, 3, 3)), {"padding": "same", "dilation": 2}))
add(Case(F + "conv2d", (T(8, 1, 28, 28), T(16, 3, 5, 5))))
add(Case(F + "conv2d", (T(1, 28, 28), T(16, 3, 5, 5))))
add(Case(F + "conv2d", (T(3, 28, 28), T(16, 3, 5, 5))))
add(Case(F + "conv2d", (T(28, 28), T(16, 3, 5, 5))))
add(Case(F + "conv2d", (T(2, 3, 4, 4), T(16, 3, 5, 5))))
add(Case(F + "conv2d", (T(2, 3, 4, 4), T(16, 3, 5, 5)), {"padding": 1}))
add(Case(F + "conv2d", (T(2, 3, 4, 4), T(16, 3, 3, 3)), {"padding": -1}))
add(Case(F + "conv2d", (T(2, 3, 4, 4), T(16, 3, 3, 3)), {"stride": 0}))
add(Case(F + "conv2d", (T(2, 3, 4, 4), T(16, 3, 3, 3)), {"dilation": 0}))
add(Case(F + "conv2d", (T(2, 3, 4, 4), T(16, 3, 3, 3)), {"groups": 0}))
add(Case(F + "conv2d", (T(2, 6, 8, 8), T(16, 3, 5, 5)), {"groups": 2}))
add(Case(F + "conv2d", (T(2, 6, 8, 8), T(15, 3, 5, 5)), {"groups": 2}))
add(Case(F + "conv2d", (T(2, 6, 8, 8), T(16, 2, 5, 5)), {"groups": 3}))
add(Case(F + "conv2d", (T(2, 6, 8, 8), T(6, 1, 3, 3)), {"groups": 6}))
add(Case(F + "conv2d", (T(2, 6, 8, 8), T(6, 1, 3, 3)), {"groups": 3}))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5), T(16))))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5), T(15))))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5), T(1, 16))))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5)), {"stride": (1, 2, 3)}))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5)), {"stride": (2, 1)}))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(16, 3, 5, 5)), {"padding": (0, 2)}))
add(Case(F + "conv2d", (T(0, 3, 8, 8), T(16, 3, 5, 5))))
add(Case(F + "conv2d", (T(2, 0, 8, 8), T(16, 0, 5, 5))))
add(Case(F + "conv2d", (T(2, 3, 8, 8), T(0, 3, 5, 5))))
add(Case(F + "conv2d", (T(2, 3, 8, 8, dtype="float64"), T(16, 3, 5, 5))))
add(Case(F + "conv2d", (T(2, 3, 8, 8, dtype="float64"), T(16, 3, 5, 5, dtype="float64"))))
add(Case(F + "conv1d", (T(3, 8), T(4, 3, 3))))
add(Case(F + "conv1d", (T(8,), T(4, 3, 3))))
add(Case(F + "conv3d", (T(2, 4, 4, 4), T(5, 2, 3, 3, 3))))
add(Case(F + "conv3d", (T(1, 2, 4, 4, 4), T(5, 2, 3, 3, 3)), {"padding": "same"}))
add(Case("torch.conv2d", (T(2, 3, 8, 8), T(4, 3, 3, 3))))

# Conv modules
M = "torch.nn."
for ctor, kw, x in [
    ((3, 8, 3), {"stride": 2}, T(2, 3, 16, 16)),
    ((3, 8, 3), {}, T(3, 16, 16)),
    ((3, 8, 3), {}, T(2, 4, 16, 16)),
    ((3, 8, 3), {"padding": 1}, T(2, 3, 2, 2)),
    ((3, 8, 5), {}, T(2, 3, 4, 4)),
    ((3, 8, (3, 1)), {"padding": (1, 0)}, T(2, 3, 7, 5)),
    ((3, 16, 3), {"groups": 2}, T(2, 3, 7, 7)),
    ((4, 15, 3), {"groups": 2}, T(2, 4, 7, 7)),
    ((4, 16, 3), {"groups": 0}, T(2, 4, 7, 7)),
    ((4, 16, 3), {"groups": 4}, T(2, 4, 7, 7)),
    ((4, 16, 3), {"padding": "same", "stride": 2}, T(2, 4, 7, 7)),
    ((4, 16, 3), {"padding": "same"}, T(2, 4, 7, 7)),
    ((4, 16, 4), {"padding": "same", "dilation": 2}, T(2, 4, 7, 6)),
    ((4, 16, 3), {"padding": "valid"}, T(2, 4, 7, 7)),
    ((4, 16, 3), {"padding": "foo"}, T(2, 4, 7, 7)),
    ((4, 16, 3), {"padding_mode": "foo"}, T(2, 4, 7, 7)),
    ((4, 16, 3), {"padding": 1, "padding_mode": "reflect"}, T(1, 4, 1, 5)),
    ((4, 16, 3), {"padding": 1, "padding_mode": "reflect"}, T(1, 4, 2, 5)),
    ((4, 16, 3), {"padding": 1, "padding_mode": "circular"}, T(1, 4, 1, 5)),
    ((4, 16, 3), {"padding": 2, "padding_mode": "circular"}, T(1, 4, 1, 5)),
    ((4, 16, 3), {"padding": 1, "padding_mode": "replicate"}, T(1, 4, 1, 5)),
    ((4, 16, 3), {"padding": "same", "padding_mode": "reflect"}, T(1, 4, 5, 5)),
    ((4, 16, 3), {"padding": -1}, T(1, 4, 5, 5)),
    ((4, -1, 3), {}, T(1, 4, 5, 5)),
    ((4, 16, 3), {"bias": False}, T(1, 4, 5, 5)),
    ((4, 16, 3), {"dtype": None}, T(1, 4, 5, 5, dtype="float64")),
]:
    add(Case(M + "Conv2d", (x,), ctor=ctor, ctor_kwargs=kw))
for ctor, kw, x in [
    ((3, 8, 3), {}, T(2, 3, 16)), ((3, 8, 3), {}, T(3, 16)), ((3, 8, 3), {}, T(16,)),
    ((3, 8, 3), {"stride": 2, "padding": 1}, T(2, 3, 5)), ((3, 8, 5), {"padding": "same"}, T(2, 3, 5)),
    ((2, 4, 3), {"padding": 2, "padding_mode": "reflect"}, T(2, 2, 2)),
    ((2, 4, 3), {"padding": 2, "padding_mode": "reflect"}, T(2, 2, 3)),
    ((2, 4, 3), {"dilation": 3}, T(2, 2, 6)), ((2, 4, 3), {"dilation": 3}, T(2, 2, 7)),
]:
    add(Case(M + "Conv1d", (x,), ctor=ctor, ctor_kwargs=kw))
for ctor, kw, x in [
    ((3, 8, 3), {}, T(2, 3, 5, 5, 5)), ((3, 8, 3), {}, T(3, 5, 5, 5)), ((3, 8, 3), {}, T(5, 5, 5)),
    ((3, 8, (1, 3, 3)), {"stride": (1, 2, 2)}, T(1, 3, 4, 8, 8)),
    ((3, 8, 3), {"padding": "same"}, T(1, 3, 2, 3, 4)),
]:
    add(Case(M + "Conv3d", (x,), ctor=ctor, ctor_kwargs=kw))

# conv_transpose
w = T(3, 4, 3, 3)
for h, s, p, op_, d in product((1, 3), (1, 2, 3), (0, 1, 2), (0, 1), (1, 2)):
    add(Case(F + "conv_transpose2d", (T(1, 3, h, h), w), {"stride": s, "padding": p, "output_padding": op_, "dilation": d}))
for args, kw in [
    ((T(2, 2, 5, 5), w), {}), ((T(3, 5, 5), w), {}), ((T(5, 5), w), {}),
    ((T(2, 6, 5, 5), T(6, 4, 3, 3)), {"groups": 2}), ((T(2, 6, 5, 5), T(5, 4, 3, 3)), {"groups": 2}),
    ((T(2, 3, 5, 5), w, T(3)), {}), ((T(2, 3, 5, 5), w, T(4)), {}),
    ((T(2, 3, 5, 5), w), {"padding": -1}), ((T(2, 3, 5, 5), w), {"output_padding": -1}),
    ((T(2, 3, 0, 5), w), {}), ((T(0, 3, 5, 5), w), {}), ((T(2, 3, 5, 5), w), {"stride": (2, 1), "output_padding": (1, 0)}),
]:
    add(Case(F + "conv_transpose2d", args, kw))
for l, s, p, op_ in product((1, 4), (1, 2), (0, 1), (0, 1)):
    add(Case(F + "conv_transpose1d", (T(2, 3, l), T(3, 2, 4)), {"stride": s, "padding": p, "output_padding": op_}))
add(Case(F + "conv_transpose1d", (T(3, 4), T(3, 2, 4))))
add(Case(F + "conv_transpose3d", (T(1, 2, 2, 3, 4), T(2, 3, 2, 2, 2)), {"stride": 2}))
add(Case(F + "conv_transpose3d", (T(2, 2, 3, 4), T(2, 3, 2, 2, 2)), {"stride": 2, "output_padding": 1}))
add(Case(F + "conv_transpose3d", (T(2, 2, 3, 4), T(2, 3, 2, 2, 2)), {"stride": 2, "output_padding": 2}))
for ctor, kw, args, fkw in [
    ((3, 4, 3), {"stride": 2}, (T(1, 3, 5, 5),), {"output_size": (12, 12)}),
    ((3, 4, 3), {"stride": 2}, (T(1, 3, 5, 5),), {"output_size": (11, 11)}),
    ((3, 4, 3), {"stride": 2}, (T(1, 3, 5, 5),), {"output_size": (13, 13)}),
    ((3, 4, 3), {"stride": 2}, (T(1, 3, 5, 5),), {"output_size": (10, 10)}),
    ((3, 4, 3), {"stride": 2}, (T(1, 3, 5, 5),), {"output_size": (1, 3, 11, 12)}),
    ((3, 4, 3), {"stride": 2}, (T(1, 3, 5, 5),), {"output_size": (1, 3, 11)}),
    ((3, 4, 3), {"stride": 2}, (T(3, 5, 5),), {"output_size": (3, 11, 12)}),
    ((3, 4, 3), {"stride": 2}, (T(1, 3, 5, 5),), {}),
    ((3, 4, 3), {"stride": 2, "output_padding": 1}, (T(1, 3, 5, 5),), {}),
    ((3, 4, 3), {"padding_mode": "reflect"}, (T(1, 3, 5, 5),), {}),
    ((3, 4, 3), {"groups": 2}, (T(1, 3, 5, 5),), {}),
    ((4, 6, 3), {"groups": 2}, (T(1, 4, 5, 5),), {}),
    ((3, 4, 3), {"output_padding": 1}, (T(1, 3, 5, 5),), {}),
    ((3, 4, 4), {"stride": 2, "padding": 1}, (T(2, 3, 8, 8),), {}),
    ((3, 4, 4), {"stride": 2, "padding": 1}, (T(2, 4, 8, 8),), {}),
]:
    add(Case(M + "ConvTranspose2d", args, fkw, ctor=ctor, ctor_kwargs=kw))
add(Case(M + "ConvTranspose1d", (T(2, 3, 7),), ctor=(3, 5, 4), ctor_kwargs={"stride": 2, "padding": 1}))
add(Case(M + "ConvTranspose1d", (T(3, 7),), ctor=(3, 5, 4), ctor_kwargs={"stride": 2, "padding": 1}))
add(Case(M + "ConvTranspose1d", (T(2, 3, 7),), {"output_size": [15]}, ctor=(3, 5, 4), ctor_kwargs={"stride": 2, "padding": 1}))
add(Case(M + "ConvTranspose3d", (T(1, 3, 2, 2, 2),), ctor=(3, 5, 2), ctor_kwargs={"stride": 2}))
add(Case(M + "ConvTranspose3d", (T(1, 2, 2, 2, 2),), ctor=(3, 5, 2), ctor_kwargs={"stride": 2}))

# unfold / fold
for h, k, s, p, d in product((2, 4, 5), (1, 2, 3), (1, 2), (0, 1), (1, 2)):
    add(Case(F + "unfold", (T(1, 2, h, h + 1), k), {"stride": s, "padding": p, "dilation": d}))
for args, kw in [
    ((T(3, 8, 8), 3), {}), ((T(8, 8), 3), {}), ((T(2, 3, 8, 8), 3), {"stride": 0}),
    ((T(2, 3, 8, 8), 3), {"padding": -1}), ((T(2, 3, 8, 8), 0), {}), ((T(2, 3, 8, 8), 3), {"dilation": 0}),
    ((T(2, 0, 8, 8), 3), {}), ((T(0, 3, 8, 8), 3), {}), ((T(2, 3, 8, 8), (2, 3)), {"stride": (1, 2)}),
]:
    add(Case(F + "unfold", args, kw))
for args, kw in [
    ((T(2, 27, 36), (8, 8), 3), {}), ((T(27, 36), (8, 8), 3), {}), ((T(2, 26, 36), (8, 8), 3), {}),
    ((T(2, 27, 35), (8, 8), 3), {}), ((T(2, 27, 35), (2, 2), 3), {}), ((T(27,), (8, 8), 3), {}),
    ((T(2, 27, 36), (8, 8), 3), {"stride": 0}), ((T(2, 0, 36), (8, 8), 3), {}), ((T(2, 27, 0), (8, 8), 3), {}),
    ((T(0, 27, 36), (8, 8), 3), {}), ((T(2, 27, 36), 8, 3), {}), ((T(2, 12, 16), (8, 8), 2), {"stride": 2}),
    ((T(2, 12, 25), (8, 8), 2), {"stride": 2, "padding": 1}), ((T(2, 12, 16), (8, 8), 2), {"stride": 2, "padding": 1}),
    ((T(1, 4, 9), (4, 4), 2), {"dilation": 2}),
]:
    add(Case(F + "fold", args, kw))
add(Case(M + "Unfold", (T(2, 3, 8, 8),), ctor=(3,), ctor_kwargs={"stride": 2}))
add(Case(M + "Unfold", (T(2, 3, 2, 2),), ctor=(3,)))
add(Case(M + "Fold", (T(2, 27, 36),), ctor=((8, 8), 3)))
add(Case(M + "Fold", (T(2, 27, 37),), ctor=((8, 8), 3)))
