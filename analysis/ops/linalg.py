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
    if a.dtype and b.dtype and a.dtype != b.dtype:
        ctx.fail(DTYPE_MISMATCH, f"{what}, but got: {_DTYPE_NAMES.get(a.dtype, a.dtype)} != "
                                 f"{_DTYPE_NAMES.get(b.dtype, b.dtype)}")


def _mat_text(shape):
    return "x".join(S.dim_text(d) for d in shape)


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
                    f"mat1 and mat2 shapes cannot be multiplied ({S.dim_text(rows)}x"
                    f"{S.dim_text(a2[-1])} and {_mat_text(b2)})")
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


@op("torch.nn.functional.linear")
def linear(ctx, input, weight, bias=None):
    x, w = ctx.shape(input), ctx.shape(weight)
    if len(x) == 0:
        ctx.fail(SHAPE_MISMATCH, "both arguments to linear need to be at least 1D, but they are 0D and 2D")
    _same_dtype(ctx, input, weight, "mat1 and mat2 must have the same dtype")
    rows = S.prod(x[:-1]) if len(x) > 1 else 1
    if len(w) == 2:
        ctx.require(S.eq(x[-1], w[1]), SHAPE_MISMATCH,
                    f"mat1 and mat2 shapes cannot be multiplied ({S.dim_text(rows)}x{S.dim_text(x[-1])} "
                    f"and {S.dim_text(w[1])}x{S.dim_text(w[0])})",
                    repair={"in_features": x[-1]})
        out = x[:-1] + (w[0],)
    elif len(w) == 1:
        ctx.require(S.eq(x[-1], w[0]), SHAPE_MISMATCH,
                    f"size mismatch, got input ({S.dim_text(rows)}), mat ({S.dim_text(rows)}x"
                    f"{S.dim_text(x[-1])}), vec ({S.dim_text(w[0])})")
        out = x[:-1]
    else:
        raise Unknowable("weight rank")
    if bias is not None and is_tensor(bias) and bias.shape is not None:
        out = broadcast_shapes(ctx, out, bias.shape)
    return TensorValue(tuple(out), input.dtype)


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
    return {"in1_features": in1_features, "in2_features": in2_features,
            "out_features": out_features,
            "weight": TensorValue((out_features, in1_features, in2_features), "float32"),
            "bias": TensorValue((out_features,), "float32") if bias else None}


@Bilinear.forward
def _bilinear_forward(ctx, m, input1, input2):
    a, b = ctx.shape(input1), ctx.shape(input2)
    ctx.require(S.eq(a[-1], m["in1_features"]), SHAPE_MISMATCH,
                f"input1 size of last dimension ({S.dim_text(a[-1])}) does not match the weight "
                f"({S.dim_text(m['in1_features'])})")
    ctx.require(S.eq(b[-1], m["in2_features"]), SHAPE_MISMATCH,
                f"input2 size of last dimension ({S.dim_text(b[-1])}) does not match the weight "
                f"({S.dim_text(m['in2_features'])})")
    return TensorValue(a[:-1] + (m["out_features"],), input1.dtype)
