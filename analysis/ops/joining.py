"""Joining and splitting: cat/stack/hstack/vstack/dstack, split/chunk/tensor_split/unbind,
hsplit/vsplit/dsplit, meshgrid, block_diag, cartesian_prod."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .shape_ops import is_dim
from .spec import (ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH, Pieces, SomeTensors, TensorValue, Unknowable, LegacyEmpty,
                   is_tensor, op, promote)


def tensor_list(tensors) -> list:
    if isinstance(tensors, SomeTensors):
        raise Unknowable("a list of tensors of unknown length")
    if not isinstance(tensors, (tuple, list)):
        raise Unknowable("not a list of tensors")
    for t in tensors:
        if not is_tensor(t):
            raise Unknowable("not a tensor in the list")
    return list(tensors)


def _is_legacy_empty(shape):
    return len(shape) == 1 and isinstance(shape[0], int) and shape[0] == 0


# -- cat / stack -------------------------------------------------------------------------

def _some_joined(tensors, dim, stacked):
    """cat / stack of a list of unknown length (SomeTensors): the rank and the dims every
    item shares; the joined dim is not known. No requirement is checked (the loop may not
    have appended anything), so nothing here is ever an error."""
    items = [t for t in tensors.prefix if is_tensor(t)] + [tensors.element]
    if len(items) != len(tensors.prefix) + 1 or any(t.shape is None for t in items):
        raise Unknowable("a tensor of unknown rank")
    ref = items[0].shape
    r = len(ref) + (1 if stacked else 0)
    if any(len(t.shape) != len(ref) for t in items) or not isinstance(dim, int) or not -r <= dim < r:
        raise Unknowable("items of different ranks")
    d = dim % r
    shared = tuple(x if all(type(t.shape[j]) is type(x) and t.shape[j] == x for t in items) else UNKNOWN
                   for j, x in enumerate(ref))
    dtype = promote(*[t.dtype for t in items])
    if stacked:
        return TensorValue(shared[:d] + (UNKNOWN,) + shared[d:], dtype)
    joined = UNKNOWN
    whole = tensors.whole
    if whole is not None and not tensors.prefix and whole.dim == d and whole.kept_by(ref):
        joined = whole.size  # every piece, each once, each its own size: the whole dim
    return TensorValue(shared[:d] + (joined,) + shared[d + 1:], dtype)


def _partly_known(tensors, dim, stacked):
    """cat / stack of a list where some items are not known at all (`torch.cat((past_key, key),
    -1)`, the past from an opaque cache). If the call runs, each such item is a tensor of the
    known items' rank (for cat, or a legacy empty one) and, for stack, of their shape: the
    result has their rank and the dims they agree on; cat's joined dim is not known. Nothing
    is checked: no error from Unknown. None when the rule does not apply."""
    if not isinstance(tensors, (tuple, list)) or any(not is_tensor(t) and t is not UNKNOWN for t in tensors):
        return None
    if not any(t is UNKNOWN for t in tensors) or any(is_tensor(t) and t.shape is None for t in tensors):
        return None  # (a tensor of unknown rank, a generic input's probe: the op's own rules)
    known = [t.shape for t in tensors if is_tensor(t) and (stacked or not _is_legacy_empty(t.shape))]
    if not known or len({len(s) for s in known}) != 1 or (not stacked and len(known[0]) < 2) or not _concrete(known):
        return None
    r = len(known[0]) + (1 if stacked else 0)
    if not isinstance(dim, int) or not -r <= dim < r:
        return None
    d = dim % r
    shared = tuple(x if all(type(s[j]) is type(x) and s[j] == x for s in known) else UNKNOWN
                   for j, x in enumerate(known[0]))
    dtype = promote(*[t.dtype if is_tensor(t) else None for t in tensors])  # (an unknown item: unknown)
    if stacked:
        return TensorValue(shared[:d] + (len(tensors),) + shared[d:], dtype)
    return TensorValue(shared[:d] + (UNKNOWN,) + shared[d + 1:], dtype)


def _concrete(shapes) -> bool:
    """Every dim a number: the rank is the file's own, not one made up for an input of a def
    nobody calls (whose Unknown partner may well be of another rank)."""
    return all(type(d) is int for s in shapes for d in s)


def cat_shapes(ctx, tensors, dim, name="torch.cat()"):
    if isinstance(tensors, SomeTensors):
        return _some_joined(tensors, dim, stacked=False)
    partly = _partly_known(tensors, dim, stacked=False)
    if partly is not None:
        return partly
    tensors = tensor_list(tensors)
    if not tensors:
        ctx.fail(ILLEGAL_VALUE, f"{name}: expected a non-empty list of Tensors")
    dtype = promote(*[t.dtype for t in tensors])
    if any(t.shape is None for t in tensors):
        raise Unknowable("a tensor of unknown rank")
    shapes = [t.shape for t in tensors]
    for i, s in enumerate(shapes):
        if len(s) == 0:
            ctx.fail(SHAPE_MISMATCH, f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = next((s for s in shapes if not _is_legacy_empty(s)), None)
    if ref is None:
        return TensorValue((0,), dtype)
    r = len(ref)
    d = ctx.wrap_dim(dim, r)
    kept = [(i, s) for i, s in enumerate(shapes) if not (r != 1 and _is_legacy_empty(s))]
    if r != 1 and any(len(s) == 1 and not isinstance(s[0], int) for _, s in kept):
        raise LegacyEmpty("a 1-D tensor that may be a legacy empty tensor")
    total = 0
    for i, s in kept:
        if len(s) != r:
            ctx.fail(SHAPE_MISMATCH, f"Tensors must have same number of dimensions: got {r} and {len(s)}")
        for j in range(r):
            if j == d:
                continue
            ctx.require(S.eq(s[j], ref[j]), SHAPE_MISMATCH,
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{S.dim_text(ref[j])} but got size {S.dim_text(s[j])} for tensor number "
                        f"{i} in the list.")
        total = S.add(total, s[d])
    agreed = _agreed([s for _, s in kept], r)
    return TensorValue(agreed[:d] + (total,) + agreed[d + 1:], dtype)


def _agreed(shapes, rank) -> tuple:
    """The dims the op requires equal across `shapes`: a known one wherever any is known."""
    return tuple(next((s[j] for s in shapes if s[j] is not UNKNOWN), UNKNOWN) for j in range(rank))


@op("torch.cat", "torch.concat", "torch.concatenate")
def cat(ctx, tensors, dim=0, *, axis=None, out=None):
    if axis is not None:
        dim = axis
    return cat_shapes(ctx, tensors, dim)


def stack_shapes(ctx, tensors, dim, name="stack"):
    if isinstance(tensors, SomeTensors):
        return _some_joined(tensors, dim, stacked=True)
    partly = _partly_known(tensors, dim, stacked=True)
    if partly is not None:
        return partly
    tensors = tensor_list(tensors)
    if not tensors:
        ctx.fail(ILLEGAL_VALUE, f"{name} expects a non-empty TensorList")
    if any(t.shape is None for t in tensors):
        raise Unknowable("a tensor of unknown rank")
    ref = tensors[0].shape
    d = ctx.wrap_dim(dim, len(ref) + 1)
    for i, t in enumerate(tensors[1:], 1):
        msg = (f"stack expects each tensor to be equal size, but got {S.size_text(ref)} at entry 0 "
               f"and {S.size_text(t.shape)} at entry {i}")
        if len(t.shape) != len(ref):
            ctx.fail(SHAPE_MISMATCH, msg)
        ctx.require(S.and_(*[S.eq(a, b) for a, b in zip(ref, t.shape)]), SHAPE_MISMATCH, msg)
    dtype = promote(*[t.dtype for t in tensors])
    ref = _agreed([t.shape for t in tensors], len(ref))
    return TensorValue(ref[:d] + (len(tensors),) + ref[d:], dtype)


@op("torch.stack")
def stack(ctx, tensors, dim=0, *, out=None):
    return stack_shapes(ctx, tensors, dim)


def _atleast(t, n):
    s = t.shape
    if s is None:
        raise Unknowable("unknown rank")
    if len(s) >= n:
        return t
    if len(s) == 0:
        return TensorValue((1,) * n, t.dtype)
    if len(s) == 1:
        return TensorValue((1,) + s + ((1,) if n == 3 else ()), t.dtype)
    return TensorValue(s + (1,), t.dtype)


@op("torch.hstack")
def hstack(ctx, tensors, *, out=None):
    tensors = [_atleast(t, 1) for t in tensor_list(tensors)]
    if not tensors:
        ctx.fail(ILLEGAL_VALUE, "hstack expects a non-empty TensorList")
    return cat_shapes(ctx, tensors, 0 if len(tensors[0].shape) == 1 else 1)


@op("torch.vstack", "torch.row_stack")
def vstack(ctx, tensors, *, out=None):
    tensors = [_atleast(t, 2) for t in tensor_list(tensors)]
    if not tensors:
        ctx.fail(ILLEGAL_VALUE, "vstack expects a non-empty TensorList")
    return cat_shapes(ctx, tensors, 0)


@op("torch.dstack")
def dstack(ctx, tensors, *, out=None):
    tensors = [_atleast(t, 3) for t in tensor_list(tensors)]
    if not tensors:
        ctx.fail(ILLEGAL_VALUE, "dstack expects a non-empty TensorList")
    return cat_shapes(ctx, tensors, 2)


@op("torch.column_stack")
def column_stack(ctx, tensors, *, out=None):
    out = []
    for t in tensor_list(tensors):
        s = t.shape
        if s is None:
            raise Unknowable("unknown rank")
        if len(s) <= 1:
            t = TensorValue((S.prod(s), 1), t.dtype)
        out.append(t)
    if not out:
        ctx.fail(ILLEGAL_VALUE, "column_stack expects a non-empty TensorList")
    return cat_shapes(ctx, out, 1)


# -- split / chunk -----------------------------------------------------------------------

def _piece(shape, d, n, dtype):
    return TensorValue(shape[:d] + (n,) + shape[d + 1:], dtype)


def _pieces(shape, d, dtype, per=None) -> SomeTensors:
    """The pieces of dim `d` cut into an unknown count, of sizes not known one by one: what
    they add up to is still the dim (a cat of them, or of a comprehension that keeps their
    size, gives it back: ghost batch norm's `cat([bn(c) for c in x.chunk(k, 0)], 0)`).
    `per`: the size of every piece but the last, when known (`chunk(k)` is a split by
    ceil(n/k)): unpacked into m names, the count is m (statements.assign_unpack)."""
    piece = S.piece_symbol(d, shape[d])
    return SomeTensors((), _piece(shape, d, piece, dtype), Pieces(d, shape[d], piece, per))


def _ceil_div(n, k):
    """ceil(n / k) written as `(n + k - 1)//k`, as people read it."""
    return S.floordiv(S.add(n, S.sub(k, 1)), k)


def _surely(ctx, cond) -> bool:
    """True when the condition holds for every value, False when that is not known."""
    try:
        return ctx.decide(cond)
    except Unknowable:
        return False


def split_by_size(ctx, input, split_size, dim):
    shape = ctx.shape(input)
    if len(shape) == 0:
        ctx.fail(SHAPE_MISMATCH, "split expects at least a 1-dimensional tensor")
    if not is_dim(split_size):
        raise Unknowable("split size")
    ctx.require(S.ge(split_size, 0), ILLEGAL_VALUE,
                f"split expects split_size be non-negative, but got split_size={S.dim_text(split_size)}")
    d = ctx.wrap_dim(dim, len(shape))
    n = shape[d]
    ctx.require(S.or_(S.gt(split_size, 0), S.eq(n, 0)), ILLEGAL_VALUE,
                f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                f"{S.dim_text(n)}")
    if isinstance(split_size, int) and split_size == 0:
        return (_piece(shape, d, 0, input.dtype),)
    count = S.cdiv(n, split_size)
    if isinstance(count, int):
        count = max(count, 1)
        last = S.sub(n, S.mul(count - 1, split_size))
        return tuple(_piece(shape, d, split_size, input.dtype) for _ in range(count - 1)) + (
            _piece(shape, d, last, input.dtype),)
    if _surely(ctx, S.eq(S.mod(n, split_size), 0)):
        count = S.floordiv(n, split_size)
        if isinstance(count, int):
            return tuple(_piece(shape, d, split_size, input.dtype) for _ in range(count))
        # `x.split(C // radix, dim=1)` of a dim C: radix pieces of that size, radix unknown
        return SomeTensors((), _piece(shape, d, split_size, input.dtype))
    return _pieces(shape, d, input.dtype, split_size)  # the last may be shorter


def split_by_sizes(ctx, input, sizes, dim):
    shape = ctx.shape(input)
    if len(shape) == 0:
        ctx.fail(SHAPE_MISMATCH, "split expects at least a 1-dimensional tensor")
    d = ctx.wrap_dim(dim, len(shape))
    sizes = list(sizes)
    for s in sizes:
        if not is_dim(s):
            raise Unknowable("split size")
    text = S.size_text(sizes)
    for s in sizes:
        ctx.require(S.ge(s, 0), ILLEGAL_VALUE,
                    f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                    f"split_sizes={text}")
    ctx.require(S.eq(sum_dims(sizes), shape[d]), SHAPE_MISMATCH,
                f"split_with_sizes expects split_sizes to sum exactly to {S.dim_text(shape[d])} "
                f"(input tensor's size at dimension {dim}), but got split_sizes={text}")
    return tuple(_piece(shape, d, s, input.dtype) for s in sizes)


def sum_dims(dims):
    total = 0
    for x in dims:
        total = S.add(total, x)
    return total


@op("torch.split", "Tensor.split")
def split(ctx, tensor, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, (tuple, list)):
        return split_by_sizes(ctx, tensor, split_size_or_sections, dim)
    return split_by_size(ctx, tensor, split_size_or_sections, dim)


@op("torch.split_with_sizes", "Tensor.split_with_sizes")
def split_with_sizes(ctx, input, split_sizes, dim=0):
    if not isinstance(split_sizes, (tuple, list)):
        raise Unknowable("split sizes")
    return split_by_sizes(ctx, input, split_sizes, dim)


@op("torch.chunk", "Tensor.chunk")
def chunk(ctx, input, chunks, dim=0):
    shape = ctx.shape(input)
    if len(shape) == 0:
        ctx.fail(SHAPE_MISMATCH, "chunk expects at least a 1-dimensional tensor")
    if chunks is not UNKNOWN and not is_dim(chunks):
        raise Unknowable("chunks")
    if chunks is not UNKNOWN:
        ctx.require(S.gt(chunks, 0), ILLEGAL_VALUE,
                    f"chunk expects `chunks` to be greater than 0, got: {S.dim_text(chunks)}")
    d = ctx.wrap_dim(dim, len(shape))
    n = shape[d]
    if not isinstance(chunks, int):
        # `x.chunk(self.chunks, dim=1)` with a hyperparameter count: some pieces, each like
        # the input but for the chunked dim (a comprehension over them keeps the rank).
        even = chunks is not UNKNOWN and _surely(ctx, S.eq(S.mod(n, chunks), 0))
        if even:
            return SomeTensors((), _piece(shape, d, S.floordiv(n, chunks), input.dtype))
        return _pieces(shape, d, input.dtype, _ceil_div(n, chunks) if chunks is not UNKNOWN else None)
    if isinstance(n, int) and n == 0:
        return tuple(_piece(shape, d, 0, input.dtype) for _ in range(chunks))
    if not isinstance(n, int):
        if _surely(ctx, S.eq(S.mod(n, chunks), 0)):
            return tuple(_piece(shape, d, S.floordiv(n, chunks), input.dtype) for _ in range(chunks))
        return _pieces(shape, d, input.dtype, _ceil_div(n, chunks))  # at most `chunks` pieces
    return split_by_size(ctx, input, -(-n // chunks), d)


def _slice_len(n, start, stop):
    """len(range(n)[start:stop]) for ints."""
    return len(range(n)[start:stop])


@op("torch.tensor_split", "Tensor.tensor_split")
def tensor_split(ctx, input, indices_or_sections, dim=0):
    shape = ctx.shape(input)
    if len(shape) == 0:
        ctx.fail(SHAPE_MISMATCH, "tensor_split expected at least a 1-dimensional tensor, but got "
                                 "a tensor with 0 dims")
    d = ctx.wrap_dim(dim, len(shape))
    n = shape[d]
    if isinstance(indices_or_sections, (tuple, list)):
        idx = [ctx.known_int(i) for i in indices_or_sections]
        if not isinstance(n, int):
            raise Unknowable("split points on a symbolic dim")
        bounds = [0] + idx + [n]
        return tuple(_piece(shape, d, _slice_len(n, a, b), input.dtype)
                     for a, b in zip(bounds[:-1], bounds[1:]))
    k = indices_or_sections
    if not is_dim(k):
        raise Unknowable("sections")
    ctx.require(S.gt(k, 0), ILLEGAL_VALUE, f"number of sections must be larger than 0, got {S.dim_text(k)}")
    k = ctx.known_int(k)
    if not isinstance(n, int):
        if ctx.decide(S.eq(S.mod(n, k), 0)):
            return tuple(_piece(shape, d, S.floordiv(n, k), input.dtype) for _ in range(k))
        raise Unknowable("uneven sections of a symbolic dim")
    q, r = divmod(n, k)
    return tuple(_piece(shape, d, q + 1 if i < r else q, input.dtype) for i in range(k))


def _dir_split(ctx, input, indices_or_sections, name, min_rank, dim):
    shape = ctx.shape(input)
    if len(shape) < min_rank:
        ctx.fail(SHAPE_MISMATCH, f"torch.{name} requires a tensor with at least {min_rank} dimension, "
                                 f"but got a tensor with {len(shape)} dimensions!")
    if dim is None:
        dim = 0 if len(shape) == 1 else 1
    if not isinstance(indices_or_sections, (tuple, list)):
        k = indices_or_sections
        if not is_dim(k):
            raise Unknowable("sections")
        ctx.require(S.eq(S.mod(shape[dim], k), 0) if not (isinstance(k, int) and k == 0) else False,
                    SHAPE_MISMATCH,
                    f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                    f"dimension {S.dim_text(shape[dim])} is not divisible by the split_size "
                    f"{S.dim_text(k)}!")
    return tensor_split(ctx, input, indices_or_sections, dim)


@op("torch.hsplit", "Tensor.hsplit")
def hsplit(ctx, input, indices_or_sections):
    return _dir_split(ctx, input, indices_or_sections, "hsplit", 1, None)


@op("torch.vsplit", "Tensor.vsplit")
def vsplit(ctx, input, indices_or_sections):
    return _dir_split(ctx, input, indices_or_sections, "vsplit", 2, 0)


@op("torch.dsplit", "Tensor.dsplit")
def dsplit(ctx, input, indices_or_sections):
    return _dir_split(ctx, input, indices_or_sections, "dsplit", 3, 2)


@op("torch.unbind", "Tensor.unbind")
def unbind(ctx, input, dim=0):
    shape = ctx.shape(input)
    d = ctx.wrap_dim(dim, len(shape))
    if len(shape) == 0:
        ctx.fail(IMPROPER_VALUE, "Dimension specified as 0 but tensor has no dimensions")
    n = shape[d]
    if not isinstance(n, int):
        raise Unknowable("unbind of a symbolic dim")
    return tuple(TensorValue(shape[:d] + shape[d + 1:], input.dtype) for _ in range(n))


# -- meshgrid and friends ----------------------------------------------------------------

@op("torch.meshgrid")
def meshgrid(ctx, *tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    tensors = tensor_list(tensors)
    if not tensors:
        raise Unknowable("meshgrid of nothing")
    sizes = []
    for t in tensors:
        s = ctx.shape(t)
        if len(s) > 1:
            ctx.fail(SHAPE_MISMATCH, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ")
        sizes.append(S.prod(s))
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        ctx.fail(ILLEGAL_VALUE, f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                                f"received: {indexing}")
    if indexing == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return tuple(TensorValue(tuple(sizes), t.dtype) for t in tensors)


@op("torch.block_diag")
def block_diag(ctx, *tensors):
    rows, cols = 0, 0
    dts = []
    for t in tensor_list(tensors):
        s = ctx.shape(t)
        if len(s) > 2:
            ctx.fail(SHAPE_MISMATCH, f"torch.block_diag: Input tensors must have 2 or fewer "
                                     f"dimensions. Input {len(dts)} has {len(s)} dimensions")
        r, c = (1, 1) if len(s) == 0 else ((1, s[0]) if len(s) == 1 else s)
        rows, cols = S.add(rows, r), S.add(cols, c)
        dts.append(t.dtype)
    return TensorValue((rows, cols), promote(*dts) if dts else "float32")


@op("torch.cartesian_prod")
def cartesian_prod(ctx, *tensors):
    tensors = tensor_list(tensors)
    if not tensors:
        raise Unknowable("cartesian_prod of nothing")
    sizes = []
    for t in tensors:
        s = ctx.shape(t)
        if len(s) != 1:
            ctx.fail(SHAPE_MISMATCH, "Expect a 1D vector, but got shape " + S.size_text(s))
        sizes.append(s[0])
    if len(tensors) == 1:
        return TensorValue((sizes[0],), tensors[0].dtype)
    return TensorValue((S.prod(sizes), len(sizes)), promote(*[t.dtype for t in tensors]))


@op("torch.broadcast_tensors")
def broadcast_tensors(ctx, *tensors):
    """Each tensor expanded to the shape they broadcast to (the sizes compared left to right:
    tensor a is what the ones before broadcast to)."""
    from .indexing import broadcast_checked
    tensors = tensor_list(tensors)
    if not tensors:
        raise Unknowable("broadcast_tensors of nothing")
    out = ctx.shape(tensors[0])
    for t in tensors[1:]:
        out = broadcast_checked(ctx, tuple(out), ctx.shape(t))
    return tuple(TensorValue(tuple(out), t.dtype) for t in tensors)
