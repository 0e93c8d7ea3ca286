"""Layers: Embedding, Dropout family, Identity, Flatten/Unflatten, PixelShuffle, interpolate/
Upsample, pad and padding modules, activation modules, distances (cosine_similarity,
pairwise_distance, cdist), outer, cross, einsum. Checked against PyTorch 2.13 (CPU).
"""
from __future__ import annotations

import math

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import broadcast_shapes
from .spec import (DTYPE_MISMATCH, ILLEGAL_SHAPE, ILLEGAL_VALUE, IMPROPER_VALUE, SHAPE_MISMATCH,
                   ShapeError, TensorValue, Unknowable, is_tensor, module, op)


def _t(d):
    return S.dim_text(d)


def _sz(shape):
    return S.size_text(shape)


def _is_dim(v):
    return v is UNKNOWN or isinstance(v, (int, S.Expr)) and not isinstance(v, bool)


# ---------------------------------------------------------------------------------------
# Embedding
# ---------------------------------------------------------------------------------------

_INDEX_DTYPES = {"int64": "Long", "int32": "Int"}
_TITLE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
          "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short"}


def _check_padding_idx(ctx, padding_idx, num):
    if padding_idx is None:
        return
    ctx.require(S.and_(S.lt(padding_idx, num), S.ge(padding_idx, S.sub(0, num))), ILLEGAL_VALUE,
                "Padding_idx must be within num_embeddings")


@op("torch.nn.functional.embedding")
def embedding(ctx, input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    idx, w = ctx.shape(input), ctx.shape(weight)
    if len(w) != 2:
        ctx.fail(SHAPE_MISMATCH, "'weight' must be 2-D")
    _check_padding_idx(ctx, padding_idx, w[0])
    if input.dtype is not None and input.dtype not in _INDEX_DTYPES:
        ctx.fail(DTYPE_MISMATCH, "Expected tensor for argument #1 'indices' to have one of the following scalar "
                                 f"types: Long, Int; but got torch.{_TITLE.get(input.dtype, input.dtype)}Tensor "
                                 "instead (while checking arguments for embedding)")
    return TensorValue(tuple(idx) + (w[1],), weight.dtype)


@module("torch.nn.Embedding")
def Embedding(ctx, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
    _check_padding_idx(ctx, padding_idx, num_embeddings)
    for d in (num_embeddings, embedding_dim):
        ctx.require(S.ge(d, 0), ILLEGAL_VALUE, f"Trying to create tensor with negative dimension {_t(d)}: "
                                               f"[{_t(num_embeddings)}, {_t(embedding_dim)}]")
    dt = str(dtype) if dtype is not None else "float32"
    if isinstance(padding_idx, int) and padding_idx < 0 and isinstance(num_embeddings, int):
        padding_idx = num_embeddings + padding_idx
    weight = _weight if is_tensor(_weight) else TensorValue((num_embeddings, embedding_dim), dt)
    return {"num_embeddings": num_embeddings, "embedding_dim": embedding_dim, "padding_idx": padding_idx,
            "max_norm": max_norm, "weight": weight}


@Embedding.forward
def _embedding_forward(ctx, m, input):
    return embedding(ctx, input, m["weight"], m["padding_idx"])


@op("torch.nn.functional.embedding_bag")
def embedding_bag(ctx, input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    idx, w = ctx.shape(input), ctx.shape(weight)
    if len(w) != 2:
        ctx.fail(SHAPE_MISMATCH, "'weight' must be 2-D")
    if len(idx) == 2:
        if offsets is not None:
            ctx.fail(ILLEGAL_VALUE, "if input is 2D, then offsets has to be None, as input is treated is a "
                                    "mini-batch of fixed length sequences.")
        return TensorValue((idx[0], w[1]), weight.dtype)
    if len(idx) == 1:
        if offsets is None:
            ctx.fail(ILLEGAL_VALUE, "offsets has to be a 1D Tensor but got None")
        o = ctx.shape(offsets)
        if len(o) != 1:
            ctx.fail(SHAPE_MISMATCH, "offsets has to be a 1D Tensor")
        bags = S.sub(o[0], 1) if include_last_offset else o[0]
        return TensorValue((bags, w[1]), weight.dtype)
    ctx.fail(SHAPE_MISMATCH, f"input has to be 1D or 2D Tensor, but got Tensor of dimension {len(idx)}")


@module("torch.nn.EmbeddingBag")
def EmbeddingBag(ctx, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
    _check_padding_idx(ctx, padding_idx, num_embeddings)
    dt = str(dtype) if dtype is not None else "float32"
    return {"num_embeddings": num_embeddings, "embedding_dim": embedding_dim, "mode": mode,
            "include_last_offset": include_last_offset, "padding_idx": padding_idx,
            "weight": TensorValue((num_embeddings, embedding_dim), dt)}


@EmbeddingBag.forward
def _embedding_bag_forward(ctx, m, input, offsets=None, per_sample_weights=None):
    return embedding_bag(ctx, input, m["weight"], offsets, mode=m["mode"],
                         include_last_offset=m["include_last_offset"])


# ---------------------------------------------------------------------------------------
# Shape-preserving modules: Dropout family, Identity
# ---------------------------------------------------------------------------------------

def _check_p(ctx, p):
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        if p < 0 or p > 1:
            ctx.fail(ILLEGAL_VALUE, f"dropout probability has to be between 0 and 1, but got {p}")


def _make_dropout(name, functional, ranks=None):
    @module(f"torch.nn.{name}")
    def ctor(ctx, p=0.5, inplace=False):
        _check_p(ctx, p)
        return {"p": p, "inplace": inplace, "training": True}

    @ctor.forward
    def forward(ctx, m, input):
        x = ctx.shape(input)
        if ranks is not None and len(x) not in ranks:
            lo, hi = ranks
            ctx.fail(SHAPE_MISMATCH, f"{functional}: Expected {lo}D or {hi}D input, but received a "
                                     f"{len(x)}D input. Note that {functional} exists to provide channel-wise "
                                     f"dropout on inputs with {hi - 1} spatial dimensions, a channel "
                                     f"dimension, and an optional batch dimension (i.e. {lo}D or {hi}D inputs).")
        return TensorValue(x, input.dtype)


_make_dropout("Dropout", "dropout")
_make_dropout("AlphaDropout", "alpha_dropout")
_make_dropout("FeatureAlphaDropout", "feature_alpha_dropout")
_make_dropout("Dropout1d", "dropout1d", (2, 3))
_make_dropout("Dropout2d", "dropout2d")
_make_dropout("Dropout3d", "dropout3d")


@module("torch.nn.Identity")
def Identity(ctx, *args, **kwargs):
    return {}


@Identity.forward
def _identity_forward(ctx, m, input):
    return input


# ---------------------------------------------------------------------------------------
# Flatten / Unflatten (a small local flatten, like Tensor.flatten)
# ---------------------------------------------------------------------------------------

def flatten_shape(ctx, x, start_dim, end_dim):
    if len(x) == 0:
        ctx.wrap_dim(start_dim, 0)
        ctx.wrap_dim(end_dim, 0)
        return (1,)
    a, b = ctx.wrap_dim(start_dim, len(x)), ctx.wrap_dim(end_dim, len(x))
    if a > b:
        ctx.fail(IMPROPER_VALUE, "flatten() has invalid args: start_dim cannot come after end_dim")
    return tuple(x[:a]) + (S.prod(x[a:b + 1]),) + tuple(x[b + 1:])


@module("torch.nn.Flatten")
def Flatten(ctx, start_dim=1, end_dim=-1):
    return {"start_dim": start_dim, "end_dim": end_dim}


@Flatten.forward
def _flatten_forward(ctx, m, input):
    return TensorValue(flatten_shape(ctx, ctx.shape(input), m["start_dim"], m["end_dim"]), input.dtype)


def unflatten_shape(ctx, x, dim, sizes):
    d = ctx.wrap_dim(dim, len(x))
    sizes = tuple(sizes)
    size = x[d]
    n_infer = sum(1 for s in sizes if isinstance(s, int) and s == -1)
    if n_infer > 1:
        ctx.fail(IMPROPER_VALUE, "unflatten got an unexpected error: only one dimension can be inferred")
    if n_infer == 1:
        known = S.prod(s for s in sizes if not (isinstance(s, int) and s == -1))
        if isinstance(known, int) and known == 0:
            ctx.fail(IMPROPER_VALUE, "unflatten got an unexpected error: cannot infer a dimension of size -1 "
                                     "with zero-size known dims")
        ctx.require(S.eq(S.mod(size, known), 0), SHAPE_MISMATCH,
                    f"unflatten: Provided sizes {_sz(sizes)} don't multiply up to the size of dim {d} "
                    f"({_t(size)}) in the input tensor")
        inferred = S.floordiv(size, known)
        sizes = tuple(inferred if isinstance(s, int) and s == -1 else s for s in sizes)
    else:
        ctx.require(S.eq(S.prod(sizes), size), SHAPE_MISMATCH,
                    f"unflatten: Provided sizes {_sz(sizes)} don't multiply up to the size of dim {d} "
                    f"({_t(size)}) in the input tensor")
    return tuple(x[:d]) + sizes + tuple(x[d + 1:])


@module("torch.nn.Unflatten")
def Unflatten(ctx, dim, unflattened_size):
    return {"dim": dim, "unflattened_size": tuple(unflattened_size)}


@Unflatten.forward
def _unflatten_forward(ctx, m, input):
    return TensorValue(unflatten_shape(ctx, ctx.shape(input), m["dim"], m["unflattened_size"]), input.dtype)


# ---------------------------------------------------------------------------------------
# pixel_shuffle / pixel_unshuffle
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.pixel_shuffle", "torch.pixel_shuffle")
def pixel_shuffle(ctx, input, upscale_factor):
    x = ctx.shape(input)
    if len(x) < 3:
        ctx.fail(SHAPE_MISMATCH, f"pixel_shuffle expects input to have at least 3 dimensions, but got input "
                                 f"with {len(x)} dimension(s)")
    r = upscale_factor
    ctx.require(S.gt(r, 0), ILLEGAL_VALUE, f"pixel_shuffle expects a positive upscale_factor, but got {_t(r)}")
    c, h, w = x[-3:]
    rr = S.mul(r, r)
    ctx.require(S.eq(S.mod(c, rr), 0), SHAPE_MISMATCH,
                f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                f"upscale_factor, but input.size(-3)={_t(c)} is not divisible by {_t(rr)}")
    return TensorValue(tuple(x[:-3]) + (S.floordiv(c, rr), S.mul(h, r), S.mul(w, r)), input.dtype)


@op("torch.nn.functional.pixel_unshuffle", "torch.pixel_unshuffle")
def pixel_unshuffle(ctx, input, downscale_factor):
    x = ctx.shape(input)
    if len(x) < 3:
        ctx.fail(SHAPE_MISMATCH, f"pixel_unshuffle expects input to have at least 3 dimensions, but got input "
                                 f"with {len(x)} dimension(s)")
    r = downscale_factor
    ctx.require(S.gt(r, 0), ILLEGAL_VALUE, f"pixel_unshuffle expects a positive downscale_factor, but got {_t(r)}")
    c, h, w = x[-3:]
    ctx.require(S.eq(S.mod(h, r), 0), SHAPE_MISMATCH,
                f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={_t(h)} "
                f"is not divisible by {_t(r)}")
    ctx.require(S.eq(S.mod(w, r), 0), SHAPE_MISMATCH,
                f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={_t(w)} "
                f"is not divisible by {_t(r)}")
    return TensorValue(tuple(x[:-3]) + (S.mul(c, S.mul(r, r)), S.floordiv(h, r), S.floordiv(w, r)),
                       input.dtype)


@module("torch.nn.PixelShuffle")
def PixelShuffle(ctx, upscale_factor):
    return {"upscale_factor": upscale_factor}


@PixelShuffle.forward
def _pixel_shuffle_forward(ctx, m, input):
    return pixel_shuffle(ctx, input, m["upscale_factor"])


@module("torch.nn.PixelUnshuffle")
def PixelUnshuffle(ctx, downscale_factor):
    return {"downscale_factor": downscale_factor}


@PixelUnshuffle.forward
def _pixel_unshuffle_forward(ctx, m, input):
    return pixel_unshuffle(ctx, input, m["downscale_factor"])


# ---------------------------------------------------------------------------------------
# interpolate / Upsample
# ---------------------------------------------------------------------------------------

_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
_MODE_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_AXIS = {1: ["W"], 2: ["H", "W"], 3: ["D", "H", "W"]}


def _scaled(d, s):
    if s is UNKNOWN or not isinstance(s, (int, float)):
        return UNKNOWN
    if isinstance(d, int):
        return math.floor(float(d) * float(s))
    if float(s).is_integer():
        return S.mul(d, int(s))
    return UNKNOWN


@op("torch.nn.functional.interpolate", "torch.nn.functional.upsample")
def interpolate(ctx, input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    x = ctx.shape(input)
    n = len(x) - 2
    if size is not None and scale_factor is not None:
        ctx.fail(ILLEGAL_VALUE, "only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        ctx.fail(ILLEGAL_VALUE, "either size or scale_factor should be defined")
    spatial = tuple(x[2:])
    if size is not None:
        if isinstance(size, (tuple, list)):
            osz = tuple(size)
            if len(osz) != n:
                ctx.fail(ILLEGAL_VALUE, f"Input and output must have the same number of spatial dimensions, but "
                                        f"got input with spatial dimensions of {_sz(spatial)} and output size of "
                                        f"{S.tuple_text(osz)}. Please provide input tensor in (N, C, d1, d2, "
                                        "...,dK) format and output size in (o1, o2, ...,oK) format.")
        elif _is_dim(size):
            osz = (size,) * max(n, 0)
        else:
            raise Unknowable("size")
    else:
        if isinstance(scale_factor, (tuple, list)):
            sf = tuple(scale_factor)
            if len(sf) != n:
                ctx.fail(ILLEGAL_VALUE, f"Input and scale_factor must have the same number of spatial dimensions, "
                                        f"but got input with spatial dimensions of {_sz(spatial)} and scale_factor "
                                        f"of shape {sf}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                                        "format and scale_factor in (s1, s2, ...,sK) format.")
        else:
            sf = (scale_factor,) * max(n, 0)
        osz = tuple(_scaled(d, s) for d, s in zip(spatial, sf))
    if align_corners is not None and mode not in ("linear", "bilinear", "bicubic", "trilinear"):
        ctx.fail(ILLEGAL_VALUE, "align_corners option can only be set with the interpolating modes: "
                                "linear | bilinear | bicubic | trilinear")
    if mode not in _MODES or len(x) not in (3, 4, 5):
        ctx.fail(ILLEGAL_VALUE, f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {len(x)}D) for the "
                                "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                f"nearest-exact (got {mode})")
    if mode in _MODE_RANK and len(x) != _MODE_RANK[mode]:
        ctx.fail(ILLEGAL_VALUE, f"Got {len(x)}D input, but {mode} mode needs {_MODE_RANK[mode]}D input")
    if antialias and mode not in ("bilinear", "bicubic"):
        ctx.fail(ILLEGAL_VALUE, "Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input")
    axes = _AXIS[n]
    msg = ("Input and output sizes should be greater than 0, but got input (" +
           ", ".join(f"{a}: {_t(d)}" for a, d in zip(axes, spatial)) + ") output (" +
           ", ".join(f"{a}: {_t(d)}" for a, d in zip(axes, osz)) + ")")
    ctx.require(S.and_(*[S.gt(d, 0) for d in spatial + osz]), ILLEGAL_SHAPE, msg)
    if mode in ("nearest", "nearest-exact", "area") or True:
        ctx.require(S.gt(x[1], 0), SHAPE_MISMATCH,
                    f"Non-empty {len(x)}D data tensor expected but got a tensor with sizes {_sz(x)}")
    return TensorValue((x[0], x[1]) + tuple(osz), input.dtype)


@op("torch.nn.functional.upsample_nearest")
def upsample_nearest(ctx, input, size=None, scale_factor=None):
    return interpolate(ctx, input, size, scale_factor, "nearest")


@op("torch.nn.functional.upsample_bilinear")
def upsample_bilinear(ctx, input, size=None, scale_factor=None):
    return interpolate(ctx, input, size, scale_factor, "bilinear", align_corners=True)


@module("torch.nn.Upsample")
def Upsample(ctx, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    return {"size": size, "scale_factor": scale_factor, "mode": mode, "align_corners": align_corners,
            "recompute_scale_factor": recompute_scale_factor}


@Upsample.forward
def _upsample_forward(ctx, m, input):
    return interpolate(ctx, input, m["size"], m["scale_factor"], m["mode"], m["align_corners"],
                       m["recompute_scale_factor"])


@module("torch.nn.UpsamplingNearest2d")
def UpsamplingNearest2d(ctx, size=None, scale_factor=None):
    return {"size": size, "scale_factor": scale_factor, "mode": "nearest", "align_corners": None,
            "recompute_scale_factor": None}


@module("torch.nn.UpsamplingBilinear2d")
def UpsamplingBilinear2d(ctx, size=None, scale_factor=None):
    return {"size": size, "scale_factor": scale_factor, "mode": "bilinear", "align_corners": True,
            "recompute_scale_factor": None}


UpsamplingNearest2d.forward(_upsample_forward)
UpsamplingBilinear2d.forward(_upsample_forward)


# ---------------------------------------------------------------------------------------
# pad and padding modules
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.pad", "torch._C._nn.pad")
def pad(ctx, input, pad, mode="constant", value=None):
    x = ctx.shape(input)
    if not isinstance(pad, (tuple, list)):
        raise Unknowable("pad is not a sequence")
    p = tuple(pad)
    if len(p) % 2:
        ctx.fail(ILLEGAL_VALUE, "Padding length must be divisible by 2")
    k = len(p) // 2
    if mode not in ("constant", "reflect", "replicate", "circular"):
        ctx.fail(ILLEGAL_VALUE, f"Unrecognised padding mode {mode}")
    if mode != "constant" and value is not None and value != 0:
        ctx.fail(ILLEGAL_VALUE, f'Padding mode "{mode}" doesn\'t take in value argument')
    if k > len(x):
        ctx.fail(ILLEGAL_VALUE, f"Padding length should be less than or equal to two times the input dimension "
                                f"but got padding length {len(p)} and input of dimension {len(x)}")
    out = list(x)
    pairs = []  # (dim index, left, right), last dim first
    for i in range(k):
        d = len(x) - 1 - i
        pairs.append((d, p[2 * i], p[2 * i + 1]))
    if mode == "constant":
        for d, l, r in pairs:
            neg = S.add(_neg_part(l), _neg_part(r))
            ctx.require(S.ge(S.add(x[d], neg), 0), ILLEGAL_SHAPE, "narrow(): length must be non-negative.")
            out[d] = S.add(S.add(x[d], l), r)
        return TensorValue(tuple(out), input.dtype)
    if k == 0 or len(x) not in (k + 1, k + 2) or k > 3:
        ctx.fail(ILLEGAL_VALUE, f"Padding size {len(p)} is not supported for {len(x)}D input tensor.")
    if mode == "circular":
        for d, l, r in pairs:
            ctx.require(S.and_(S.le(l, x[d]), S.le(r, x[d])), ILLEGAL_VALUE,
                        "Padding value causes wrapping around more than once.")
            out[d] = S.add(S.add(x[d], l), r)
            ctx.require(S.ge(out[d], 0), ILLEGAL_SHAPE, "Negative padding value is resulting in an empty dimension.")
        return TensorValue(tuple(out), input.dtype)
    batched = len(x) == k + 2
    nonbatch = x[1:] if batched else x
    ctx.require(S.and_(*[S.gt(v, 0) for v in nonbatch]), SHAPE_MISMATCH,
                f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other non-zero "
                f"dimensions for input, but got: {_sz(x)}")
    for j, (d, l, r) in enumerate(pairs):
        if mode == "reflect":
            ctx.require(S.and_(S.lt(l, x[d]), S.lt(r, x[d])), ILLEGAL_VALUE,
                        f"Argument #{2 * (k - j) + 2}: Padding size should be less than the corresponding input "
                        f"dimension, but got: padding ({_t(l)}, {_t(r)}) at dimension {d} of input {_sz(x)}")
        out[d] = S.add(S.add(x[d], l), r)
        ctx.require(S.ge(out[d], 1), ILLEGAL_SHAPE,
                    f"input (W: {_t(x[d])}) is too small. Calculated output W: {_t(out[d])}")
    return TensorValue(tuple(out), input.dtype)


def _neg_part(v):
    """min(v, 0) for a known int; 0 otherwise (the symbolic case assumes non-negative pads)."""
    if isinstance(v, int):
        return min(v, 0)
    return 0


def _make_pad_module(name, n, mode):
    if mode == "constant":
        @module(f"torch.nn.{name}")
        def ctor(ctx, padding, value):
            return {"padding": _pad_tuple(padding, n), "value": value}
    else:
        @module(f"torch.nn.{name}")
        def ctor(ctx, padding):
            return {"padding": _pad_tuple(padding, n)}

    @ctor.forward
    def forward(ctx, m, input):
        x = ctx.shape(input)
        if mode == "circular" and len(x) not in (n + 1, n + 2):
            ctx.fail(SHAPE_MISMATCH, f"expected {n + 1}D or {n + 2}D input (got {len(x)}D input)")
        return pad(ctx, input, m["padding"], mode, m.get("value") if mode == "constant" else None)


def _pad_tuple(padding, n):
    if isinstance(padding, (tuple, list)):
        return tuple(padding)
    return (padding,) * (2 * n)


for _n in (1, 2, 3):
    _make_pad_module(f"ConstantPad{_n}d", _n, "constant")
    _make_pad_module(f"ReflectionPad{_n}d", _n, "reflect")
    _make_pad_module(f"ReplicationPad{_n}d", _n, "replicate")
    _make_pad_module(f"CircularPad{_n}d", _n, "circular")


def _make_zero_pad(n):
    @module(f"torch.nn.ZeroPad{n}d")
    def ctor(ctx, padding):
        return {"padding": _pad_tuple(padding, n), "value": 0.0}

    @ctor.forward
    def forward(ctx, m, input):
        return pad(ctx, input, m["padding"], "constant", 0.0)


for _n in (1, 2, 3):
    _make_zero_pad(_n)


# ---------------------------------------------------------------------------------------
# Activation modules: each forward calls the functional spec (elementwise.py).
# ---------------------------------------------------------------------------------------

def _make_activation(name, functional, params):
    """params: constructor parameter names with defaults (a list of (name, default))."""
    import inspect

    def ctor(ctx, *args, **kwargs):
        sig = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
                                 for p, d in params])
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise Unknowable(str(exc)) from None
        bound.apply_defaults()
        return dict(bound.arguments)

    ctor.__name__ = name
    # Give the constructor a real signature so the engine can bind arguments.
    ctor.__signature__ = inspect.Signature(
        [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD)] +
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d) for p, d in params])
    decl = module(f"torch.nn.{name}")(ctor)

    @decl.forward
    def forward(ctx, m, input):
        if not is_tensor(input):
            raise Unknowable("not a tensor")
        return ctx.call(f"torch.nn.functional.{functional}", input)

    return decl


for _name, _fn, _params in [
    ("ReLU", "relu", [("inplace", False)]),
    ("ReLU6", "relu6", [("inplace", False)]),
    ("GELU", "gelu", [("approximate", "none")]),
    ("SiLU", "silu", [("inplace", False)]),
    ("Mish", "mish", [("inplace", False)]),
    ("ELU", "elu", [("alpha", 1.0), ("inplace", False)]),
    ("SELU", "selu", [("inplace", False)]),
    ("CELU", "celu", [("alpha", 1.0), ("inplace", False)]),
    ("LeakyReLU", "leaky_relu", [("negative_slope", 0.01), ("inplace", False)]),
    ("Hardtanh", "hardtanh", [("min_val", -1.0), ("max_val", 1.0), ("inplace", False), ("min_value", None),
                              ("max_value", None)]),
    ("Hardsigmoid", "hardsigmoid", [("inplace", False)]),
    ("Hardswish", "hardswish", [("inplace", False)]),
    ("Sigmoid", "sigmoid", []),
    ("Tanh", "tanh", []),
    ("Softplus", "softplus", [("beta", 1.0), ("threshold", 20.0)]),
    ("Softsign", "softsign", []),
    ("Tanhshrink", "tanhshrink", []),
    ("LogSigmoid", "logsigmoid", []),
    ("Threshold", "threshold", [("threshold", None), ("value", None), ("inplace", False)]),
    ("Softshrink", "softshrink", [("lambd", 0.5)]),
    ("Hardshrink", "hardshrink", [("lambd", 0.5)]),
    ("RReLU", "rrelu", [("lower", 1.0 / 8), ("upper", 1.0 / 3), ("inplace", False)]),
]:
    _make_activation(_name, _fn, _params)


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def _make_softmax(name, functional):
    @module(f"torch.nn.{name}")
    def ctor(ctx, dim=None):
        return {"dim": dim}

    @ctor.forward
    def forward(ctx, m, input):
        x = ctx.shape(input)
        dim = m["dim"] if m["dim"] is not None else _softmax_dim(len(x))
        return ctx.call(f"torch.nn.functional.{functional}", input, dim)


_make_softmax("Softmax", "softmax")
_make_softmax("LogSoftmax", "log_softmax")
_make_softmax("Softmin", "softmin")


@module("torch.nn.Softmax2d")
def Softmax2d(ctx):
    return {}


@Softmax2d.forward
def _softmax2d_forward(ctx, m, input):
    x = ctx.shape(input)
    if len(x) not in (3, 4):
        ctx.fail(SHAPE_MISMATCH, f"Softmax2d: expected input to be 3D or 4D, got {len(x)}D instead")
    return ctx.call("torch.nn.functional.softmax", input, -3)


@module("torch.nn.GLU")
def GLU(ctx, dim=-1):
    return {"dim": dim}


@GLU.forward
def _glu_forward(ctx, m, input):
    return ctx.call("torch.nn.functional.glu", input, m["dim"])


@op("torch.nn.functional.prelu", "torch.prelu")
def prelu(ctx, input, weight):
    x, w = ctx.shape(input), ctx.shape(weight)
    if len(w) > 1:
        ctx.fail(SHAPE_MISMATCH, f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {len(w)}")
    nw = S.prod(w)
    if len(x) == 0:
        ctx.require(S.eq(nw, 1), SHAPE_MISMATCH, "Not allow zero-dim input tensor.")
        return TensorValue(x, input.dtype)
    channels = x[1] if len(x) >= 2 else 1
    ctx.require(S.or_(S.eq(nw, 1), S.eq(nw, channels)), SHAPE_MISMATCH,
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {_t(nw)} and "
                f"channel size = {_t(channels)}.", repair={"num_parameters": channels})
    return TensorValue(x, input.dtype)


@module("torch.nn.PReLU")
def PReLU(ctx, num_parameters=1, init=0.25, device=None, dtype=None):
    dt = str(dtype) if dtype is not None else "float32"
    return {"num_parameters": num_parameters, "weight": TensorValue((num_parameters,), dt)}


@PReLU.forward
def _prelu_forward(ctx, m, input):
    return prelu(ctx, input, m["weight"])


# ---------------------------------------------------------------------------------------
# Distances, outer, cross
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.cosine_similarity", "torch.cosine_similarity")
def cosine_similarity(ctx, x1, x2, dim=1, eps=1e-08):
    a, b = ctx.shape(x1), ctx.shape(x2)
    shape = broadcast_shapes(ctx, a, b)
    d = ctx.wrap_dim(dim, len(shape))
    if len(shape) == 0:
        return TensorValue((), x1.dtype)
    return TensorValue(tuple(shape[:d]) + tuple(shape[d + 1:]), x1.dtype)


@op("torch.nn.functional.pairwise_distance", "torch.pairwise_distance")
def pairwise_distance(ctx, x1, x2, p=2.0, eps=1e-06, keepdim=False):
    a, b = ctx.shape(x1), ctx.shape(x2)
    shape = broadcast_shapes(ctx, a, b)
    if len(shape) == 0:
        return TensorValue((), x1.dtype)
    if len(a) == 1 and len(b) == 1 and not keepdim:
        return TensorValue((), x1.dtype)
    return TensorValue(tuple(shape[:-1]) + ((1,) if keepdim else ()), x1.dtype)


@module("torch.nn.CosineSimilarity")
def CosineSimilarity(ctx, dim=1, eps=1e-08):
    return {"dim": dim, "eps": eps}


@CosineSimilarity.forward
def _cos_forward(ctx, m, x1, x2):
    return cosine_similarity(ctx, x1, x2, m["dim"], m["eps"])


@module("torch.nn.PairwiseDistance")
def PairwiseDistance(ctx, p=2.0, eps=1e-06, keepdim=False):
    return {"norm": p, "eps": eps, "keepdim": keepdim}


@PairwiseDistance.forward
def _pdist_forward(ctx, m, x1, x2):
    return pairwise_distance(ctx, x1, x2, m["norm"], m["eps"], m["keepdim"])


@op("torch.cdist")
def cdist(ctx, x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    a, b = ctx.shape(x1), ctx.shape(x2)
    if len(a) < 2:
        ctx.fail(SHAPE_MISMATCH, f"cdist only supports at least 2D tensors, X1 got: {len(a)}D")
    if len(b) < 2:
        ctx.fail(SHAPE_MISMATCH, f"cdist only supports at least 2D tensors, X2 got: {len(b)}D")
    ctx.require(S.eq(a[-1], b[-1]), SHAPE_MISMATCH,
                f"X1 and X2 must have the same number of columns. X1: {_t(a[-1])} X2: {_t(b[-1])}")
    batch = broadcast_shapes(ctx, a[:-2], b[:-2])
    return TensorValue(tuple(batch) + (a[-2], b[-2]), x1.dtype)


@op("torch.outer", "Tensor.outer", "torch.ger", "Tensor.ger")
def outer(ctx, input, vec2):
    a, b = ctx.shape(input), ctx.shape(vec2)
    if len(a) != 1:
        ctx.fail(SHAPE_MISMATCH, f"outer: Expected 1-D argument self, but got {len(a)}-D")
    if len(b) != 1:
        ctx.fail(SHAPE_MISMATCH, f"outer: Expected 1-D argument vec2, but got {len(b)}-D")
    return TensorValue((a[0], b[0]), input.dtype)


@op("torch.linalg.cross")
def linalg_cross(ctx, input, other, *, dim=-1, out=None):
    return cross(ctx, input, other, dim)


@op("torch.cross", "Tensor.cross")
def cross(ctx, input, other, dim=None):
    a, b = ctx.shape(input), ctx.shape(other)
    if len(a) != len(b):
        ctx.fail(SHAPE_MISMATCH, "linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_shapes(ctx, a, b)
    if dim is None:
        # torch.cross without dim: the first dim of size 3 (deprecated default).
        for i, d in enumerate(shape):
            if d == 3:
                dim = i
                break
        else:
            if all(isinstance(d, int) for d in shape):
                ctx.fail(SHAPE_MISMATCH, f"no dimension of size 3 in input")
            raise Unknowable("cross without dim on symbolic shape")
    d = ctx.wrap_dim(dim, len(shape))
    shown = dim if isinstance(dim, int) else d
    ctx.require(S.and_(S.eq(a[d], 3), S.eq(b[d], 3)), SHAPE_MISMATCH,
                f"linalg.cross: inputs dimension {shown} must have length 3. Got {_t(a[d])} and {_t(b[d])}")
    return TensorValue(shape, input.dtype)


# ---------------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------------

def _label_order(c):
    return (0, c) if c.isupper() else (1, c)


def _parse_term(ctx, term, pos):
    """A term's labels: a list of letters and '...' (at most one)."""
    out = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "..." or "..." in out:
                ctx.fail(ILLEGAL_VALUE, f"einsum(): found '.' for operand {pos} that is not part of any ellipsis")
            out.append("...")
            i += 3
            continue
        if c == " ":
            i += 1
            continue
        if not c.isalpha() or not c.isascii():
            ctx.fail(ILLEGAL_VALUE, f"einsum(): invalid subscript given at index {i} in the equation string, "
                                    "subscripts must be in [a-zA-Z]")
        out.append(c)
        i += 1
    return out


def _einsum_structure(ctx, equation: str, n_operands: int) -> None:
    """The equation's own errors, which need no shape: operands counted, and each output
    subscript once and among the inputs' (torch checks these after the shapes; with a shape
    not known, they still fail for every shape)."""
    try:
        _check_structure(ctx, equation, n_operands)
    except ShapeError as e:
        e.static = True
        raise


def _check_structure(ctx, equation: str, n_operands: int) -> None:
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > n_operands:
        ctx.fail(ILLEGAL_VALUE, "einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < n_operands:
        ctx.fail(ILLEGAL_VALUE, "einsum(): more operands were provided than specified in the equation")
    inputs = {l for pos, term in enumerate(terms) for l in _parse_term(ctx, term, pos)}
    if "->" in eq and "-" not in rhs:
        _check_output_labels(ctx, _parse_term(ctx, rhs, 0), inputs)


def _check_output_labels(ctx, labels, inputs) -> None:
    """Each output subscript once, and among the inputs' `inputs`."""
    seen = set()
    for l in labels:
        if l == "...":
            continue
        if l in seen:
            ctx.fail(ILLEGAL_VALUE, f"einsum(): output subscript {l} appears more than once in the output")
        seen.add(l)
        if l not in inputs:
            ctx.fail(ILLEGAL_VALUE, f"einsum(): output subscript {l} does not appear in the equation for any "
                                    "input operand")


@op("torch.einsum")
def einsum(ctx, equation, *operands):
    if not isinstance(equation, str):
        # Sublist format: einsum(op1, [0, 1], op2, [1, 2], [0, 2])
        raise Unknowable("einsum sublist format")
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    if any(not isinstance(t, TensorValue) or t.shape is None for t in operands):
        _einsum_structure(ctx, equation, len(operands))  # what fails whatever the shapes are
    shapes = [ctx.shape(t) for t in operands]
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
        if "->" in rhs:
            idx = len(lhs) + 2 + rhs.index("-")
            ctx.fail(ILLEGAL_VALUE, f"einsum(): invalid subscript given at index {idx} in the equation string, "
                                    "subscripts must be in [a-zA-Z]")
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        ctx.fail(ILLEGAL_VALUE, "einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        ctx.fail(ILLEGAL_VALUE, "einsum(): more operands were provided than specified in the equation")
    sizes: dict = {}
    ell = None  # broadcast ellipsis shape
    counts: dict = {}
    for pos, (term, shape) in enumerate(zip(terms, shapes)):
        labels = _parse_term(ctx, term, pos)
        n_labels = sum(1 for l in labels if l != "...")
        has_ell = "..." in labels
        if (has_ell and len(shape) < n_labels) or (not has_ell and len(shape) != n_labels):
            ctx.fail(SHAPE_MISMATCH, f"einsum(): the number of subscripts in the equation ({n_labels}) does not "
                                     f"match the number of dimensions ({len(shape)}) for operand {pos}"
                                     + ("" if has_ell else " and no ellipsis was given"))
        local: dict = {}
        dims = list(shape)
        k = 0
        for l in labels:
            if l == "...":
                n_ell = len(shape) - n_labels
                e = tuple(dims[k:k + n_ell])
                k += n_ell
                if ell is None:
                    ell = e
                else:
                    ell = _broadcast_ellipsis(ctx, ell, e, pos)
                continue
            d = dims[k]
            k += 1
            counts[l] = counts.get(l, 0) + 1
            if l in local:
                ctx.require(S.eq(local[l], d), SHAPE_MISMATCH,
                            f"einsum(): subscript {l} is repeated for operand {pos} but the sizes don't match, "
                            f"{_t(d)} != {_t(local[l])}")
                continue
            local[l] = d
            if l in sizes:
                sizes[l] = _broadcast_label(ctx, sizes[l], d, l, pos)
            else:
                sizes[l] = d
    if ell is None:
        ell = ()
    if rhs is None:
        out_labels = ["..."] + sorted((l for l, c in counts.items() if c == 1), key=_label_order)
    else:
        out_labels = _parse_term(ctx, rhs, 0)
        try:
            _check_output_labels(ctx, out_labels, sizes)
        except ShapeError as e:
            e.static = True  # the equation's own error, whatever the shapes
            raise
    out = []
    for l in out_labels:
        if l == "...":
            out.extend(ell)
        else:
            out.append(sizes[l])
    dtypes = [t.dtype for t in operands]
    return TensorValue(tuple(out), dtypes[0] if dtypes else None)


def _broadcast_label(ctx, a, b, label, pos):
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    if isinstance(a, int) and isinstance(b, int):
        ctx.fail(SHAPE_MISMATCH, f"einsum(): subscript {label} has size {b} for operand {pos} which does not "
                                 f"broadcast with previously seen size {a}")
    ctx.require(S.or_(S.eq(a, b), S.eq(b, 1), S.eq(a, 1)), SHAPE_MISMATCH,
                f"einsum(): subscript {label} has size {_t(b)} for operand {pos} which does not broadcast with "
                f"previously seen size {_t(a)}")
    if isinstance(b, int):
        return b
    if isinstance(a, int):
        return a
    return S.dmax(a, b)


def _broadcast_ellipsis(ctx, a, b, pos):
    n = max(len(a), len(b))
    a2 = (1,) * (n - len(a)) + tuple(a)
    b2 = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a2, b2)):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        else:
            msg = (f"einsum(): dimension {i} covered by ellipsis in operand {pos}has size {_t(y)} which does not "
                   f"broadcast with previously seen ellipsis with size {_t(x)} for the respective dimension")
            if isinstance(x, int) and isinstance(y, int):
                ctx.fail(SHAPE_MISMATCH, msg)
            ctx.require(S.or_(S.eq(x, y), S.eq(x, 1), S.eq(y, 1)), SHAPE_MISMATCH, msg)
            out.append(y if isinstance(y, int) else x if isinstance(x, int) else S.dmax(x, y))
    return tuple(out)
