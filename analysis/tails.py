"""Tensors of unknown rank whose last dims are known: `Tensor[..., dim]`.

An input used only by `nn.Linear`, `nn.LayerNorm` and elementwise ops (a transformer block's
feed-forward, an attention projection) admits every rank, so no rank is claimed for it; but
`nn.Linear(dim, hidden)` still says its last dim is `dim` (generic.decide_input gives such an
input a `tail`). An op applied to it is run on trial tensors with one, two and three fresh
leading dims before that tail: when every trial leaves the leading dims where they were and
agrees on the rest, the result is that rest after `...` (`Tensor[..., hidden]`); when they
mix the leading dims into others but agree on the rank and on the dims none of them reached,
at every rank, those dims (`x.view(-1, 8)`: `Tensor[?, 8]`); when every
trial fails for a reason that does not involve the leading dims, the op fails for every rank
(`nn.Linear(hidden + 1, dim)` after it: a must-fail error). Anything else is Unknown.
"""
from __future__ import annotations

import re

from . import shapes as S
from .ops.spec import SomeTensors, TensorValue

TRIAL_LEADS = (1, 2, 3)  # how many leading dims each trial puts before the tail
_LEAD = "_lead"
_LEAD_TEXT = re.compile(r"_lead\d+")
SEVERAL = object()  # more than one tailed tensor among the arguments: not tried


def has_tail(v) -> bool:
    return isinstance(v, TensorValue) and v.shape is None and v.tail is not None


def tailed_arguments(args, kwargs):
    """The tailed tensors among the arguments (at the top or in a tuple/list): [] when none,
    SEVERAL when their leading dims may differ (not from one input's)."""
    found: list = []
    for v in list(args) + list(kwargs.values()) + marked_tensors(args, kwargs):
        for x in (v if isinstance(v, (tuple, list)) else (v,)):
            if has_tail(x) and all(x is not f for f in found):
                found.append(x)
    if len(found) > 1 and (found[0].lead is None or any(f.lead != found[0].lead for f in found)):
        return SEVERAL
    return found


def lead_symbols(n: int) -> tuple:
    return tuple(S.sym(f"{_LEAD}{i}") for i in range(n))


def mentions_lead(v) -> bool:
    if isinstance(v, S.Expr):
        return any(s.startswith(_LEAD) for s in S.free_symbols(v))
    if isinstance(v, S.Cond):
        return any(s.startswith(_LEAD) for s in v.symbols())
    if isinstance(v, (tuple, list)):
        return any(mentions_lead(x) for x in v)
    if isinstance(v, TensorValue):
        return v.shape is not None and mentions_lead(v.shape)
    return False


class TailedShape:
    """`x.shape` (or `x.size()`) of a tensor of unknown rank with known last dims, maybe with
    its last `drop` dims sliced off and `extra` sizes appended: `x.shape[:-1] + (h, d)`.
    Only ops on trials read it (`x.view(*x.shape[:-1], h, -1)`): each trial has a shape, so
    this has one there; everywhere else it is a sequence of unknown length."""

    unknown = True  # (an unknown-length sequence to everything but the trials)

    def __init__(self, tensor, drop: int = 0, extra: tuple = ()):
        self.tensor, self.drop, self.extra = tensor, drop, tuple(extra)

    def on(self, trial) -> tuple:
        dims = tuple(trial.shape)
        return dims[:len(dims) - self.drop] + self.extra

    def item(self, index):
        """`x.shape[-1]` is the last known dim; `x.shape[:-k]` drops k dims (for the trials);
        anything else is unknown."""
        from .values import SOME_INT, SliceVal

        plain = not self.drop and not self.extra
        if isinstance(index, int) and not isinstance(index, (bool, S.Expr)) and plain:
            tail = self.tensor.tail
            return tail[index] if -len(tail) <= index < 0 else SOME_INT
        if isinstance(index, SliceVal) and plain and index.start is None and index.step is None and \
                isinstance(index.stop, int) and not isinstance(index.stop, (bool, S.Expr)) and index.stop < 0:
            return TailedShape(self.tensor, -index.stop)
        return S.UNKNOWN

    def plus(self, items: list):
        """`x.size()[:-1] + (h, d)`, or None when that is not a case this keeps."""
        return TailedShape(self.tensor, self.drop, tuple(items)) if not self.extra and len(items) <= 8 else None

    def structural_key(self, key):
        return ("tailed-shape", key(self.tensor), self.drop, tuple(key(x) for x in self.extra))


class Spread:
    """A TailedShape spread into a call's arguments (`*x.shape[:-1]`)."""

    def __init__(self, shape: TailedShape):
        self.shape = shape

    def structural_key(self, key):
        return ("spread", key(self.shape))


def marked_tensors(args, kwargs) -> list:
    """The tensors whose shapes TailedShape/Spread arguments stand for."""
    out = []
    for v in list(args) + list(kwargs.values()):
        shape = v.shape if isinstance(v, Spread) else v if isinstance(v, TailedShape) else None
        if shape is not None:
            out.append(shape.tensor)
    return out


def spread_arguments(args: list, trials: dict):
    """The trial's argument list: a Spread becomes the trial's sizes in place, a
    TailedShape a tuple of them; None when one stands for a tensor with no trial."""
    out = []
    for a in args:
        if isinstance(a, (Spread, TailedShape)):
            shape = a.shape if isinstance(a, Spread) else a
            trial = trials.get(id(shape.tensor))
            if trial is None:
                return None
            sizes = shape.on(trial)
            if isinstance(a, Spread):
                out.extend(sizes)
            else:
                out.append(sizes)
        else:
            out.append(substitute(a, trials))
    return out


def substitute(v, trials: dict):
    """`v` with each tailed tensor replaced by its trial (at the top or in a tuple/list);
    `trials`: id(tensor) -> trial."""
    if id(v) in trials:
        return trials[id(v)]
    if isinstance(v, (tuple, list)) and any(id(x) in trials for x in v):
        return type(v)(trials.get(id(x), x) for x in v)
    return v


NO_READING = object()


def reading(out, lead):
    """What a trial's output says once its leading dims are set aside, or NO_READING when it moved
    them or mixed them into other dims."""
    if isinstance(out, SomeTensors):
        return NO_READING  # pieces of a count the trials may not agree on
    if isinstance(out, TensorValue):
        if out.shape is None:
            return NO_READING
        n = len(lead)
        if not mentions_lead(out.shape):
            # none of the leading dims made it out (`scores.masked_fill(mask, v)` with a
            # tailed mask, `x.mean()`): the same shape at every trial is the shape
            return ("fixed", tuple(out.shape), out.dtype)
        if tuple(out.shape[:n]) != lead or mentions_lead(out.shape[n:]):
            # The leading dims were moved or mixed into others (`x.view(-1, 8)`): the dims
            # none of them reached, and the rank, when every trial agrees on them.
            return ("mixed", tuple(S.UNKNOWN if mentions_lead(d) else d for d in out.shape), out.dtype)
        return ("tensor", tuple(out.shape[n:]), out.dtype)
    if isinstance(out, (tuple, list)):
        items = [reading(x, lead) for x in out]
        return NO_READING if any(i is NO_READING for i in items) else (type(out).__name__, tuple(items))
    if mentions_lead(out):
        return NO_READING
    return ("value", out)


def same_rank_join(readings):
    """One "fixed" reading for trials whose tensor outputs have one rank but disagree on
    where the leading dims went (`torch.flatten(x, 1)`): each dim every trial gives alike,
    else `?`. `readings`: (number of leading dims, reading) per trial. None when a trial
    gives no single tensor, or the ranks or dtypes differ."""
    shapes, dtypes = [], set()
    for n, r in readings:
        if r is NO_READING or r[0] not in ("tensor", "fixed", "mixed"):
            return None
        # a "tensor" reading kept its n leading dims in front: they differ between trials
        shapes.append(((S.UNKNOWN,) * n if r[0] == "tensor" else ()) + tuple(r[1]))
        dtypes.add(r[2])
    if not shapes or len({len(x) for x in shapes}) != 1 or len(dtypes) != 1:
        return None
    dims = tuple(x[0] if all(d is x[0] or d == x[0] for d in x) else S.UNKNOWN for x in zip(*shapes))
    return ("mixed", dims, dtypes.pop())


def broadcast_tails(args, kwargs):
    """An elementwise op on tensors of unknown rank whose leading dims may differ: the last
    dims as far as every operand has them known, broadcast (`Tensor[..., C]` and
    `Tensor[..., C]` give `Tensor[..., C]`); None when an operand's last dims are not known,
    they do not broadcast, or they disagree in dtype."""
    tensors = [v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorValue)]
    if len(tensors) < 2 or any(isinstance(v, (TailedShape, Spread)) for v in list(args) + list(kwargs.values())):
        return None
    ends = []
    for t in tensors:
        end = tuple(t.shape) if t.shape is not None else t.tail
        if not end:
            return None
        ends.append(end)
    n = min(len(e) for e in ends)
    dims = []
    for i in range(1, n + 1):
        column = {e[-i] for e in ends} - {1}
        if len(column) > 1:
            return None  # (or a symbol against a number: not decided here)
        dims.append(column.pop() if column else 1)
    if len({t.dtype for t in tensors}) != 1:
        return None
    return TensorValue(None, tensors[0].dtype, tail=tuple(reversed(dims)))


def needs_a_rank(kinds) -> bool:
    """Trials (by growing number of leading dims) that fail below some rank and run at every
    rank from there: the op needs that rank, which the input (the code runs) then has."""
    if "ok" not in kinds:
        return False
    first = kinds.index("ok")
    return all(k == "error" for k in kinds[:first]) and all(k == "ok" for k in kinds[first:])


def common_tail(outputs):
    """`Tensor[..., tail]` for trials whose tensor outputs all end with `tail`, dims none of
    the leading ones reached, after the last dim one did (`pos[:, :, None, :]` ends with
    pos's last dim at every rank); None when there is no such dim or an output is not a
    tensor of known shape."""
    tails_ = []
    for item in outputs:
        if item is None:
            continue
        out, _lead = item
        if not isinstance(out, TensorValue) or out.shape is None:
            return None
        shape = tuple(out.shape)
        last = max((i for i, d in enumerate(shape) if mentions_lead(d)), default=-1)
        if last < 0:
            return None  # no leading dim made it out: not this case
        tails_.append(shape[last + 1:])
        dtype = out.dtype
    if not tails_:
        return None
    n = 0
    while all(len(t) > n for t in tails_) and all(t[-1 - n] == tails_[0][-1 - n] for t in tails_):
        n += 1
    if n == 0:
        return None
    return TensorValue(None, dtype, tail=tuple(tails_[0][len(tails_[0]) - n:]))


def mentions_fixed(r) -> bool:
    """Does an agreed reading hold a tensor shape none of the leading dims reached?"""
    if r[0] in ("fixed", "mixed"):
        return True
    return r[0] in ("tuple", "list") and any(mentions_fixed(x) for x in r[1])


def rebuilt(r, lead):
    """The analysis value of an agreed reading; its tensors keep the input's leading dims."""
    kind = r[0]
    if kind in ("fixed", "mixed"):
        return TensorValue(r[1], r[2])
    if kind == "tensor":
        if not r[1]:
            return TensorValue(None, r[2])  # no known last dim: Tensor[...]
        return TensorValue(None, r[2], tail=r[1], lead=lead)
    if kind in ("tuple", "list"):
        items = [rebuilt(x, lead) for x in r[1]]
        return tuple(items) if kind == "tuple" else items
    return r[1]


def message(text: str) -> str:
    """A trial's error message with its made-up leading dims written as `*`."""
    return _LEAD_TEXT.sub("*", text)
