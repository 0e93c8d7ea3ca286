"""Pooling: max/avg pool 1d/2d/3d (ceil_mode), adaptive pools, lp pools and nn modules.

Rules checked against PyTorch 2.13 (CPU):
  o = (i + 2p - d(k-1) - 1 [+ s - 1 in ceil mode]) // s + 1
  ceil mode: if (o - 1) * s >= i + p then o -= 1   (the last window starts inside input+left pad)
  p <= k // 2 (raw kernel, dilation ignored); o >= 1.
"""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (ILLEGAL_SHAPE, ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue, Unknowable, module,
                   op)


def _t(d):
    return S.dim_text(d)


def _sz(shape):
    return S.size_text(shape)


def _param(ctx, v, n, what, fname):
    if isinstance(v, (tuple, list)):
        v = tuple(v)
        if len(v) == 1:
            return v * n
        if len(v) != n:
            if n == 1:
                ctx.fail(ILLEGAL_VALUE, f"{fname}() {what} must be an int, list of ints or tuple of ints of "
                                        f"size 1 but got size {len(v)}")
            words = {2: "two", 3: "three"}[n]
            lead = "must either be omitted, a single int, or" if what == "stride" else "must either be a single int, or"
            ctx.fail(ILLEGAL_VALUE, f"{fname}: {what} {lead} a tuple of {words} ints")
        return v
    if v is UNKNOWN or isinstance(v, (int, S.Expr)) and not isinstance(v, bool):
        return (v,) * n
    raise Unknowable(f"{what} is not an int or tuple")


def pool_out_size(ctx, i, k, s, p, d, ceil_mode):
    """PyTorch's pooling_output_shape, with floor semantics for symbolic dims."""
    num = S.sub(S.add(i, S.mul(2, p)), S.add(S.mul(d, S.sub(k, 1)), 1))
    if ceil_mode:
        o = S.add(S.floordiv(S.add(num, S.sub(s, 1)), s), 1)
        # (o-1)*s < i + 2p - eff + s, so the rule can only fire when s > eff - p.
        eff = S.add(S.mul(d, S.sub(k, 1)), 1)
        if S.le(s, S.sub(eff, p)) is True:
            return o
        if ctx.decide(S.ge(S.mul(S.sub(o, 1), s), S.add(i, p))):
            o = S.sub(o, 1)
        return o
    return S.add(S.floordiv(num, s), 1)


def _nonzero_check(ctx, x, n, kind, fname):
    """Zero-size rules: batch may be 0; other dims must be positive (unbatched: every dim)."""
    batched = len(x) == n + 2
    dims = x[1:] if batched else x
    if n == 3:
        msg = (f"{fname}(): Expected input's non-batch dimensions to have positive length, but input has "
               f"a shape of {_sz(x)} and non-batch dimension 0 has length zero!")
    elif n == 1 and kind == "max":
        msg = (f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
               f"input, but got:{_sz(x)}")
    else:
        shown = x if n == 2 else (x[:-1] + (1,) + x[-1:])
        msg = (f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
               f"got:{_sz(shown)}")
    ctx.require(S.and_(*[S.gt(v, 0) for v in dims]), SHAPE_MISMATCH, msg)


def pool_nd(ctx, n, kind, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=False):
    fname = f"{kind}_pool{n}d"
    x = ctx.shape(input)
    if len(x) not in (n + 1, n + 2):
        if n == 1 and kind == "max":
            msg = (f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                   f"input, but got:{_sz(x)}")
        elif n == 1:
            msg = (f"Expected 2 to 3 dimensions, but got {len(x)}-dimensional tensor for argument #1 'self' "
                   f"(while checking arguments for avg_pool1d)")
        else:
            msg = f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input"
        ctx.fail(SHAPE_MISMATCH, msg)
    k = _param(ctx, kernel_size, n, "kernel_size", fname)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else \
        _param(ctx, stride, n, "stride", fname)
    p = _param(ctx, padding, n, "padding", fname)
    d = _param(ctx, dilation, n, "dilation", fname)
    ctx.require(S.and_(*[S.gt(v, 0) for v in k]), ILLEGAL_VALUE,
                "stride should not be zero" if n > 1 else f"{fname}() kernel_size must be greater than zero")
    ctx.require(S.and_(*[S.gt(v, 0) for v in s]), ILLEGAL_VALUE,
                "stride should not be zero" if n > 1 or kind == "avg" else
                f"max_pool1d() stride must be greater than zero, but got {_t(s[0])}")
    ctx.require(S.and_(*[S.ge(v, 0) for v in p]), ILLEGAL_VALUE,
                f"pad must be non-negative, but got pad: {_t(p[0])}" if n > 1 or kind == "avg" else
                f"max_pool1d() padding must be non-negative, but got {_t(p[0])}")
    ctx.require(S.and_(*[S.gt(v, 0) for v in d]), ILLEGAL_VALUE,
                "dilation should be greater than zero, but got dilationH: " + _t(d[0]) + " dilationW: " + _t(d[-1])
                if n > 1 else f"max_pool1d() dilation must be greater than zero, but got {_t(d[0])}")
    ctx.require(S.and_(*[S.le(pv, S.floordiv(kv, 2)) for pv, kv in zip(p, k)]), ILLEGAL_VALUE,
                f"pad should be at most half of effective kernel size, but got pad={_t(p[0])}, "
                f"kernel_size={_t(k[0])} and dilation={_t(d[0])}" if n > 1 or kind == "avg" else
                f"max_pool1d() padding should be at most half of kernel size, but got padding={_t(p[0])} "
                f"and kernel_size={_t(k[0])}")
    _nonzero_check(ctx, x, n, kind, fname)
    spatial = x[-n:]
    if n == 3 and kind == "avg":
        ctx.require(S.and_(*[S.ge(i, kv) for i, kv in zip(spatial, k)]), ILLEGAL_SHAPE,
                    f"input image (T: {_t(spatial[0])} H: {_t(spatial[1])} W: {_t(spatial[2])}) smaller than "
                    f"kernel size (kT: {_t(k[0])} kH: {_t(k[1])} kW: {_t(k[2])})")
    out = tuple(pool_out_size(ctx, i, kv, sv, pv, dv, ceil_mode) for i, kv, sv, pv, dv in zip(spatial, k, s, p, d))
    lead = x[:-n]
    ctx.require(S.and_(*[S.ge(o, 1) for o in out]), ILLEGAL_SHAPE,
                f"Given input size: ({'x'.join(_t(v) for v in x[-n - 1:])}). Calculated output size: "
                f"({'x'.join(_t(v) for v in (x[-n - 1],) + out)}). Output size is too small")
    result = TensorValue(lead + out, input.dtype)
    if return_indices:
        return result, TensorValue(lead + out, "int64")
    return result


@op("torch.nn.functional.max_pool1d", "torch.max_pool1d", "torch.nn.functional.max_pool1d_with_indices")
def max_pool1d(ctx, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return pool_nd(ctx, 1, "max", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@op("torch.nn.functional.max_pool2d", "torch.max_pool2d", "torch.nn.functional.max_pool2d_with_indices")
def max_pool2d(ctx, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return pool_nd(ctx, 2, "max", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@op("torch.nn.functional.max_pool3d", "torch.max_pool3d", "torch.nn.functional.max_pool3d_with_indices")
def max_pool3d(ctx, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return pool_nd(ctx, 3, "max", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@op("torch.nn.functional.avg_pool1d", "torch.avg_pool1d")
def avg_pool1d(ctx, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return pool_nd(ctx, 1, "avg", input, kernel_size, stride, padding, 1, ceil_mode)


@op("torch.nn.functional.avg_pool2d", "torch._C._nn.avg_pool2d")
def avg_pool2d(ctx, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return pool_nd(ctx, 2, "avg", input, kernel_size, stride, padding, 1, ceil_mode)


@op("torch.nn.functional.avg_pool3d", "torch._C._nn.avg_pool3d")
def avg_pool3d(ctx, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return pool_nd(ctx, 3, "avg", input, kernel_size, stride, padding, 1, ceil_mode)


def _lp_pool(ctx, n, input, norm_type, kernel_size, stride, ceil_mode):
    return pool_nd(ctx, n, "avg", input, kernel_size, stride, 0, 1, ceil_mode)


@op("torch.nn.functional.lp_pool1d")
def lp_pool1d(ctx, input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(ctx, 1, input, norm_type, kernel_size, stride, ceil_mode)


@op("torch.nn.functional.lp_pool2d")
def lp_pool2d(ctx, input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(ctx, 2, input, norm_type, kernel_size, stride, ceil_mode)


@op("torch.nn.functional.lp_pool3d")
def lp_pool3d(ctx, input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(ctx, 3, input, norm_type, kernel_size, stride, ceil_mode)


# ---------------------------------------------------------------------------------------
# Adaptive pooling
# ---------------------------------------------------------------------------------------

def adaptive_nd(ctx, n, kind, input, output_size, return_indices=False):
    fname = f"adaptive_{kind}_pool{n}d"
    x = ctx.shape(input)
    if len(x) not in (n + 1, n + 2):
        if n == 1:
            ctx.fail(SHAPE_MISMATCH, f"Expected 2 to 3 dimensions, but got {len(x)}-dimensional tensor for "
                                     f"argument #1 'self' (while checking arguments for {fname})")
        ctx.fail(SHAPE_MISMATCH, f"{fname}(): Expected {n + 1}D or {n + 2}D tensor, but got {_sz(x)}")
    if isinstance(output_size, (tuple, list)):
        osz = tuple(output_size)
        if len(osz) != n and not (n > 1 and len(osz) == 1 and False):
            if n == 1:
                ctx.fail(ILLEGAL_VALUE, f"{fname}() argument 'output_size' should contain one int "
                                        f"(got {len(osz)})")
            ctx.fail(ILLEGAL_VALUE, f"{fname}: output_size must be {n}")
    elif output_size is UNKNOWN or isinstance(output_size, (int, S.Expr)) and not isinstance(output_size, bool):
        osz = (output_size,) * n
    else:
        raise Unknowable("output_size")
    spatial = x[-n:]
    out = tuple(i if o is None else o for o, i in zip(osz, spatial))
    ctx.require(S.and_(*[S.ge(o, 0) for o in out]), ILLEGAL_VALUE,
                f"{fname}: elements of output_size must be greater than or equal to 0 but received "
                "{" + ", ".join(_t(o) for o in out) + "}")
    # Which dims must be non-empty (PyTorch's per-kernel rules; avg with output 1 is a mean).
    if kind == "avg" and all(o == 1 for o in out):
        checked = ()
    elif kind == "avg" and n in (1, 2):
        checked = tuple(range(len(x) - n, len(x)))
    else:
        checked = tuple(range(1, len(x)))
    shown = x if n != 1 or kind == "max" else x[:-1] + (1,) + x[-1:]
    shown_name = fname if n != 1 or kind == "max" else "adaptive_avg_pool2d"
    for i in checked:
        j = i if shown is x else (i + 1 if i == len(x) - 1 else i)
        ctx.require(S.gt(x[i], 0), SHAPE_MISMATCH,
                    f"{shown_name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                    f"has sizes {_sz(shown)} with dimension {j} being empty")
    result = TensorValue(x[:-n] + out, input.dtype)
    if return_indices:
        return result, TensorValue(x[:-n] + out, "int64")
    return result


@op("torch.nn.functional.adaptive_avg_pool1d", "torch.adaptive_avg_pool1d")
def adaptive_avg_pool1d(ctx, input, output_size):
    return adaptive_nd(ctx, 1, "avg", input, output_size)


@op("torch.nn.functional.adaptive_avg_pool2d", "torch._C._nn.adaptive_avg_pool2d")
def adaptive_avg_pool2d(ctx, input, output_size):
    return adaptive_nd(ctx, 2, "avg", input, output_size)


@op("torch.nn.functional.adaptive_avg_pool3d", "torch._C._nn.adaptive_avg_pool3d")
def adaptive_avg_pool3d(ctx, input, output_size):
    return adaptive_nd(ctx, 3, "avg", input, output_size)


@op("torch.nn.functional.adaptive_max_pool1d", "torch.nn.functional.adaptive_max_pool1d_with_indices")
def adaptive_max_pool1d(ctx, input, output_size, return_indices=False):
    return adaptive_nd(ctx, 1, "max", input, output_size, return_indices)


@op("torch.nn.functional.adaptive_max_pool2d", "torch.nn.functional.adaptive_max_pool2d_with_indices")
def adaptive_max_pool2d(ctx, input, output_size, return_indices=False):
    return adaptive_nd(ctx, 2, "max", input, output_size, return_indices)


@op("torch.nn.functional.adaptive_max_pool3d", "torch.nn.functional.adaptive_max_pool3d_with_indices")
def adaptive_max_pool3d(ctx, input, output_size, return_indices=False):
    return adaptive_nd(ctx, 3, "max", input, output_size, return_indices)


# ---------------------------------------------------------------------------------------
# nn modules: each forward calls the functional spec.
# ---------------------------------------------------------------------------------------

def _make_max(n):
    @module(f"torch.nn.MaxPool{n}d")
    def ctor(ctx, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        return {"kernel_size": kernel_size, "stride": stride if stride is not None else kernel_size,
                "padding": padding, "dilation": dilation, "return_indices": return_indices,
                "ceil_mode": ceil_mode}

    @ctor.forward
    def forward(ctx, m, input):
        return ctx.call(f"torch.nn.functional.max_pool{n}d", input, m["kernel_size"], m["stride"],
                        m["padding"], m["dilation"], ceil_mode=m["ceil_mode"],
                        return_indices=m["return_indices"])


def _make_avg(n):
    if n == 1:
        @module("torch.nn.AvgPool1d")
        def ctor(ctx, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
            return {"kernel_size": kernel_size, "stride": stride if stride is not None else kernel_size,
                    "padding": padding, "ceil_mode": ceil_mode, "count_include_pad": count_include_pad}
    else:
        @module(f"torch.nn.AvgPool{n}d")
        def ctor(ctx, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
            return {"kernel_size": kernel_size, "stride": stride if stride is not None else kernel_size,
                    "padding": padding, "ceil_mode": ceil_mode, "count_include_pad": count_include_pad,
                    "divisor_override": divisor_override}

    @ctor.forward
    def forward(ctx, m, input):
        return ctx.call(f"torch.nn.functional.avg_pool{n}d", input, m["kernel_size"], m["stride"],
                        m["padding"], m["ceil_mode"])


def _make_lp(n):
    @module(f"torch.nn.LPPool{n}d")
    def ctor(ctx, norm_type, kernel_size, stride=None, ceil_mode=False):
        return {"norm_type": norm_type, "kernel_size": kernel_size, "stride": stride, "ceil_mode": ceil_mode}

    @ctor.forward
    def forward(ctx, m, input):
        return ctx.call(f"torch.nn.functional.lp_pool{n}d", input, m["norm_type"], m["kernel_size"],
                        m["stride"], m["ceil_mode"])


def _make_adaptive(n, kind):
    name = f"torch.nn.Adaptive{'Avg' if kind == 'avg' else 'Max'}Pool{n}d"
    if kind == "avg":
        @module(name)
        def ctor(ctx, output_size):
            return {"output_size": output_size}

        @ctor.forward
        def forward(ctx, m, input):
            return ctx.call(f"torch.nn.functional.adaptive_avg_pool{n}d", input, m["output_size"])
    else:
        @module(name)
        def ctor(ctx, output_size, return_indices=False):
            return {"output_size": output_size, "return_indices": return_indices}

        @ctor.forward
        def forward(ctx, m, input):
            return ctx.call(f"torch.nn.functional.adaptive_max_pool{n}d", input, m["output_size"],
                            m["return_indices"])


for _n in (1, 2, 3):
    _make_max(_n)
    _make_avg(_n)
    _make_lp(_n)
    _make_adaptive(_n, "avg")
    _make_adaptive(_n, "max")


# ---------------------------------------------------------------------------------------
# max_unpool: o = (i - 1) * s - 2p + k, or output_size.
# ---------------------------------------------------------------------------------------

def _unpool(ctx, n, input, indices, kernel_size, stride, padding, output_size):
    x = ctx.shape(input)
    k = _param(ctx, kernel_size, n, "kernel_size", f"max_unpool{n}d")
    s = k if stride is None else _param(ctx, stride, n, "stride", f"max_unpool{n}d")
    p = _param(ctx, padding, n, "padding", f"max_unpool{n}d")
    if len(x) not in (n + 1, n + 2):
        raise Unknowable("max_unpool rank")
    if output_size is not None:
        osz = tuple(output_size)
        if len(osz) == n + 2 or len(osz) == n + 1:
            osz = osz[-n:]
        if len(osz) != n:
            raise Unknowable("output_size")
        out = osz
    else:
        out = tuple(S.add(S.sub(S.mul(S.sub(i, 1), sv), S.mul(2, pv)), kv)
                    for i, sv, pv, kv in zip(x[-n:], s, p, k))
    return TensorValue(x[:-n] + tuple(out), input.dtype)


@op("torch.nn.functional.max_unpool1d")
def max_unpool1d(ctx, input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(ctx, 1, input, indices, kernel_size, stride, padding, output_size)


@op("torch.nn.functional.max_unpool2d")
def max_unpool2d(ctx, input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(ctx, 2, input, indices, kernel_size, stride, padding, output_size)


@op("torch.nn.functional.max_unpool3d")
def max_unpool3d(ctx, input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool(ctx, 3, input, indices, kernel_size, stride, padding, output_size)
