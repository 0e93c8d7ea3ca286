"""Normalization: batch_norm, layer_norm, group_norm, instance_norm, rms_norm,
local_response_norm, normalize and their nn modules (checked against PyTorch 2.13).

Modules carry a "training" attribute (True unless the engine knows the module is in eval
mode, as PyTorch modules start in training mode); the training-only checks ("Expected more
than 1 value per channel when training") fire only when the product is concretely 1.
"""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue, Unknowable, is_tensor, module,
                   op)


def _t(d):
    return S.dim_text(d)


def _sz(shape):
    return S.size_text(shape)


def _torch_size(shape):
    return f"torch.Size({_sz(shape)})"


def _numel(t):
    if not is_tensor(t) or t.shape is None:
        return UNKNOWN
    return S.prod(t.shape)


def _concretely_one(d) -> bool:
    return isinstance(d, int) and d == 1


# ---------------------------------------------------------------------------------------
# batch_norm
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.batch_norm")
def batch_norm(ctx, input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    x = ctx.shape(input)
    if training:
        count = S.prod((x[0],) + tuple(x[2:])) if len(x) >= 1 else 1
        if _concretely_one(count):
            ctx.fail(SHAPE_MISMATCH, f"Expected more than 1 value per channel when training, got input "
                                     f"size {_torch_size(x)}")
    if not training and (running_mean is None or running_var is None):
        raise Unknowable("eval-mode batch_norm without running statistics")
    if len(x) < 2:
        if any(is_tensor(t) for t in (running_mean, running_var, weight, bias)):
            ctx.fail(SHAPE_MISMATCH, f"running_mean should contain 0 elements not "
                                     f"{_t(_numel(next(t for t in (running_mean, running_var, weight, bias) if is_tensor(t))))}")
        raise Unknowable("batch_norm of a 1-D input")
    channels = x[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if is_tensor(t):
            n = _numel(t)
            ctx.require(S.eq(n, channels), SHAPE_MISMATCH,
                        f"{name} should contain {_t(channels)} elements not {_t(n)}",
                        repair={"num_features": channels})
    stats = [_numel(t) for t in (running_mean, running_var, weight, bias) if is_tensor(t)]
    return TensorValue((x[0], _known_past_check(channels, *stats)) + tuple(x[2:]), input.dtype)


def _bn_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias=True):
    ctx.require(S.ge(num_features, 0), ILLEGAL_VALUE,
                f"Trying to create tensor with negative dimension {_t(num_features)}: [{_t(num_features)}]")
    dt = str(dtype) if dtype is not None else "float32"
    vec = TensorValue((num_features,), dt)
    return {
        "num_features": num_features, "eps": eps, "momentum": momentum, "affine": affine,
        "track_running_stats": track_running_stats,
        "weight": vec if affine else None, "bias": vec if affine and bias else None,
        "running_mean": vec if track_running_stats else None,
        "running_var": vec if track_running_stats else None,
        "num_batches_tracked": TensorValue((), "int64") if track_running_stats else None,
        "training": True,
    }


def _bn_forward(ctx, m, input, ranks):
    x = ctx.shape(input)
    if len(x) not in ranks:
        want = " or ".join(f"{r}D" for r in ranks)
        ctx.fail(SHAPE_MISMATCH, f"expected {want} input (got {len(x)}D input)")
    training = m.get("training", True)
    bn_training = training or (m["running_mean"] is None and m["running_var"] is None)
    use_stats = not training or m["track_running_stats"]
    return batch_norm(ctx, input, m["running_mean"] if use_stats else None,
                      m["running_var"] if use_stats else None, m["weight"], m["bias"], bn_training,
                      m["momentum"], m["eps"])


@module("torch.nn.BatchNorm1d")
def BatchNorm1d(ctx, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                device=None, dtype=None, *, bias=True):
    return _bn_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias)


@BatchNorm1d.forward
def _bn1d_forward(ctx, m, input):
    return _bn_forward(ctx, m, input, (2, 3))


@module("torch.nn.BatchNorm2d")
def BatchNorm2d(ctx, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                device=None, dtype=None, *, bias=True):
    return _bn_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias)


@BatchNorm2d.forward
def _bn2d_forward(ctx, m, input):
    return _bn_forward(ctx, m, input, (4,))


@module("torch.nn.BatchNorm3d")
def BatchNorm3d(ctx, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                device=None, dtype=None, *, bias=True):
    return _bn_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias)


@BatchNorm3d.forward
def _bn3d_forward(ctx, m, input):
    return _bn_forward(ctx, m, input, (5,))


@module("torch.nn.SyncBatchNorm")
def SyncBatchNorm(ctx, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                  process_group=None, device=None, dtype=None, *, bias=True):
    return _bn_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias)


@SyncBatchNorm.forward
def _syncbn_forward(ctx, m, input):
    x = ctx.shape(input)
    if len(x) < 2:
        ctx.fail(SHAPE_MISMATCH, f"expected at least 2D input (got {len(x)}D input)")
    return _bn_forward(ctx, m, input, (len(x),))


# ---------------------------------------------------------------------------------------
# layer_norm / rms_norm
# ---------------------------------------------------------------------------------------

def _norm_shape(v):
    """The normalized dims, or None when not known (the output is the input's shape)."""
    if isinstance(v, (tuple, list)):
        return tuple(v)
    if v is UNKNOWN:
        return None
    return (v,)


def _known_past_check(d, *sizes):
    """A dim the analysis does not know (`?`) that the op's check required to equal a size: on
    the lines after the op (which ran) it is that size (`BatchNorm2d(c)` of a `Tensor[N, ?, H,
    W]` gives `Tensor[N, c, H, W]`)."""
    if d is UNKNOWN:
        for size in sizes:
            if size is not UNKNOWN and size is not None:
                return size
    return d


def _check_trailing(ctx, x, ns, star):
    ns_text = _sz(ns)
    inner = ", ".join(_t(d) for d in ns)
    expected = f"[*, {inner}]" if star else f"[*{inner}]"
    msg = (f"Given normalized_shape={ns_text}, expected input with shape {expected}, but got input of "
           f"size{_sz(x)}")
    if len(x) < len(ns):
        ctx.fail(SHAPE_MISMATCH, msg)
    tail = x[len(x) - len(ns):]
    ctx.require(S.and_(*[S.eq(a, b) for a, b in zip(tail, ns)]), SHAPE_MISMATCH, msg,
                repair={"normalized_shape": tail[0] if len(ns) == 1 else tail})


def _check_param(ctx, name, t, ns):
    if is_tensor(t) and t.shape is not None:
        ok = S.and_(*[S.eq(a, b) for a, b in zip(t.shape, ns)]) if len(t.shape) == len(ns) else False
        ctx.require(ok, SHAPE_MISMATCH,
                    f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                    f"{_sz(t.shape)} and normalized_shape = {_sz(ns)}")


@op("torch.nn.functional.layer_norm", "torch.layer_norm")
def layer_norm(ctx, input, normalized_shape, weight=None, bias=None, eps=1e-05):
    x = ctx.shape(input)
    if not isinstance(normalized_shape, (tuple, list)) and normalized_shape is not UNKNOWN:
        ctx.fail(ILLEGAL_VALUE, "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                                "ints, not int")
    ns = _norm_shape(normalized_shape)
    if ns is None:  # a size the analysis does not know: checked by nothing, shape kept
        return TensorValue(x, input.dtype)
    if len(ns) == 0:
        ctx.fail(ILLEGAL_VALUE, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                                "least one element, but got normalized_shape = []")
    _check_param(ctx, "weight", weight, ns)
    _check_param(ctx, "bias", bias, ns)
    _check_trailing(ctx, x, ns, True)
    lead = len(x) - len(ns)
    return TensorValue(tuple(x[:lead]) + tuple(_known_past_check(a, b) for a, b in zip(x[lead:], ns)), input.dtype)


@op("torch.nn.functional.rms_norm", "torch.rms_norm")
def rms_norm(ctx, input, normalized_shape, weight=None, eps=None):
    x = ctx.shape(input)
    ns = _norm_shape(normalized_shape)
    if ns is None:
        return TensorValue(x, input.dtype)
    _check_trailing(ctx, x, ns, False)
    _check_param(ctx, "weight", weight, ns)
    return TensorValue(x, input.dtype)


@module("torch.nn.LayerNorm")
def LayerNorm(ctx, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None,
              dtype=None):
    ns = _norm_shape(normalized_shape)
    dt = str(dtype) if dtype is not None else "float32"
    return {"normalized_shape": UNKNOWN if ns is None else ns, "eps": eps, "elementwise_affine": elementwise_affine,
            "weight": TensorValue(ns, dt) if elementwise_affine else None,
            "bias": TensorValue(ns, dt) if elementwise_affine and bias else None}


@LayerNorm.forward
def _layernorm_forward(ctx, m, input):
    return layer_norm(ctx, input, m["normalized_shape"], m["weight"], m["bias"], m["eps"])


@module("torch.nn.RMSNorm")
def RMSNorm(ctx, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
    ns = _norm_shape(normalized_shape)
    dt = str(dtype) if dtype is not None else "float32"
    return {"normalized_shape": UNKNOWN if ns is None else ns, "eps": eps, "elementwise_affine": elementwise_affine,
            "weight": TensorValue(ns, dt) if elementwise_affine else None}


@RMSNorm.forward
def _rmsnorm_forward(ctx, m, input):
    return rms_norm(ctx, input, m["normalized_shape"], m["weight"], m["eps"])


# ---------------------------------------------------------------------------------------
# group_norm
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.group_norm", "torch.group_norm")
def group_norm(ctx, input, num_groups, weight=None, bias=None, eps=1e-05):
    x = ctx.shape(input)
    if len(x) < 2:
        ctx.fail(SHAPE_MISMATCH, f"Expected at least 2 dimensions for input tensor but received {len(x)}")
    c = x[1]
    ctx.require(S.ne(num_groups, 0), ILLEGAL_VALUE, "integer division or modulo by zero")
    ctx.require(S.eq(S.mod(c, num_groups), 0), SHAPE_MISMATCH,
                f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
                f"{_sz(x)} and num_groups={_t(num_groups)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if is_tensor(t) and t.shape is not None:
            ok = S.eq(t.shape[0], c) if len(t.shape) == 1 else False
            ctx.require(ok, SHAPE_MISMATCH,
                        f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                        f"got {name} of shape {_sz(t.shape)} and input of shape {_sz(x)}",
                        repair={"num_channels": c})
    sizes = [t.shape[0] for t in (weight, bias) if is_tensor(t) and t.shape is not None and len(t.shape) == 1]
    return TensorValue((x[0], _known_past_check(c, *sizes)) + tuple(x[2:]), input.dtype)


@module("torch.nn.GroupNorm")
def GroupNorm(ctx, num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None, *, bias=True):
    ctx.require(S.ne(num_groups, 0), ILLEGAL_VALUE, "integer modulo by zero")
    ctx.require(S.eq(S.mod(num_channels, num_groups), 0), ILLEGAL_VALUE,
                f"num_channels ({_t(num_channels)}) must be divisible by num_groups ({_t(num_groups)})")
    dt = str(dtype) if dtype is not None else "float32"
    return {"num_groups": num_groups, "num_channels": num_channels, "eps": eps, "affine": affine,
            "weight": TensorValue((num_channels,), dt) if affine else None,
            "bias": TensorValue((num_channels,), dt) if affine and bias else None}


@GroupNorm.forward
def _groupnorm_forward(ctx, m, input):
    return group_norm(ctx, input, m["num_groups"], m["weight"], m["bias"], m["eps"])


# ---------------------------------------------------------------------------------------
# instance_norm
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.instance_norm")
def instance_norm(ctx, input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    x = ctx.shape(input)
    if use_input_stats:
        if _concretely_one(S.prod(x[2:])):
            ctx.fail(SHAPE_MISMATCH, f"Expected more than 1 spatial element when training, got input size "
                                     f"{_torch_size(x)}")
    if len(x) < 2:
        raise Unknowable("instance_norm of a 1-D input")
    n, c = x[0], x[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if is_tensor(t):
            k = _numel(t)
            ctx.require(S.eq(k, c), SHAPE_MISMATCH,
                        f"{name} should contain {_t(S.mul(n, c))} elements not {_t(S.mul(n, k))}",
                        repair={"num_features": c})
    return TensorValue(x, input.dtype)


def _in_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias=True):
    m = _bn_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias)
    return m


def _in_forward(ctx, m, input, n):
    x = ctx.shape(input)
    if len(x) not in (n + 1, n + 2):
        ctx.fail(SHAPE_MISMATCH, f"expected {n + 1}D or {n + 2}D input (got {len(x)}D input)")
    feature_dim = len(x) - (n + 1)
    c = x[feature_dim]
    if m["affine"]:
        ctx.require(S.eq(c, m["num_features"]), SHAPE_MISMATCH,
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({_t(m['num_features'])}), but got: {_t(c)}.", repair={"num_features": c})
    batched = x if len(x) == n + 2 else (1,) + x
    training = m.get("training", True)
    use_stats = not training or m["track_running_stats"]
    out = instance_norm(ctx, TensorValue(batched, input.dtype),
                        m["running_mean"] if use_stats else None, m["running_var"] if use_stats else None,
                        m["weight"], m["bias"], training or not m["track_running_stats"],
                        m["momentum"], m["eps"])
    return TensorValue(x, out.dtype)


def _make_instance(n):
    @module(f"torch.nn.InstanceNorm{n}d")
    def ctor(ctx, num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
             device=None, dtype=None, *, bias=True):
        return _in_module(ctx, num_features, eps, momentum, affine, track_running_stats, dtype, bias)

    @ctor.forward
    def forward(ctx, m, input):
        return _in_forward(ctx, m, input, n)


for _n in (1, 2, 3):
    _make_instance(_n)


# ---------------------------------------------------------------------------------------
# local_response_norm, normalize
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.local_response_norm")
def local_response_norm(ctx, input, size, alpha=0.0001, beta=0.75, k=1.0):
    x = ctx.shape(input)
    if len(x) < 3:
        ctx.fail(SHAPE_MISMATCH, f"Expected 3D or higher dimensionality                          input "
                                 f"(got {len(x)} dimensions)")
    return TensorValue(x, input.dtype)


@module("torch.nn.LocalResponseNorm")
def LocalResponseNorm(ctx, size, alpha=0.0001, beta=0.75, k=1.0):
    return {"size": size, "alpha": alpha, "beta": beta, "k": k}


@LocalResponseNorm.forward
def _lrn_forward(ctx, m, input):
    return local_response_norm(ctx, input, m["size"], m["alpha"], m["beta"], m["k"])


@op("torch.nn.functional.normalize")
def normalize(ctx, input, p=2.0, dim=1, eps=1e-12, out=None):
    x = ctx.shape(input)
    if isinstance(dim, (tuple, list)):
        for d in dim:
            ctx.wrap_dim(d, len(x))
    else:
        ctx.wrap_dim(dim, len(x))
    return TensorValue(x, input.dtype)
