"""Elementwise ops and broadcasting: arithmetic, comparisons, activations, where."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (DEFAULT_FLOAT, DTYPE_MISMATCH, FLOAT_DTYPES, ILLEGAL_VALUE, SHAPE_MISMATCH,
                   OpContext, ShapeError, TensorValue, Unknowable, is_tensor, op, promote)


def broadcast_shapes(ctx, *shapes):
    """PyTorch's broadcasting of several shapes (right-aligned; 1 stretches)."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-1, -rank - 1, -1):  # from the last dim, as torch does: its error names the last mismatch
        dims = [s[i] for s in shapes if len(s) >= -i]
        result = 1
        for pos, d in enumerate(dims):
            result = _broadcast_dim(ctx, result, d, shapes, i, pos)
        out.append(result)
    return tuple(reversed(out))


@op("torch.broadcast_shapes")
def broadcast_shapes_of_sizes(ctx, *shapes):
    """torch.broadcast_shapes((2, 1), (3,)): the size the shapes broadcast to, by the rule
    tensors broadcast by. A mismatch is left Unknown (torch words it its own way), and no
    condition is asked of the checker (a fresh context: nothing reported from here)."""
    sizes = []
    for s in shapes:
        if isinstance(s, (tuple, list)):
            sizes.append(tuple(s))
        elif isinstance(s, (int, S.Expr)):
            sizes.append((s,))
        else:
            raise Unknowable("not a size")
    try:
        return broadcast_shapes(OpContext(), *sizes)
    except ShapeError:
        raise Unknowable("sizes that do not broadcast") from None


def _broadcast_dim(ctx, a, b, shapes, axis, pos):
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        # `?` against a size known to be more than 1: the `?` is 1 or that size (else the op
        # fails), and the result is that size either way.
        other = b if a is UNKNOWN else a
        return other if type(other) is int and other > 1 else UNKNOWN
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
    # A side that is at least 2 is the result either way (the other equals it or is 1);
    # when both are, they are equal and the shorter one reads better.
    simpler, other = (a, b) if len(str(a)) <= len(str(b)) else (b, a)
    for cond, result in ((S.eq(a, 1), b), (S.eq(b, 1), a), (S.eq(a, b), a),
                         (S.ge(simpler, 2), simpler), (S.ge(other, 2), other)):
        try:
            if ctx.decide(cond):
                return result
        except Unknowable:
            pass
    return S.dmax(a, b)


_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}


def dtype_name(d):
    return _DTYPE_NAMES.get(d, d)


def _is_number(x):
    return isinstance(x, (bool, int, float, complex, S.Expr))


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
    if isinstance(x, complex):
        return (), None  # `1j * x`: a complex tensor of x's shape (its dtype is left unknown)
    raise Unknowable("operand is not a tensor or number")


def result_type(*xs):
    """torch.result_type over tensors and Python scalars (None when a dtype is unknown)."""
    tensors = [x for x in xs if is_tensor(x)]
    if not tensors:
        kinds = [_operand(x)[1] for x in xs]
        return promote(*kinds)
    dtype = promote(*[t.dtype for t in tensors])
    for x in xs:
        if not is_tensor(x):
            dtype = _with_scalar(dtype, _operand(x)[1])
    return dtype


def can_cast(frm, to) -> bool:
    """torch.can_cast: no float -> integral, no non-bool -> bool (unknown dtypes pass)."""
    if frm is None or to is None:
        return True
    if frm in FLOAT_DTYPES and to not in FLOAT_DTYPES:
        return False
    if frm != "bool" and to == "bool":
        return False
    return True


def inplace_result(ctx, self, out_shape, out_dtype):
    """An in-place op writes into `self`: the broadcast shape must be self's, and the
    result dtype must cast to self's."""
    if not is_tensor(self):
        raise Unknowable("self is not a tensor")
    sshape = self.shape
    if sshape is not None and out_shape is not None:
        msg = (f"output with shape {S.size_text(sshape)} doesn't match the broadcast shape "
               f"{S.size_text(out_shape)}")
        if len(out_shape) != len(sshape):
            ctx.fail(SHAPE_MISMATCH, msg)
        for o, s in zip(out_shape, sshape):
            if o is UNKNOWN or s is UNKNOWN:
                continue
            ctx.require(S.eq(o, s), SHAPE_MISMATCH, msg)
    if not can_cast(out_dtype, self.dtype):
        ctx.fail(DTYPE_MISMATCH, f"result type {dtype_name(out_dtype)} can't be cast to the desired "
                                 f"output type {dtype_name(self.dtype)}")
    return TensorValue(sshape, self.dtype)


def binary(ctx, a, b, result_dtype=None):
    (sa, da), (sb, db) = _operand(a), _operand(b)
    if not is_tensor(a) and not is_tensor(b):
        raise Unknowable("no tensor operand")
    shape = broadcast_shapes(ctx, sa, sb)
    if result_dtype is None:
        result_dtype = result_type(a, b)
    return TensorValue(shape, result_dtype)


def _with_scalar(tensor_dtype, scalar_dtype):
    """A Python scalar only lifts an integer or bool tensor to float (int tensor * 0.5)."""
    if tensor_dtype is None or scalar_dtype is None:
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
_DUNDER = {"add": ["__add__", "__radd__"], "sub": ["__sub__"],
           "mul": ["__mul__", "__rmul__"], "div": ["__truediv__"],
           "floor_divide": ["__floordiv__"], "remainder": ["__mod__"],
           "pow": ["__pow__"], "bitwise_and": ["__and__", "__rand__"],
           "bitwise_or": ["__or__", "__ror__"], "bitwise_xor": ["__xor__", "__rxor__"]}
_IDUNDER = {"add": ["__iadd__"], "sub": ["__isub__"], "mul": ["__imul__"],
            "div": ["__itruediv__"], "floor_divide": ["__ifloordiv__"], "remainder": ["__imod__"],
            "pow": ["__ipow__"], "bitwise_and": ["__iand__"], "bitwise_or": ["__ior__"],
            "bitwise_xor": ["__ixor__"]}
_CMP_DUNDER = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__",
               "ge": "__ge__"}
_ALIAS = {"subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div"}
# other must be a Tensor (no Python-scalar overload)
_TENSOR_OTHER = {"atan2", "maximum", "minimum", "fmax", "fmin", "hypot", "logaddexp",
                 "logical_and", "logical_or", "logical_xor", "isclose"}
_TO_FLOAT = {"div", "atan2", "copysign", "xlogy"}  # integral inputs give a float result
_INT_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor"}
_FLOAT_ONLY = {"hypot", "logaddexp"}
_NO_BOOL = {"floor_divide", "remainder", "fmod"}


def _binary_checked(ctx, name, input, other, alpha=1, rounding_mode=None, compare=False):
    base = _ALIAS.get(name, name)
    if not is_tensor(input) and not is_tensor(other):
        raise Unknowable("no tensor operand")
    if base in _TENSOR_OTHER:
        for which, x in (("input", input), ("other", other)):
            if not is_tensor(x) and _is_number(x):
                ctx.fail(DTYPE_MISMATCH, f"{name}(): argument '{which}' must be Tensor, not "
                                         f"{type(x).__name__}")
    result = binary(ctx, input, other, None)
    common = result.dtype
    da, db = _operand(input)[1], _operand(other)[1]
    if base == "div" and rounding_mode not in (None, "trunc", "floor"):
        ctx.fail(ILLEGAL_VALUE, "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                                f"but found '{rounding_mode}'")
    if common is not None:
        if base == "sub" and "bool" in (da, db):
            ctx.fail(DTYPE_MISMATCH, "Subtraction, the `-` operator, with a bool tensor is not supported.")
        if base in _INT_ONLY and common in FLOAT_DTYPES:
            ctx.fail(DTYPE_MISMATCH, f'"{base}_cpu" not implemented for \'{dtype_name(common)}\'')
        if base in _FLOAT_ONLY and common not in FLOAT_DTYPES:
            ctx.fail(DTYPE_MISMATCH, f'"{base}_cpu" not implemented for \'{dtype_name(common)}\'')
        if base in _NO_BOOL and common == "bool":
            ctx.fail(DTYPE_MISMATCH, f'"{base}_cpu" not implemented for \'Bool\'')
        if base == "pow" and common == "bool" and is_tensor(input) and is_tensor(other):
            ctx.fail(DTYPE_MISMATCH, "\"pow\" not implemented for 'Bool'")
        if base == "isclose" and da != db:
            ctx.fail(DTYPE_MISMATCH, f"{dtype_name(da)} did not match {dtype_name(db)}")
        if base in ("add", "sub") and isinstance(alpha, float) and common not in FLOAT_DTYPES:
            ctx.fail(DTYPE_MISMATCH, "For integral input tensors, argument alpha must not be a "
                                     "floating point number.")
    dtype = common
    if compare:
        dtype = "bool"
    elif dtype is not None and dtype not in FLOAT_DTYPES and (
            base in _TO_FLOAT and not (base == "div" and rounding_mode is not None)):
        dtype = DEFAULT_FLOAT
    return TensorValue(result.shape, dtype)


def _register_binary(name, compare=False):
    names = [f"torch.{name}", f"Tensor.{name}"] + [f"Tensor.{d}" for d in _DUNDER.get(name, [])]
    if name in _CMP_DUNDER:
        names.append(f"Tensor.{_CMP_DUNDER[name]}")
    inplace_names = [f"Tensor.{name}_"] + [f"Tensor.{d}" for d in _IDUNDER.get(name, [])]

    def spec(ctx, input, other, *, alpha=1, out=None, rounding_mode=None):
        return _binary_checked(ctx, name, input, other, alpha, rounding_mode, compare)

    def spec_(ctx, input, other, *, alpha=1, rounding_mode=None):
        if not is_tensor(input):
            raise Unknowable("self is not a tensor")
        r = _binary_checked(ctx, name, input, other, alpha, rounding_mode, compare)
        return inplace_result(ctx, input, r.shape, r.dtype)

    spec.__name__ = name
    spec_.__name__ = name + "_"
    op(*names)(spec)
    if name != "isclose":
        op(*inplace_names)(spec_)


for _name in _ARITH:
    _register_binary(_name)
for _name in _COMPARE:
    _register_binary(_name, compare=True)


@op("Tensor.__rsub__")
def rsub(ctx, input, other):
    return _binary_checked(ctx, "sub", other, input)


@op("Tensor.__rtruediv__")
def rtruediv(ctx, input, other):
    return _binary_checked(ctx, "div", other, input)


@op("Tensor.__rpow__")
def rpow(ctx, input, other):
    return _binary_checked(ctx, "pow", other, input)


@op("Tensor.where")
def tensor_where(ctx, input, condition, other):
    return where(ctx, condition, input, other)


@op("torch.where")
def where(ctx, condition, input=None, other=None):
    if input is None and other is None:
        # torch.nonzero(cond, as_tuple=True): one 1-D index tensor per dim, of a length that
        # depends on the data
        shape = ctx.shape(condition)
        return tuple(TensorValue((UNKNOWN,), "int64") for _ in range(max(len(shape), 1)))
    if is_tensor(condition) and condition.dtype is not None and condition.dtype not in ("bool", "uint8"):
        ctx.fail(DTYPE_MISMATCH, "where expected condition to be a boolean tensor, but got a tensor "
                                 f"with dtype {dtype_name(condition.dtype)}")
    shapes = [_operand(x)[0] for x in (condition, input, other)]
    dtype = result_type(input, other)
    return TensorValue(broadcast_shapes(ctx, *shapes), dtype)


def _lerp(ctx, input, end, weight):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    for what, x in (("end", end), ("weight", weight)):
        if is_tensor(x) and input.dtype is not None and x.dtype is not None and x.dtype != input.dtype:
            ctx.fail(DTYPE_MISMATCH, f"expected dtype {dtype_name(input.dtype)} for `{what}` but got "
                                     f"dtype {dtype_name(x.dtype)}")
    if input.dtype is not None and input.dtype not in FLOAT_DTYPES:
        ctx.fail(DTYPE_MISMATCH, f"\"lerp_kernel\" not implemented for '{dtype_name(input.dtype)}'")
    shapes = [_operand(x)[0] for x in (input, end, weight)]
    return TensorValue(broadcast_shapes(ctx, *shapes), input.dtype)


@op("torch.lerp", "Tensor.lerp")
def lerp(ctx, input, end, weight):
    return _lerp(ctx, input, end, weight)


@op("Tensor.lerp_")
def lerp_(ctx, input, end, weight):
    r = _lerp(ctx, input, end, weight)
    return inplace_result(ctx, input, r.shape, r.dtype)


@op("torch.addcmul", "Tensor.addcmul", "torch.addcdiv", "Tensor.addcdiv")
def addcmul(ctx, input, tensor1, tensor2, *, value=1):
    shapes = [_operand(x)[0] for x in (input, tensor1, tensor2)]
    return TensorValue(broadcast_shapes(ctx, *shapes), input.dtype)


# ---------------------------------------------------------------------------------------
# clamp / clip, masked_fill, fill_, copy_, requires_grad_
# ---------------------------------------------------------------------------------------

def _clamp(ctx, input, min, max):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    if min is None and max is None:
        ctx.fail(ILLEGAL_VALUE, "torch.clamp: At least one of 'min' or 'max' must not be None")
    parts = [x for x in (input, min, max) if x is not None]
    unknown = [x for x in parts if not is_tensor(x) and not _is_number(x)]
    parts = [x for x in parts if is_tensor(x) or _is_number(x)]  # an unknown bound: a scalar
    shapes = [_operand(x)[0] for x in parts]
    return TensorValue(broadcast_shapes(ctx, *shapes), None if unknown else result_type(*parts))


@op("torch.clamp", "Tensor.clamp", "torch.clip", "Tensor.clip")
def clamp(ctx, input, min=None, max=None, *, out=None):
    return _clamp(ctx, input, min, max)


@op("Tensor.clamp_", "Tensor.clip_", "torch.clamp_", "torch.clip_")
def clamp_(ctx, input, min=None, max=None):
    r = _clamp(ctx, input, min, max)
    return inplace_result(ctx, input, r.shape, r.dtype)


@op("torch.clamp_min", "Tensor.clamp_min", "torch.clamp_max", "Tensor.clamp_max")
def clamp_min(ctx, input, other):
    if not is_tensor(other) and not _is_number(other):
        return TensorValue(ctx.shape(input), None)
    return binary(ctx, input, other)


@op("Tensor.clamp_min_", "Tensor.clamp_max_", "torch.clamp_min_", "torch.clamp_max_")
def clamp_min_(ctx, input, other):
    r = binary(ctx, input, other)
    return inplace_result(ctx, input, r.shape, r.dtype)


def _masked(ctx, input, mask, op_name, dtype_text):
    """What masked_fill and masked_scatter share: two tensors, a boolean mask, and the shape
    of input and mask broadcast (`dtype_text`: how torch spells the mask's dtype there)."""
    if not is_tensor(input) or not is_tensor(mask):
        raise Unknowable("not a tensor")
    if mask.dtype is not None and mask.dtype != "bool":
        ctx.fail(DTYPE_MISMATCH, f"{op_name}_ only supports boolean masks, but got mask with dtype "
                                 f"{dtype_text(mask.dtype)}")
    return broadcast_shapes(ctx, input.shape, mask.shape)


def _masked_fill(ctx, input, mask, value):
    shape = _masked(ctx, input, mask, "masked_fill", str)
    if is_tensor(value) and value.shape is not None and len(value.shape) != 0:
        ctx.fail(SHAPE_MISMATCH, "masked_fill_ only supports a 0-dimensional value tensor, but got "
                                 f"tensor with {len(value.shape)} dimension(s).")
    return TensorValue(shape, input.dtype)


def _masked_scatter(ctx, input, mask, source):
    """Where the mask is set, the next items of `source` in order. How many items are taken
    depends on the mask's values, so source's size is not checked (a source of unknown shape
    is fine: `x.masked_select(m)` normed and put back)."""
    shape = _masked(ctx, input, mask, "masked_scatter", dtype_name)
    if is_tensor(source) and None not in (input.dtype, source.dtype) and input.dtype != source.dtype:
        ctx.fail(DTYPE_MISMATCH, "masked_scatter: expected self and source to have same dtypes but got"
                                 f"{dtype_name(input.dtype)} and {dtype_name(source.dtype)}")
    return TensorValue(shape, input.dtype)


@op("torch.masked_fill", "Tensor.masked_fill")
def masked_fill(ctx, input, mask, value):
    return _masked_fill(ctx, input, mask, value)


@op("Tensor.masked_fill_")
def masked_fill_(ctx, input, mask, value):
    return inplace_result(ctx, input, _masked_fill(ctx, input, mask, value).shape, input.dtype)


@op("torch.masked_scatter", "Tensor.masked_scatter")
def masked_scatter(ctx, input, mask, source):
    return _masked_scatter(ctx, input, mask, source)


@op("Tensor.masked_scatter_")
def masked_scatter_(ctx, input, mask, source):
    return inplace_result(ctx, input, _masked_scatter(ctx, input, mask, source).shape, input.dtype)


@op("Tensor.fill_", "torch.fill_", "torch.fill")
def fill_(ctx, input, value):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    if is_tensor(value) and value.shape is not None and len(value.shape) != 0:
        ctx.fail(SHAPE_MISMATCH, "fill_ only supports 0-dimension value tensor but got tensor with "
                                 f"{len(value.shape)} dimensions.")
    return TensorValue(input.shape, input.dtype)


@op("Tensor.copy_")
def copy_(ctx, input, src, non_blocking=False):
    if not is_tensor(input) or not is_tensor(src):
        raise Unknowable("not a tensor")
    shape = broadcast_shapes(ctx, input.shape, src.shape)
    return inplace_result(ctx, input, shape, None)


@op("Tensor.requires_grad_")
def requires_grad_(ctx, input, requires_grad=True):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    if requires_grad is True and input.dtype is not None and input.dtype not in FLOAT_DTYPES:
        ctx.fail(DTYPE_MISMATCH, "only Tensors of floating point dtype can require gradients")
    return TensorValue(input.shape, input.dtype)


# ---------------------------------------------------------------------------------------
# Unary elementwise ops: the output has the input's shape.
# ---------------------------------------------------------------------------------------

_UNARY = ["abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
          "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
          "atanh", "sigmoid", "relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu",
          "leaky_relu", "hardtanh", "hardsigmoid", "hardswish", "softplus", "softsign",
          "tanhshrink", "logsigmoid", "erf", "erfc", "erfinv", "floor", "ceil", "round", "trunc",
          "frac", "sign", "sgn", "reciprocal", "square", "nan_to_num", "contiguous", "clone",
          "detach", "float", "double", "half", "bfloat16", "int", "long", "bool", "byte", "char",
          "short", "cpu", "cuda",
          "to", "type_as", "zero_", "normal_", "uniform_", "exponential_",
          "bernoulli", "threshold", "softshrink", "hardshrink", "rrelu",
          "logit", "positive", "negative", "bitwise_not", "logical_not", "isnan", "isinf",
          "isfinite", "signbit", "angle", "conj", "real", "pin_memory", "share_memory_"]
_DTYPE_OF = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
             "int": "int32", "long": "int64", "bool": "bool", "byte": "uint8", "char": "int8",
             "short": "int16", "isnan": "bool", "isinf": "bool",
             "isfinite": "bool", "signbit": "bool", "logical_not": "bool"}
# integral/bool inputs give a float32 result
_U_TO_FLOAT = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
               "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
               "sigmoid", "erf", "erfc", "erfinv", "reciprocal", "logit", "angle", "softsign",
               "tanhshrink"}
# floating inputs only
_U_FLOAT_ONLY = {"gelu", "silu", "mish", "elu", "selu", "celu", "leaky_relu", "hardsigmoid",
                 "hardswish", "softplus", "logsigmoid", "softshrink", "hardshrink", "rrelu", "frac",
                 "normal_", "uniform_", "exponential_"}
# no bool inputs
_U_NO_BOOL = {"abs", "neg", "negative", "relu", "relu6", "hardtanh", "floor", "ceil", "round",
              "trunc", "threshold", "positive", "softsign", "tanhshrink"}
_U_NO_FLOAT = {"bitwise_not"}
# a complex input gives the real dtype of its parts
_COMPLEX_TO_REAL = {"abs", "angle", "real"}
_REAL_OF = {"complex64": "float32", "complex128": "float64", "complex32": "float16"}
_INPLACE_BY_NAME = {"zero_", "normal_", "uniform_", "exponential_", "share_memory_"}


def _arg(args, kwargs, i, name, default):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _unary_checks(ctx, name, input, args, kwargs):
    dt = input.dtype
    if dt is not None:
        if name in _U_FLOAT_ONLY and dt not in FLOAT_DTYPES:
            ctx.fail(DTYPE_MISMATCH, f'"{name}" not implemented for \'{dtype_name(dt)}\'')
        if name in _U_NO_BOOL and dt == "bool":
            ctx.fail(DTYPE_MISMATCH, f"Boolean inputs not supported for {name}")
        if name in _U_NO_FLOAT and dt in FLOAT_DTYPES:
            ctx.fail(DTYPE_MISMATCH, f'"{name}_cpu" not implemented for \'{dtype_name(dt)}\'')
        if name == "bernoulli" and dt not in FLOAT_DTYPES:
            ctx.fail(DTYPE_MISMATCH, f'"bernoulli" not implemented for \'{dtype_name(dt)}\'')
    if name == "softshrink":
        lambd = _arg(args, kwargs, 0, "lambd", 0.5)
        if _num(lambd) and lambd < 0:
            ctx.fail(ILLEGAL_VALUE, f"lambda must be in range [0, 3.40282e+38] for input dtype "
                                    f"{dtype_name(dt)}, but found {lambd}")
    if name == "celu":
        alpha = _arg(args, kwargs, 0, "alpha", 1.0)
        if _num(alpha) and alpha == 0:
            ctx.fail(ILLEGAL_VALUE, "ZeroDivisionError: alpha cannot be 0 for CELU")
    if name == "hardtanh":
        lo, hi = _arg(args, kwargs, 0, "min_val", -1.0), _arg(args, kwargs, 1, "max_val", 1.0)
        if _num(lo) and _num(hi) and lo > hi:
            ctx.fail(ILLEGAL_VALUE, "min_val cannot be greater than max_val")
    if name == "rrelu":
        lo, hi = _arg(args, kwargs, 0, "lower", 1.0 / 8), _arg(args, kwargs, 1, "upper", 1.0 / 3)
        if _num(lo) and _num(hi) and lo > hi:
            ctx.fail(ILLEGAL_VALUE, "Lower bound should be less than or equal to the upper bound")
    if name == "gelu":
        approx = kwargs.get("approximate", "none")
        if isinstance(approx, str) and approx not in ("none", "tanh"):
            ctx.fail(ILLEGAL_VALUE, "approximate argument must be either none or tanh.")
    dtype = _DTYPE_OF.get(name, dt)
    if name in _COMPLEX_TO_REAL and dt in _REAL_OF:
        dtype = _REAL_OF[dt]  # `torch.abs(torch.view_as_complex(spec))`: a magnitude, real
    elif name in _U_TO_FLOAT and dt is not None and dt not in FLOAT_DTYPES:
        dtype = DEFAULT_FLOAT
    if name in ("to", "type_as"):
        dtype = _to_dtype(args, kwargs, input)
    return dtype


def _register_unary(name):
    functional = [f"torch.{name}", f"torch.nn.functional.{name}", f"Tensor.{name}",
                  f"torch.special.{name}"]
    inplace = [f"Tensor.{name}_", f"torch.{name}_", f"torch.nn.functional.{name}_"]
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
        if kwargs.get("inplace") is True:
            return spec_(ctx, input, *args, **kwargs)
        return TensorValue(input.shape, _unary_checks(ctx, name, input, args, kwargs))

    def spec_(ctx, input, *args, **kwargs):
        if not is_tensor(input):
            raise Unknowable("not a tensor")
        dtype = _unary_checks(ctx, name, input, args, kwargs)
        return inplace_result(ctx, input, input.shape, dtype)

    spec.__name__ = name
    spec_.__name__ = name + "_"
    if name in _INPLACE_BY_NAME:
        op(*functional)(spec_)
        return
    op(*functional)(spec)
    if name not in _DTYPE_OF and name not in ("contiguous", "clone", "detach", "cpu", "cuda", "to",
                                             "type_as", "pin_memory", "conj", "real", "angle"):
        op(*inplace)(spec_)


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


# ---------------------------------------------------------------------------------------
# dropout
# ---------------------------------------------------------------------------------------

def _dropout(ctx, kind, input, p, training):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    if _num(p) and not 0 <= p <= 1:
        ctx.fail(ILLEGAL_VALUE, f"dropout probability has to be between 0 and 1, but got {p}")
    rank = None if input.shape is None else len(input.shape)
    if kind == "1d" and rank is not None and rank not in (2, 3):
        ctx.fail(SHAPE_MISMATCH, f"dropout1d: Expected 2D or 3D input, but received a {rank}D input.")
    if training is True:
        if kind in ("1d", "2d", "3d", "feature_alpha") and rank is not None and rank < 2:
            ctx.fail(SHAPE_MISMATCH, "Feature dropout requires at least 2 dimensions in the input")
        if _num(p) and 0 < p < 1 and input.dtype is not None and input.dtype not in FLOAT_DTYPES:
            ctx.fail(DTYPE_MISMATCH, f"result type Float can't be cast to the desired output type "
                                     f"{dtype_name(input.dtype)}")
    return TensorValue(input.shape, input.dtype)


def _register_dropout(kind, fname, torch_name, training_default):
    def spec(ctx, input, p=0.5, training=training_default, inplace=False):
        return _dropout(ctx, kind, input, p, training)

    def spec_t(ctx, input, p, train):
        return _dropout(ctx, kind, input, p, train)

    op(f"torch.nn.functional.{fname}")(spec)
    if torch_name:
        op(f"torch.{torch_name}", f"torch.{torch_name}_")(spec_t)


_register_dropout("plain", "dropout", "dropout", True)
_register_dropout("alpha", "alpha_dropout", "alpha_dropout", False)
_register_dropout("feature_alpha", "feature_alpha_dropout", "feature_alpha_dropout", False)
_register_dropout("1d", "dropout1d", None, True)
_register_dropout("2d", "dropout2d", None, True)
_register_dropout("3d", "dropout3d", None, True)


@op("torch.softmax", "torch.nn.functional.softmax", "Tensor.softmax", "torch.log_softmax",
    "torch.nn.functional.log_softmax", "Tensor.log_softmax", "torch.special.softmax",
    "torch.nn.functional.softmin", "torch.special.log_softmax")
def softmax(ctx, input, dim=None, _stacklevel=3, dtype=None):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    if dim is not None and input.shape is not None:
        ctx.wrap_dim(dim, len(input.shape))
    if dtype is None and input.dtype is not None and input.dtype not in FLOAT_DTYPES:
        ctx.fail(DTYPE_MISMATCH, f"\"softmax_kernel_impl\" not implemented for '{dtype_name(input.dtype)}'")
    return TensorValue(input.shape, str(dtype) if dtype is not None else input.dtype)


@op("torch.nn.functional.glu", "torch.glu")
def glu(ctx, input, dim=-1):
    shape = list(ctx.shape(input))
    if len(shape) == 0:
        ctx.fail(SHAPE_MISMATCH, "glu does not support scalars because halving size must be even")
    d = ctx.wrap_dim(dim, len(shape))
    half = shape[d] // 2 if shape[d] is not UNKNOWN else UNKNOWN
    ctx.require(S.eq(shape[d] % 2, 0) if shape[d] is not UNKNOWN else UNKNOWN, SHAPE_MISMATCH,
                f"Halving dimension must be even, but dimension {d} is size {shape[d]}")
    if input.dtype is not None and input.dtype not in FLOAT_DTYPES:
        ctx.fail(DTYPE_MISMATCH, f"\"glu_cpu\" not implemented for '{dtype_name(input.dtype)}'")
    shape[d] = half
    return TensorValue(tuple(shape), input.dtype)
