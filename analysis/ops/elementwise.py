"""Elementwise ops and broadcasting: arithmetic, comparisons, activations, where."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (DEFAULT_FLOAT, SHAPE_MISMATCH, TensorValue, Unknowable, is_tensor, op,
                   promote)


def broadcast_shapes(ctx, *shapes):
    """PyTorch's broadcasting of several shapes (right-aligned; 1 stretches)."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-rank, 0):
        dims = [s[i] for s in shapes if len(s) >= -i]
        result = 1
        for pos, d in enumerate(dims):
            result = _broadcast_dim(ctx, result, d, shapes, i, pos)
        out.append(result)
    return tuple(out)


def _broadcast_dim(ctx, a, b, shapes, axis, pos):
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if isinstance(a, int) and isinstance(b, int):
        ctx.fail(SHAPE_MISMATCH,
                 f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                 f"at non-singleton dimension {len(max(shapes, key=len)) + axis}")
    # A symbolic side: it must equal the other or be 1. When the other side is a constant
    # other than 1, the result is that constant either way.
    if isinstance(b, int):
        ctx.require(S.or_(S.eq(a, b), S.eq(a, 1)), SHAPE_MISMATCH,
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                    f"at non-singleton dimension {len(max(shapes, key=len)) + axis}")
        return b
    if isinstance(a, int):
        ctx.require(S.or_(S.eq(b, a), S.eq(b, 1)), SHAPE_MISMATCH,
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                    f"at non-singleton dimension {len(max(shapes, key=len)) + axis}")
        return a
    # Two different symbolic dims: they must be equal or one of them 1.
    ctx.require(S.or_(S.eq(a, b), S.eq(a, 1), S.eq(b, 1)), SHAPE_MISMATCH,
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                f"at non-singleton dimension {len(max(shapes, key=len)) + axis}")
    for cond, result in ((S.eq(a, 1), b), (S.eq(b, 1), a), (S.eq(a, b), a)):
        try:
            if ctx.decide(cond):
                return result
        except Unknowable:
            pass
    return S.dmax(a, b)


def _operand(x):
    """A tensor, or a Python scalar (a 0-dim participant that does not change the shape)."""
    if is_tensor(x):
        return x.shape, x.dtype
    if isinstance(x, bool):
        return (), "bool"
    if isinstance(x, int) or isinstance(x, S.Expr):
        return (), "int64"
    if isinstance(x, float):
        return (), "float32"
    raise Unknowable("operand is not a tensor or number")


def binary(ctx, a, b, result_dtype=None):
    (sa, da), (sb, db) = _operand(a), _operand(b)
    if not is_tensor(a) and not is_tensor(b):
        raise Unknowable("no tensor operand")
    shape = broadcast_shapes(ctx, sa, sb)
    if result_dtype is None:
        if not is_tensor(a):
            result_dtype = _with_scalar(db, da)
        elif not is_tensor(b):
            result_dtype = _with_scalar(da, db)
        else:
            result_dtype = promote(da, db)
    return TensorValue(shape, result_dtype)


def _with_scalar(tensor_dtype, scalar_dtype):
    """A Python scalar only lifts an integer or bool tensor to float (int tensor * 0.5)."""
    if tensor_dtype is None:
        return None
    if scalar_dtype == "float32" and tensor_dtype not in ("float16", "bfloat16", "float32", "float64"):
        return "float32"
    if scalar_dtype == "int64" and tensor_dtype == "bool":
        return "int64"
    return tensor_dtype


_ARITH = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
          "atan2", "maximum", "minimum", "fmax", "fmin", "hypot", "logaddexp", "bitwise_and",
          "bitwise_or", "bitwise_xor", "copysign", "xlogy", "subtract", "multiply", "divide"]
_COMPARE = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
            "greater", "less", "greater_equal", "less_equal", "not_equal", "isclose"]
_DUNDER = {"add": ["__add__", "__radd__", "__iadd__"], "sub": ["__sub__", "__isub__"],
           "mul": ["__mul__", "__rmul__", "__imul__"], "div": ["__truediv__", "__itruediv__"],
           "floor_divide": ["__floordiv__", "__ifloordiv__"], "remainder": ["__mod__", "__imod__"],
           "pow": ["__pow__", "__ipow__"], "bitwise_and": ["__and__", "__iand__"],
           "bitwise_or": ["__or__", "__ior__"], "bitwise_xor": ["__xor__", "__ixor__"]}
_CMP_DUNDER = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__",
               "ge": "__ge__"}


def _register_binary(name, dtype=None):
    names = [f"torch.{name}", f"Tensor.{name}", f"Tensor.{name}_"]
    names += [f"Tensor.{d}" for d in _DUNDER.get(name, [])]
    if name in _CMP_DUNDER:
        names.append(f"Tensor.{_CMP_DUNDER[name]}")

    def spec(ctx, input, other, *, alpha=1, out=None, rounding_mode=None):
        result = binary(ctx, input, other, dtype)
        if name in ("div", "true_divide", "divide") and rounding_mode is None and result.dtype not in (None,) \
                and result.dtype not in ("float16", "bfloat16", "float32", "float64"):
            result = TensorValue(result.shape, DEFAULT_FLOAT)
        return result

    spec.__name__ = name
    op(*names)(spec)


for _name in _ARITH:
    _register_binary(_name)
for _name in _COMPARE:
    _register_binary(_name, "bool")


@op("Tensor.__rsub__")
def rsub(ctx, input, other):
    return binary(ctx, other, input)


@op("Tensor.__rtruediv__")
def rtruediv(ctx, input, other):
    return binary(ctx, other, input)


@op("Tensor.__rpow__")
def rpow(ctx, input, other):
    return binary(ctx, other, input)


@op("torch.where", "Tensor.where")
def where(ctx, condition, input=None, other=None):
    if input is None and other is None:
        raise Unknowable("torch.where(cond) returns data-dependent indices")
    shapes = [_operand(x)[0] for x in (condition, input, other)]
    dtype = promote(_operand(input)[1], _operand(other)[1])
    return TensorValue(broadcast_shapes(ctx, *shapes), dtype)


@op("torch.lerp", "Tensor.lerp")
def lerp(ctx, input, end, weight):
    shapes = [_operand(x)[0] for x in (input, end, weight)]
    return TensorValue(broadcast_shapes(ctx, *shapes), input.dtype if is_tensor(input) else None)


@op("torch.addcmul", "Tensor.addcmul", "torch.addcdiv", "Tensor.addcdiv")
def addcmul(ctx, input, tensor1, tensor2, *, value=1):
    shapes = [_operand(x)[0] for x in (input, tensor1, tensor2)]
    return TensorValue(broadcast_shapes(ctx, *shapes), input.dtype)


# Unary elementwise ops: the output has the input's shape.
_UNARY = ["abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
          "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
          "atanh", "sigmoid", "relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu",
          "leaky_relu", "hardtanh", "hardsigmoid", "hardswish", "softplus", "softsign",
          "tanhshrink", "logsigmoid", "erf", "erfc", "erfinv", "floor", "ceil", "round", "trunc",
          "frac", "sign", "sgn", "reciprocal", "square", "clamp", "clip", "clamp_min",
          "clamp_max", "nan_to_num", "sigmoid_", "contiguous", "clone", "detach", "float",
          "double", "half", "bfloat16", "int", "long", "bool", "cpu", "cuda", "to", "type_as",
          "requires_grad_", "zero_", "fill_", "normal_", "uniform_", "exponential_",
          "bernoulli", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d",
          "dropout2d", "dropout3d", "threshold", "softshrink", "hardshrink", "rrelu", "glu_",
          "logit", "positive", "negative", "bitwise_not", "logical_not", "isnan", "isinf",
          "isfinite", "signbit", "angle", "conj", "real", "pin_memory", "share_memory_",
          "masked_fill", "masked_fill_", "clamp_", "add_", "mul_", "copy_", "lerp_", "data_ptr_"]
_DTYPE_OF = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
             "int": "int32", "long": "int64", "bool": "bool", "isnan": "bool", "isinf": "bool",
             "isfinite": "bool", "signbit": "bool", "logical_not": "bool"}


def _register_unary(name):
    functional = [f"torch.{name}", f"torch.nn.functional.{name}", f"Tensor.{name}",
                  f"Tensor.{name}_", f"torch.{name}_", f"torch.nn.functional.{name}_",
                  f"torch.special.{name}"]
    if name == "neg":
        functional.append("Tensor.__neg__")
    if name == "abs":
        functional.append("Tensor.__abs__")
    if name == "bitwise_not":
        functional.append("Tensor.__invert__")
    if name == "positive":
        functional.append("Tensor.__pos__")

    def spec(ctx, input, *args, **kwargs):
        if not is_tensor(input):
            raise Unknowable("not a tensor")
        dtype = _DTYPE_OF.get(name, input.dtype)
        if name == "to" or name == "type_as":
            dtype = _to_dtype(args, kwargs, input)
        if name == "masked_fill" or name == "masked_fill_":
            if args and is_tensor(args[0]):
                broadcast_shapes(ctx, input.shape, args[0].shape)
        return TensorValue(input.shape, dtype)

    spec.__name__ = name
    op(*functional)(spec)


def _to_dtype(args, kwargs, input):
    from .spec import Dtype
    candidates = list(args) + [kwargs.get("dtype")]
    for c in candidates:
        if isinstance(c, Dtype):
            return str(c)
        if is_tensor(c):
            return c.dtype
    return input.dtype


for _name in _UNARY:
    _register_unary(_name)


@op("torch.softmax", "torch.nn.functional.softmax", "Tensor.softmax", "torch.log_softmax",
    "torch.nn.functional.log_softmax", "Tensor.log_softmax", "torch.special.softmax",
    "torch.nn.functional.softmin", "torch.special.log_softmax")
def softmax(ctx, input, dim=None, _stacklevel=3, dtype=None):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    if dim is not None and input.shape is not None:
        ctx.wrap_dim(dim, len(input.shape))
    return TensorValue(input.shape, str(dtype) if dtype is not None else input.dtype)


@op("torch.nn.functional.glu", "torch.glu")
def glu(ctx, input, dim=-1):
    shape = list(ctx.shape(input))
    d = ctx.wrap_dim(dim, len(shape))
    half = shape[d] // 2 if shape[d] is not UNKNOWN else UNKNOWN
    ctx.require(S.eq(shape[d] % 2, 0) if shape[d] is not UNKNOWN else UNKNOWN, SHAPE_MISMATCH,
                f"Halving dimension must be even, but dimension {d} is size {shape[d]}")
    shape[d] = half
    return TensorValue(tuple(shape), input.dtype)
