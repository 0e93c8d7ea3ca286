"""Tensor creation: randn/zeros/ones/empty/full, *_like, new_*, eye, arange, linspace, tensor."""
from __future__ import annotations

import math

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (DEFAULT_FLOAT, ILLEGAL_SHAPE, ILLEGAL_VALUE, SHAPE_MISMATCH, Dtype,
                   SomeNumbers, TensorValue, Unknowable, is_tensor, op, sizes_arg)


def _is_dim(d) -> bool:
    return (isinstance(d, int) and not isinstance(d, bool)) or isinstance(d, S.Expr) or d is UNKNOWN


def _dtype(dtype, default):
    """The result dtype: an explicit Dtype wins, an unknown one is unknown."""
    if dtype is None:
        return default
    if isinstance(dtype, Dtype):
        return str(dtype)
    return None


def size_of(ctx, args, size=None, who=None) -> tuple:
    """A size given as varargs, one tuple/list, or `size=`; checks that no dim is negative."""
    if size is not None:
        if args:
            raise Unknowable("size given twice (TypeError)")
        if size is UNKNOWN:
            raise Unknowable("unknown size")
        dims = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    else:
        if not args:
            raise Unknowable("no size")
        dims = sizes_arg(args)
    for d in dims:
        if not _is_dim(d):
            raise Unknowable(f"not a size: {d!r}")
    check_sizes(ctx, dims, who)
    return dims


def check_sizes(ctx, dims, who=None):
    text = S.size_text(dims)
    for d in dims:
        if who == "zeros":
            msg = "zeros: Dimension size must be non-negative."
        else:
            msg = f"Trying to create tensor with negative dimension {S.dim_text(d)}: {text}"
        ctx.require(S.ge(d, 0), ILLEGAL_SHAPE, msg)


_KW = dict(out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
           generator=None, names=None, memory_format=None)


@op("torch.randn", "torch.rand")
def randn(ctx, *args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, names=None):
    dims = size_of(ctx, args, size)
    dt = _dtype(dtype, DEFAULT_FLOAT)
    if dt is not None and dt not in ("float16", "bfloat16", "float32", "float64", "complex64",
                                     "complex128"):
        raise Unknowable("random floats of a non-float dtype (NotImplementedError)")
    return TensorValue(dims, dt)


@op("torch.ones", "torch.empty")
def ones(ctx, *args, size=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, names=None, memory_format=None):
    return TensorValue(size_of(ctx, args, size), _dtype(dtype, DEFAULT_FLOAT))


@op("torch.zeros")
def zeros(ctx, *args, size=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, names=None):
    return TensorValue(size_of(ctx, args, size, "zeros"), _dtype(dtype, DEFAULT_FLOAT))


def _scalar_dtype(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int) or isinstance(v, S.Expr):
        return "int64"
    if isinstance(v, float):
        return "float32"
    if is_tensor(v):
        return v.dtype
    return None


@op("torch.full")
def full(ctx, size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, names=None):
    dims = size_of(ctx, (), size)
    return TensorValue(dims, _dtype(dtype, _scalar_dtype(fill_value)))


@op("torch.randint")
def randint(ctx, *args, size=None, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False, pin_memory=False):
    args = list(args)
    if size is None:
        if not args:
            raise Unknowable("no size")
        size = args.pop()
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise Unknowable("randint overload")
    if not isinstance(size, (tuple, list)):
        raise Unknowable("size must be a tuple")
    dims = size_of(ctx, (), size)
    if _is_dim(low) and _is_dim(high):
        ctx.require(S.lt(low, high), ILLEGAL_VALUE,
                    f"random_ expects 'from' to be less than 'to', but got from={S.dim_text(low)} "
                    f">= to={S.dim_text(high)}")
    return TensorValue(dims, _dtype(dtype, "int64"))


@op("torch.randperm")
def randperm(ctx, n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    if not _is_dim(n):
        raise Unknowable("n")
    check_sizes(ctx, (n,))
    return TensorValue((n,), _dtype(dtype, "int64"))


# -- *_like ------------------------------------------------------------------------------

def _like(ctx, input, dtype):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    return TensorValue(input.shape, _dtype(dtype, input.dtype))


@op("torch.zeros_like", "torch.ones_like", "torch.empty_like")
def zeros_like(ctx, input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return _like(ctx, input, dtype)


@op("torch.randn_like", "torch.rand_like")
def randn_like(ctx, input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    out = _like(ctx, input, dtype)
    if out.dtype is not None and out.dtype not in ("float16", "bfloat16", "float32", "float64",
                                                   "complex64", "complex128"):
        raise Unknowable("random floats of a non-float dtype (NotImplementedError)")
    return out


@op("torch.full_like")
def full_like(ctx, input, fill_value, *, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    return _like(ctx, input, dtype)


@op("torch.randint_like")
def randint_like(ctx, input, *args, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, low=None, high=None):
    vals = list(args)
    if low is not None:
        vals.insert(0, low)
    if high is not None:
        vals.append(high)
    if len(vals) == 1:
        lo, hi = 0, vals[0]
    elif len(vals) == 2:
        lo, hi = vals
    else:
        raise Unknowable("randint_like overload")
    out = _like(ctx, input, dtype)
    if _is_dim(lo) and _is_dim(hi):
        ctx.require(S.lt(lo, hi), ILLEGAL_VALUE,
                    f"random_ expects 'from' to be less than 'to', but got from={S.dim_text(lo)} "
                    f">= to={S.dim_text(hi)}")
    return out


# -- Tensor.new_* ------------------------------------------------------------------------

@op("Tensor.new_zeros", "Tensor.new_ones", "Tensor.new_empty")
def new_zeros(ctx, self, *args, size=None, dtype=None, layout=None, device=None,
              requires_grad=False, pin_memory=False):
    if not is_tensor(self):
        raise Unknowable("not a tensor")
    return TensorValue(size_of(ctx, args, size), _dtype(dtype, self.dtype))


@op("Tensor.new_full")
def new_full(ctx, self, size, fill_value, *, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    if not is_tensor(self):
        raise Unknowable("not a tensor")
    return TensorValue(size_of(ctx, (), size), _dtype(dtype, self.dtype))


@op("Tensor.new_tensor")
def new_tensor(ctx, self, data, *, dtype=None, device=None, requires_grad=False,
               pin_memory=False):
    if not is_tensor(self):
        raise Unknowable("not a tensor")
    shape, _ = data_shape(ctx, data)
    return TensorValue(shape, _dtype(dtype, self.dtype))


# -- eye / arange / linspace -------------------------------------------------------------

@op("torch.eye")
def eye(ctx, n, m=None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False, pin_memory=False):
    if not _is_dim(n) or (m is not None and not _is_dim(m)):
        raise Unknowable("eye sizes")
    ctx.require(S.ge(n, 0), ILLEGAL_VALUE, f"n must be greater or equal to 0, got {S.dim_text(n)}")
    if m is None:
        m = n
    ctx.require(S.ge(m, 0), ILLEGAL_VALUE, f"m must be greater or equal to 0, got {S.dim_text(m)}")
    return TensorValue((n, m), _dtype(dtype, DEFAULT_FLOAT))


def _is_number(v) -> bool:
    return _is_dim(v) or isinstance(v, float)


@op("torch.arange")
def arange(ctx, *args, start=None, end=None, step=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    vals = list(args)
    if start is not None:
        vals.insert(0, start)
    if end is not None:
        if not vals:
            vals = [0]
        vals.append(end)
    if step is not None:
        vals.append(step)
    if len(vals) == 1:
        b, e, s = 0, vals[0], 1
    elif len(vals) == 2:
        (b, e), s = vals, 1
    elif len(vals) == 3:
        b, e, s = vals
    else:
        raise Unknowable("arange overload")
    for v in (b, e, s):
        if is_tensor(v):
            # (torch takes a 0-dim tensor; model code passes ints, and a generic run must
            # not read `torch.arange(n, device=device)` as a sign that n is a tensor)
            raise TypeError("arange's bounds must be numbers")
        if not _is_number(v) or isinstance(v, bool):
            raise Unknowable("arange of non-numbers")
    floaty = any(isinstance(v, float) for v in (b, e, s))
    dt = _dtype(dtype, DEFAULT_FLOAT if floaty else "int64")
    if floaty:
        if any(v is UNKNOWN or isinstance(v, S.Expr) for v in (b, e, s)):
            return TensorValue((UNKNOWN,), dt)
        b, e, s = float(b), float(e), float(s)
        if s == 0:
            ctx.fail(ILLEGAL_VALUE, "step must be nonzero")
        if not ((s > 0 and e >= b) or (s < 0 and e <= b)):
            ctx.fail(ILLEGAL_VALUE, "upper bound and lower bound inconsistent with step sign")
        return TensorValue((math.ceil((e - b) / s),), dt)
    # Integer arguments: exact.
    if s is UNKNOWN or isinstance(s, S.Expr):
        ctx.require(S.not_(S.eq(s, 0)), ILLEGAL_VALUE, "step must be nonzero")
        return TensorValue((UNKNOWN,), dt)
    if s == 0:
        ctx.fail(ILLEGAL_VALUE, "step must be nonzero")
    if s > 0:
        ctx.require(S.ge(e, b), ILLEGAL_VALUE, "upper bound and lower bound inconsistent with step sign")
        n = S.floordiv(S.add(S.sub(e, b), s - 1), s)
    else:
        ctx.require(S.le(e, b), ILLEGAL_VALUE, "upper bound and lower bound inconsistent with step sign")
        n = S.floordiv(S.add(S.sub(b, e), -s - 1), -s)
    return TensorValue((n,), dt)


@op("torch.linspace", "torch.logspace")
def linspace(ctx, start, end, steps, base=10.0, *, out=None, dtype=None, layout=None,
             device=None, requires_grad=False):
    if not _is_dim(steps):
        raise Unknowable("steps")
    ctx.require(S.ge(steps, 0), ILLEGAL_VALUE, "number of steps must be non-negative")
    return TensorValue((steps,), _dtype(dtype, DEFAULT_FLOAT))


# -- torch.tensor from nested data -------------------------------------------------------

def data_shape(ctx, data):
    """Shape and element dtype of nested Python lists/tuples of numbers."""
    if data is UNKNOWN:
        raise Unknowable("unknown data")
    if is_tensor(data):
        return data.shape, data.dtype
    if isinstance(data, SomeNumbers):
        length = data.length if data.length is not None else UNKNOWN
        return (length,) + tuple(data.inner), "int64" if data.integers else None
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            return (0,), "float32"
        subs = [data_shape(ctx, x) for x in data]
        first = subs[0][0]
        if first is None:
            raise Unknowable("element of unknown rank")
        for x, (sh, _) in zip(data, subs):
            if sh is None:
                raise Unknowable("element of unknown rank")
            if len(first) >= 1 and len(sh) == 0 and not is_tensor(x):
                raise Unknowable("not a sequence (TypeError)")
            if len(sh) != len(first):
                if len(sh) >= 1:
                    ctx.fail(SHAPE_MISMATCH, f"expected sequence of length {S.dim_text(first[0])} at "
                                             f"dim {1} (got {S.dim_text(sh[0])})")
                raise Unknowable("ragged data")
            for depth, (a, b) in enumerate(zip(first, sh)):
                if isinstance(a, int) and isinstance(b, int) and a != b:
                    ctx.fail(SHAPE_MISMATCH, f"expected sequence of length {a} at dim "
                                             f"{depth + 1} (got {b})")
                if a != b:
                    raise Unknowable("ragged data")
        if any(is_tensor(x) and x.shape != () for x in data):
            raise Unknowable("a list of tensors")  # (0-d ones are numbers to torch.tensor)
        kinds = [k for _, k in subs]
        if None in kinds:
            dt = None
        elif "float32" in kinds or "float64" in kinds:
            dt = "float32"
        elif all(k == "bool" for k in kinds):
            dt = "bool"
        else:
            dt = "int64"
        return (len(data),) + tuple(first), dt
    if isinstance(data, bool):
        return (), "bool"
    if _is_dim(data):
        return (), "int64" if data is not UNKNOWN else None
    if isinstance(data, float):
        return (), "float32"
    raise Unknowable("not numeric data")


@op("torch.tensor", "torch.as_tensor")
def tensor(ctx, data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    shape, dt = data_shape(ctx, data)
    return TensorValue(shape, _dtype(dtype, dt))


def _tri_count(row, col, offset, upper):
    """How many (i, j) of a row x col grid have j - i >= offset (upper) or <= offset."""
    if not all(type(v) is int for v in (row, col, offset)) or row > 1_000_000:
        return UNKNOWN
    if upper:
        return sum(max(0, col - max(0, i + offset)) for i in range(row))
    return sum(max(0, min(col, i + offset + 1)) for i in range(row))


@op("torch.triu_indices")
def triu_indices(ctx, row, col, offset=0, *, dtype=None, device=None, layout=None):
    return TensorValue((2, _tri_count(row, col, offset, True)), _dtype(dtype, "int64"))


@op("torch.tril_indices")
def tril_indices(ctx, row, col, offset=0, *, dtype=None, device=None, layout=None):
    return TensorValue((2, _tri_count(row, col, offset, False)), _dtype(dtype, "int64"))


@op("torch.from_numpy")
def from_numpy(ctx, ndarray):
    """numpy arrays are modelled as tensors: the same shape and element type."""
    return TensorValue(ctx.shape(ndarray), ndarray.dtype)


def _register_tri(name):
    def spec(ctx, input, diagonal=0, *, out=None):
        shape = ctx.shape(input)
        if len(shape) < 2:
            ctx.fail(SHAPE_MISMATCH, f"{name}: input tensor must have at least 2 dimensions")
        return TensorValue(shape, input.dtype)

    spec.__name__ = name
    op(f"torch.{name}", f"Tensor.{name}", f"Tensor.{name}_")(spec)


_register_tri("tril")
_register_tri("triu")


@op("torch.multinomial", "Tensor.multinomial")
def multinomial(ctx, input, num_samples, replacement=False, *, generator=None, out=None):
    shape = ctx.shape(input)
    if len(shape) not in (1, 2):
        ctx.fail(SHAPE_MISMATCH, "prob_dist must be 1 or 2 dim")
    if not _is_dim(num_samples):
        raise Unknowable("num_samples")
    ctx.require(S.gt(num_samples, 0), ILLEGAL_VALUE, "cannot sample n_sample <= 0 samples")
    if replacement is False:
        ctx.require(S.le(num_samples, shape[-1]), ILLEGAL_VALUE,
                    "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    return TensorValue(shape[:-1] + (num_samples,), "int64")
