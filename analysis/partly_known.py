"""A tensor known on some ways only: `PartlyKnown`.

Where two ways of the program meet and one gives a tensor while the other gives nothing the
analysis knows (`if exists(self.pos_emb): q = self.pos_emb(q)` with a layer passed in, an op
not modelled), the join used to be Unknown, and every line after it lost its shape. The
real program takes one way. The value is now the tensor of the ways that are known, marked
as such:

- to anything that does not look closer it is a tensor of unknown rank (its own fields);
- a torch op, a Tensor method, a layer, an operator or an index applied to it runs on the
  known tensor silently (a failure there need not be a failure of the model, which may
  take the other way: no diagnostic ever comes from it), and the result is again partly
  known; what is not a tensor (`x.size(-1)`) is Unknown. The op also runs with the value
  Unknown, as before, so what fails whatever the value is (an einsum output letter no
  input has) is still reported;
- the hover shows the known tensor with its concrete sizes hidden (`Tensor[B, ?, dim]`,
  not `Tensor[B, 0, dim]`): a size one way fixes is no fact about the other.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import shapes as S
from .ops.spec import TensorValue
from .shapes import UNKNOWN


@dataclass(frozen=True)
class PartlyKnown(TensorValue):
    known: TensorValue | None = None  # the tensor of the ways that are known (shape known)


def plain(v) -> bool:
    """A tensor of known shape that is nothing more (not a probe, options, partly known)."""
    return type(v) is TensorValue and v.shape is not None


def partly(v):
    """The value a known way's `v` gives where it meets a way not known (also what an op
    applied to the known tensor gives: tensors, and tuples of them, partly known; anything
    else Unknown, a size the other way may change)."""
    if isinstance(v, PartlyKnown):
        return v
    if plain(v):
        return PartlyKnown(None, v.dtype, known=v)
    from .values import ListVal
    if isinstance(v, ListVal) and v.items and not getattr(v, "unknown", False) and all(plain(x) for x in v.items):
        return ListVal([partly(x) for x in v.items], v.kind)  # (`q, k = map(rotary, (q, k))`)
    return UNKNOWN


def _nothing(v) -> bool:
    """Unknown, or a tensor of which nothing is known (not even its rank or last dims)."""
    return v is UNKNOWN or (type(v) is TensorValue and v.shape is None and not v.tail)


def join(engine, a, b):
    """The join of two ways when either is partly known or one is Unknown (or a tensor of
    unknown rank) and the other a plain tensor; None when this rule does not apply."""
    if getattr(engine, "loop_merging", 0):
        # After a loop run an unknown number of times, the value before it is no way of
        # the value after it (`x = encode(x)` in a loop changes its rank): nothing known.
        if _nothing(a) or _nothing(b):
            return UNKNOWN if isinstance(a, PartlyKnown) or isinstance(b, PartlyKnown) else None
    elif _nothing(a) and plain(b) or _nothing(b) and plain(a):
        return partly(b if _nothing(a) else a)
    if not (isinstance(a, PartlyKnown) or isinstance(b, PartlyKnown)):
        return None
    if _nothing(a) or _nothing(b):
        return a if _nothing(b) else b
    ka, kb = (x.known if isinstance(x, PartlyKnown) else x for x in (a, b))
    if not (plain(ka) and plain(kb)):
        return UNKNOWN
    joined = engine.join(ka, kb)
    return partly(joined) if plain(joined) else UNKNOWN


def involved(values) -> bool:
    return any(isinstance(v, PartlyKnown) for v in values)


def known(v):
    return v.known if isinstance(v, PartlyKnown) else v


def collapsed(v):
    """What the value was before partly known values existed: Unknown."""
    return UNKNOWN if isinstance(v, PartlyKnown) else v


def shown(v: PartlyKnown) -> TensorValue:
    """The hover's form: the known tensor with its concrete sizes hidden."""
    t = v.known
    return TensorValue(tuple(d if isinstance(d, S.Expr) else UNKNOWN for d in t.shape), t.dtype)
