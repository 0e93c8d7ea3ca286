"""Tensor attributes and size queries: shape/size()/dim()/numel(), T/mT/H/mH, dtype,
view_as/reshape_as/expand_as."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .shape_ops import expand_to, reshape_to
from .spec import (IMPROPER_VALUE, SHAPE_MISMATCH, Dtype, TensorValue, Unknowable, attr,
                   is_tensor, op)


@attr("Tensor.shape")
def shape(ctx, self):
    return tuple(ctx.shape(self))


@op("Tensor.size")
def size(ctx, self, dim=None):
    shape = ctx.shape(self)
    if dim is None:
        return tuple(shape)
    d = ctx.known_int(dim)
    if len(shape) == 0:
        ctx.fail(IMPROPER_VALUE, f"Dimension specified as {d} but tensor has no dimensions")
    return shape[ctx.wrap_dim(d, len(shape))]


@attr("Tensor.ndim")
def ndim(ctx, self):
    return len(ctx.shape(self))


@op("Tensor.dim", "Tensor.ndimension")
def dim(ctx, self):
    return len(ctx.shape(self))


@op("Tensor.numel", "torch.numel", "Tensor.nelement")
def numel(ctx, input):
    return S.prod(ctx.shape(input))


@op("Tensor.__len__")
def length(ctx, self):
    shape = ctx.shape(self)
    if len(shape) == 0:
        raise Unknowable("len() of a 0-d tensor (TypeError)")
    return shape[0]


@attr("Tensor.dtype")
def dtype(ctx, self):
    if not is_tensor(self) or self.dtype is None:
        raise Unknowable("unknown dtype")
    return Dtype(self.dtype)


@attr("Tensor.data")
def data(ctx, self):
    if not is_tensor(self):
        raise Unknowable("not a tensor")
    return self


@attr("Tensor.T")
def T(ctx, self):
    return TensorValue(tuple(reversed(ctx.shape(self))), self.dtype)


def _matrix_t(ctx, self, name):
    shape = ctx.shape(self)
    if len(shape) == 1:
        ctx.fail(SHAPE_MISMATCH, f"tensor.{name} is only supported on matrices or batches of "
                                 f"matrices. Got 1-D tensor.")
    if len(shape) == 0:
        return TensorValue(shape, self.dtype)
    return TensorValue(shape[:-2] + (shape[-1], shape[-2]), self.dtype)


@attr("Tensor.mT")
def mT(ctx, self):
    return _matrix_t(ctx, self, "mT")


@attr("Tensor.mH")
def mH(ctx, self):
    return _matrix_t(ctx, self, "mH")


@attr("Tensor.H")
def H(ctx, self):
    shape = ctx.shape(self)
    if len(shape) == 0:
        return TensorValue(shape, self.dtype)
    if len(shape) != 2:
        extra = ". For batches of matrices, consider using tensor.mH" if len(shape) > 2 else "."
        ctx.fail(SHAPE_MISMATCH, f"tensor.H is only supported on matrices (2-D tensors). Got "
                                 f"{len(shape)}-D tensor{extra}")
    return TensorValue((shape[1], shape[0]), self.dtype)


@op("Tensor.view_as")
def view_as(ctx, self, other):
    return reshape_to(ctx, self, ctx.shape(other))


@op("Tensor.reshape_as")
def reshape_as(ctx, self, other):
    return reshape_to(ctx, self, ctx.shape(other))


@op("Tensor.expand_as")
def expand_as(ctx, self, other):
    return expand_to(ctx, self, ctx.shape(other))


class LegacyTypeName:
    """What `t.type()` returns, 'torch.FloatTensor' or 'torch.cuda.FloatTensor' (the device is
    not known, so it is not a string here): only good for `u.type(t.type())`."""

    def __init__(self, dtype: str):
        self.dtype = dtype

    def structural_key(self, key):
        return ("legacy-type", self.dtype)


@op("Tensor.type")
def type_(ctx, self, dtype=None, non_blocking=False, **kwargs):
    if not is_tensor(self):
        _unknown()
    if dtype is None:
        if self.dtype is None:
            raise Unknowable("type() of a tensor of unknown dtype")
        return LegacyTypeName(str(self.dtype))
    if isinstance(dtype, LegacyTypeName):
        return TensorValue(self.shape, dtype.dtype)
    if isinstance(dtype, Dtype):
        return TensorValue(self.shape, str(dtype))
    if dtype is UNKNOWN:  # `k.type(q.dtype)` where q's dtype is not known: a dtype or a type name
        return TensorValue(self.shape, None)
    raise Unknowable("type(str)")


def _unknown():
    raise Unknowable("not a tensor")
