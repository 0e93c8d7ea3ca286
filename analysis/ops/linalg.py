"""Matrix products: matmul/@/mm/bmm/mv/dot, linear and nn.Linear."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import broadcast_shapes
from .spec import (DTYPE_MISMATCH, ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue, Unknowable,
                   is_tensor, module, op)

_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}


def _same_dtype(ctx, a, b, what="expected m1 and m2 to have the same dtype"):
    if a.dtype == "bool" or b.dtype == "bool":
        ctx.fail(DTYPE_MISMATCH, "\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if a.dtype and b.dtype and a.dtype != b.dtype:
        ctx.fail(DTYPE_MISMATCH, f"{what}, but got: {_DTYPE_NAMES.get(a.dtype, a.dtype)} != "
                                 f"{_DTYPE_NAMES.get(b.dtype, b.dtype)}")


def _mat_text(shape):
    return S.mat_text(*shape)


@op("torch.matmul", "Tensor.matmul", "Tensor.__matmul__")
def matmul(ctx, input, other):
    a, b = ctx.shape(input), ctx.shape(other)
    _same_dtype(ctx, input, other)
    if len(a) == 0 or len(b) == 0:
        ctx.fail(SHAPE_MISMATCH, "both arguments to matmul need to be at least 1D, but they are "
                                 f"{len(a)}D and {len(b)}D")
    if len(a) == 1 and len(b) == 1:
        ctx.require(S.eq(a[0], b[0]), SHAPE_MISMATCH,
                    "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same "
                    "number of elements, but got {} and {} elements respectively".format(
                        S.dim_text(a[0]), S.dim_text(b[0]), S.dim_text(a[0]), S.dim_text(b[0])))
        return TensorValue((), input.dtype)
    if len(a) == 2 and len(b) == 1:
        ctx.require(S.eq(a[1], b[0]), SHAPE_MISMATCH,
                    f"size mismatch, got input ({S.dim_text(a[0])}), mat ({_mat_text(a)}), "
                    f"vec ({S.dim_text(b[0])})")
        return TensorValue((a[0],), input.dtype)
    if len(a) == 1 and len(b) == 2:
        ctx.require(S.eq(a[0], b[0]), SHAPE_MISMATCH,
                    f"size mismatch, got input ({S.dim_text(b[1])}), mat ({S.dim_text(b[1])}x"
                    f"{S.dim_text(b[0])}), vec ({S.dim_text(a[0])})")
        return TensorValue((b[1],), input.dtype)
    if len(a) == 2 and len(b) == 2:
        ctx.require(S.eq(a[1], b[0]), SHAPE_MISMATCH,
                    f"mat1 and mat2 shapes cannot be multiplied ({_mat_text(a)} and {_mat_text(b)})")
        return TensorValue((a[0], b[1]), input.dtype)
    # Batched: 1-D operands get a dim prepended/appended, then removed again.
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if len(a) >= 3 and len(b) == 2 or len(a) >= 3 and len(b) == 1:
        # PyTorch folds the batch into rows: the message is mm's.
        rows = S.prod(a2[:-1])
        ctx.require(S.eq(a2[-1], b2[-2]), SHAPE_MISMATCH,
                    f"mat1 and mat2 shapes cannot be multiplied ({S.mat_text(rows, a2[-1])} and "
                    f"{_mat_text(b2)})")
    else:
        ctx.require(S.eq(a2[-1], b2[-2]), SHAPE_MISMATCH,
                    f"Expected size for first two dimensions of batch2 tensor to be: "
                    f"[{S.dim_text(S.prod(broadcast_shapes(ctx, a2[:-2], b2[:-2]) or (UNKNOWN,)))}, "
                    f"{S.dim_text(a2[-1])}] but got: [{S.dim_text(S.prod(b2[:-2]))}, {S.dim_text(b2[-2])}].")
    batch = broadcast_shapes(ctx, a2[:-2], b2[:-2])
    out = tuple(batch) + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return TensorValue(out, input.dtype)


@op("Tensor.__rmatmul__")
def rmatmul(ctx, input, other):
    return matmul(ctx, other, input)


@op("torch.mm", "Tensor.mm")
def mm(ctx, input, mat2):
    a, b = ctx.shape(input), ctx.shape(mat2)
    if len(a) != 2:
        ctx.fail(SHAPE_MISMATCH, f"self must be a matrix")
    if len(b) != 2:
        ctx.fail(SHAPE_MISMATCH, f"mat2 must be a matrix")
    _same_dtype(ctx, input, mat2)
    ctx.require(S.eq(a[1], b[0]), SHAPE_MISMATCH,
                f"mat1 and mat2 shapes cannot be multiplied ({_mat_text(a)} and {_mat_text(b)})")
    return TensorValue((a[0], b[1]), input.dtype)


@op("torch.bmm", "Tensor.bmm")
def bmm(ctx, input, mat2):
    a, b = ctx.shape(input), ctx.shape(mat2)
    if len(a) != 3:
        ctx.fail(SHAPE_MISMATCH, f"batch1 must be a 3D tensor")
    if len(b) != 3:
        ctx.fail(SHAPE_MISMATCH, f"batch2 must be a 3D tensor")
    _same_dtype(ctx, input, mat2, "expected scalar type")
    ctx.require(S.eq(a[0], b[0]), SHAPE_MISMATCH,
                f"Expected size for first two dimensions of batch2 tensor to be: [{S.dim_text(a[0])}, "
                f"{S.dim_text(a[2])}] but got: [{S.dim_text(b[0])}, {S.dim_text(b[1])}].")
    ctx.require(S.eq(a[2], b[1]), SHAPE_MISMATCH,
                f"Expected size for first two dimensions of batch2 tensor to be: [{S.dim_text(a[0])}, "
                f"{S.dim_text(a[2])}] but got: [{S.dim_text(b[0])}, {S.dim_text(b[1])}].")
    return TensorValue((a[0], a[1], b[2]), input.dtype)


@op("torch.mv", "Tensor.mv")
def mv(ctx, input, vec):
    a, b = ctx.shape(input), ctx.shape(vec)
    if len(a) != 2 or len(b) != 1:
        ctx.fail(SHAPE_MISMATCH, f"vector + matrix @ vector expected, got {len(a)}, {len(b)}")
    return matmul(ctx, input, vec)


@op("torch.dot", "Tensor.dot")
def dot(ctx, input, other):
    a, b = ctx.shape(input), ctx.shape(other)
    if len(a) != 1 or len(b) != 1:
        ctx.fail(SHAPE_MISMATCH, f"1D tensors expected, but got {len(a)}D and {len(b)}D tensors")
    return matmul(ctx, input, other)


def _expand_cond(src, target):
    """`src` expands to `target` (each right-aligned dim 1 or equal); False when src has more dims."""
    if len(src) > len(target):
        return False
    return S.and_(*[S.or_(S.eq(d, 1), S.eq(d, t)) for d, t in zip(reversed(src), reversed(target))]) \
        if src else True


@op("torch.nn.functional.linear")
def linear(ctx, input, weight, bias=None):
    if is_tensor(input) and input.shape is None and input.tail is None and is_tensor(weight) \
            and weight.shape is not None and len(weight.shape) == 2:
        # A rank nothing decided (a helper that squeezes a dim only for some ranks): it is
        # at least 1 or linear raises, and whatever the leading dims, the last is out_features.
        return TensorValue(None, input.dtype, tail=(weight.shape[0],))
    x, w = ctx.shape(input), ctx.shape(weight)
    if len(x) == 0:
        ctx.fail(SHAPE_MISMATCH, "both arguments to linear need to be at least 1D, but they are 0D and 2D")
    if len(w) == 0:
        ctx.fail(SHAPE_MISMATCH, f"both arguments to matmul need to be at least 1D, but they are "
                                 f"{len(x)}D and 0D")
    if len(w) > 2:
        ctx.fail(SHAPE_MISMATCH, f"t() expects a tensor with <= 2 dimensions, but self is {len(w)}D")
    _same_dtype(ctx, input, weight, "mat1 and mat2 must have the same dtype")
    def rows():
        return S.prod(x[:-1]) if len(x) > 1 else 1

    if len(w) == 2:
        ctx.require(S.eq(x[-1], w[1]), SHAPE_MISMATCH,
                    lambda: f"mat1 and mat2 shapes cannot be multiplied ({S.mat_text(rows(), x[-1])} "
                            f"and {S.mat_text(w[1], w[0])})",
                    repair={"in_features": x[-1]})
        out = x[:-1] + (w[0],)
    else:
        ctx.require(S.eq(x[-1], w[0]), SHAPE_MISMATCH,
                    lambda: f"size mismatch, got input ({S.dim_text(rows())}), mat ({S.dim_text(rows())}x"
                            f"{S.dim_text(x[-1])}), vec ({S.dim_text(w[0])})")
        out = x[:-1]
    out = tuple(out)
    if bias is None or not is_tensor(bias):
        return TensorValue(out, input.dtype)
    if bias.shape is None:
        raise Unknowable("bias rank")
    bsh = bias.shape
    # PyTorch's paths: 2-D input -> addmm(bias, x, w.t()) (bias expands to the output); a
    # contiguous 3-D input or a 1-D bias -> the same on the flattened input; otherwise
    # matmul then an in-place add_ of the bias (the broadcast must keep the output's shape).
    fused = len(x) == 2 or len(x) == 3 or len(bsh) == 1
    if fused:
        if len(w) == 1:
            ctx.fail(SHAPE_MISMATCH, "mat2 must be a matrix, got 1-D tensor")
        if bias.dtype and input.dtype and bias.dtype != input.dtype:
            ctx.fail(DTYPE_MISMATCH, f"self and mat2 must have the same dtype, but got "
                                     f"{_DTYPE_NAMES.get(bias.dtype, bias.dtype)} and "
                                     f"{_DTYPE_NAMES.get(input.dtype, input.dtype)}")
        flat = (rows(), out[-1])

        def msg():
            return (f"The expanded size of the tensor must match the existing size: target sizes "
                    f"[{S.dim_text(flat[0])}, {S.dim_text(out[-1])}], tensor sizes {S.size_text(bsh)}")
        cond = _expand_cond(bsh, flat)
        if len(x) == 3 and len(bsh) >= 2:
            # Only a contiguous input takes the flattened path; otherwise matmul + add_.
            other = _expand_cond(bsh, out)
            try:
                a, b = ctx.decide(cond), ctx.decide(other)
            except Unknowable:
                raise Unknowable("bias expansion depends on the input's layout") from None
            if a != b:
                raise Unknowable("bias expansion depends on the input's layout")
        ctx.require(cond, SHAPE_MISMATCH, msg)
    else:
        ctx.require(_expand_cond(bsh, out), SHAPE_MISMATCH,
                    lambda: f"output with shape {S.size_text(out)} doesn't match the broadcast shape of "
                            f"the bias {S.size_text(bsh)}")
    return TensorValue(out, input.dtype)


@module("torch.nn.Linear")
def Linear(ctx, in_features, out_features, bias=True, device=None, dtype=None):
    ctx.require(S.ge(out_features, 0), ILLEGAL_VALUE,
                f"Trying to create tensor with negative dimension {S.dim_text(out_features)}: "
                f"[{S.dim_text(out_features)}, {S.dim_text(in_features)}]")
    ctx.require(S.ge(in_features, 0), ILLEGAL_VALUE,
                f"Trying to create tensor with negative dimension {S.dim_text(in_features)}: "
                f"[{S.dim_text(out_features)}, {S.dim_text(in_features)}]")
    dt = str(dtype) if dtype is not None else "float32"
    return {
        "in_features": in_features,
        "out_features": out_features,
        "weight": TensorValue((out_features, in_features), dt),
        "bias": TensorValue((out_features,), dt) if bias else None,
    }


@Linear.forward
def _linear_forward(ctx, m, input):
    return linear(ctx, input, m["weight"], m["bias"])


@module("torch.nn.Bilinear")
def Bilinear(ctx, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
    for d in (out_features, in1_features, in2_features):
        ctx.require(S.ge(d, 0), ILLEGAL_VALUE,
                    f"Trying to create tensor with negative dimension {S.dim_text(d)}: "
                    f"[{S.dim_text(out_features)}, {S.dim_text(in1_features)}, {S.dim_text(in2_features)}]")
    dt = str(dtype) if dtype is not None else "float32"
    return {"in1_features": in1_features, "in2_features": in2_features,
            "out_features": out_features,
            "weight": TensorValue((out_features, in1_features, in2_features), dt),
            "bias": TensorValue((out_features,), dt) if bias else None}


@Bilinear.forward
def _bilinear_forward(ctx, m, input1, input2):
    a, b = ctx.shape(input1), ctx.shape(input2)
    if len(a) == 0 or len(b) == 0:
        ctx.fail(SHAPE_MISMATCH, "Dimension specified as -1 but tensor has no dimensions")
    if len(a) != len(b):
        ctx.fail(SHAPE_MISMATCH, f"bilinear(): input dimensions do not match: got {len(a)} and {len(b)}")
    for i in range(len(a) - 1):
        ctx.require(S.eq(a[i], b[i]), SHAPE_MISMATCH,
                    f"bilinear(): input batch dimensions do not match at dim {i}: got "
                    f"{S.dim_text(a[i])} and {S.dim_text(b[i])}")
    ctx.require(S.eq(a[-1], m["in1_features"]), SHAPE_MISMATCH,
                f"bilinear(): input1 size does not match weight size: got {S.dim_text(a[-1])} but "
                f"expected {S.dim_text(m['in1_features'])}")
    ctx.require(S.eq(b[-1], m["in2_features"]), SHAPE_MISMATCH,
                f"bilinear(): input2 size does not match weight size: got {S.dim_text(b[-1])} but "
                f"expected {S.dim_text(m['in2_features'])}")
    return TensorValue(a[:-1] + (m["out_features"],), input1.dtype)
