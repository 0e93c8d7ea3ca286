"""Reductions and scans: sum/mean/prod/std/var/norm/amax/amin/logsumexp/all/any, max/min,
argmax/argmin, median/mode, cumsum/cumprod/cummax/cummin, topk/kthvalue, sort/argsort."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import binary
from .indexing import broadcast_checked
from .shape_ops import is_dim
from .spec import (DTYPE_MISMATCH, ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH, Dtype,
                   TensorValue, Unknowable, is_tensor, op)

_FLOAT = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
_TYPE_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
              "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
              "bool": "Bool"}


def _dims(v, empty_is_none=False):
    """dim=None / () -> None (all dims); an int or a sequence of known ints -> list."""
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        if len(v) == 0:
            return [] if empty_is_none else None
        items = list(v)
    else:
        items = [v]
    for d in items:
        if isinstance(d, bool) or not isinstance(d, int):
            raise Unknowable(f"not a known dim: {d!r}")
    return items


def reduce_shape(ctx, input, dim, keepdim=False, name=None, nonzero=False, empty_is_none=False):
    """The output shape of reducing `dim` (None: every dim), PyTorch's checks included."""
    shape = ctx.shape(input)
    r = len(shape)
    if not isinstance(keepdim, bool):
        if keepdim is UNKNOWN:
            raise Unknowable("keepdim")
        raise Unknowable("keepdim must be a bool")
    dims = _dims(dim, empty_is_none)
    if dims is None:
        targets = list(range(r))
    else:
        targets = []
        for d in dims:
            w = ctx.wrap_dim(d, r)
            w = 0 if r == 0 else w
            if w in targets:
                ctx.fail(IMPROPER_VALUE, f"dim {w} appears multiple times in the list of dims")
            targets.append(w)
    if nonzero and r > 0:
        for t in targets:
            ctx.require(S.gt(shape[t], 0), SHAPE_MISMATCH,
                        f"{name}(): Expected reduction dim {t} to have non-zero size.")
    if keepdim:
        return tuple(1 if i in targets else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in targets)


def _keepdim(dim, keepdim):
    """keepdim without a dim is a TypeError for the one-dim reductions."""
    if keepdim is None:
        return False
    if dim is None:
        raise Unknowable("keepdim without dim (TypeError)")
    return keepdim


def _tensor(ctx, x):
    if not is_tensor(x):
        raise Unknowable("not a tensor")
    return x


def _out_dtype(dtype, default):
    if dtype is None:
        return default
    return str(dtype) if isinstance(dtype, Dtype) else None


def _int_to_long(dt):
    if dt is None:
        return None
    return dt if dt in _FLOAT else "int64"


@op("torch.sum", "Tensor.sum", "torch.nansum", "Tensor.nansum")
def sum_(ctx, input, dim=None, keepdim=False, *, dtype=None, out=None):
    _tensor(ctx, input)
    if isinstance(dim, Dtype):
        dim, dtype = None, dim
    return TensorValue(reduce_shape(ctx, input, dim, keepdim), _out_dtype(dtype, _int_to_long(input.dtype)))


@op("torch.mean", "Tensor.mean", "torch.nanmean", "Tensor.nanmean")
def mean(ctx, input, dim=None, keepdim=False, *, dtype=None, out=None):
    _tensor(ctx, input)
    if isinstance(dim, Dtype):
        dim, dtype = None, dim
    dt = _out_dtype(dtype, input.dtype)
    if dt is not None and dt not in _FLOAT:
        name = ctx.op_name.rsplit(".", 1)[-1] if "nanmean" in (ctx.op_name or "") else "mean"
        ctx.fail(DTYPE_MISMATCH, f"{name}(): could not infer output dtype. Input dtype must be either "
                                 f"a floating point or complex dtype. Got: {_TYPE_NAME.get(dt, dt)}")
    return TensorValue(reduce_shape(ctx, input, dim, keepdim), dt)


@op("torch.prod", "Tensor.prod")
def prod(ctx, input, dim=None, keepdim=None, *, dtype=None, out=None):
    _tensor(ctx, input)
    keepdim = _keepdim(dim, keepdim)
    if isinstance(dim, Dtype):
        dim, dtype = None, dim
    if isinstance(dim, (tuple, list)):
        raise Unknowable("prod() takes one dim (TypeError)")
    return TensorValue(reduce_shape(ctx, input, dim, keepdim), _out_dtype(dtype, _int_to_long(input.dtype)))


def _std_args(dim, unbiased, keepdim):
    if isinstance(dim, bool):  # std(input, unbiased)
        return None, dim, keepdim
    return dim, unbiased, keepdim


def _std_check(ctx, input):
    if input.dtype is not None and input.dtype not in _FLOAT:
        ctx.fail(DTYPE_MISMATCH, "std and var only support floating point and complex dtypes")


@op("torch.std", "Tensor.std", "torch.var", "Tensor.var")
def std(ctx, input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    _tensor(ctx, input)
    dim, unbiased, keepdim = _std_args(dim, unbiased, keepdim)
    _std_check(ctx, input)
    return TensorValue(reduce_shape(ctx, input, dim, keepdim), input.dtype)


@op("torch.std_mean", "torch.var_mean")
def std_mean(ctx, input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    out = std(ctx, input, dim, unbiased, keepdim, correction=correction)
    return (out, out)


@op("torch.norm", "Tensor.norm")
def norm(ctx, input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    _tensor(ctx, input)
    dt = _out_dtype(dtype, input.dtype)
    if input.dtype is not None and input.dtype not in _FLOAT:
        raise Unknowable("norm of an integer tensor")
    return TensorValue(reduce_shape(ctx, input, dim, keepdim), dt)


@op("torch.linalg.vector_norm")
def vector_norm(ctx, x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    _tensor(ctx, x)
    if x.dtype is not None and x.dtype not in _FLOAT:
        raise Unknowable("norm of an integer tensor")
    return TensorValue(reduce_shape(ctx, x, dim, keepdim), _out_dtype(dtype, x.dtype))


def _register_amax(name):
    def spec(ctx, input, dim=(), keepdim=False, *, out=None):
        _tensor(ctx, input)
        shape = ctx.shape(input)
        dims = _dims(dim)
        if dims is None and len(shape) > 0:
            ctx.require(S.gt(S.prod(shape), 0), SHAPE_MISMATCH,
                        f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                        f"Specify the reduction dim with the 'dim' argument.")
        for d in dims or ():
            w = ctx.wrap_dim(d, len(shape))
            if shape:
                ctx.require(S.gt(shape[w], 0), SHAPE_MISMATCH,
                            f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return TensorValue(reduce_shape(ctx, input, dim, keepdim), input.dtype)

    spec.__name__ = name
    op(f"torch.{name}", f"Tensor.{name}")(spec)


_register_amax("amax")
_register_amax("amin")


@op("torch.logsumexp", "Tensor.logsumexp", "torch.special.logsumexp")
def logsumexp(ctx, input, dim, keepdim=False, *, out=None):
    _tensor(ctx, input)
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        raise Unknowable("logsumexp over no dims")
    dt = input.dtype if input.dtype in _FLOAT or input.dtype is None else "float32"
    return TensorValue(reduce_shape(ctx, input, dim, keepdim), dt)


@op("torch.all", "Tensor.all", "torch.any", "Tensor.any")
def all_(ctx, input, dim=None, keepdim=False, *, out=None):
    _tensor(ctx, input)
    dt = "uint8" if input.dtype == "uint8" else ("bool" if input.dtype is not None else None)
    return TensorValue(reduce_shape(ctx, input, dim, keepdim, empty_is_none=True), dt)


@op("torch.count_nonzero", "Tensor.count_nonzero")
def count_nonzero(ctx, input, dim=None):
    _tensor(ctx, input)
    return TensorValue(reduce_shape(ctx, input, dim, False), "int64")


def _full_nonempty(ctx, shape, name, tail=" Specify the reduction dim with the 'dim' argument."):
    if len(shape) > 0:
        ctx.require(S.gt(S.prod(shape), 0), SHAPE_MISMATCH,
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0.{tail}")


def _register_max(name):
    def spec(ctx, input, dim=None, keepdim=None, *, out=None, other=None):
        _tensor(ctx, input)
        if is_tensor(dim) or other is not None:
            other = other if other is not None else dim
            if is_tensor(other) and input.shape is not None and other.shape is not None:
                broadcast_checked(ctx, input.shape, other.shape)
            return binary(ctx, input, other)
        keepdim = _keepdim(dim, keepdim)
        shape = ctx.shape(input)
        if dim is None:
            _full_nonempty(ctx, shape, name)
            return TensorValue((), input.dtype)
        if isinstance(dim, (tuple, list)):
            raise Unknowable(f"{name}() takes one dim (TypeError)")
        out_shape = reduce_shape(ctx, input, dim, keepdim, name, nonzero=True)
        return (TensorValue(out_shape, input.dtype), TensorValue(out_shape, "int64"))

    spec.__name__ = name
    op(f"torch.{name}", f"Tensor.{name}")(spec)


_register_max("max")
_register_max("min")


def _register_arg(name):
    def spec(ctx, input, dim=None, keepdim=False, *, out=None):
        _tensor(ctx, input)
        shape = ctx.shape(input)
        if input.dtype == "bool":
            ctx.fail(DTYPE_MISMATCH, f"{name}(): does not support bool input")
        if dim is None:
            _full_nonempty(ctx, shape, name, "")
            return TensorValue(tuple(1 for _ in shape) if keepdim else (), "int64")
        if isinstance(dim, (tuple, list)):
            raise Unknowable(f"{name}() takes one dim (TypeError)")
        return TensorValue(reduce_shape(ctx, input, dim, keepdim, name, nonzero=True), "int64")

    spec.__name__ = name
    op(f"torch.{name}", f"Tensor.{name}")(spec)


_register_arg("argmax")
_register_arg("argmin")


def _register_median(name):
    def spec(ctx, input, dim=None, keepdim=None, *, out=None):
        _tensor(ctx, input)
        keepdim = _keepdim(dim, keepdim)
        if dim is None:
            ctx.shape(input)
            return TensorValue((), input.dtype)
        if isinstance(dim, (tuple, list)):
            raise Unknowable(f"{name}() takes one dim (TypeError)")
        out_shape = reduce_shape(ctx, input, dim, keepdim, "median", nonzero=True)
        return (TensorValue(out_shape, input.dtype), TensorValue(out_shape, "int64"))

    spec.__name__ = name
    op(f"torch.{name}", f"Tensor.{name}")(spec)


_register_median("median")
_register_median("nanmedian")


@op("torch.mode", "Tensor.mode")
def mode(ctx, input, dim=-1, keepdim=False, *, out=None):
    _tensor(ctx, input)
    if isinstance(dim, (tuple, list)):
        raise Unknowable("mode() takes one dim (TypeError)")
    out_shape = reduce_shape(ctx, input, dim, keepdim, "mode", nonzero=True)
    return (TensorValue(out_shape, input.dtype), TensorValue(out_shape, "int64"))


@op("torch.aminmax", "Tensor.aminmax")
def aminmax(ctx, input, *, dim=None, keepdim=False, out=None):
    _tensor(ctx, input)
    shape = ctx.shape(input)
    if dim is None:
        if len(shape) > 0:
            ctx.require(S.gt(S.prod(shape), 0), SHAPE_MISMATCH,
                        "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                        "has no identity.")
        out_shape = tuple(1 for _ in shape) if keepdim else ()
    else:
        if isinstance(dim, (tuple, list)):
            raise Unknowable("aminmax() takes one dim (TypeError)")
        d = ctx.wrap_dim(dim, len(shape))
        if shape:
            ctx.require(S.gt(shape[d], 0), SHAPE_MISMATCH,
                        f"aminmax: Expected reduction dim {d} to have non-zero size.")
        out_shape = reduce_shape(ctx, input, dim, keepdim)
    return (TensorValue(out_shape, input.dtype), TensorValue(out_shape, input.dtype))


# -- scans -------------------------------------------------------------------------------

@op("torch.cumsum", "Tensor.cumsum", "Tensor.cumsum_", "torch.cumprod", "Tensor.cumprod",
    "Tensor.cumprod_")
def cumsum(ctx, input, dim, *, dtype=None, out=None):
    shape = ctx.shape(input)
    ctx.wrap_dim(dim, len(shape))
    return TensorValue(shape, _out_dtype(dtype, _int_to_long(input.dtype)))


@op("torch.logcumsumexp", "Tensor.logcumsumexp")
def logcumsumexp(ctx, input, dim, *, out=None):
    shape = ctx.shape(input)
    ctx.wrap_dim(dim, len(shape))
    return TensorValue(shape, input.dtype)


@op("torch.cummax", "Tensor.cummax", "torch.cummin", "Tensor.cummin")
def cummax(ctx, input, dim, *, out=None):
    shape = ctx.shape(input)
    name = "cummin" if "cummin" in (ctx.op_name or "") else "cummax"
    d = ctx.known_int(dim)
    if len(shape) == 0:
        if d not in (-1, 0):
            ctx.fail(IMPROPER_VALUE, f"{name}(): Expected reduction dim -1 or 0 for scalar but got {d}")
    elif not (isinstance(S.prod(shape), int) and S.prod(shape) == 0):  # torch skips the check
        ctx.wrap_dim(d, len(shape))
    return (TensorValue(shape, input.dtype), TensorValue(shape, "int64"))


# -- selection ---------------------------------------------------------------------------

@op("torch.topk", "Tensor.topk")
def topk(ctx, input, k, dim=-1, largest=True, sorted=True, *, out=None):
    shape = ctx.shape(input)
    d = ctx.wrap_dim(dim, len(shape))
    if not is_dim(k):
        raise Unknowable("k")
    size = shape[d] if shape else 1
    ctx.require(S.and_(S.ge(k, 0), S.le(k, size)), ILLEGAL_VALUE, "selected index k out of range")
    out = shape[:d] + (k,) + shape[d + 1:] if shape else ()
    return (TensorValue(out, input.dtype), TensorValue(out, "int64"))


@op("torch.kthvalue", "Tensor.kthvalue")
def kthvalue(ctx, input, k, dim=-1, keepdim=False, *, out=None):
    shape = ctx.shape(input)
    if not is_dim(k):
        raise Unknowable("k")
    out_shape = reduce_shape(ctx, input, dim, keepdim, "kthvalue", nonzero=True)
    d = 0 if not shape else ctx.wrap_dim(dim, len(shape))
    size = shape[d] if shape else 1
    ctx.require(S.and_(S.ge(k, 1), S.le(k, size)), ILLEGAL_VALUE,
                f"kthvalue(): selected number k out of range for dimension {d}")
    return (TensorValue(out_shape, input.dtype), TensorValue(out_shape, "int64"))


@op("torch.sort", "Tensor.sort")
def sort(ctx, input, dim=-1, descending=False, stable=None, *, out=None):
    if isinstance(dim, bool):
        raise Unknowable("sort(stable) overload")
    shape = ctx.shape(input)
    ctx.wrap_dim(dim, len(shape))
    return (TensorValue(shape, input.dtype), TensorValue(shape, "int64"))


@op("torch.argsort", "Tensor.argsort")
def argsort(ctx, input, dim=-1, descending=False, stable=False):
    shape = ctx.shape(input)
    ctx.wrap_dim(dim, len(shape))
    return TensorValue(shape, "int64")


@op("torch.msort", "Tensor.msort")
def msort(ctx, input, *, out=None):
    shape = ctx.shape(input)
    return TensorValue(shape, input.dtype)
