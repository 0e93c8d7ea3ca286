"""Shape manipulation: view/reshape, flatten/unflatten, permute/transpose/movedim,
squeeze/unsqueeze, expand/repeat/tile, narrow/select, roll/flip, diagonal, atleast_nd."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (ILLEGAL_SHAPE, ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH, Dtype,
                   TensorValue, Unknowable, is_tensor, op, sizes_arg)

_TENSOR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}


def is_dim(d) -> bool:
    return (isinstance(d, int) and not isinstance(d, bool)) or isinstance(d, S.Expr) or d is UNKNOWN


def dims_list(v) -> list:
    """An int-or-sequence dim argument as a list of Python ints (Unknowable otherwise)."""
    if isinstance(v, (tuple, list)):
        items = list(v)
    else:
        items = [v]
    for d in items:
        if isinstance(d, bool) or not isinstance(d, int):
            raise Unknowable(f"not a known dim index: {d!r}")
    return items


def wrap_all(ctx, dims, rank) -> list:
    return [0 if rank == 0 and ctx.wrap_dim(d, rank) is not None else ctx.wrap_dim(d, rank) for d in dims]


def wrap0(ctx, d, rank) -> int:
    """wrap_dim where a 0-d tensor's only valid dims (-1 and 0) both mean 0."""
    w = ctx.wrap_dim(d, rank)
    return 0 if rank == 0 else w


def wrap_strict(ctx, d, rank) -> int:
    """Like wrap_dim, but a 0-d tensor has no dims at all (size(d), roll, unbind)."""
    d = ctx.known_int(d)
    if rank == 0:
        ctx.fail(IMPROPER_VALUE, f"Dimension specified as {d} but tensor has no dimensions")
    return ctx.wrap_dim(d, rank)


def check_unique(ctx, wrapped, raw=None):
    seen = set()
    for d in wrapped:
        if d in seen:
            ctx.fail(IMPROPER_VALUE, f"dim {d} appears multiple times in the list of dims")
        seen.add(d)


def numel(shape):
    return UNKNOWN if shape is None else S.prod(shape)


# -- view / reshape ----------------------------------------------------------------------

def infer_size(ctx, target, n):
    """ATen's infer_size: the target shape with its -1 resolved, given n elements."""
    target = tuple(target)
    if any(d is UNKNOWN for d in target) and all(d is UNKNOWN or is_dim(d) for d in target) and \
            sum(1 for d in target if isinstance(d, int) and d == -1) <= 1 and \
            not any(isinstance(d, int) and d < -1 for d in target):
        # A size not known (`x.reshape(*shape)` with `shape` read from a tensor of unknown
        # dims): the rank is the target's; the elements are not checked.
        return tuple(UNKNOWN if isinstance(d, int) and d == -1 else d for d in target)
    for d in target:
        if not is_dim(d):
            raise Unknowable(f"not a size: {d!r}")
    text = S.size_text(target)
    infer = None
    for i, d in enumerate(target):
        if isinstance(d, int) and d == -1:
            if infer is not None:
                ctx.fail(ILLEGAL_VALUE, "only one dimension can be inferred")
            infer = i
        elif isinstance(d, int) and d < 0:
            ctx.fail(ILLEGAL_VALUE, f"invalid shape dimension {d} at index {i} of shape {text}")
    if n is UNKNOWN:
        # An input of unknown rank (a generic input only this op uses): the target holds
        # whenever the op runs; how many elements it has is not known, so nothing is checked.
        return target if infer is None else target[:infer] + (UNKNOWN,) + target[infer + 1:]
    invalid = f"shape '{text}' is invalid for input of size {S.dim_text(n)}"
    if infer is None:
        ctx.require(S.eq(n, S.prod(target)), SHAPE_MISMATCH, invalid)
        return target
    others = S.prod(d for i, d in enumerate(target) if i != infer)
    if isinstance(others, int) and others == 0:
        if isinstance(n, int) and n == 0:
            ctx.fail(SHAPE_MISMATCH,
                     f"cannot reshape tensor of 0 elements into shape {text} because the "
                     f"unspecified dimension size -1 can be any value and is ambiguous")
        ctx.require(S.eq(n, 0), SHAPE_MISMATCH, invalid)
        return target[:infer] + (UNKNOWN,) + target[infer + 1:]
    ctx.require(S.eq(S.mod(n, others), 0), SHAPE_MISMATCH, invalid)
    return target[:infer] + (S.floordiv(n, others),) + target[infer + 1:]


def reshape_to(ctx, input, target):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    return TensorValue(infer_size(ctx, target, numel(input.shape)), input.dtype)


@op("Tensor.view")
def view(ctx, self, *shape, size=None, dtype=None):
    if dtype is not None or (len(shape) == 1 and isinstance(shape[0], Dtype)):
        raise Unknowable("view(dtype) reinterprets the element size")
    if size is not None:
        shape = (size,)
    if not shape:
        raise Unknowable("view() without a shape")
    return reshape_to(ctx, self, sizes_arg(shape))


@op("Tensor.reshape")
def tensor_reshape(ctx, self, *shape):
    if not shape:
        raise Unknowable("reshape() without a shape")
    return reshape_to(ctx, self, sizes_arg(shape))


@op("torch.reshape")
def reshape(ctx, input, shape):
    if not isinstance(shape, (tuple, list)):
        raise Unknowable("shape must be a sequence")
    return reshape_to(ctx, input, tuple(shape))


@op("torch.flatten", "Tensor.flatten")
def flatten(ctx, input, start_dim=0, end_dim=-1):
    shape = ctx.shape(input)
    r = len(shape)
    a, b = ctx.wrap_dim(start_dim, r), ctx.wrap_dim(end_dim, r)
    if r == 0:
        return TensorValue((1,), input.dtype)
    if a > b:
        ctx.fail(IMPROPER_VALUE, "flatten() has invalid args: start_dim cannot come after end_dim")
    return TensorValue(shape[:a] + (S.prod(shape[a:b + 1]),) + shape[b + 1:], input.dtype)


@op("torch.ravel", "Tensor.ravel")
def ravel(ctx, input):
    if not is_tensor(input):
        raise Unknowable("not a tensor")
    return TensorValue((numel(input.shape),), input.dtype)


@op("torch.unflatten", "Tensor.unflatten")
def unflatten(ctx, input, dim, sizes):
    shape = ctx.shape(input)
    if not isinstance(sizes, (tuple, list)):
        raise Unknowable("sizes must be a sequence")
    if len(shape) == 0:
        ctx.fail(IMPROPER_VALUE, "unflatten got an unexpected error:")
    d = ctx.wrap_dim(dim, len(shape))
    if len(sizes) == 0:
        ctx.fail(ILLEGAL_VALUE, "unflatten: sizes must be non-empty")
    sizes = tuple(sizes)
    for s in sizes:
        if not is_dim(s):
            raise Unknowable("size")
    n = shape[d]
    if sum(1 for s in sizes if isinstance(s, int) and s == -1) > 1:
        ctx.fail(ILLEGAL_VALUE, "unflatten got an unexpected error:")
    msg = (f"unflatten: Provided sizes {S.size_text(sizes)} don't multiply up to the size of dim "
           f"{d} ({S.dim_text(n)}) in the input tensor")
    if any(isinstance(s, int) and s == -1 for s in sizes):
        k = next(i for i, s in enumerate(sizes) if isinstance(s, int) and s == -1)
        others = S.prod(s for i, s in enumerate(sizes) if i != k)
        if isinstance(others, int) and others == 0:
            if isinstance(n, int) and n == 0:
                ctx.fail(SHAPE_MISMATCH, "unflatten got an unexpected error:")
            ctx.require(S.eq(n, 0), SHAPE_MISMATCH, msg)
        ctx.require(S.eq(S.mod(n, others), 0), SHAPE_MISMATCH, msg)
        sizes = sizes[:k] + (S.floordiv(n, others),) + sizes[k + 1:]
    else:
        ctx.require(S.eq(n, S.prod(sizes)), SHAPE_MISMATCH, msg)
    return TensorValue(shape[:d] + sizes + shape[d + 1:], input.dtype)


# -- permutations ------------------------------------------------------------------------

@op("Tensor.permute")
def tensor_permute(ctx, self, *dims):
    if not dims:
        raise Unknowable("permute() without dims (TypeError)")
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return permute(ctx, self, dims)


@op("torch.permute")
def permute(ctx, input, dims):
    shape = ctx.shape(input)
    dims = dims_list(dims)
    if len(dims) != len(shape):
        ctx.fail(IMPROPER_VALUE,
                 "permute(sparse_coo): number of dimensions in the tensor input does not match the "
                 "length of the desired ordering of dimensions i.e. input.dim() = "
                 f"{len(shape)} is not equal to len(dims) = {len(dims)}")
    wrapped = []
    for d in dims:
        w = ctx.wrap_dim(d, len(shape))
        if w in wrapped:
            ctx.fail(IMPROPER_VALUE, "permute(): duplicate dims are not allowed.")
        wrapped.append(w)
    return TensorValue(tuple(shape[i] for i in wrapped), input.dtype)


@op("torch.transpose", "Tensor.transpose", "Tensor.transpose_", "torch.swapaxes",
    "Tensor.swapaxes", "Tensor.swapaxes_", "torch.swapdims", "Tensor.swapdims", "Tensor.swapdims_")
def transpose(ctx, input, dim0, dim1):
    shape = list(ctx.shape(input))
    a, b = ctx.wrap_dim(dim0, len(shape)), ctx.wrap_dim(dim1, len(shape))
    if shape:
        shape[a], shape[b] = shape[b], shape[a]
    return TensorValue(tuple(shape), input.dtype)


def _t(ctx, input, name):
    shape = ctx.shape(input)
    if len(shape) > 2:
        ctx.fail(SHAPE_MISMATCH, f"{name}() expects a tensor with <= 2 dimensions, but self is {len(shape)}D")
    return TensorValue(tuple(reversed(shape)), input.dtype)


@op("torch.t", "Tensor.t")
def t(ctx, input):
    return _t(ctx, input, "t")


@op("Tensor.t_")
def t_(ctx, self):
    return _t(ctx, self, "t_")


@op("torch.adjoint", "Tensor.adjoint")
def adjoint(ctx, input):
    shape = ctx.shape(input)
    if len(shape) == 1:
        ctx.fail(SHAPE_MISMATCH, "tensor.adjoint() is only supported on matrices or batches of "
                                 "matrices. Got 1-D tensor.")
    if len(shape) == 0:
        return TensorValue(shape, input.dtype)
    return transpose(ctx, input, -2, -1)


@op("torch.movedim", "Tensor.movedim", "torch.moveaxis", "Tensor.moveaxis")
def movedim(ctx, input, source, destination):
    shape = ctx.shape(input)
    r = len(shape)
    src, dst = dims_list(source), dims_list(destination)
    if len(src) != len(dst):
        ctx.fail(IMPROPER_VALUE,
                 f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                 f"contain the same number of dims as destination ({list(dst)} dims)")
    ws, wd = wrap_all(ctx, src, r), wrap_all(ctx, dst, r)
    if len(set(ws)) != len(ws):
        ctx.fail(IMPROPER_VALUE, f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(wd)) != len(wd):
        ctx.fail(IMPROPER_VALUE, f"movedim: repeated dim in `destination` ({list(dst)})")
    if r == 0:
        return TensorValue(shape, input.dtype)
    out = [None] * r
    for s, d in zip(ws, wd):
        out[d] = shape[s]
    rest = iter(shape[i] for i in range(r) if i not in ws)
    out = [next(rest) if o is None else o for o in out]
    return TensorValue(tuple(out), input.dtype)


# -- squeeze / unsqueeze -----------------------------------------------------------------

def _is_one(ctx, d):
    """True/False when the size is decidably 1 or not; None when it cannot be told."""
    if d is UNKNOWN:
        return None
    if isinstance(d, int):
        return d == 1
    try:
        return ctx.decide(S.eq(d, 1))
    except Unknowable:
        return None


@op("torch.squeeze", "Tensor.squeeze", "Tensor.squeeze_")
def squeeze(ctx, input, dim=None):
    shape = ctx.shape(input)
    r = len(shape)
    if dim is None:
        targets = list(range(r))
    else:
        targets = wrap_all(ctx, dims_list(dim), r)
        check_unique(ctx, targets)
        if r == 0:
            return TensorValue((), input.dtype)
    out = []
    for i, d in enumerate(shape):
        if i in targets:
            one = _is_one(ctx, d)
            if one is None:
                return TensorValue(None, input.dtype)
            if one:
                continue
        out.append(d)
    return TensorValue(tuple(out), input.dtype)


@op("torch.unsqueeze", "Tensor.unsqueeze", "Tensor.unsqueeze_")
def unsqueeze(ctx, input, dim):
    shape = ctx.shape(input)
    i = ctx.wrap_dim(dim, len(shape) + 1)
    return TensorValue(shape[:i] + (1,) + shape[i:], input.dtype)


# -- expand / repeat / tile --------------------------------------------------------------

def expand_to(ctx, input, sizes):
    shape = ctx.shape(input)
    sizes = tuple(sizes)
    for s in sizes:
        if not is_dim(s):
            raise Unknowable(f"not a size: {s!r}")
    r, n = len(shape), len(sizes)
    if n < r:
        tname = _TENSOR_TYPE.get(input.dtype, "Float")
        ctx.fail(SHAPE_MISMATCH,
                 f"expand(torch.{tname}Tensor{{{S.size_text(shape)}}}, size={S.size_text(sizes)}): "
                 f"the number of sizes provided ({n}) must be greater or equal to the number of "
                 f"dimensions in the tensor ({r})")
    out = []
    lead = n - r
    for i in reversed(range(n)):
        t = sizes[i]
        if i < lead:
            if isinstance(t, int) and t == -1:
                ctx.fail(ILLEGAL_VALUE, f"The expanded size of the tensor (-1) isn't allowed in a "
                                        f"leading, non-existing dimension {i}")
            ctx.require(S.ge(t, 0), ILLEGAL_SHAPE,
                        f"Trying to create tensor with negative dimension {S.dim_text(t)}: "
                        f"{S.size_text(sizes)}")
            out.insert(0, t)
            continue
        d = shape[i - lead]
        if isinstance(t, int) and t == -1:
            out.insert(0, d)
            continue
        msg = (f"The expanded size of the tensor ({S.dim_text(t)}) must match the existing size "
               f"({S.dim_text(d)}) at non-singleton dimension {i}.  Target sizes: "
               f"{S.size_text(sizes)}.  Tensor sizes: {S.size_text(shape)}")
        ctx.require(S.or_(S.eq(t, d), S.eq(d, 1)), SHAPE_MISMATCH, msg)
        ctx.require(S.ge(t, 0), ILLEGAL_SHAPE,
                    f"Trying to create tensor with negative dimension {S.dim_text(t)}: "
                    f"{S.size_text(sizes)}")
        out.insert(0, t)
    return TensorValue(tuple(out), input.dtype)


@op("Tensor.expand")
def expand(ctx, self, *sizes, implicit=False):
    if not sizes:
        raise Unknowable("expand() without sizes")
    return expand_to(ctx, self, sizes_arg(sizes))


@op("torch.broadcast_to", "Tensor.broadcast_to")
def broadcast_to(ctx, input, size):
    if not isinstance(size, (tuple, list)):
        raise Unknowable("size must be a sequence")
    return expand_to(ctx, input, size)


def repeat_by(ctx, input, reps):
    shape = ctx.shape(input)
    reps = tuple(reps)
    for s in reps:
        if not is_dim(s):
            raise Unknowable(f"not a size: {s!r}")
    if len(reps) < len(shape):
        ctx.fail(SHAPE_MISMATCH, "Number of dimensions of repeat dims can not be smaller than "
                                 "number of dimensions of tensor")
    padded = (1,) * (len(reps) - len(shape)) + tuple(shape)
    out = tuple(S.mul(a, b) for a, b in zip(padded, reps))
    for d in out:
        ctx.require(S.ge(d, 0), ILLEGAL_SHAPE,
                    f"Trying to create tensor with negative dimension {S.dim_text(d)}: {S.size_text(out)}")
    return TensorValue(out, input.dtype)


@op("Tensor.repeat")
def repeat(ctx, self, *repeats):
    if not repeats:
        raise Unknowable("repeat() without sizes")
    return repeat_by(ctx, self, sizes_arg(repeats))


@op("torch.tile", "Tensor.tile")
def tile(ctx, input, *dims):
    if not dims:
        raise Unknowable("tile() without dims")
    shape = ctx.shape(input)
    dims = sizes_arg(dims)
    if len(dims) < len(shape):
        dims = (1,) * (len(shape) - len(dims)) + tuple(dims)
    return repeat_by(ctx, input, dims)


# -- narrow / select ---------------------------------------------------------------------

@op("torch.narrow", "Tensor.narrow", "torch.narrow_copy", "Tensor.narrow_copy")
def narrow(ctx, input, dim, start, length):
    shape = ctx.shape(input)
    if len(shape) == 0:
        ctx.fail(IMPROPER_VALUE, "narrow() cannot be applied to a 0-dim tensor.")
    if not is_dim(start) or not is_dim(length):
        raise Unknowable("narrow start/length")
    ctx.require(S.ge(length, 0), ILLEGAL_VALUE, "narrow(): length must be non-negative.")
    d = ctx.wrap_dim(dim, len(shape))
    size = shape[d]
    ctx.require(S.and_(S.ge(start, S.sub(0, size)), S.le(start, size)), IMPROPER_VALUE,
                f"start out of range (expected to be in range of [{S.dim_text(S.sub(0, size))}, "
                f"{S.dim_text(size)}], but got {S.dim_text(start)})")
    if isinstance(start, int) and start < 0:
        start = S.add(start, size)
    ctx.require(S.ge(length, 0), ILLEGAL_VALUE, "narrow(): length must be non-negative.")
    ctx.require(S.le(S.add(start, length), size), IMPROPER_VALUE,
                f"start ({S.dim_text(start)}) + length ({S.dim_text(length)}) exceeds dimension "
                f"size ({S.dim_text(size)}).")
    return TensorValue(shape[:d] + (length,) + shape[d + 1:], input.dtype)


@op("torch.select", "Tensor.select")
def select(ctx, input, dim, index):
    shape = ctx.shape(input)
    if len(shape) == 0:
        ctx.fail(IMPROPER_VALUE, "select() cannot be applied to a 0-dim tensor.")
    d = ctx.wrap_dim(dim, len(shape))
    if not is_dim(index):
        raise Unknowable("index")
    size = shape[d]
    ctx.require(S.and_(S.ge(index, S.sub(0, size)), S.lt(index, size)), IMPROPER_VALUE,
                f"select(): index {S.dim_text(index)} out of range for tensor of size "
                f"{S.size_text(shape)} at dimension {d}")
    return TensorValue(shape[:d] + shape[d + 1:], input.dtype)


# -- roll / flip -------------------------------------------------------------------------

@op("torch.roll", "Tensor.roll")
def roll(ctx, input, shifts, dims=None):
    shape = ctx.shape(input)
    n_shifts = len(shifts) if isinstance(shifts, (tuple, list)) else 1
    if dims is None:
        n_dims = 0
        wrapped = []
    else:
        dl = dims_list(dims)
        n_dims = len(dl)
        if n_shifts == 0:
            ctx.fail(ILLEGAL_VALUE, "`shifts` required")
        if n_shifts != n_dims:
            ctx.fail(ILLEGAL_VALUE, f"shifts and dimensions must align. shifts: {n_shifts}, dims:{n_dims}")
        wrapped = [wrap_strict(ctx, d, len(shape)) for d in dl]
    if dims is None:
        if n_shifts == 0:
            ctx.fail(ILLEGAL_VALUE, "`shifts` required")
        if n_shifts != 1:
            ctx.fail(ILLEGAL_VALUE, f"shifts and dimensions must align. shifts: {n_shifts}, dims:0")
    return TensorValue(shape, input.dtype)


@op("Tensor.flip")
def tensor_flip(ctx, self, *dims):
    if not dims:
        raise Unknowable("flip() without dims (TypeError)")
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return flip(ctx, self, dims)


@op("torch.flip")
def flip(ctx, input, dims):
    shape = ctx.shape(input)
    wrapped = wrap_all(ctx, dims_list(dims), len(shape))
    check_unique(ctx, wrapped)
    return TensorValue(shape, input.dtype)


@op("torch.fliplr", "Tensor.fliplr")
def fliplr(ctx, input):
    shape = ctx.shape(input)
    if len(shape) < 2:
        ctx.fail(SHAPE_MISMATCH, "Input must be >= 2-d.")
    return TensorValue(shape, input.dtype)


@op("torch.flipud", "Tensor.flipud")
def flipud(ctx, input):
    shape = ctx.shape(input)
    if len(shape) < 1:
        ctx.fail(SHAPE_MISMATCH, "Input must be >= 1-d.")
    return TensorValue(shape, input.dtype)


@op("torch.rot90", "Tensor.rot90")
def rot90(ctx, input, k=1, dims=(0, 1)):
    shape = list(ctx.shape(input))
    dl = dims_list(dims)
    if len(dl) != 2:
        ctx.fail(IMPROPER_VALUE, f"expected total rotation dims == 2, but got dims = {len(dl)}")
    if len(shape) < 2:
        ctx.fail(SHAPE_MISMATCH, f"expected total dims >= 2, but got total dims = {len(shape)}")
    a, b = wrap_all(ctx, dl, len(shape))
    if a == b:
        ctx.fail(IMPROPER_VALUE, f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    k = ctx.known_int(k)
    if k % 2:
        shape[a], shape[b] = shape[b], shape[a]
    return TensorValue(tuple(shape), input.dtype)


# -- diagonals ---------------------------------------------------------------------------

def _diag_len(n1, n2, offset):
    if not isinstance(offset, int) or isinstance(offset, bool):
        return UNKNOWN
    if isinstance(n1, int) and isinstance(n2, int):
        if offset >= 0:
            return max(min(n1, n2 - offset), 0)
        return max(min(n1 + offset, n2), 0)
    if offset == 0 and n1 == n2:
        return n1
    return UNKNOWN


@op("torch.diagonal", "Tensor.diagonal")
def diagonal(ctx, input, offset=0, dim1=0, dim2=1):
    shape = ctx.shape(input)
    r = len(shape)
    a, b = wrap0(ctx, dim1, r), wrap0(ctx, dim2, r)
    if a == b:
        ctx.fail(IMPROPER_VALUE, f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rest = tuple(d for i, d in enumerate(shape) if i not in (a, b))
    return TensorValue(rest + (_diag_len(shape[a], shape[b], offset),), input.dtype)


@op("torch.diag", "Tensor.diag")
def diag(ctx, input, diagonal=0):
    shape = ctx.shape(input)
    if len(shape) not in (1, 2):
        ctx.fail(SHAPE_MISMATCH, f"diag(): Supports 1D or 2D tensors. Got {len(shape)}D")
    if len(shape) == 1:
        k = ctx.known_int(diagonal)
        n = S.add(shape[0], abs(k))
        return TensorValue((n, n), input.dtype)
    return TensorValue((_diag_len(shape[0], shape[1], diagonal),), input.dtype)


@op("torch.diag_embed", "Tensor.diag_embed")
def diag_embed(ctx, input, offset=0, dim1=-2, dim2=-1):
    shape = ctx.shape(input)
    r = len(shape) + 1
    a, b = ctx.wrap_dim(dim1, r), ctx.wrap_dim(dim2, r)
    if a == b:
        ctx.fail(IMPROPER_VALUE, f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if not shape:
        raise Unknowable("diag_embed of a 0-d tensor")
    n = S.add(shape[-1], abs(ctx.known_int(offset)))
    rest = list(shape[:-1])
    out = []
    for i in range(r):
        out.append(n if i in (a, b) else rest.pop(0))
    return TensorValue(tuple(out), input.dtype)


# -- atleast_nd --------------------------------------------------------------------------

def _atleast(ctx, tensors, n):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        return tuple(_one_atleast(ctx, t, n) for t in tensors[0])
    if len(tensors) == 1:
        return _one_atleast(ctx, tensors[0], n)
    return tuple(_one_atleast(ctx, t, n) for t in tensors)


def _one_atleast(ctx, x, n):
    shape = ctx.shape(x)
    r = len(shape)
    if r >= n:
        return TensorValue(shape, x.dtype)
    if r == 0:
        return TensorValue((1,) * n, x.dtype)
    if r == 1:
        return TensorValue((1,) + shape + ((1,) if n == 3 else ()), x.dtype)
    return TensorValue(shape + (1,), x.dtype)


@op("torch.atleast_1d")
def atleast_1d(ctx, *tensors):
    return _atleast(ctx, tensors, 1)


@op("torch.atleast_2d")
def atleast_2d(ctx, *tensors):
    return _atleast(ctx, tensors, 2)


@op("torch.atleast_3d")
def atleast_3d(ctx, *tensors):
    return _atleast(ctx, tensors, 3)


# -- unfold (sliding windows) ------------------------------------------------------------

@op("Tensor.unfold")
def tensor_unfold(ctx, self, dimension, size, step):
    shape = ctx.shape(self)
    r = len(shape)
    d = wrap0(ctx, dimension, r)
    if not is_dim(size) or not is_dim(step):
        raise Unknowable("unfold size/step")
    n = shape[d] if r else 1
    ctx.require(S.ge(size, 0), ILLEGAL_VALUE, f"size is {S.dim_text(size)} but must be >= 0")
    ctx.require(S.le(size, n), ILLEGAL_VALUE,
                f"maximum size for tensor at dimension {d} is {S.dim_text(n)} but size is {S.dim_text(size)}")
    ctx.require(S.gt(step, 0), ILLEGAL_VALUE, f"step is {S.dim_text(step)} but must be > 0")
    count = S.add(S.floordiv(S.sub(n, size), step), 1)
    if r == 0:
        return TensorValue((size,), self.dtype)
    return TensorValue(shape[:d] + (count,) + shape[d + 1:] + (size,), self.dtype)
