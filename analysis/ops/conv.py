"""Convolutions: conv1d/2d/3d, conv_transpose1d/2d/3d, unfold/fold and their nn modules.

Rules checked against PyTorch 2.13 (CPU). Output sizes use floor division:
  conv:       o = (i + 2p - d(k-1) - 1) // s + 1       (requires i + 2p >= d(k-1) + 1)
  transposed: o = (i - 1)s - 2p + d(k-1) + op + 1      (requires op < s or op < d)
"""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (DTYPE_MISMATCH, ILLEGAL_SHAPE, ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH,
                   TensorValue, Unknowable, is_tensor, module)
from .spec import op

_DT_TITLE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
             "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
             "bool": "Bool"}


def _t(d):
    return S.dim_text(d)


def _sz(shape):
    return S.size_text(shape)


def ntuple(ctx, v, n, name, conv_name=None):
    """int-or-sequence hyperparameter -> n-tuple, with PyTorch's length message."""
    if isinstance(v, (tuple, list)):
        v = tuple(v)
        if len(v) == 1:
            return v * n
        if len(v) != n:
            if conv_name is not None:
                ctx.fail(ILLEGAL_VALUE, f"expected {name} to be a single integer value or a list of "
                                        f"{n} values to match the convolution dimensions, but got "
                                        f"{name}={list(v)}")
            raise Unknowable(f"{name} has {len(v)} values, expected {n}")
        return v
    if v is UNKNOWN or isinstance(v, (int, S.Expr)) and not isinstance(v, bool):
        return (v,) * n
    raise Unknowable(f"{name} is not an int or tuple")


def _dtype_check(ctx, input, weight):
    if input.dtype and weight.dtype and input.dtype != weight.dtype:
        ctx.fail(DTYPE_MISMATCH, f"expected scalar type {_DT_TITLE.get(input.dtype, input.dtype)} but "
                                 f"found {_DT_TITLE.get(weight.dtype, weight.dtype)}")


def _check_dilation_groups(ctx, dilation, groups, w):
    """Checks shared by convolutions and transposed convolutions, in PyTorch's order."""
    _positive(ctx, dilation, "dilation")
    ctx.require(S.gt(groups, 0), ILLEGAL_VALUE, "non-positive groups is not supported")
    ctx.require(S.ge(w[0], 1), SHAPE_MISMATCH,
                f"Given groups={_t(groups)}, expected weight to be at least {_t(groups)} at dimension 0, "
                f"but got weight of size {_sz(w)} instead")
    ctx.require(S.eq(S.mod(w[0], groups), 0), SHAPE_MISMATCH,
                f"Given groups={_t(groups)}, expected weight to be divisible by {_t(groups)} at dimension 0, "
                f"but got weight of size [{_sz(w)}] instead")


def _positive(ctx, values, what):
    for v in values:
        ctx.require(S.gt(v, 0), ILLEGAL_VALUE, f"non-positive {what} is not supported")


def conv_nd(ctx, n, input, weight, bias, stride, padding, dilation, groups):
    name = f"conv{n}d"
    x, w = ctx.shape(input), ctx.shape(weight)
    if len(x) not in (n + 1, n + 2):
        ctx.fail(SHAPE_MISMATCH, f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, "
                                 f"but got input of size: {_sz(x)}")
    batched = len(x) == n + 2
    xb = x if batched else (1,) + x
    if len(w) != n + 2:
        ctx.fail(SHAPE_MISMATCH, f"weight should have at least three dimensions" if len(w) < 3 else
                 f"Expected {len(w)}-dimensional input for {len(w)}-dimensional weight {_sz(w)}, "
                 f"but got {len(xb)}-dimensional input of size {_sz(xb)} instead")
    stride = ntuple(ctx, stride, n, "stride", name)
    dilation = ntuple(ctx, dilation, n, "dilation", name)
    same = False
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            ctx.fail(ILLEGAL_VALUE, f"Invalid padding string: '{padding}'")
        same = padding == "same"
        if same:
            for s in stride:
                ctx.require(S.eq(s, 1), IMPROPER_VALUE,
                            "padding='same' is not supported for strided convolutions")
        pad = (0,) * n
    else:
        pad = ntuple(ctx, padding, n, "padding", name)
    _positive(ctx, stride, "stride")
    for p in pad:
        ctx.require(S.ge(p, 0), ILLEGAL_VALUE, "negative padding is not supported")
    _check_dilation_groups(ctx, dilation, groups, w)
    channels = S.mul(w[1], groups)
    ctx.require(S.eq(xb[1], channels), SHAPE_MISMATCH,
                f"Given groups={_t(groups)}, weight of size {_sz(w)}, expected input{_sz(xb)} to have "
                f"{_t(channels)} channels, but got {_t(xb[1])} channels instead",
                repair={"in_channels": xb[1]} if groups == 1 else None)
    if bias is not None and is_tensor(bias) and bias.shape is not None:
        b = bias.shape
        ok = S.eq(b[0], w[0]) if len(b) == 1 else False
        ctx.require(ok, SHAPE_MISMATCH,
                    f"Given weight of size {_sz(w)}, expected bias to be 1-dimensional with {_t(w[0])} "
                    f"elements, but got bias of size {_sz(b)} instead")
    _dtype_check(ctx, input, weight)
    spatial = xb[2:]
    kernel = w[2:]
    eff = [S.add(S.mul(d, S.sub(k, 1)), 1) for d, k in zip(dilation, kernel)]
    if same:
        padded = [S.add(i, S.mul(d, S.sub(k, 1))) for i, d, k in zip(spatial, dilation, kernel)]
    else:
        padded = [S.add(i, S.mul(2, p)) for i, p in zip(spatial, pad)]
    ctx.require(S.and_(*[S.ge(pi, e) for pi, e in zip(padded, eff)]), ILLEGAL_SHAPE,
                "Calculated padded input size per channel: (" + " x ".join(_t(p) for p in padded) +
                "). Kernel size: (" + " x ".join(_t(e) for e in eff) +
                "). Kernel size can't be greater than actual input size")
    ctx.require(S.and_(*[S.gt(i, 0) for i in spatial]), SHAPE_MISMATCH,
                f"Only zero batch or zero channel inputs are supported, but got input shape: {_sz(xb)}")
    if same:
        out = tuple(spatial)
    else:
        out = tuple(S.add(S.floordiv(S.sub(pi, e), s), 1) for pi, e, s in zip(padded, eff, stride))
    # PyTorch quirk: an input with zero channels gives zero output channels.
    shape = (xb[0], 0 if xb[1] == 0 and isinstance(xb[1], int) else w[0]) + out
    return TensorValue(shape if batched else shape[1:], input.dtype)


@op("torch.nn.functional.conv1d", "torch.conv1d")
def conv1d(ctx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv_nd(ctx, 1, input, weight, bias, stride, padding, dilation, groups)


@op("torch.nn.functional.conv2d", "torch.conv2d")
def conv2d(ctx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv_nd(ctx, 2, input, weight, bias, stride, padding, dilation, groups)


@op("torch.nn.functional.conv3d", "torch.conv3d")
def conv3d(ctx, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv_nd(ctx, 3, input, weight, bias, stride, padding, dilation, groups)


_AXES = {1: ["width"], 2: ["height", "width"], 3: ["depth", "height", "width"]}


def conv_transpose_nd(ctx, n, input, weight, bias, stride, padding, output_padding, groups,
                      dilation):
    name = f"conv_transpose{n}d"
    x, w = ctx.shape(input), ctx.shape(weight)
    if len(x) not in (n + 1, n + 2):
        ctx.fail(SHAPE_MISMATCH, f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, "
                                 f"but got input of size: {_sz(x)}")
    if isinstance(padding, str):
        raise Unknowable("string padding in conv_transpose is a TypeError")
    batched = len(x) == n + 2
    xb = x if batched else (1,) + x
    if len(w) != n + 2:
        ctx.fail(SHAPE_MISMATCH, f"Expected {len(w)}-dimensional input for {len(w)}-dimensional weight "
                                 f"{_sz(w)}, but got {len(xb)}-dimensional input of size {_sz(xb)} instead")
    stride = ntuple(ctx, stride, n, "stride", name)
    pad = ntuple(ctx, padding, n, "padding", name)
    opad = ntuple(ctx, output_padding, n, "output_padding", name)
    dilation = ntuple(ctx, dilation, n, "dilation", name)
    _positive(ctx, stride, "stride")
    for p in pad:
        ctx.require(S.ge(p, 0), ILLEGAL_VALUE, "negative padding is not supported")
    for p in opad:
        ctx.require(S.ge(p, 0), ILLEGAL_VALUE, "negative output_padding is not supported")
    _check_dilation_groups(ctx, dilation, groups, w)
    ctx.require(S.eq(xb[1], w[0]), SHAPE_MISMATCH,
                f"Given transposed=1, weight of size {_sz(w)}, expected input{_sz(xb)} to have "
                f"{_t(w[0])} channels, but got {_t(xb[1])} channels instead",
                repair={"in_channels": xb[1]})
    out_ch = S.mul(w[1], groups)
    if bias is not None and is_tensor(bias) and bias.shape is not None:
        b = bias.shape
        ok = S.eq(b[0], out_ch) if len(b) == 1 else False
        ctx.require(ok, SHAPE_MISMATCH,
                    f"Given transposed=1, weight of size {_sz(w)}, expected bias to be 1-dimensional "
                    f"with {_t(out_ch)} elements, but got bias of size {_sz(b)} instead")
    cond = S.and_(*[S.or_(S.lt(o, s), S.lt(o, d)) for o, s, d in zip(opad, stride, dilation)])
    axes = _AXES[n]
    ctx.require(cond, ILLEGAL_VALUE,
                "output padding must be smaller than either stride or dilation, but got " +
                " ".join(f"output_padding_{a}: {_t(o)}" for a, o in zip(axes, opad)) + " " +
                " ".join(f"stride_{a}: {_t(s)}" for a, s in zip(axes, stride)) + " " +
                " ".join(f"dilation_{a}: {_t(d)}" for a, d in zip(axes, dilation)))
    _dtype_check(ctx, input, weight)
    spatial = xb[2:]
    ctx.require(S.and_(*[S.gt(i, 0) for i in spatial]), SHAPE_MISMATCH,
                f"Only zero batch or zero channel inputs are supported, but got input shape: {_sz(xb)}")
    out = tuple(S.add(S.add(S.add(S.sub(S.mul(S.sub(i, 1), s), S.mul(2, p)), S.mul(d, S.sub(k, 1))), o), 1)
                for i, s, p, d, k, o in zip(spatial, stride, pad, dilation, w[2:], opad))
    ctx.require(S.and_(*[S.gt(o, 0) for o in out]), ILLEGAL_SHAPE,
                f"Given input size per channel: (" + " x ".join(_t(i) for i in spatial) +
                "). Calculated output size per channel: (" + " x ".join(_t(o) for o in out) +
                "). Output size is too small")
    shape = (xb[0], out_ch) + out
    return TensorValue(shape if batched else shape[1:], input.dtype)


@op("torch.nn.functional.conv_transpose1d", "torch.conv_transpose1d")
def conv_transpose1d(ctx, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose_nd(ctx, 1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@op("torch.nn.functional.conv_transpose2d", "torch.conv_transpose2d")
def conv_transpose2d(ctx, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose_nd(ctx, 2, input, weight, bias, stride, padding, output_padding, groups, dilation)


@op("torch.nn.functional.conv_transpose3d", "torch.conv_transpose3d")
def conv_transpose3d(ctx, input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose_nd(ctx, 3, input, weight, bias, stride, padding, output_padding, groups, dilation)


# ---------------------------------------------------------------------------------------
# nn modules
# ---------------------------------------------------------------------------------------

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _conv_module(ctx, n, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                 bias, padding_mode, dtype, transposed=False, output_padding=0):
    kernel_size = ntuple(ctx, kernel_size, n, "kernel_size")
    stride = ntuple(ctx, stride, n, "stride")
    dilation = ntuple(ctx, dilation, n, "dilation")
    output_padding = ntuple(ctx, output_padding, n, "output_padding")
    ctx.require(S.gt(groups, 0), ILLEGAL_VALUE, "groups must be a positive integer")
    ctx.require(S.eq(S.mod(in_channels, groups), 0), IMPROPER_VALUE,
                "in_channels must be divisible by groups")
    ctx.require(S.eq(S.mod(out_channels, groups), 0), IMPROPER_VALUE,
                "out_channels must be divisible by groups")
    if isinstance(padding, str):
        if transposed:
            raise Unknowable("string padding for a transposed convolution")
        if padding not in ("same", "valid"):
            ctx.fail(ILLEGAL_VALUE, f"Invalid padding string '{padding}', should be one of "
                                    "{'valid', 'same'}")
        if padding == "same":
            for s in stride:
                ctx.require(S.eq(s, 1), IMPROPER_VALUE,
                            "padding='same' is not supported for strided convolutions")
    else:
        padding = ntuple(ctx, padding, n, "padding")
    if padding_mode not in _PADDING_MODES:
        ctx.fail(ILLEGAL_VALUE, "padding_mode must be one of {'replicate', 'reflect', 'zeros', 'circular'}"
                                f", but got padding_mode='{padding_mode}'")
    if transposed and padding_mode != "zeros":
        ctx.fail(ILLEGAL_VALUE, f'Only "zeros" padding mode is supported for ConvTranspose{n}d')
    if transposed:
        wshape = (in_channels, S.floordiv(out_channels, groups)) + kernel_size
    else:
        wshape = (out_channels, S.floordiv(in_channels, groups)) + kernel_size
    for d in wshape:
        ctx.require(S.ge(d, 0), ILLEGAL_VALUE,
                    f"Trying to create tensor with negative dimension {_t(d)}: {_sz(wshape)}")
    dt = str(dtype) if dtype is not None else "float32"
    return {
        "in_channels": in_channels, "out_channels": out_channels, "kernel_size": kernel_size,
        "stride": stride, "padding": padding, "dilation": dilation, "groups": groups,
        "output_padding": output_padding, "transposed": transposed, "padding_mode": padding_mode,
        "weight": TensorValue(wshape, dt),
        "bias": TensorValue((out_channels,), dt) if bias else None,
    }


def _conv_forward(ctx, n, m, input):
    padding = m["padding"]
    if m["padding_mode"] != "zeros":
        # PyTorch pads explicitly (F.pad with the mode), then convolves without padding.
        if padding == "valid":
            padding = (0,) * n
        if padding == "same":
            pads = []
            for d, k in zip(reversed(m["dilation"]), reversed(m["kernel_size"])):
                total = S.mul(d, S.sub(k, 1))
                left = S.floordiv(total, 2)
                pads += [left, S.sub(total, left)]
        else:
            pads = []
            for p in reversed(padding):
                pads += [p, p]
        input = ctx.call("torch.nn.functional.pad", input, tuple(pads), m["padding_mode"])
        padding = 0
    return conv_nd(ctx, n, input, m["weight"], m["bias"], m["stride"], padding, m["dilation"],
                   m["groups"])


def _conv_module_spec(n):
    """nn.Conv{n}d: one declaration for the three ranks."""
    def constructor(ctx, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                    groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        return _conv_module(ctx, n, in_channels, out_channels, kernel_size, stride, padding,
                            dilation, groups, bias, padding_mode, dtype)

    def forward(ctx, m, input):
        return _conv_forward(ctx, n, m, input)

    constructor.__name__ = f"Conv{n}d"
    decl = module(f"torch.nn.Conv{n}d")(constructor)
    decl.forward(forward)
    return decl


Conv1d, Conv2d, Conv3d = (_conv_module_spec(n) for n in (1, 2, 3))


def _transpose_forward(ctx, n, m, input, output_size):
    output_padding = m["output_padding"]
    if output_size is not None:
        x = ctx.shape(input)
        if not isinstance(output_size, (tuple, list)):
            raise Unknowable("output_size")
        output_size = tuple(output_size)
        non_spatial = 2 if len(x) == n + 2 else 1
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            ctx.fail(ILLEGAL_VALUE, f"ConvTranspose{n}D: for {len(x)}D input, output_size must have {n} "
                                    f"or {non_spatial + n} elements (got {len(output_size)})")
        spatial = x[non_spatial:]
        mins = [S.add(S.add(S.sub(S.mul(S.sub(i, 1), s), S.mul(2, p)), S.mul(d, S.sub(k, 1))), 1)
                for i, s, p, d, k in zip(spatial, m["stride"], m["padding"], m["dilation"],
                                         m["kernel_size"])]
        maxs = [S.sub(S.add(lo, s), 1) for lo, s in zip(mins, m["stride"])]
        ok = S.and_(*[S.and_(S.le(lo, o), S.le(o, hi)) for lo, o, hi in zip(mins, output_size, maxs)])
        ctx.require(ok, ILLEGAL_VALUE,
                    f"requested an output size of {_sz(output_size)}, but valid sizes range from "
                    f"{_sz(mins)} to {_sz(maxs)} (for an input of torch.Size({_sz(x[2:])}))")
        output_padding = tuple(S.sub(o, lo) for o, lo in zip(output_size, mins))
    return conv_transpose_nd(ctx, n, input, m["weight"], m["bias"], m["stride"], m["padding"],
                             output_padding, m["groups"], m["dilation"])


def _conv_transpose_module_spec(n):
    """nn.ConvTranspose{n}d: one declaration for the three ranks."""
    def constructor(ctx, in_channels, out_channels, kernel_size, stride=1, padding=0,
                    output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                    device=None, dtype=None):
        return _conv_module(ctx, n, in_channels, out_channels, kernel_size, stride, padding,
                            dilation, groups, bias, padding_mode, dtype, True, output_padding)

    def forward(ctx, m, input, output_size=None):
        return _transpose_forward(ctx, n, m, input, output_size)

    constructor.__name__ = f"ConvTranspose{n}d"
    decl = module(f"torch.nn.ConvTranspose{n}d")(constructor)
    decl.forward(forward)
    return decl


ConvTranspose1d, ConvTranspose2d, ConvTranspose3d = (_conv_transpose_module_spec(n) for n in (1, 2, 3))


# ---------------------------------------------------------------------------------------
# unfold / fold (im2col / col2im)
# ---------------------------------------------------------------------------------------

def _fold_params(ctx, kernel_size, dilation, padding, stride):
    k = ntuple(ctx, kernel_size, 2, "kernel_size")
    d = ntuple(ctx, dilation, 2, "dilation")
    p = ntuple(ctx, padding, 2, "padding")
    s = ntuple(ctx, stride, 2, "stride")
    ctx.require(S.and_(S.gt(k[0], 0), S.gt(k[1], 0)), ILLEGAL_VALUE,
                f"kernel size should be greater than zero, but got kernel_height: {_t(k[0])} "
                f"kernel_width: {_t(k[1])}")
    ctx.require(S.and_(S.gt(s[0], 0), S.gt(s[1], 0)), ILLEGAL_VALUE,
                f"stride should be greater than zero, but got stride_height: {_t(s[0])} "
                f"stride_width: {_t(s[1])}")
    ctx.require(S.and_(S.gt(d[0], 0), S.gt(d[1], 0)), ILLEGAL_VALUE,
                f"dilation should be greater than zero, but got dilation_height: {_t(d[0])} "
                f"dilation_width: {_t(d[1])}")
    ctx.require(S.and_(S.ge(p[0], 0), S.ge(p[1], 0)), ILLEGAL_VALUE,
                f"padding should be non-negative, but got pad_height: {_t(p[0])} pad_width: {_t(p[1])}")
    return k, d, p, s


def _blocks(size, k, d, p, s):
    return S.add(S.floordiv(S.sub(S.add(size, S.mul(2, p)), S.add(S.mul(d, S.sub(k, 1)), 1)), s), 1)


@op("torch.nn.functional.unfold")
def unfold(ctx, input, kernel_size, dilation=1, padding=0, stride=1):
    x = ctx.shape(input)
    if len(x) < 3:
        ctx.fail(SHAPE_MISMATCH, f"Dimension out of range (expected to be in range of [-{len(x)}, "
                                 f"{len(x) - 1}], but got {len(x)})" if len(x) else
                 "Input Error: Only 3D or 4D input Tensors are supported (got 0D)")
    if len(x) > 4:
        ctx.fail(SHAPE_MISMATCH, f"Input Error: Only 3D or 4D input Tensors are supported (got {len(x)}D)")
    k, d, p, s = _fold_params(ctx, kernel_size, dilation, padding, stride)
    batched = len(x) == 4
    xb = x if batched else (1,) + x
    ctx.require(S.and_(*[S.gt(v, 0) for v in xb[1:]]), SHAPE_MISMATCH,
                "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                f"dimensions for input, but got: {_sz(x)}")
    bh, bw = _blocks(xb[2], k[0], d[0], p[0], s[0]), _blocks(xb[3], k[1], d[1], p[1], s[1])
    ctx.require(S.and_(S.ge(bh, 1), S.ge(bw, 1)), ILLEGAL_SHAPE,
                f"Given input with spatial size ({_t(xb[2])}, {_t(xb[3])}), kernel_size=({_t(k[0])}, {_t(k[1])}), "
                f"dilation=({_t(d[0])}, {_t(d[1])}), padding=({_t(p[0])}, {_t(p[1])}), calculated shape of "
                f"the array of sliding blocks as ({_t(bh)}, {_t(bw)}), but its components must be at least one.")
    shape = (xb[0], S.mul(xb[1], S.mul(k[0], k[1])), S.mul(bh, bw))
    return TensorValue(shape if batched else shape[1:], input.dtype)


@op("torch.nn.functional.fold")
def fold(ctx, input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    x = ctx.shape(input)
    o = ntuple(ctx, output_size, 2, "output_size")
    k, d, p, s = _fold_params(ctx, kernel_size, dilation, padding, stride)
    if len(x) not in (2, 3):
        ctx.fail(SHAPE_MISMATCH, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                                 f"size and non-zero dimensions for input, but got: {_sz(x)}")
    batched = len(x) == 3
    xb = x if batched else (1,) + x
    ctx.require(S.and_(S.gt(xb[1], 0), S.gt(xb[2], 0)), SHAPE_MISMATCH,
                "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                f"size and non-zero dimensions for input, but got: {_sz(x)}")
    kk = S.mul(k[0], k[1])
    ctx.require(S.eq(S.mod(xb[1], kk), 0), SHAPE_MISMATCH,
                "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                f"but got input.size(1)={_t(xb[1])} and kernel_size=({_t(k[0])}, {_t(k[1])}).")
    bh, bw = _blocks(o[0], k[0], d[0], p[0], s[0]), _blocks(o[1], k[1], d[1], p[1], s[1])
    ctx.require(S.and_(S.ge(bh, 1), S.ge(bw, 1), S.eq(xb[2], S.mul(bh, bw))), SHAPE_MISMATCH,
                f"Given output_size=({_t(o[0])}, {_t(o[1])}), kernel_size=({_t(k[0])}, {_t(k[1])}), "
                f"dilation=({_t(d[0])}, {_t(d[1])}), padding=({_t(p[0])}, {_t(p[1])}), "
                f"stride=({_t(s[0])}, {_t(s[1])}), expected size of input's dimension 2 to match the "
                f"calculated number of sliding blocks {_t(bh)} * {_t(bw)} = {_t(S.mul(bh, bw))}, but got "
                f"input.size(2)={_t(xb[2])}.")
    shape = (xb[0], S.floordiv(xb[1], kk), o[0], o[1])
    return TensorValue(shape if batched else shape[1:], input.dtype)


@module("torch.nn.Unfold")
def Unfold(ctx, kernel_size, dilation=1, padding=0, stride=1):
    return {"kernel_size": kernel_size, "dilation": dilation, "padding": padding, "stride": stride}


@Unfold.forward
def _unfold_forward(ctx, m, input):
    return unfold(ctx, input, m["kernel_size"], m["dilation"], m["padding"], m["stride"])


@module("torch.nn.Fold")
def Fold(ctx, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return {"output_size": output_size, "kernel_size": kernel_size, "dilation": dilation,
            "padding": padding, "stride": stride}


@Fold.forward
def _fold_forward(ctx, m, input):
    return fold(ctx, input, m["output_size"], m["kernel_size"], m["dilation"], m["padding"], m["stride"])
