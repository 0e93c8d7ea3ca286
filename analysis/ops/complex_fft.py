"""Complex numbers and FFTs: polar/complex, view_as_complex/view_as_real, real/imag, and
torch.fft (fft/ifft/rfft/irfft/hfft/ihfft, the 2-D and n-D forms, fftshift)."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from . import elementwise as _elementwise  # noqa: F401  (registered first: real is redefined here)
from .elementwise import broadcast_shapes, dtype_name
from .spec import (DTYPE_MISMATCH, FLOAT_DTYPES, ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH,
                   TensorValue, Unknowable, attr, is_tensor, op)

COMPLEX_OF = {"float16": "complex32", "float32": "complex64", "float64": "complex128"}
REAL_OF = {v: k for k, v in COMPLEX_OF.items()}
COMPLEX = set(REAL_OF)
_NAMES = {"complex64": "ComplexFloat", "complex128": "ComplexDouble", "complex32": "ComplexHalf"}
_T = S.dim_text


def _name(dt):
    return _NAMES.get(dt, dtype_name(dt))


def _tensor(x):
    if not is_tensor(x):
        raise Unknowable("not a tensor")
    return x


# ---------------------------------------------------------------------------------------
# Building and viewing complex tensors
# ---------------------------------------------------------------------------------------

def _complex_from_pair(ctx, a, b):
    sa, sb = ctx.shape(_tensor(a)), ctx.shape(_tensor(b))
    da, db = a.dtype, b.dtype
    if da is not None and db is not None:
        if da not in COMPLEX_OF or db not in COMPLEX_OF:
            ctx.fail(DTYPE_MISMATCH, f"Expected both inputs to be Half, Float or Double tensors but "
                                     f"got {dtype_name(da)} and {dtype_name(db)}")
        if da != db:
            ctx.fail(DTYPE_MISMATCH, f"Expected object of scalar type {dtype_name(da)} but got scalar "
                                     f"type {dtype_name(db)} for second argument")
    shape = broadcast_shapes(ctx, sa, sb)
    return TensorValue(shape, COMPLEX_OF.get(da) if da == db else None)


@op("torch.polar")
def polar(ctx, abs, angle, *, out=None):
    if abs.dtype == "float16" if is_tensor(abs) else False:
        raise Unknowable("polar on half (backend dependent)")
    return _complex_from_pair(ctx, abs, angle)


@op("torch.complex")
def complex_(ctx, real, imag, *, out=None):
    return _complex_from_pair(ctx, real, imag)


@op("torch.view_as_complex")
def view_as_complex(ctx, input):
    s = ctx.shape(_tensor(input))
    dt = input.dtype
    if dt is not None and dt not in COMPLEX_OF:
        ctx.fail(DTYPE_MISMATCH, f"view_as_complex is only supported for half, float and double "
                                 f"tensors, but got a tensor of scalar type: {_name(dt)}")
    if len(s) == 0:
        ctx.fail(SHAPE_MISMATCH, "Input tensor must have one or more dimensions")
    ctx.require(S.eq(s[-1], 2), SHAPE_MISMATCH, "Tensor must have a last dimension of size 2")
    return TensorValue(tuple(s[:-1]), COMPLEX_OF.get(dt))


@op("torch.view_as_real")
def view_as_real(ctx, input):
    s = ctx.shape(_tensor(input))
    dt = input.dtype
    if dt is not None and dt not in COMPLEX:
        ctx.fail(DTYPE_MISMATCH, "view_as_real is only supported for complex tensors")
    return TensorValue(tuple(s) + (2,), REAL_OF.get(dt))


# Tensor.real / Tensor.imag are attributes in PyTorch (`x.real`, not `x.real()`); the unary
# table in elementwise.py registers `real` as a method keeping a complex dtype, so the
# attribute (and torch.real's dtype) are defined here, after it.
@attr("Tensor.real")
def real_attr(ctx, self):
    return real(ctx, self)


@attr("Tensor.imag")
def imag_attr(ctx, self):
    return imag(ctx, self)


@op("torch.real")
def real(ctx, input):
    _tensor(input)
    return TensorValue(input.shape, REAL_OF.get(input.dtype, input.dtype))


@op("torch.imag")
def imag(ctx, input):
    _tensor(input)
    if input.dtype is not None and input.dtype not in COMPLEX:
        ctx.fail(DTYPE_MISMATCH, "imag is not implemented for tensors with non-complex dtypes.")
    return TensorValue(input.shape, REAL_OF.get(input.dtype))


# ---------------------------------------------------------------------------------------
# torch.fft
# ---------------------------------------------------------------------------------------

def _to_complex(ctx, dt):
    """The complex dtype an FFT of `dt` produces (integers promote to float32)."""
    if dt is None:
        return None
    if dt in COMPLEX:
        if dt == "complex32":
            raise Unknowable("half FFT (backend dependent)")
        return dt
    if dt in ("float16", "bfloat16"):
        raise Unknowable("half FFT (backend dependent)")
    if dt in FLOAT_DTYPES:
        return COMPLEX_OF[dt]
    return "complex64"


def _to_real(ctx, dt):
    c = _to_complex(ctx, dt)
    return REAL_OF.get(c) if c is not None else None


def _norm(ctx, norm):
    if norm is None:
        return
    if not isinstance(norm, str):
        raise Unknowable("norm")
    if norm not in ("forward", "backward", "ortho"):
        ctx.fail(ILLEGAL_VALUE, f"Invalid normalization mode: \"{norm}\"")


def _points(ctx, n):
    ctx.require(S.ge(n, 1), ILLEGAL_VALUE, f"Invalid number of data points ({_T(n)}) specified")


def _real_input(ctx, name, t):
    if t.dtype in COMPLEX:
        ctx.fail(DTYPE_MISMATCH, f"{name} expects a real input tensor, but got {_name(t.dtype)}")


def _one_dim(ctx, name, input, n, dim, norm, kind):
    """1-D transforms. kind: c2c | r2c | c2r."""
    s = ctx.shape(_tensor(input))
    _norm(ctx, norm)
    if kind == "r2c":
        _real_input(ctx, name, input)
    if len(s) == 0:
        ctx.known_int(dim)
        ctx.fail(IMPROPER_VALUE, f"Dimension specified as {dim} but tensor has no dimensions")
    d = ctx.wrap_dim(dim, len(s))
    if n is UNKNOWN:
        # a length not known (`next_fast_len(...)` of a dim not known): that dim is unknown
        return TensorValue(tuple(s[:d]) + (UNKNOWN,) + tuple(s[d + 1:]),
                           _to_real(ctx, input.dtype) if kind == "c2r" else _to_complex(ctx, input.dtype))
    if n is not None and not (isinstance(n, int) and not isinstance(n, bool) or isinstance(n, S.Expr)):
        raise Unknowable("n")
    m = s[d]
    if kind == "c2r":
        out_n = S.mul(2, S.sub(m, 1)) if n is None else n
        _points(ctx, out_n)
        if n is None:
            pass
        out = tuple(s[:d]) + (out_n,) + tuple(s[d + 1:])
        return TensorValue(out, _to_real(ctx, input.dtype))
    size = m if n is None else n
    _points(ctx, size)
    last = S.add(S.floordiv(size, 2), 1) if kind == "r2c" else size
    out = tuple(s[:d]) + (last,) + tuple(s[d + 1:])
    return TensorValue(out, _to_complex(ctx, input.dtype))


@op("torch.fft.fft", "torch.fft.ifft")
def fft(ctx, input, n=None, dim=-1, norm=None, *, out=None):
    return _one_dim(ctx, "fft", input, n, dim, norm, "c2c")


@op("torch.fft.rfft", "torch.fft.ihfft")
def rfft(ctx, input, n=None, dim=-1, norm=None, *, out=None):
    return _one_dim(ctx, "rfft", input, n, dim, norm, "r2c")


@op("torch.fft.irfft", "torch.fft.hfft")
def irfft(ctx, input, n=None, dim=-1, norm=None, *, out=None):
    return _one_dim(ctx, "irfft", input, n, dim, norm, "c2r")


def _int_seq(v, what):
    if isinstance(v, (tuple, list)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return list(v)
    raise Unknowable(f"{what} not a known sequence of ints")


def _n_dim(ctx, name, input, s_arg, dim, norm, kind, default_dim=None):
    """n-D transforms (fftn and the 2-D ones via default_dim)."""
    shape = ctx.shape(_tensor(input))
    _norm(ctx, norm)
    if kind == "r2c":
        _real_input(ctx, name, input)
    r = len(shape)
    if dim is None:
        dim = default_dim
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = [dim]
    if s_arg is not None:
        sizes = _int_seq(s_arg, "s")
        if dim is not None:
            dims = _int_seq(dim, "dim")
            if len(dims) != len(sizes):
                ctx.fail(IMPROPER_VALUE, "When given, dim and shape arguments must have the same length")
        else:
            if len(sizes) > r:
                ctx.fail(IMPROPER_VALUE, f"Got shape with {len(sizes)} values but input tensor only has "
                                         f"{r} dimensions.")
            dims = list(range(r - len(sizes), r))
    else:
        dims = list(range(r)) if dim is None else _int_seq(dim, "dim")
        sizes = None
    wrapped = [ctx.wrap_dim(d, r) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        ctx.fail(IMPROPER_VALUE, "FFT dims must be unique")
    if kind != "c2c" and not wrapped:
        ctx.fail(IMPROPER_VALUE, f"{name} must transform at least one axis")
    if r == 0 and wrapped:
        raise Unknowable("FFT of a 0-d tensor")
    out = list(shape)
    for i, d in enumerate(wrapped):
        given = None if sizes is None or sizes[i] == -1 else sizes[i]
        last = i == len(wrapped) - 1
        if kind == "c2r" and last:
            n = S.mul(2, S.sub(shape[d], 1)) if given is None else given
        else:
            n = shape[d] if given is None else given
        _points(ctx, n)
        if kind == "r2c" and last:
            n = S.add(S.floordiv(n, 2), 1)
        out[d] = n
    dt = _to_real(ctx, input.dtype) if kind == "c2r" else _to_complex(ctx, input.dtype)
    return TensorValue(tuple(out), dt)


@op("torch.fft.fftn", "torch.fft.ifftn")
def fftn(ctx, input, s=None, dim=None, norm=None, *, out=None):
    return _n_dim(ctx, "fftn", input, s, dim, norm, "c2c")


@op("torch.fft.rfftn", "torch.fft.ihfftn")
def rfftn(ctx, input, s=None, dim=None, norm=None, *, out=None):
    return _n_dim(ctx, "rfftn", input, s, dim, norm, "r2c")


@op("torch.fft.irfftn", "torch.fft.hfftn")
def irfftn(ctx, input, s=None, dim=None, norm=None, *, out=None):
    return _n_dim(ctx, "irfftn", input, s, dim, norm, "c2r")


@op("torch.fft.fft2", "torch.fft.ifft2")
def fft2(ctx, input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _n_dim(ctx, "fftn", input, s, dim, norm, "c2c")


@op("torch.fft.rfft2", "torch.fft.ihfft2")
def rfft2(ctx, input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _n_dim(ctx, "rfftn", input, s, dim, norm, "r2c")


@op("torch.fft.irfft2", "torch.fft.hfft2")
def irfft2(ctx, input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _n_dim(ctx, "irfftn", input, s, dim, norm, "c2r")


@op("torch.fft.fftshift", "torch.fft.ifftshift")
def fftshift(ctx, input, dim=None):
    s = ctx.shape(_tensor(input))
    if dim is not None:
        for d in ([dim] if isinstance(dim, int) else _int_seq(dim, "dim")):
            ctx.wrap_dim(d, len(s))
    return TensorValue(s, input.dtype)
