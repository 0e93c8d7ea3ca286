"""Assorted ops: repeat_interleave, one_hot, bucketize/searchsorted, grid_sample/affine_grid,
gumbel_softmax, combinations, pad_sequence, diff, histc, unique, ctc_loss.

Data-dependent sizes (unique values, tensor repeats, one_hot without num_classes) are
UNKNOWN dims: the shape is known around them, never guessed."""
from __future__ import annotations

from math import factorial

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import dtype_name
from .spec import (DTYPE_MISMATCH, FLOAT_DTYPES, ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH,
                   Dtype, TensorValue, Unknowable, is_tensor, op, promote)

_T = S.dim_text
_INT = {"uint8", "int8", "int16", "int32", "int64"}


def _tensor(x):
    if not is_tensor(x):
        raise Unknowable("not a tensor")
    return x


def _known_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# ---------------------------------------------------------------------------------------
# repeat_interleave
# ---------------------------------------------------------------------------------------

@op("torch.repeat_interleave")
def repeat_interleave(ctx, input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:
        # torch.repeat_interleave(repeats): the indices, as many as the repeats sum to
        s = ctx.shape(_tensor(input))
        if len(s) > 1:
            ctx.fail(SHAPE_MISMATCH, "repeat_interleave only accept 1D vector as repeat")
        _repeats_dtype(ctx, input)
        return TensorValue((UNKNOWN if output_size is None else output_size,), input.dtype)
    return _repeat_interleave(ctx, input, repeats, dim, output_size)


@op("Tensor.repeat_interleave")
def tensor_repeat_interleave(ctx, input, repeats, dim=None, *, output_size=None):
    return _repeat_interleave(ctx, input, repeats, dim, output_size)


def _repeats_dtype(ctx, t):
    if t.dtype is not None and t.dtype not in ("int32", "int64"):
        ctx.fail(DTYPE_MISMATCH, f"\"repeat_interleave_cpu\" not implemented for '{dtype_name(t.dtype)}'")


def _repeat_interleave(ctx, input, repeats, dim, output_size):
    s = ctx.shape(_tensor(input))
    if dim is None:
        s = (S.prod(s),)
        d = 0
    else:
        d = ctx.wrap_dim(dim, len(s))
        if len(s) == 0:
            # a 0-d input is flattened first, and the dim then wraps one past it
            ctx.fail(IMPROPER_VALUE, f"Dimension out of range (expected to be in range of [-1, 0], "
                                     f"but got {d + 1})")
    if output_size is not None and not (_known_int(output_size) or isinstance(output_size, S.Expr)):
        output_size = None
    if is_tensor(repeats):
        r = ctx.shape(repeats)
        if len(r) > 1:
            ctx.fail(SHAPE_MISMATCH, "repeat_interleave only accept 1D vector as repeat")
        _repeats_dtype(ctx, repeats)
        if len(r) == 1:
            ctx.require(S.or_(S.eq(r[0], 1), S.eq(r[0], s[d])), SHAPE_MISMATCH,
                        f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                        f"{_T(r[0])} and input.size({d}) = {_T(s[d])}")
        size = UNKNOWN if output_size is None else output_size
    elif _known_int(repeats) or isinstance(repeats, S.Expr):
        ctx.require(S.ge(repeats, 0), ILLEGAL_VALUE, "Repeats must be non-negative")
        size = S.mul(s[d], repeats)
    else:
        raise Unknowable("repeats")
    return TensorValue(tuple(s[:d]) + (size,) + tuple(s[d + 1:]), input.dtype)


# ---------------------------------------------------------------------------------------
# one_hot, bucketize, searchsorted
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.one_hot")
def one_hot(ctx, tensor, num_classes=-1):
    s = ctx.shape(_tensor(tensor))
    if tensor.dtype is not None and tensor.dtype != "int64":
        ctx.fail(DTYPE_MISMATCH, "one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        numel = S.prod(s)
        if numel == 0:
            ctx.fail(ILLEGAL_VALUE, "Can not infer total number of classes from empty tensor.")
        return TensorValue(tuple(s) + (UNKNOWN,), "int64")
    if num_classes is UNKNOWN:
        # a count computed from values (`max(int(idx.max()) + 1, n)`): an int, or torch
        # raises; the classes are the last dim whatever it is
        return TensorValue(tuple(s) + (UNKNOWN,), "int64")
    if not (_known_int(num_classes) or isinstance(num_classes, S.Expr)):
        raise Unknowable("num_classes")
    if _known_int(num_classes) and num_classes < -1:
        raise Unknowable("negative num_classes: the error depends on the values")
    if num_classes == 0:
        # every class value is >= 0; an empty input cannot infer the classes either
        ctx.fail(ILLEGAL_VALUE, "Class values must be smaller than num_classes.")
    return TensorValue(tuple(s) + (num_classes,), "int64")


def _index_dtype(out_int32):
    if out_int32 is True:
        return "int32"
    if out_int32 is False:
        return "int64"
    return None


def _value_shape(ctx, input):
    if is_tensor(input):
        return ctx.shape(input)
    if isinstance(input, (int, float)) and not isinstance(input, bool):
        return None  # a scalar
    raise Unknowable("input")


@op("torch.bucketize")
def bucketize(ctx, input, boundaries, *, out_int32=False, right=False, out=None):
    b = ctx.shape(_tensor(boundaries))
    v = _value_shape(ctx, input)
    if len(b) != 1:
        ctx.fail(SHAPE_MISMATCH, f"boundaries tensor must be 1 dimension, but got dim({len(b)})")
    return TensorValue(() if v is None else tuple(v), _index_dtype(out_int32))


@op("torch.searchsorted")
def searchsorted(ctx, sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None):
    b = ctx.shape(_tensor(sorted_sequence))
    v = _value_shape(ctx, input)
    if side is not None:
        if not isinstance(side, str):
            raise Unknowable("side")
        if side not in ("left", "right"):
            ctx.fail(ILLEGAL_VALUE, f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right is True and side == "left":
            ctx.fail(ILLEGAL_VALUE, "torch.searchsorted(): side and right can't be set to opposites, got "
                                    "side of left while right was True")
    if len(b) == 0:
        ctx.fail(SHAPE_MISMATCH, "torch.searchsorted(): boundaries tensor should have positive dimension, "
                                 "but got 0 dimension")
    if v is None:
        if len(b) != 1:
            ctx.fail(SHAPE_MISMATCH, f"torch.searchsorted(): input value can be a scalar only when "
                                     f"boundaries tensor dimension is 1, but we got boundaries tensor "
                                     f"dim({len(b)}) and input value's dim(0) numel(1)")
        return TensorValue((), _index_dtype(out_int32))
    if len(b) != 1:
        msg = (f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
               f"dimensions of boundaries tensor and input value tensor must match, but we got "
               f"boundaries tensor {S.size_text(b)} and input value tensor {S.size_text(v)}")
        if len(b) != len(v):
            ctx.fail(SHAPE_MISMATCH, msg)
        ctx.require(S.and_(*[S.eq(x, y) for x, y in zip(b[:-1], v[:-1])]), SHAPE_MISMATCH, msg)
    if is_tensor(sorter):
        ctx.require(S.and_(*[S.eq(x, y) for x, y in zip(ctx.shape(sorter), b)])
                    if len(ctx.shape(sorter)) == len(b) else False, SHAPE_MISMATCH,
                    "torch.searchsorted(): boundary and sorter must have the same size, but got "
                    f"boundary tensor {S.size_text(b)}and got sorter tensor {S.size_text(ctx.shape(sorter))}")
    return TensorValue(tuple(v), _index_dtype(out_int32))


# ---------------------------------------------------------------------------------------
# grid_sample, affine_grid, gumbel_softmax
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.grid_sample")
def grid_sample(ctx, input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    x, g = ctx.shape(_tensor(input)), ctx.shape(_tensor(grid))
    if not isinstance(mode, str) or not isinstance(padding_mode, str):
        raise Unknowable("mode")
    if mode not in ("bilinear", "nearest", "bicubic"):
        ctx.fail(ILLEGAL_VALUE, f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                                f"or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        ctx.fail(ILLEGAL_VALUE, f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                                f"'border', or 'reflection', but got: '{padding_mode}'")
    if input.dtype is not None and grid.dtype is not None and input.dtype != grid.dtype:
        ctx.fail(DTYPE_MISMATCH, f"expected scalar type {dtype_name(input.dtype)} but found "
                                 f"{dtype_name(grid.dtype)}")
    sizes = f"input with sizes {S.size_text(x)} and grid with sizes {S.size_text(g)}"
    if len(x) not in (4, 5) or len(g) != len(x):
        if len(x) == len(g) and len(x) >= 2:
            ctx.require(S.eq(g[-1], len(x) - 2), SHAPE_MISMATCH,
                        f"grid_sampler(): expected grid to have size {len(x) - 2} in last dimension, "
                        f"but got grid with sizes {S.size_text(g)}")
        ctx.fail(SHAPE_MISMATCH, f"grid_sampler(): expected 4D or 5D input and grid with same number of "
                                 f"dimensions, but got {sizes}")
    ctx.require(S.eq(x[0], g[0]), SHAPE_MISMATCH,
                f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    ctx.require(S.eq(g[-1], len(x) - 2), SHAPE_MISMATCH,
                f"grid_sampler(): expected grid to have size {len(x) - 2} in last dimension, but got "
                f"grid with sizes {S.size_text(g)}")
    for i in range(2, len(x)):
        ctx.require(S.gt(x[i], 0), SHAPE_MISMATCH,
                    f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                    f"sizes {S.size_text(x)} with dimension {i} being empty")
    if mode == "bicubic" and len(x) != 4:
        ctx.fail(ILLEGAL_VALUE, "grid_sampler(): bicubic interpolation only supports 4D input")
    return TensorValue((x[0], x[1]) + tuple(g[1:-1]), input.dtype)


@op("torch.nn.functional.affine_grid")
def affine_grid(ctx, theta, size, align_corners=None):
    th = ctx.shape(_tensor(theta))
    if not isinstance(size, (tuple, list)):
        raise Unknowable("size")
    size = tuple(size)
    if theta.dtype is not None and theta.dtype not in FLOAT_DTYPES:
        ctx.fail(DTYPE_MISMATCH, f"Expected theta to have floating point type, but got torch.{theta.dtype}")
    if len(size) == 4:
        want, k = (2, 3), "2D affine matrices of shape Nx2x3"
    elif len(size) == 5:
        want, k = (3, 4), "3D affine matrices of shape Nx3x4"
    else:
        ctx.fail(ILLEGAL_VALUE, f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine "
                                f"transforms, respectively. Got size {S.size_text(size)}.")
    msg = f"Expected a batch of {k} for size {S.size_text(size)}. Got torch.Size({S.size_text(th)})."
    if len(th) != 3:
        ctx.fail(SHAPE_MISMATCH, msg)
    ctx.require(S.and_(S.eq(th[1], want[0]), S.eq(th[2], want[1])), SHAPE_MISMATCH, msg)
    ctx.require(S.and_(*[S.gt(d, 0) for d in size]), ILLEGAL_VALUE,
                f"Expected non-zero, positive output size. Got {S.size_text(size)}")
    ctx.require(S.eq(th[0], size[0]), SHAPE_MISMATCH,
                f"Expected size for first two dimensions of batch2 tensor to be: [{_T(size[0])}, "
                f"{want[0] + 1}] but got: [{_T(th[0])}, {want[0] + 1}].")
    return TensorValue((size[0],) + size[2:] + (want[0],), theta.dtype)


@op("torch.nn.functional.gumbel_softmax")
def gumbel_softmax(ctx, logits, tau=1, hard=False, eps=1e-10, dim=-1):
    s = ctx.shape(_tensor(logits))
    ctx.wrap_dim(dim, len(s))
    if logits.dtype is not None and logits.dtype not in FLOAT_DTYPES:
        raise Unknowable("gumbel_softmax of an integer tensor")
    return TensorValue(s, logits.dtype)


# ---------------------------------------------------------------------------------------
# combinations, pad_sequence, diff, histc, unique
# ---------------------------------------------------------------------------------------

def _choose(n, r, with_replacement):
    """C(n, r) (or with replacement C(n + r - 1, r)) in the dim algebra; 0 when n < r."""
    num = 1
    for i in range(r):
        num = S.mul(num, S.add(n, i) if with_replacement else S.sub(n, i))
    return S.floordiv(num, factorial(r))


@op("torch.combinations")
def combinations(ctx, input, r=2, with_replacement=False):
    s = ctx.shape(_tensor(input))
    if len(s) != 1:
        ctx.fail(SHAPE_MISMATCH, f"Expect a 1D vector, but got shape {S.size_text(s)}")
    if not _known_int(r) or not isinstance(with_replacement, bool):
        raise Unknowable("r")
    if r < 0:
        ctx.fail(ILLEGAL_VALUE, f"Expect a non-negative number, but got {r}")
    if r == 0:
        return TensorValue((0,), input.dtype)
    if r == 1:
        return TensorValue((s[0], 1), input.dtype)
    return TensorValue((_choose(s[0], r, with_replacement), r), input.dtype)


@op("torch.nn.utils.rnn.pad_sequence")
def pad_sequence(ctx, sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if not isinstance(sequences, (tuple, list)):
        raise Unknowable("sequences")
    if not isinstance(padding_side, str) or not isinstance(batch_first, bool):
        raise Unknowable("padding_side")
    if padding_side not in ("left", "right"):
        ctx.fail(ILLEGAL_VALUE, f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        ctx.fail(ILLEGAL_VALUE, "received an empty list of sequences")
    shapes = [ctx.shape(_tensor(t)) for t in sequences]
    first = shapes[0]
    if len(first) == 0:
        ctx.fail(SHAPE_MISMATCH, "ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(first[1:])
    length = first[0]
    for sh in shapes[1:]:
        if len(sh) != len(first):
            raise Unknowable("sequences of different ranks (broadcast copy)")
        for j, (a, b) in enumerate(zip(trailing, sh[1:])):
            ctx.require(S.or_(S.eq(a, b), S.eq(b, 1)), SHAPE_MISMATCH,
                        f"The size of tensor a ({_T(a)}) must match the size of tensor b ({_T(b)}) at "
                        f"non-singleton dimension {j + 1}")
        length = S.dmax(length, sh[0])
    n = len(shapes)
    out = (n, length) + trailing if batch_first else (length, n) + trailing
    return TensorValue(out, sequences[0].dtype)


@op("torch.diff", "Tensor.diff")
def diff(ctx, input, n=1, dim=-1, prepend=None, append=None):
    s = ctx.shape(_tensor(input))
    if len(s) == 0:
        ctx.fail(SHAPE_MISMATCH, "diff expects input to be at least one-dimensional")
    if not _known_int(n):
        raise Unknowable("n")
    if n < 0:
        ctx.fail(ILLEGAL_VALUE, f"order must be non-negative but got {n}")
    d = ctx.wrap_dim(dim, len(s))
    size = s[d]
    dts = [input.dtype]
    for extra in (prepend, append):
        if extra is None:
            continue
        e = ctx.shape(_tensor(extra))
        if len(e) != len(s):
            ctx.fail(SHAPE_MISMATCH, "diff expects prepend or append to be the same dimension as input")
        for i, (a, b) in enumerate(zip(s, e)):
            if i != d:
                ctx.require(S.eq(a, b), SHAPE_MISMATCH,
                            f"diff expects the shape of tensor to prepend or append to match that of input "
                            f"except along the differencing dimension; input.size({i}) = {_T(a)}, but got "
                            f"tensor.size({i}) = {_T(b)}")
        size = S.add(size, e[d])
        dts.append(extra.dtype)
    dt = promote(*dts)
    if n == 0:
        return TensorValue(tuple(s[:d]) + (size,) + tuple(s[d + 1:]), dt)
    out = S.sub(size, n)
    out = max(out, 0) if isinstance(out, int) else S.dmax(out, 0)
    return TensorValue(tuple(s[:d]) + (out,) + tuple(s[d + 1:]), dt)


@op("torch.histc", "Tensor.histc")
def histc(ctx, input, bins=100, min=0, max=0, *, out=None):
    _tensor(input)
    if input.dtype is not None and input.dtype not in ("float32", "float64"):
        if input.dtype in FLOAT_DTYPES:
            raise Unknowable("half histc (backend dependent)")
        ctx.fail(DTYPE_MISMATCH, f"\"histogram_cpu\" not implemented for '{dtype_name(input.dtype)}'")
    if not _known_int(bins):
        raise Unknowable("bins")
    if bins <= 0:
        ctx.fail(ILLEGAL_VALUE, f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if isinstance(min, (int, float)) and isinstance(max, (int, float)) and min > max:
        ctx.fail(ILLEGAL_VALUE, "torch.histc: max must be larger than min")
    return TensorValue((bins,), input.dtype)


def _unique(ctx, input, return_inverse, return_counts, dim, consecutive=False):
    s = ctx.shape(_tensor(input))
    if not isinstance(return_inverse, bool) or not isinstance(return_counts, bool):
        raise Unknowable("flags")
    if dim is None:
        values = TensorValue((UNKNOWN,), input.dtype)
        inverse = TensorValue(tuple(s), "int64")
    else:
        if len(s) == 0:
            ctx.known_int(dim)
            ctx.fail(IMPROPER_VALUE, f"Dimension specified as {dim} but tensor has no dimensions")
        d = ctx.wrap_dim(dim, len(s))
        values = TensorValue(tuple(s[:d]) + (UNKNOWN,) + tuple(s[d + 1:]), input.dtype)
        inverse = TensorValue((s[d],), "int64")
    counts = TensorValue((UNKNOWN,), "int64")
    out = [values]
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


@op("torch.unique", "Tensor.unique")
def unique(ctx, input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _unique(ctx, input, return_inverse, return_counts, dim)


@op("torch.unique_consecutive", "Tensor.unique_consecutive")
def unique_consecutive(ctx, input, return_inverse=False, return_counts=False, dim=None):
    return _unique(ctx, input, return_inverse, return_counts, dim, consecutive=True)


# ---------------------------------------------------------------------------------------
# ctc_loss
# ---------------------------------------------------------------------------------------

def _lengths(ctx, v):
    """A lengths argument: its number of entries (a dim), or None when not known."""
    if is_tensor(v):
        s = ctx.shape(v)
        return UNKNOWN if len(s) > 1 else (1 if len(s) == 0 else s[0])
    if isinstance(v, (tuple, list)):
        return len(v)
    raise Unknowable("lengths")


@op("torch.nn.functional.ctc_loss")
def ctc_loss(ctx, log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    lp, tg = ctx.shape(_tensor(log_probs)), ctx.shape(_tensor(targets))
    if not isinstance(reduction, str):
        raise Unknowable("reduction")
    if reduction not in ("none", "mean", "sum"):
        ctx.fail(ILLEGAL_VALUE, f"{reduction} is not a valid value for reduction")
    if len(lp) not in (2, 3):
        raise Unknowable("log_probs rank")
    batched = len(lp) == 3
    batch = lp[1] if batched else 1
    il, tl = _lengths(ctx, input_lengths), _lengths(ctx, target_lengths)
    if il is not UNKNOWN:
        ctx.require(S.eq(il, batch), SHAPE_MISMATCH, "input_lengths must be of size batch_size")
    if tl is not UNKNOWN:
        ctx.require(S.eq(tl, batch), SHAPE_MISMATCH, "target_lengths must be of size batch_size")
    if batched and len(tg) == 2:
        ctx.require(S.eq(tg[0], batch), SHAPE_MISMATCH,
                    f"Expected tensor to have size {_T(batch)} at dimension 0, but got size {_T(tg[0])} "
                    f"for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")
    elif len(tg) not in (1, 2):
        raise Unknowable("targets rank")
    if not isinstance(blank, int) or isinstance(blank, bool):
        raise Unknowable("blank")
    ctx.require(S.and_(S.le(0, blank), S.lt(blank, lp[-1])), ILLEGAL_VALUE, "blank must be in label range")
    dt = log_probs.dtype
    if reduction == "none" and batched:
        return TensorValue((batch,), dt)
    return TensorValue((), dt)
