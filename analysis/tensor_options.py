"""A tensor whose rank differs by way: `TensorOptions`.

Where two ways of the program meet with tensors of different ranks (a positional
embedding that is `Tensor[T, dim]` from an `nn.Embedding` one way and `Tensor[1, T, dim]`
from a sinusoid table the other), the join used to be a tensor of unknown rank, and every
line after it lost its shape. The real program takes one of the ways, so the value is one
of a few tensors. To anything that does not look closer it is still a tensor of unknown
rank (the collapsed view: its own fields); a torch op, a Tensor method, a modelled layer or
an arithmetic operator applied to it runs once per option, silently (a failure one way
need not be a failure of the model), and the results join, so `x + pos_emb(x)` is
`Tensor[B, T, dim]` again whichever embedding the model was built with.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from . import shapes as S
from .ops.spec import TensorValue
from .shapes import UNKNOWN

MAX_OPTIONS = 4  # options kept per value, and calls made per op


@dataclass(frozen=True)
class TensorOptions(TensorValue):
    options: tuple = ()  # TensorValues of known shape, of two ranks or more

    def text(self) -> str:
        """The last dims every option has alike (`Tensor[..., 16, 2, 8]`), else `Tensor[...]`."""
        n = min(len(t.shape) for t in self.options) if self.options else 0
        tail = tuple(ds[0] if all(d == ds[0] for d in ds) else UNKNOWN
                     for ds in zip(*(t.shape[len(t.shape) - n:] for t in self.options)))
        if any(d is not UNKNOWN for d in tail):
            return "Tensor[..., " + ", ".join(S.dim_text(d) for d in tail) + "]"
        return "Tensor[...]"


def join(engine, a: TensorValue, b: TensorValue):
    """The join of two tensors of known but different ranks (or of options), else None."""
    if not (isinstance(a, TensorOptions) or isinstance(b, TensorOptions)):
        if a.shape is None or b.shape is None or len(a.shape) == len(b.shape):
            return None
        if type(a) is not TensorValue or type(b) is not TensorValue:
            return None  # (a rank probe, say: its uses are what matter)
    options: list = []
    for t in _options(a) + _options(b):
        if t.shape is None:
            return None
        if t not in options:
            options.append(t)
    if len(options) > MAX_OPTIONS:  # too many: tensors of one rank join into one
        by_rank: dict = {}
        for t in options:
            r = len(t.shape)
            by_rank[r] = engine.join(by_rank[r], t) if r in by_rank else t
        options = list(by_rank.values())
    if len(options) > MAX_OPTIONS or len({len(t.shape) for t in options}) < 2:
        return None
    dtypes = {t.dtype for t in options}
    return TensorOptions(None, dtypes.pop() if len(dtypes) == 1 else None,
                         options=tuple(sorted(options, key=lambda t: len(t.shape))))


def _options(t: TensorValue) -> tuple:
    return t.options if isinstance(t, TensorOptions) else (t,)


def ways(values: list) -> list | None:
    """Every combination of the options of the TensorOptions among `values` (None when
    there is none, or too many)."""
    choices = [_options(v) if isinstance(v, TensorOptions) else (v,) for v in values]
    if all(len(c) == 1 for c in choices):
        return None
    n = 1
    for c in choices:
        n *= len(c)
    if n > MAX_OPTIONS:
        return None
    return [list(p) for p in product(*choices)]


def has_options(values) -> bool:
    return any(isinstance(v, TensorOptions) for v in values)
