"""Losses and their reductions: cross_entropy, nll_loss, mse/l1/smooth_l1/huber, binary cross
entropy (with logits), kl_div, cosine_embedding, margin_ranking, triplet_margin, soft_margin,
poisson/gaussian nll, hinge_embedding, multi-label/multi-margin, and the nn.*Loss modules.
Checked against PyTorch 2.13 (CPU).

Deliberate deviation: mse_loss/l1_loss & co. broadcast input and target with a UserWarning in
PyTorch; the spec broadcasts silently (no diagnostic), as PyTorch does not fail.
"""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import broadcast_shapes
from .spec import (DTYPE_MISMATCH, ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue, Unknowable, is_tensor,
                   module, op)

_FLOAT = {"float16", "bfloat16", "float32", "float64"}
_TITLE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _t(d):
    return S.dim_text(d)


def _sz(shape):
    return S.size_text(shape)


def _tsize(shape):
    return f"torch.Size({_sz(shape)})"


def _reduce(ctx, shape, reduction, dtype, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        ctx.fail(ILLEGAL_VALUE, f"{reduction} is not a valid value for reduction")
    if reduction == "none":
        return TensorValue(tuple(shape), dtype)
    return TensorValue((), dtype)


def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's legacy size_average/reduce arguments override reduction."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


# ---------------------------------------------------------------------------------------
# cross_entropy / nll_loss
# ---------------------------------------------------------------------------------------

def _class_index_target(ctx, x, y, target, weight, name):
    if target.dtype is not None and target.dtype not in ("int64", "uint8"):
        ctx.fail(DTYPE_MISMATCH, f"expected target dtype to be Long or Byte, but got "
                                 f"{_TITLE.get(target.dtype, target.dtype)}")
    classes = x[1] if len(x) >= 2 else (x[0] if len(x) == 1 else 1)
    if is_tensor(weight) and weight.shape is not None:
        nw = S.prod(weight.shape)
        ctx.require(S.eq(nw, classes), SHAPE_MISMATCH,
                    f"weight tensor should be defined either for all {_t(classes)} classes or no classes but got "
                    f"weight tensor of shape: {_sz(weight.shape)}")
    if len(x) <= 1:
        if len(y) > 1:
            ctx.fail(SHAPE_MISMATCH, "0D or 1D target tensor expected, multi-target not supported")
        if len(x) == 1 and len(y) == 1:
            ctx.fail(SHAPE_MISMATCH, "Expected input batch_size (1) to match target batch_size "
                                     f"({_t(y[0])}).") if not (isinstance(y[0], int) and y[0] == 1) else None
        return ()
    if len(x) == 2:
        if len(y) != 1:
            ctx.fail(SHAPE_MISMATCH, "0D or 1D target tensor expected, multi-target not supported")
        ctx.require(S.eq(x[0], y[0]), SHAPE_MISMATCH,
                    f"Expected input batch_size ({_t(x[0])}) to match target batch_size ({_t(y[0])}).")
        return (x[0],)
    want = (x[0],) + tuple(x[2:])
    if len(y) != len(want):
        if len(x) == 4:
            ctx.fail(SHAPE_MISMATCH, f"only batches of spatial targets supported (3D tensors) but got targets of "
                                     f"dimension: {len(y)}")
        ctx.fail(SHAPE_MISMATCH, f"Expected target size {_sz(want)}, got {_sz(y)}")
    ctx.require(S.and_(*[S.eq(a, b) for a, b in zip(want, y)]), SHAPE_MISMATCH,
                f"size mismatch (got input: {_sz(x)} , target: {_sz(y)}" if len(x) == 4 else
                f"Expected target size {_sz(want)}, got {_sz(y)}")
    return want


@op("torch.nn.functional.cross_entropy")
def cross_entropy(ctx, input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    x, y = ctx.shape(input), ctx.shape(target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        ctx.fail(ILLEGAL_VALUE, f"{reduction} is not a valid value for reduction")
    if isinstance(label_smoothing, (int, float)) and not 0.0 <= label_smoothing <= 1.0:
        ctx.fail(ILLEGAL_VALUE, f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    same = len(x) == len(y) and S.and_(*[S.eq(a, b) for a, b in zip(x, y)])
    if same is UNKNOWN or (not isinstance(same, bool)):
        # Symbolic: decide by the target's dtype, the usual intent.
        same = target.dtype in _FLOAT if target.dtype is not None else ctx.decide(same)
    if same:
        if target.dtype is not None and target.dtype not in _FLOAT:
            ctx.fail(DTYPE_MISMATCH, f"Expected floating point type for target with class probabilities, got "
                                     f"{_TITLE.get(target.dtype, target.dtype)}")
        if len(x) == 0:
            out = ()
        elif len(x) == 1:
            out = ()
        else:
            out = (x[0],) + tuple(x[2:])
        if is_tensor(weight) and weight.shape is not None:
            classes = x[1] if len(x) >= 2 else x[0]
            ctx.require(S.eq(S.prod(weight.shape), classes), SHAPE_MISMATCH,
                        f"weight tensor should be defined either for all {_t(classes)} classes or no classes but got "
                        f"weight tensor of shape: {_sz(weight.shape)}")
        return _reduce(ctx, out, reduction, input.dtype)
    if target.dtype in _FLOAT and len(y) == len(x):
        ctx.fail(SHAPE_MISMATCH, "0D or 1D target tensor expected, multi-target not supported")
    out = _class_index_target(ctx, x, y, target, weight, "cross_entropy")
    return _reduce(ctx, out, reduction, input.dtype)


@op("torch.nn.functional.nll_loss")
def nll_loss(ctx, input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    x, y = ctx.shape(input), ctx.shape(target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        ctx.fail(ILLEGAL_VALUE, f"{reduction} is not a valid value for reduction")
    if len(x) == 2 and len(y) == 2:
        ctx.fail(SHAPE_MISMATCH, "0D or 1D target tensor expected, multi-target not supported")
    out = _class_index_target(ctx, x, y, target, weight, "nll_loss")
    return _reduce(ctx, out, reduction, input.dtype)


# ---------------------------------------------------------------------------------------
# Elementwise (broadcasting) losses
# ---------------------------------------------------------------------------------------

def _pointwise(ctx, input, target, reduction, allowed=("none", "mean", "sum")):
    x, y = ctx.shape(input), ctx.shape(target)
    shape = broadcast_shapes(ctx, x, y)
    return _reduce(ctx, shape, reduction, input.dtype, allowed)


@op("torch.nn.functional.mse_loss")
def mse_loss(ctx, input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    return _pointwise(ctx, input, target, _legacy_reduction(size_average, reduce, reduction))


@op("torch.nn.functional.l1_loss")
def l1_loss(ctx, input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    return _pointwise(ctx, input, target, _legacy_reduction(size_average, reduce, reduction))


@op("torch.nn.functional.smooth_l1_loss")
def smooth_l1_loss(ctx, input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if isinstance(beta, (int, float)) and beta < 0:
        ctx.fail(ILLEGAL_VALUE, "smooth_l1_loss does not support negative values for beta.")
    return _pointwise(ctx, input, target, _legacy_reduction(size_average, reduce, reduction))


@op("torch.nn.functional.huber_loss")
def huber_loss(ctx, input, target, reduction="mean", delta=1.0, weight=None):
    if isinstance(delta, (int, float)) and delta <= 0:
        ctx.fail(ILLEGAL_VALUE, "huber_loss does not support non-positive values for delta.")
    return _pointwise(ctx, input, target, reduction)


@op("torch.nn.functional.soft_margin_loss")
def soft_margin_loss(ctx, input, target, size_average=None, reduce=None, reduction="mean"):
    x, y = ctx.shape(input), ctx.shape(target)
    shape = broadcast_shapes(ctx, x, y)
    # The loss is computed into a buffer of the input's shape.
    ctx.require(S.and_(*[S.eq(a, b) for a, b in zip(shape, x)]) if len(shape) == len(x) else False, SHAPE_MISMATCH,
                f"output with shape {_sz(x)} doesn't match the broadcast shape {_sz(shape)}")
    return _reduce(ctx, shape, _legacy_reduction(size_average, reduce, reduction), input.dtype)


@op("torch.nn.functional.hinge_embedding_loss")
def hinge_embedding_loss(ctx, input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    return _pointwise(ctx, input, target, _legacy_reduction(size_average, reduce, reduction))


@op("torch.nn.functional.poisson_nll_loss")
def poisson_nll_loss(ctx, input, target, log_input=True, full=False, size_average=None, eps=1e-08, reduce=None,
                     reduction="mean"):
    return _pointwise(ctx, input, target, _legacy_reduction(size_average, reduce, reduction))


@op("torch.nn.functional.kl_div")
def kl_div(ctx, input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    return _pointwise(ctx, input, target, _legacy_reduction(size_average, reduce, reduction),
                      ("none", "mean", "sum", "batchmean"))


@op("torch.nn.functional.gaussian_nll_loss")
def gaussian_nll_loss(ctx, input, target, var, full=False, eps=1e-06, reduction="mean"):
    x, y = ctx.shape(input), ctx.shape(target)
    if is_tensor(var):
        v = ctx.shape(var)
        same = len(v) == len(x) and all(a == b for a, b in zip(v, x))
        last_one = len(v) == len(x) and len(x) > 0 and all(a == b for a, b in zip(v[:-1], x[:-1])) and v[-1] == 1
        dropped = len(v) == len(x) - 1 and all(a == b for a, b in zip(v, x[:-1]))
        if not (same or last_one or dropped):
            if all(isinstance(d, int) for d in tuple(v) + tuple(x)):
                ctx.fail(SHAPE_MISMATCH, "var is of incorrect size")
            raise Unknowable("gaussian_nll_loss var shape")
    shape = broadcast_shapes(ctx, x, y)
    return _reduce(ctx, shape, reduction, input.dtype)


# ---------------------------------------------------------------------------------------
# Binary cross entropy
# ---------------------------------------------------------------------------------------

def _same_size(ctx, x, y):
    if len(x) != len(y):
        return False
    return S.and_(*[S.eq(a, b) for a, b in zip(x, y)])


@op("torch.nn.functional.binary_cross_entropy")
def binary_cross_entropy(ctx, input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    x, y = ctx.shape(input), ctx.shape(target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    ctx.require(_same_size(ctx, x, y), SHAPE_MISMATCH,
                f"Using a target size ({_tsize(y)}) that is different to the input size ({_tsize(x)}) is deprecated. "
                "Please ensure they have the same size.")
    if reduction not in ("none", "mean", "sum"):
        ctx.fail(ILLEGAL_VALUE, f"{reduction} is not a valid value for reduction")
    if is_tensor(weight) and weight.shape is not None:
        _expand_to(ctx, weight.shape, x, 1)
    return _reduce(ctx, x, reduction, input.dtype)


def _expand_to(ctx, w, x, index):
    """weight.expand(input.shape): w broadcasts into x without changing x."""
    msg = lambda i, d: (f"Attempting to broadcast a dimension of length {_t(d)} at {i}! Mismatching argument at "
                        f"index {index} had {_tsize(w)}; but expected shape should be broadcastable to {_sz(x)}")
    if len(w) > len(x):
        ctx.fail(SHAPE_MISMATCH, msg(-len(w), w[0]))
    for i in range(1, len(w) + 1):
        ctx.require(S.or_(S.eq(w[-i], 1), S.eq(w[-i], x[-i])), SHAPE_MISMATCH, msg(-i, w[-i]))


@op("torch.nn.functional.binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(ctx, input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    x, y = ctx.shape(input), ctx.shape(target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        ctx.fail(ILLEGAL_VALUE, f"{reduction} is not a valid value for reduction")
    ctx.require(_same_size(ctx, x, y), SHAPE_MISMATCH,
                f"Target size ({_tsize(y)}) must be the same as input size ({_tsize(x)})")
    for index, w in ((3, pos_weight), (2, weight)):
        if is_tensor(w) and w.shape is not None:
            _expand_to(ctx, w.shape, x, index)
    return _reduce(ctx, x, reduction, input.dtype)


# ---------------------------------------------------------------------------------------
# Embedding / ranking losses
# ---------------------------------------------------------------------------------------

@op("torch.nn.functional.cosine_embedding_loss")
def cosine_embedding_loss(ctx, input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    a, b, t = ctx.shape(input1), ctx.shape(input2), ctx.shape(target)
    s = broadcast_shapes(ctx, a, b)
    per = tuple(s[:-1]) if len(s) else ()
    shape = broadcast_shapes(ctx, per, t)
    return _reduce(ctx, shape, _legacy_reduction(size_average, reduce, reduction), input1.dtype)


@op("torch.nn.functional.margin_ranking_loss")
def margin_ranking_loss(ctx, input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    a, b, t = ctx.shape(input1), ctx.shape(input2), ctx.shape(target)
    if not (len(a) == len(b) == len(t)):
        ctx.fail(SHAPE_MISMATCH, f"margin_ranking_loss : All input tensors should have same dimension but got "
                                 f"sizes: input1: {_tsize(a)}, input2: {_tsize(b)}, target: {_tsize(t)} ")
    shape = broadcast_shapes(ctx, a, b, t)
    return _reduce(ctx, shape, _legacy_reduction(size_average, reduce, reduction), input1.dtype)


@op("torch.nn.functional.triplet_margin_loss")
def triplet_margin_loss(ctx, anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    a, pz, n = ctx.shape(anchor), ctx.shape(positive), ctx.shape(negative)
    if not (len(a) == len(pz) == len(n)):
        ctx.fail(SHAPE_MISMATCH, "The anchor, positive, and negative tensors are expected to have the same number "
                                 f"of dimensions, but got: anchor {len(a)}D, positive {len(pz)}D, and negative "
                                 f"{len(n)}D inputs")
    d1 = broadcast_shapes(ctx, a, pz)
    d2 = broadcast_shapes(ctx, a, n)
    if swap:
        broadcast_shapes(ctx, pz, n)
    per1 = tuple(d1[:-1]) if len(d1) else ()
    per2 = tuple(d2[:-1]) if len(d2) else ()
    shape = broadcast_shapes(ctx, per1, per2)
    return _reduce(ctx, shape, _legacy_reduction(size_average, reduce, reduction), anchor.dtype)


@op("torch.nn.functional.multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(ctx, input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    x, y = ctx.shape(input), ctx.shape(target)
    s = broadcast_shapes(ctx, x, y)
    shape = tuple(s[:-1]) if len(s) else ()
    return _reduce(ctx, shape, _legacy_reduction(size_average, reduce, reduction), input.dtype)


@op("torch.nn.functional.multi_margin_loss")
def multi_margin_loss(ctx, input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    x, y = ctx.shape(input), ctx.shape(target)
    if len(x) not in (1, 2):
        ctx.fail(SHAPE_MISMATCH, f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                                 f"{_sz(x)}")
    n = x[0] if len(x) == 2 else 1
    ctx.require(S.and_(S.le(len(y), 1), S.eq(S.prod(y), n)), SHAPE_MISMATCH,
                f"inconsistent target size, expected {_t(n)} but got {_sz(y)}")
    return _reduce(ctx, (x[0],) if len(x) == 2 else (), _legacy_reduction(size_average, reduce, reduction),
                   input.dtype)


@op("torch.nn.functional.multilabel_margin_loss")
def multilabel_margin_loss(ctx, input, target, size_average=None, reduce=None, reduction="mean"):
    x, y = ctx.shape(input), ctx.shape(target)
    if len(x) not in (1, 2):
        ctx.fail(SHAPE_MISMATCH, f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                                 f"{_sz(x)}")
    ctx.require(S.and_(*[S.eq(a, b) for a, b in zip(x, y)]) if len(x) == len(y) else False, SHAPE_MISMATCH,
                f"inconsistent target size: {_sz(y)} for input of size: {_sz(x)}")
    return _reduce(ctx, (x[0],) if len(x) == 2 else (), _legacy_reduction(size_average, reduce, reduction),
                   input.dtype)


# ---------------------------------------------------------------------------------------
# nn.*Loss modules: each forward calls the functional spec.
# ---------------------------------------------------------------------------------------

@module("torch.nn.CrossEntropyLoss")
def CrossEntropyLoss(ctx, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                     label_smoothing=0.0):
    return {"weight": weight, "ignore_index": ignore_index, "reduction": _legacy_reduction(size_average, reduce, reduction),
            "label_smoothing": label_smoothing}


@CrossEntropyLoss.forward
def _ce_fwd(ctx, m, input, target):
    return cross_entropy(ctx, input, target, m["weight"], ignore_index=m["ignore_index"], reduction=m["reduction"],
                         label_smoothing=m["label_smoothing"])


@module("torch.nn.NLLLoss")
def NLLLoss(ctx, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return {"weight": weight, "ignore_index": ignore_index, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@NLLLoss.forward
def _nll_fwd(ctx, m, input, target):
    return nll_loss(ctx, input, target, m["weight"], ignore_index=m["ignore_index"], reduction=m["reduction"])


def _simple_loss(name, fn, extra=()):
    """A module whose constructor is (size_average, reduce, reduction, *extra)."""
    import inspect
    params = [("size_average", None), ("reduce", None), ("reduction", "mean")] + list(extra)

    def ctor(ctx, *args, **kwargs):
        sig = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
                                 for p, d in params])
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        m = dict(bound.arguments)
        m["reduction"] = _legacy_reduction(m.pop("size_average"), m.pop("reduce"), m["reduction"])
        return m

    ctor.__signature__ = inspect.Signature(
        [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD)] +
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d) for p, d in params])
    decl = module(f"torch.nn.{name}")(ctor)

    @decl.forward
    def forward(ctx, m, input, target):
        kw = {p: m[p] for p, _ in extra if p in m}
        return fn(ctx, input, target, reduction=m["reduction"], **kw)

    return decl


_simple_loss("MSELoss", mse_loss)
_simple_loss("L1Loss", l1_loss)
_simple_loss("SmoothL1Loss", smooth_l1_loss, [("beta", 1.0)])
_simple_loss("SoftMarginLoss", soft_margin_loss)
_simple_loss("KLDivLoss", kl_div, [("log_target", False)])
_simple_loss("MultiLabelMarginLoss", multilabel_margin_loss)


@module("torch.nn.HuberLoss")
def HuberLoss(ctx, reduction="mean", delta=1.0):
    return {"reduction": reduction, "delta": delta}


@HuberLoss.forward
def _huber_fwd(ctx, m, input, target):
    return huber_loss(ctx, input, target, m["reduction"], m["delta"])


@module("torch.nn.BCELoss")
def BCELoss(ctx, weight=None, size_average=None, reduce=None, reduction="mean"):
    return {"weight": weight, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@BCELoss.forward
def _bce_fwd(ctx, m, input, target):
    return binary_cross_entropy(ctx, input, target, m["weight"], reduction=m["reduction"])


@module("torch.nn.BCEWithLogitsLoss")
def BCEWithLogitsLoss(ctx, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
    return {"weight": weight, "pos_weight": pos_weight, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@BCEWithLogitsLoss.forward
def _bcel_fwd(ctx, m, input, target):
    return binary_cross_entropy_with_logits(ctx, input, target, m["weight"], reduction=m["reduction"],
                                            pos_weight=m["pos_weight"])


@module("torch.nn.HingeEmbeddingLoss")
def HingeEmbeddingLoss(ctx, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    return {"margin": margin, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@HingeEmbeddingLoss.forward
def _hinge_fwd(ctx, m, input, target):
    return hinge_embedding_loss(ctx, input, target, m["margin"], reduction=m["reduction"])


@module("torch.nn.PoissonNLLLoss")
def PoissonNLLLoss(ctx, log_input=True, full=False, size_average=None, eps=1e-08, reduce=None, reduction="mean"):
    return {"log_input": log_input, "full": full, "eps": eps,
            "reduction": _legacy_reduction(size_average, reduce, reduction)}


@PoissonNLLLoss.forward
def _poisson_fwd(ctx, m, log_input, target):
    return poisson_nll_loss(ctx, log_input, target, reduction=m["reduction"])


@module("torch.nn.GaussianNLLLoss")
def GaussianNLLLoss(ctx, *, full=False, eps=1e-06, reduction="mean"):
    return {"full": full, "eps": eps, "reduction": reduction}


@GaussianNLLLoss.forward
def _gauss_fwd(ctx, m, input, target, var):
    return gaussian_nll_loss(ctx, input, target, var, m["full"], m["eps"], m["reduction"])


@module("torch.nn.CosineEmbeddingLoss")
def CosineEmbeddingLoss(ctx, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return {"margin": margin, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@CosineEmbeddingLoss.forward
def _cosemb_fwd(ctx, m, input1, input2, target):
    return cosine_embedding_loss(ctx, input1, input2, target, m["margin"], reduction=m["reduction"])


@module("torch.nn.MarginRankingLoss")
def MarginRankingLoss(ctx, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return {"margin": margin, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@MarginRankingLoss.forward
def _mrank_fwd(ctx, m, input1, input2, target):
    return margin_ranking_loss(ctx, input1, input2, target, m["margin"], reduction=m["reduction"])


@module("torch.nn.TripletMarginLoss")
def TripletMarginLoss(ctx, margin=1.0, p=2.0, eps=1e-06, swap=False, size_average=None, reduce=None,
                      reduction="mean"):
    return {"margin": margin, "p": p, "eps": eps, "swap": swap,
            "reduction": _legacy_reduction(size_average, reduce, reduction)}


@TripletMarginLoss.forward
def _triplet_fwd(ctx, m, anchor, positive, negative):
    return triplet_margin_loss(ctx, anchor, positive, negative, m["margin"], m["p"], m["eps"], m["swap"],
                               reduction=m["reduction"])


@module("torch.nn.MultiLabelSoftMarginLoss")
def MultiLabelSoftMarginLoss(ctx, weight=None, size_average=None, reduce=None, reduction="mean"):
    return {"weight": weight, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@MultiLabelSoftMarginLoss.forward
def _mlsm_fwd(ctx, m, input, target):
    return multilabel_soft_margin_loss(ctx, input, target, m["weight"], reduction=m["reduction"])


@module("torch.nn.MultiMarginLoss")
def MultiMarginLoss(ctx, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    return {"p": p, "margin": margin, "weight": weight, "reduction": _legacy_reduction(size_average, reduce, reduction)}


@MultiMarginLoss.forward
def _mm_fwd(ctx, m, input, target):
    return multi_margin_loss(ctx, input, target, m["p"], m["margin"], m["weight"], reduction=m["reduction"])
