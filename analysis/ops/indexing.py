"""Indexing: x[...] (ints, slices, None, Ellipsis, masks, advanced indices), gather/scatter,
index_select, masked_select, take_along_dim, index_add/copy/fill, nonzero, take."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import broadcast_shapes
from .shape_ops import is_dim
from .spec import (ANY_INT, DTYPE_MISMATCH, ILLEGAL_VALUE, IMPROPER_VALUE, INT_DTYPES, SHAPE_MISMATCH, TensorValue,
                   Unknowable, is_tensor, op)

_INT_INDEX = (None, "int64", "int32", "int16", "int8", "uint8", "bool")
_INT_DTYPES = INT_DTYPES - {"uint8"}  # (uint8 indexes as a mask; an int index keeps the dims after)
_ADV = object()
_TYPE = {"int64": "Long", "int32": "Int"}  # marker for an advanced-index position in the output


def broadcast_checked(ctx, a, b):
    """broadcast_shapes, plus the per-dim condition for symbolic pairs (a = b or either is 1)."""
    out = broadcast_shapes(ctx, a, b)
    rank = max(len(a), len(b))
    for i in range(1, min(len(a), len(b)) + 1):
        x, y = a[-i], b[-i]
        ctx.require(S.or_(S.eq(x, y), S.eq(x, 1), S.eq(y, 1)), SHAPE_MISMATCH,
                    f"The size of tensor a ({S.dim_text(x)}) must match the size of tensor b "
                    f"({S.dim_text(y)}) at non-singleton dimension {rank - i}")
    return out


def _bound(ctx, i, n, axis):
    if i is UNKNOWN:
        return
    ctx.require(S.and_(S.ge(i, S.sub(0, n)), S.lt(i, n)), IMPROPER_VALUE,
                f"index {S.dim_text(i)} is out of bounds for dimension {axis} with size {S.dim_text(n)}")


def _try(ctx, cond):
    """Decide a condition; None when it cannot be decided."""
    if cond is UNKNOWN:
        return None
    try:
        return ctx.decide(cond)
    except Unknowable:
        return None


def slice_len(ctx, n, start, stop, step, numpy=False):
    """len(range(n)[start:stop:step]) over dims; UNKNOWN when not decidable. `numpy`: the
    sliced value is a NumPy array, where a negative step is legal (`h[::-1]`)."""
    if step is None:
        step = 1
    for v in (start, stop, step):
        if v is not None and not is_dim(v):
            raise Unknowable("slice bound is not an int")
    if isinstance(step, int):
        if step == 0:
            ctx.fail(ILLEGAL_VALUE, "slice step cannot be zero")
        if step < 0 and numpy:
            if all(isinstance(v, int) or v is None for v in (n, start, stop)) and n is not UNKNOWN:
                return len(range(n)[slice(start, stop, step)])
            return n if start is None and stop is None and step == -1 else UNKNOWN
        if step < 0:
            ctx.fail(ILLEGAL_VALUE, "step must be greater than zero")
    else:
        return UNKNOWN
    if start in (None, 0) and stop is None and step == 1:
        return n
    if all(isinstance(v, int) or v is None for v in (n, start, stop)) and n is not UNKNOWN:
        return len(range(n)[slice(start, stop, step)])
    if n is UNKNOWN:
        if (start is None or start == 0) and stop is None and step == 1:
            return UNKNOWN
        # With a non-negative start and stop the result does not depend on n only when
        # n >= stop, which we cannot tell.
        return UNKNOWN

    def clamp(v, default):
        if v is None:
            return default
        if v is UNKNOWN:
            return None
        # A bound counts from the end when negative: `x[:, :-d]` with d a symbol (>= 1) too.
        negative = v < 0 if isinstance(v, int) else _try(ctx, S.lt(v, 0))
        if negative is None:
            return None
        if negative:
            v = S.add(n, v)
            nonneg = _try(ctx, S.ge(v, 0))
            if nonneg is None:
                return None
            return v if nonneg else 0
        within = _try(ctx, S.le(v, n))
        if within is None:
            return None
        return v if within else n

    b, e = clamp(start, 0), clamp(stop, n)
    if b is None or e is None:
        return UNKNOWN
    diff = S.sub(e, b)
    positive = True if (isinstance(b, int) and b == 0) else _try(ctx, S.ge(diff, 0))
    if positive is None:
        return UNKNOWN
    if not positive:
        return 0
    return diff if step == 1 else S.floordiv(S.add(diff, step - 1), step)


def _list_index(ctx, items):
    """A Python list used as an index: ('mask', shape) or ('adv', shape, flat ints)."""
    if items and all(isinstance(v, bool) for v in items):
        return "mask", (len(items),), None
    flat = []

    def walk(v, depth):
        if isinstance(v, (list, tuple)):
            subs = [walk(x, depth + 1) for x in v]
            if not subs:
                return (0,)
            if any(s != subs[0] for s in subs):
                raise Unknowable("ragged index list")
            return (len(v),) + subs[0]
        if isinstance(v, bool) or not is_dim(v):
            raise Unknowable("index list element")
        flat.append(v)
        return ()

    return "adv", walk(items, 0), flat


def _broadcast_index_shapes(ctx, shapes):
    rank = max((len(s) for s in shapes), default=0)
    out = []
    text = ", ".join(S.size_text(s) for s in shapes)
    msg = f"shape mismatch: indexing tensors could not be broadcast together with shapes {text}"
    for i in range(-rank, 0):
        result = 1
        for s in shapes:
            if len(s) < -i:
                continue
            d = s[i]
            if result == 1:
                result = d
            elif d == 1 or d == result:
                continue
            elif result is UNKNOWN or d is UNKNOWN:
                result = UNKNOWN
            elif isinstance(result, int) and isinstance(d, int):
                ctx.fail(SHAPE_MISMATCH, msg)
            else:
                ctx.require(S.or_(S.eq(d, result), S.eq(d, 1), S.eq(result, 1)), SHAPE_MISMATCH, msg)
                result = S.dmax(result, d)
        out.append(result)
    return tuple(out)


@op("Tensor.__getitem__")
def getitem(ctx, self, index):
    if not is_tensor(self):
        raise Unknowable("not a tensor")
    shape = ctx.shape(self)
    rank = len(shape)
    if isinstance(index, list) and any(isinstance(v, (list, tuple, slice)) or v is None or
                                       v is Ellipsis or is_tensor(v) for v in index):
        index = tuple(index)  # NumPy's legacy rule: a list of sequences acts as a tuple
    items = index if isinstance(index, tuple) else (index,)
    if len(items) == 1 and is_tensor(items[0]) and items[0].shape is None and items[0].dtype in _INT_DTYPES \
            and rank >= 1:
        # `table[steps]`, steps of a rank nothing decided: its dims, then the table's others
        return TensorValue(None, self.dtype, tail=tuple(shape[1:]) or None)
    parsed = []
    for it in items:
        if it is None:
            parsed.append(("none",))
        elif it is Ellipsis:
            parsed.append(("ell",))
        elif isinstance(it, bool):
            parsed.append(("bool", it))
        elif it is ANY_INT:
            parsed.append(("int", UNKNOWN))  # one position, which one is not known
        elif it is UNKNOWN:
            raise Unknowable("unknown index item")
        elif is_dim(it):
            parsed.append(("int", it))
        elif isinstance(it, slice):
            parsed.append(("slice", it))
        elif is_tensor(it):
            if it.shape is None:
                raise Unknowable("index tensor of unknown rank")
            if it.dtype in ("bool", "uint8"):
                parsed.append(("mask", it.shape))
            elif it.dtype in _INT_INDEX:
                parsed.append(("adv", it.shape, None))
            else:
                ctx.fail(DTYPE_MISMATCH, "tensors used as indices must be long, int, byte or bool tensors")
        elif isinstance(it, list):
            parsed.append(_list_index(ctx, it))
        else:
            raise Unknowable(f"index item {it!r}")
    if sum(1 for p in parsed if p[0] == "ell") > 1:
        raise Unknowable("several Ellipsis")
    consumed = 0
    for p in parsed:
        if p[0] in ("int", "slice", "adv"):
            consumed += 1
        elif p[0] == "mask":
            consumed += len(p[1])
    if rank == 0 and consumed == 1 and len(parsed) == 1:
        p = next(p for p in parsed if p[0] in ("int", "slice", "adv", "mask"))
        if p[0] == "int" and isinstance(p[1], int) and p[1] == 0:
            ctx.fail(IMPROPER_VALUE, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python "
                                     "or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if p[0] == "int":
            _bound(ctx, p[1], 0, 0)
        if p[0] == "slice":
            ctx.fail(IMPROPER_VALUE, "slice() cannot be applied to a 0-dim tensor.")
    if consumed > rank:
        ctx.fail(IMPROPER_VALUE, f"too many indices for tensor of dimension {rank}")
    out = []  # dims, or (_ADV, shape) markers
    pos = 0
    nones = 0  # PyTorch numbers dims in its messages counting the inserted ones
    for p in parsed:
        kind = p[0]
        if kind == "none":
            out.append(1)
            nones += 1
        elif kind == "ell":
            n = rank - consumed
            out.extend(shape[pos:pos + n])
            pos += n
        elif kind == "bool":
            out.append((_ADV, (1 if p[1] else 0,)))
        elif kind == "int":
            _bound(ctx, p[1], shape[pos], pos + nones)
            pos += 1
        elif kind == "slice":
            sl = p[1]
            out.append(slice_len(ctx, shape[pos], sl.start, sl.stop, sl.step, numpy=self.numpy))
            pos += 1
        elif kind == "adv":
            if p[2] is not None:
                for i in p[2]:
                    if isinstance(shape[pos], int) and shape[pos] == 0:
                        ctx.fail(IMPROPER_VALUE, "index is out of bounds for dimension with size 0")
                    _bound(ctx, i, shape[pos], pos)
            out.append((_ADV, p[1]))
            pos += 1
        elif kind == "mask":
            mshape = p[1]
            if not mshape:
                out.append((_ADV, (UNKNOWN,)))
                continue
            for j, m in enumerate(mshape):
                ctx.require(S.eq(m, shape[pos + j]), SHAPE_MISMATCH,
                            f"The shape of the mask {S.size_text(mshape)} at index {j} does not match "
                            f"the shape of the indexed tensor {S.size_text(shape)} at index {pos + j}")
            for _ in mshape:
                out.append((_ADV, (UNKNOWN,)))
            pos += len(mshape)
    out.extend(shape[pos:])
    marks = [i for i, d in enumerate(out) if isinstance(d, tuple) and d and d[0] is _ADV]
    if not marks:
        return TensorValue(tuple(out), self.dtype)
    bshape = _broadcast_index_shapes(ctx, [out[i][1] for i in marks])
    rest = [d for i, d in enumerate(out) if i not in marks]
    if marks == list(range(marks[0], marks[0] + len(marks))):
        first = marks[0]
        result = tuple(out[:first]) + bshape + tuple(d for d in out[marks[-1] + 1:])
    else:
        result = bshape + tuple(rest)
    return TensorValue(result, self.dtype)


# -- gather / scatter --------------------------------------------------------------------

def _index_dtype(ctx, index, message):
    if index.dtype is not None and index.dtype not in ("int64", "int32"):
        ctx.fail(DTYPE_MISMATCH, message)


@op("torch.gather", "Tensor.gather")
def gather(ctx, input, dim, index, *, sparse_grad=False, out=None):
    shape, ishape = ctx.shape(input), ctx.shape(index)
    d = ctx.wrap_dim(dim, len(shape))
    _index_dtype(ctx, index, "gather(): Expected dtype int32/int64 for index")
    if isinstance(S.prod(ishape), int) and S.prod(ishape) == 0:
        return TensorValue(ishape, input.dtype)
    if len(ishape) != len(shape) and not (len(shape) <= 1 and len(ishape) <= 1):
        ctx.fail(SHAPE_MISMATCH, "Index tensor must have the same number of dimensions as input tensor")
    if len(ishape) == len(shape):
        for j in range(len(shape)):
            if j == d:
                continue
            ctx.require(S.le(ishape[j], shape[j]), SHAPE_MISMATCH,
                        f"Size does not match at dimension {j} expected index {S.size_text(ishape)} to "
                        f"be no larger than self {S.size_text(shape)} apart from dimension {d}")
    return TensorValue(ishape, input.dtype)


def _scatter_check(ctx, input, dim, index, src, name):
    shape, ishape = ctx.shape(input), ctx.shape(index)
    d = ctx.wrap_dim(dim, len(shape))
    _index_dtype(ctx, index, f"{name}(): Expected dtype int64 for index")
    if len(ishape) != len(shape) and not (len(shape) <= 1 and len(ishape) <= 1):
        ctx.fail(SHAPE_MISMATCH, "Index tensor must have the same number of dimensions as self tensor")
    sshape = src.shape if is_tensor(src) else None
    if is_tensor(src) and sshape is not None and len(sshape) != len(ishape) \
            and not (len(sshape) <= 1 and len(ishape) <= 1):
        ctx.fail(SHAPE_MISMATCH, "Index tensor must have the same number of dimensions as src tensor")
    if len(ishape) != len(shape) or S.prod(ishape) == 0:
        return
    if is_tensor(src) and sshape is not None:
        msg = (f"Expected index {S.size_text(ishape)} to be no larger than self {S.size_text(shape)} "
               f"apart from dimension {d} and to be no larger size than src {S.size_text(sshape)}")
        for j in range(len(shape)):
            if j != d:
                ctx.require(S.le(ishape[j], shape[j]), SHAPE_MISMATCH, msg)
            if len(sshape) == len(ishape):
                ctx.require(S.le(ishape[j], sshape[j]), SHAPE_MISMATCH, msg)
    else:
        msg = (f"Expected index {S.size_text(ishape)} to be no larger than self {S.size_text(shape)} "
               f"apart from dimension {d}")
        for j in range(len(shape)):
            if j != d:
                ctx.require(S.le(ishape[j], shape[j]), SHAPE_MISMATCH, msg)


@op("torch.scatter", "Tensor.scatter", "Tensor.scatter_")
def scatter(ctx, input, dim, index, src=None, value=None, *, reduce=None, out=None):
    source = src if src is not None else value
    _scatter_check(ctx, input, dim, index, source, "scatter")
    return TensorValue(ctx.shape(input), input.dtype)


@op("torch.scatter_add", "Tensor.scatter_add", "Tensor.scatter_add_")
def scatter_add(ctx, input, dim, index, src, *, out=None):
    if not is_tensor(src):
        raise Unknowable("src must be a tensor")
    _scatter_check(ctx, input, dim, index, src, "scatter_add")
    return TensorValue(ctx.shape(input), input.dtype)


@op("torch.scatter_reduce", "Tensor.scatter_reduce", "Tensor.scatter_reduce_")
def scatter_reduce(ctx, input, dim, index, src, reduce, *, include_self=True, out=None):
    if not is_tensor(src):
        raise Unknowable("src must be a tensor")
    _scatter_check(ctx, input, dim, index, src, "scatter_reduce")
    return TensorValue(ctx.shape(input), input.dtype)


# -- index_* -----------------------------------------------------------------------------

@op("torch.index_select", "Tensor.index_select")
def index_select(ctx, input, dim, index, *, out=None):
    shape, ishape = ctx.shape(input), ctx.shape(index)
    d = ctx.wrap_dim(dim, len(shape))
    if len(ishape) > 1:
        ctx.fail(SHAPE_MISMATCH, "index_select(): Index is supposed to be a vector")
    if not shape:
        ctx.require(S.eq(S.prod(ishape), 1), SHAPE_MISMATCH,
                    f"index_select(): Index to scalar can have only 1 value, got "
                    f"{S.dim_text(S.prod(ishape))} value(s)")
    _index_dtype(ctx, index, "index_select(): Expected dtype int32 or int64 for index")
    n = S.prod(ishape)
    if not shape:
        return TensorValue((), input.dtype)
    return TensorValue(shape[:d] + (n,) + shape[d + 1:], input.dtype)


def _index_update(ctx, input, dim, index, source, name):
    shape, ishape = ctx.shape(input), ctx.shape(index)
    d = ctx.wrap_dim(dim, len(shape))
    if len(ishape) > 1:
        if name == "index_add":
            ctx.fail(SHAPE_MISMATCH, f"index_add_(): Index is supposed to be a vector, but got dim: "
                                     f"{len(ishape)} with type: {_TYPE.get(index.dtype, 'Long')} and size: "
                                     f"{S.size_text(ishape)}")
        if name == "index_copy":
            ctx.fail(SHAPE_MISMATCH, f"index_copy_(): Index should have dimension 1 or 0 (got {len(ishape)})")
        ctx.fail(SHAPE_MISMATCH, "Index has to be a vector/scalar")
    if not (is_tensor(source) and source.shape is not None):
        return TensorValue(shape, input.dtype)
    src = source.shape
    n = S.prod(ishape)
    if name == "index_add":
        if len(src) > 0 and d >= len(src):
            ctx.fail(SHAPE_MISMATCH, f"index_add_(): Indexing dim {d} is out of bounds of the source "
                                     f"tensor with dim {len(src)}")
        if len(src) > 0:
            ctx.require(S.eq(n, src[d]), SHAPE_MISMATCH,
                        f"index_add_(): Number of indices ({S.dim_text(n)}) should be equal to "
                        f"source.size(dim): ({S.dim_text(src[d])}), for dim: {d}")
        msg = (f"source tensor shape must match self tensor shape, excluding the specified "
               f"dimension. Got self.shape = {S.size_text(shape)} source.shape = {S.size_text(src)}")
        if len(src) == len(shape):
            for j in range(len(shape)):
                if j != d:
                    ctx.require(S.eq(src[j], shape[j]), SHAPE_MISMATCH, msg)
        elif len(src) > 0 and len(shape) > 0:
            ctx.fail(SHAPE_MISMATCH, msg)
    elif name == "index_copy":
        if len(src) > 0 and len(shape) > 0 and len(src) != len(shape):
            ctx.fail(SHAPE_MISMATCH, f"index_copy_(): When source and destination are not scalars, "
                                     f"their dimensionality must match. Source dimensionality "
                                     f"({len(src)}), destination dimensionality ({len(shape)})")
        if len(src) > 0:
            ctx.require(S.eq(n, src[d]), SHAPE_MISMATCH,
                        f"index_copy_(): Number of indices ({S.dim_text(n)}) should be equal to "
                        f"source.size(dim) ({S.dim_text(src[d])})")
        if len(src) == len(shape):
            k = 0
            for j in range(len(shape)):
                if j == d:
                    continue
                ctx.require(S.eq(src[j], shape[j]), SHAPE_MISMATCH,
                            f"index_copy_(): Source/destination tensor must have same slice shapes. "
                            f"Destination slice shape: {S.dim_text(shape[j])} at dimension {k} and "
                            f"source slice shape: {S.dim_text(src[j])} at dimension {k}.")
                k += 1
    return TensorValue(shape, input.dtype)


@op("torch.index_add", "Tensor.index_add", "Tensor.index_add_")
def index_add(ctx, input, dim, index, source, *, alpha=1, out=None):
    return _index_update(ctx, input, dim, index, source, "index_add")


@op("torch.index_copy", "Tensor.index_copy", "Tensor.index_copy_")
def index_copy(ctx, input, dim, index, source, *, out=None):
    return _index_update(ctx, input, dim, index, source, "index_copy")


@op("torch.index_fill", "Tensor.index_fill", "Tensor.index_fill_")
def index_fill(ctx, input, dim, index, value):
    return _index_update(ctx, input, dim, index, None, "index_fill")


# -- data-dependent sizes ----------------------------------------------------------------

@op("torch.masked_select", "Tensor.masked_select")
def masked_select(ctx, input, mask, *, out=None):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    # The result is 1-D whatever the mask is: a mask not known (an optional one) still
    # tells the rank, which keeps a tensor selected one way from passing for the other.
    if is_tensor(mask) and input.shape is not None and mask.shape is not None:
        broadcast_checked(ctx, mask.shape, input.shape)
    return TensorValue((UNKNOWN,), input.dtype)


@op("torch.nonzero", "Tensor.nonzero", "torch.argwhere", "Tensor.argwhere")
def nonzero(ctx, input, *, out=None, as_tuple=False):
    shape = ctx.shape(input)
    if as_tuple:
        return tuple(TensorValue((UNKNOWN,), "int64") for _ in range(max(len(shape), 1)))
    return TensorValue((UNKNOWN, len(shape)), "int64")


@op("torch.take", "Tensor.take")
def take(ctx, input, index):
    ctx.shape(input)
    return TensorValue(ctx.shape(index), input.dtype)


@op("torch.take_along_dim", "Tensor.take_along_dim")
def take_along_dim(ctx, input, indices, dim=None, *, out=None):
    shape, ishape = ctx.shape(input), ctx.shape(indices)
    if dim is None:
        return TensorValue((S.prod(ishape),), input.dtype)
    if len(shape) != len(ishape):
        ctx.fail(SHAPE_MISMATCH, f"torch.take_along_dim(): input and indices should have the same "
                                 f"number of dimensions, but got {len(shape)} dimensions for input, "
                                 f"and {len(ishape)} dimensions for indices")
    d = ctx.wrap_dim(dim, len(shape))
    a = list(shape)
    b = list(ishape)
    a[d] = 1
    b[d] = 1
    out = list(broadcast_checked(ctx, tuple(a), tuple(b)))
    if out:
        out[d] = ishape[d]
    return TensorValue(tuple(out), input.dtype)
