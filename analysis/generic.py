"""Symbolic generic contexts: what a def means when no concrete call reaches it.

Most model files have no example call: a training script imports them. A def that no call
reaches is analysed with symbols instead of Unknown (the gradual-typing view: an unknown is
a fresh variable, and only what fails for every value of it is an error):

- constructor hyperparameters become symbols named after the parameter (`dim`, `heads`),
  also when they have a default, since the real model may be built with another value
  (defaults of 0 or below stay: a symbol is a dim >= 1, and 0 usually switches a part off);
- a tensor input gets fresh dims whose rank is inferred from the body. A first run binds
  each input to a `RankProbe` (a tensor of unknown rank); every op it reaches records the
  ranks it admits (each rank is tried on the op spec with fresh dims: the ranks for which
  the op does not fail for every value), and `B, T, C = x.shape` records the rank and the
  names. The second run binds the input to a tensor of the most precise admitted rank (the
  batched form when the unbatched one is also legal), with the names the code gave.

Symbols made up here are soft: a condition on them gives an error only when it fails for
every value, never a warning (dispatch.run_op).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections import OrderedDict
from dataclasses import dataclass

from . import ir
from .frames import reachable
from . import shapes as S
from .ops.spec import Dtype, OpContext, LegacyEmpty, ShapeError, SomeTensors, TensorValue, Unknowable, run_spec
from .shapes import UNKNOWN

MAX_RANK = 6
# Names for the dims of an input whose body does not name them, by rank.
_CONVENTIONAL = {1: ("N",), 2: ("N", "C"), 3: ("N", "C", "L"), 4: ("N", "C", "H", "W"),
                 5: ("N", "C", "D", "H", "W")}
# Arithmetic and comparisons that broadcast their operands elementwise: the Tensor
# operators, their functions (torch.lt) and in-place methods (x.add_).
_ELEMENTWISE = {"add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
                "remainder", "fmod", "pow", "maximum", "minimum", "lt", "le", "gt", "ge", "eq", "ne",
                "less", "greater", "less_equal", "greater_equal", "not_equal", "rsub"}


def is_elementwise(name: str) -> bool:
    if name.startswith("Tensor.__"):
        return True
    return name.startswith(("torch.", "Tensor.")) and name.rsplit(".", 1)[-1].strip("_") in _ELEMENTWISE
# Arithmetic where a tensor made for broadcasting over the input tells the input's rank
# (broadcast_partner_rank).
ARITHMETIC = frozenset({"add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "div"})


def broadcast_partner_rank(name: str, args, kwargs, probe) -> int | None:
    """The rank of a tensor the probe is combined with by arithmetic when that tensor is
    shaped for broadcasting over a batch: rank 2 or more, a literal 1 first (`self.g =
    nn.Parameter(torch.ones(1, dim, 1, 1))`, `pos_emb` of shape (1, n, dim)). Model code
    shapes such a tensor like the input it is applied to, so with nothing else pinning the
    input's rank, that is its rank (decide_input). None otherwise."""
    short = name.rsplit(".", 1)[-1].strip("_")
    if short not in ARITHMETIC or not name.startswith(("Tensor.", "torch.")):
        return None
    for other in list(args) + list(kwargs.values()):
        if other is probe or is_probe(other) or not isinstance(other, TensorValue):
            continue
        shape = other.shape
        if shape is not None and len(shape) >= 2 and type(shape[0]) is int and shape[0] == 1:
            return len(shape)
    return None


# Layers taking a batch of feature vectors (N, C) or of sequences (N, C, L): with nothing
# else pinning the rank, model code means the first (a conv1d or a transpose before one
# pins the second).
FEATURE_INPUT_OPS = {"torch.nn.BatchNorm1d", "torch.nn.LazyBatchNorm1d", "torch.nn.SyncBatchNorm"}
# Ops whose input holds indices: an input first used by one is an int64 tensor.
INDEX_INPUT_OPS = {"torch.nn.Embedding", "torch.nn.functional.embedding", "torch.nn.EmbeddingBag",
                   "torch.nn.functional.embedding_bag", "torch.nn.functional.one_hot"}
# ... and of one no conv-like op uses (token ids into an Embedding, a sequence of features).
_SEQUENCE = {2: ("B", "T"), 3: ("B", "T", "C")}


_AXIS_PARAMETERS = frozenset({"dim", "axis"})


def axis_from_end(name: str, default) -> bool:
    """`dim=-1`: a parameter naming an axis counted from the end."""
    return name in _AXIS_PARAMETERS and type(default) is int and default < 0


def generic_hyperparameter(name: str, default, defaults: dict | None = None, rounded: bool = False):
    """The value of a constructor parameter in a generic instance. `defaults` (the
    context's record, see context_notes) learns the default a symbol stands for. `rounded`:
    the body rounds the parameter into a size (`int(256 * width)`, name_uses.rounded)."""
    if rounded and type(default) is float and math.isfinite(default) and default > 0:
        # A width or depth multiplier: the real model may be built with another one, so the
        # sizes it scales are symbols (`in_channels_2*width`), never the default's numbers.
        from .dispatch import float_symbol
        return float_symbol(name)
    if default is UNKNOWN:
        return S.sym(name)
    if axis_from_end(name, default):
        # An axis counted from the end (`def sparsemax(input, dim=-1)`): the callers pass
        # other axes, so what it picks is not known (a size is never negative).
        from .values import SOME_INT
        return SOME_INT
    if default is None:
        return DefaultNone(name)
    if type(default) is int and default == 0:
        return DefaultZero(name)
    if isinstance(default, bool):
        return DefaultBool(default, name)
    if isinstance(default, int) and not isinstance(default, S.Expr) and default >= 1:
        if defaults is not None:
            defaults[name] = default  # the hover's "with the defaults" variant
        return S.sym(name)
    if type(default) is str and default:
        return DefaultStr(default, name)
    if empty_sequence(default):
        # `size=tuple()`, `batch_shape=()`: the callers pass sizes of their own, of any
        # length; the empty default is one choice, not the rank the body works with.
        from .values import SOME_INT, alike
        return alike(SOME_INT, default.kind)
    if _long_int_table(default):
        # `freqs_per_bands=(2, 2, ..., 48)` (62 items): a table the real model may replace by
        # one of another length, so its length is not known either (a short tuple's length,
        # the stages of `dims=(64, 128, 256)`, stays)
        from .values import SOME_INT, alike
        return alike(SOME_INT, default.kind)
    if _int_tuple(default):
        # `stride=(1, 1)`, `dims=(32, 64, 160, 256)`: each item as an int default of its
        # own (`stride_0`, `stride_1`); the number of items stays (it often is the number of
        # stages the model's code is written for)
        from .values import ListVal
        return ListVal([generic_hyperparameter(f"{name}_{i}", d, defaults) for i, d in enumerate(default.items)],
                       default.kind)
    return default


def untyped_parameter(engine, v) -> bool:
    """Is `v` the symbol made up for a constructor parameter that has no default (`def
    __init__(self, n_modes)` of a class built by no call), as a parameter of that name
    without a default or an annotation receives it in the running def (the constructor, a
    base class's, a setter it hands the value to)? Nothing says its type: the caller may
    pass an int, a tuple or a tensor (`n_modes=(16, 16)`, `mask=[1, 0, 1]`). A test of its
    type is not decided (pybuiltins._isinstance) and tensor data made of it is Unknown
    (dispatch.run_op), where the symbol, a number, would decide both."""
    name = S.symbol_name(v)
    if name is None or not engine.stack:
        return False
    unit = engine.stack[-1].unit
    return unit.kind == "function" and \
        any(p.name == name and p.default is None and p.annotation is None and p.kind in ("pos", "kwonly")
            for p in unit.params)


# An object of settings handed to a constructor nobody builds (`Block(config)`, `params`,
# `args`): it stands for a symbol too, and its attributes are symbols named after the path
# (`config.n_embd`), one per name, so `nn.Linear(config.n_embd, 3 * config.n_embd)` and the
# `split(config.n_embd)` after it agree. A test on one (`if config.bias:`) runs both ways.
_INT_ATTRIBUTES = frozenset({"real", "imag", "numerator", "denominator", "bit_length", "bit_count",
                             "conjugate", "to_bytes", "as_integer_ratio", "is_integer", "from_bytes"})


def config_attribute(obj, name: str):
    """`config.n_embd` of a settings symbol: the symbol `config.n_embd`; None otherwise."""
    base = S.symbol_name(obj)
    if base is None or name.startswith("__") or name in _INT_ATTRIBUTES:
        return None
    return S.sym(f"{base}.{name}")


def is_config_attribute(v) -> bool:
    name = S.symbol_name(v)
    return name is not None and "." in name


# A layer class handed to a constructor that nobody builds (`norm_layer=None`, `act_layer`,
# `activation`): its name says it is a normalization or an activation, and those keep the
# shape of what they are applied to. Building one gives such a layer; applying it (or an
# activation function `act_fn(x)`) gives the input's shape.
_SAME_SHAPE_WORDS = frozenset({"norm", "bn", "act", "activation", "nonlinearity", "normalization",
                               "nonlin", "normlayer", "actlayer"})


def same_shape_layer_name(v) -> str | None:
    """The parameter name of an unknown layer class or function that keeps shapes, if `v`
    is one: a None default (DefaultNone) or a symbol standing for a parameter without a
    default, named like a normalization or activation."""
    name = v.name if isinstance(v, DefaultNone) else S.symbol_name(v)
    if name is None:
        return None
    words = set(name.lower().split("_"))
    return name if words & _SAME_SHAPE_WORDS and not words & {"args", "kwargs", "cfg", "type"} else None


def empty_sequence(v) -> bool:
    from .values import ListVal
    return type(v) is ListVal and v.kind in ("tuple", "list") and not v.items and not getattr(v, "unknown", False)


_SHORT_TUPLE = 8  # items of a default tuple of sizes whose length is kept (stages, not a table)


def _ints(v) -> bool:
    """A known tuple or list of plain ints (a list too: `in_channels=[256, 512, 1024]` scaled
    by a width multiplier)."""
    from .values import ListVal
    return isinstance(v, ListVal) and v.kind in ("tuple", "list") and not getattr(v, "unknown", False) and \
        all(type(d) is int for d in v.items)


def _long_int_table(v) -> bool:
    return _ints(v) and len(v.items) > _SHORT_TUPLE


def _int_tuple(v) -> bool:
    return _ints(v) and 0 < len(v.items) <= _SHORT_TUPLE


# A keyword in a call's arguments: the call spreads the `**kwargs` of a def nobody calls
# (`_resnet(BasicBlock, [2, 2, 2, 2], **kwargs)`): every parameter the call does not give
# may have been passed, so the callee treats their defaults as a generic instance does.
GENERIC_REST = "\x00generic-rest"


class DefaultBool:
    """A bool flag of a class nobody builds (`deep_stem=False`): an `if` on it runs both
    ways, since the real model may be built with the other value; a spec it is passed to
    (`bias=bias`) sees the default, which changes no shape there."""

    __slots__ = ("default", "name")

    def __init__(self, default: bool, name: str | None = None):
        self.default = default
        self.name = name  # the constructor parameter it stands for (infer.flag_worlds)

    def structural_key(self, key):
        return ("default-bool", self.default)


class DefaultStr(str):
    """A str option of a class nobody builds (`mode="xxs"`, `norm="batch"`): a test of it
    against another string (`if mode == "xs":`, `norm in ("ln", "layer")`) runs both ways,
    since the real model may be built with another option (MobileViT's widths per mode
    are no fact about the other modes); anywhere else (a dict key, a spec's `mode=`, a
    string method) it is the default string, as before."""

    __slots__ = ("name",)

    def __new__(cls, default: str, name: str | None = None):
        out = super().__new__(cls, default)
        out.name = name
        return out


class DefaultNone:
    """A `None` default of a class nobody builds (`num_classes=None`, then `if num_classes
    is None: num_classes = 1000`): a test on it runs both ways, since the real model may be
    built with a value; where the two ways meet, a number joins to the parameter's symbol
    (the number is its default), anything else to what the None way made of it. A spec it
    is passed to sees None."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def structural_key(self, key):
        return ("default-none", self.name)

    def join(self, other, defaults: dict | None = None):
        """The value after `if p is None: p = other` (or `p or other`)."""
        if other is None or other is self:
            return self
        if isinstance(other, DefaultNone):
            return UNKNOWN
        if isinstance(other, bool):
            return UNKNOWN
        if isinstance(other, (int, S.Expr)):  # a number or a dim expression
            if defaults is not None and not isinstance(other, S.Expr):
                defaults[self.name] = other
            return S.sym(self.name)
        return other


class DefaultZero:
    """A 0 default of a class nobody builds (`n_local_attn_heads=0`, `num_mem_kv=0`): 0
    often switches a part off, and the real model may switch it on. A test on it runs both
    ways, a spec it is passed to (`padding=padding`) sees 0, and as a size (a slice bound,
    arithmetic) it is a number not known."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def structural_key(self, key):
        return ("default-zero", self.name)


@dataclass(frozen=True)
class RankProbe(TensorValue):
    """An input tensor of unknown rank whose uses are being recorded (first run)."""

    probe: tuple = ()  # (qualified name of the def, parameter name)
    # A tensor computed from the input by ops whose output rank follows the input's (Linear
    # and chunk keep it, Embedding adds one, sum(dim) drops one): its uses still tell the
    # input's rank, shifted by `offset` (this value's rank minus the input's), not its dims.
    derived: bool = False
    offset: int = 0
    # The result of an elementwise op between the probe and another tensor (`offsets * n`):
    # the probe's shape if the input is a tensor, the other's if it is a number, so its
    # uses are weak evidence that the input is a tensor at all.
    weak: bool = False


def is_probe(v) -> bool:
    return isinstance(v, RankProbe)


# -- recording uses ---------------------------------------------------------------------------
def record(frame, probe: RankProbe, kind: str, data) -> None:
    """Note a use of the probe in the entry of the frame that made it."""
    if probe.weak:
        # (An Embedding of `x + offsets` still says the input holds indices, if it is a
        # tensor at all: its strong uses decide that.)
        if kind in ("spatial", "features"):
            return
        if kind == "unpack":
            kind, data = "weak-ranks", (frozenset({len(data)}), {})
        elif kind == "ranks":
            kind = "weak-ranks"
    if probe.derived:  # only the rank carries over to the input
        if kind in ("integer", "features") and probe.offset:
            return  # about a tensor computed from the input, not the input (of its rank: the same)
        shift = probe.offset
        if kind == "unpack":
            kind, data = "ranks", (frozenset({len(data) - shift} - _NEGATIVE), {})
        elif kind == "partner-rank":
            if data - shift < 0:
                return
            data -= shift
        elif kind in ("ranks", "weak-ranks"):
            admitted = data[0]
            if admitted is not None:
                admitted = frozenset(r - shift for r in admitted if r - shift >= 0)
            # No pinned dims, but which ranks the op admitted before picking the batched
            # form (the hover's "assuming a batch dim", _batch_assumed).
            data = (admitted, {r - shift: {} for r in data[1] if r - shift >= 0})
    if kind in ("ranks", "weak-ranks", "unpack") and probe.probe in getattr(frame.engine, "rank_tests", ()):
        return  # on one way of an `if` that tests this input's rank (rank_tested_probe)
    if kind in ("ranks", "weak-ranks") and getattr(frame, "blind", 0):
        # A use inside an `if` not decided (`if kv_heads == 1: rearrange(k, 'b 1 n d -> b n
        # d')`) may hold only on that way: the dims it pins are no fact about the input,
        # and its ranks count only where such uses agree (decide_input).
        kind, data = "blind-" + kind, (data[0], {r: {} for r in data[1]})
    uses = frame.entry.__dict__.setdefault("probe_uses", {})
    uses.setdefault(probe.probe, []).append((kind, data))


_NEGATIVE = frozenset(range(-MAX_RANK - 2, 0))


def record_lead_count(frame, lead, count: int) -> None:
    """Note that an op ran only when the input `lead` names (its `(def, parameter)`, as a
    probe is named) has `count` dims before the tail it was given (dispatch._note_lead_count)."""
    uses = frame.entry.__dict__.setdefault("probe_uses", {})
    uses.setdefault(lead, []).append(("lead-count", count))


def record_position_use(frame, lead, counts) -> None:
    """Note that an op read the input `lead` names by position (`x.transpose(1, 2)` after
    splitting its last dim, `mask[:, None, None, :]`): it runs with each number of leading
    dims in `counts`, and what it gives depends on that number (dispatch._run_on_tail)."""
    uses = frame.entry.__dict__.setdefault("probe_uses", {})
    uses.setdefault(lead, []).append(("position", frozenset(counts)))


# With no op pinning how many dims come before an input's last ones, but some op reading it
# by position: the convention of sequence models, a batch of sequences (B, T, ...). An
# input whose code reads dims by position is surely not a bare vector of features.
SEQUENCE_LEADS = 2


def lead_count(uses: list):
    """The number of leading dims every op that needed one agreed on, else None."""
    counts = {data for kind, data in uses if kind == "lead-count"}
    return counts.pop() if len(counts) == 1 else None


def conventional_lead_count(uses: list):
    """SEQUENCE_LEADS when no op needed one number of leading dims, but ops read the input
    by position and each runs with SEQUENCE_LEADS of them; else None."""
    if any(kind == "lead-count" for kind, _ in uses):
        return None
    positions = [data for kind, data in uses if kind == "position"]
    if positions and all(SEQUENCE_LEADS in ok for ok in positions):
        return SEQUENCE_LEADS
    return None


def ranked_from_tail(param: str, tail: tuple, count: int, invented: set | None = None,
                     made_up=frozenset()):
    """The input `Tensor[..., tail]` once an op showed it has `count` leading dims: fresh
    dims named by the conventions of its rank (`B, T` before a feature dim), after the
    parameter (`key_B`), since an annotated input or a hyperparameter may hold the plain
    names. A last dim no layer gave (one of `made_up`, `C` of a mask) is named so too."""
    rank = count + len(tail)
    base = {**_CONVENTIONAL, **_SEQUENCE}.get(rank) or tuple(f"d{i}" for i in range(rank))
    names = tuple(f"{param}_{n}" for n in base[:count])
    tail = tuple(S.sym(f"{param}_{base[count + i]}") if S.symbol_name(d) in made_up else d
                 for i, d in enumerate(tail))
    if invented is not None:
        invented.update(names)
        invented.update(S.symbol_name(d) for d in tail if (S.symbol_name(d) or "").startswith(param + "_"))
    return TensorValue(tuple(S.sym(n) for n in names) + tuple(tail))


def broadcast_renaming(shown, conditions, renamable: set | None = None) -> dict:
    """Dims of different inputs that the body broadcasts or joins together (`x + y`, an
    einsum's shared letter, a cat): `y_N == N or 1 == N or 1 == y_N`, `x2_N == N`. A contract that names them apart
    reads back as two sizes the user declared independent, so every such op would warn;
    a contract (ide) and the dims made up for an input (infer._rank_open_inputs) name them
    alike: the later input's symbol, or the one in `renamable`, becomes the other. Returns
    {symbol: dim}, found again after each substitution (`max(T, batch)` becomes `batch`).
    `shown`: [(parameter, value)] in the parameters' order."""
    owner: dict = {}
    for i, (_, v) in enumerate(shown):
        for d in (v.shape or ()) if isinstance(v, TensorValue) else ():
            for name in S.free_symbols(d):
                owner.setdefault(name, i)
    mapping: dict = {}
    for _ in range(len(owner)):
        found = False
        for c in conditions:
            c = S.substitute_cond(c, mapping) if mapping else c
            if isinstance(c, S.Cond) and c.op == "or" and c.args and isinstance(c.args[0], S.Cond):
                c = c.args[0]  # `a == b or 1 == a or 1 == b`: a broadcast
            if not isinstance(c, S.Cond) or c.op != "eq":
                continue
            a, b = c.args
            diff = S.sub(a, b)
            names = S.free_symbols(diff)
            if len(names) == 2 and names <= owner.keys():
                first, later = sorted(names, key=lambda n: (renamable is not None and n in renamable,
                                                            _named_after_input(n, shown), owner[n], n))
                if owner[first] != owner[later] and (renamable is None or later in renamable) and \
                        S.substitute(diff, {later: S.sym(first)}) == 0:
                    mapping[later] = S.sym(first)  # a renaming: `H - 2 == y_H - 2`
                    found = True
                    continue
            solved = _solved_for(diff, renamable) if renamable is not None else None
            if solved is not None:
                mapping[solved[0]] = solved[1]  # `x2_C + in_ch//2 == in_ch`: x2_C is in_ch - in_ch//2
                found = True
        if not found:
            break
    return mapping


def _named_after_input(name: str, shown) -> bool:
    """A dim made up for an input (`skip_C`): the name of a size the code has (`c`) reads
    better where the body makes them equal."""
    return any(name.startswith(f"{param}_") for param, _ in shown)


def _solved_for(diff, renamable: set):
    """(symbol, value) for `diff == 0` solved for a symbol of `renamable` that occurs once,
    alone and with a coefficient of 1 or -1 (`x2_C + in_ch//2 - in_ch`), else None."""
    if not isinstance(diff, S.Expr):
        return None
    for name in sorted(S.free_symbols(diff) & renamable):
        term = (S.Atom("sym", (name,)),)
        coeff = diff.terms.get(term)
        rest = S.sub(diff, S.mul(coeff, S.sym(name))) if coeff in (1, -1) else None
        if rest is not None and name not in S.free_symbols(rest):
            return name, S.mul(rest, -coeff)
    return None


def rank_assertion(engine, frame, test, env) -> None:
    """`assert x.dim() == 3`, `torch._assert(x.ndim in (3, 4), ...)`, `assert len(x.shape)
    == 4`: in a probing run, the ranks an input may have are the ones the assert admits."""
    if not engine.probing or not isinstance(test, ir.Compare) or len(test.ops) != 1:
        return
    op, right = test.ops[0], test.comparators[0]
    if op == "==" and isinstance(right, ir.Const) and type(right.value) is int:
        ranks = frozenset({right.value})
    elif op == "in" and isinstance(right, (ir.TupleE, ir.ListE, ir.SetE)) and \
            all(isinstance(e, ir.Const) and type(e.value) is int for e in right.elts):
        ranks = frozenset(e.value for e in right.elts)
    else:
        return
    subject = _rank_subject(test.left)
    if subject is None:
        return
    probe = engine.eval(frame, subject, env, record=False)
    if is_probe(probe):
        record(frame, probe, "ranks", (ranks - _NEGATIVE, {}))


_NEGATED = {"!=": "==", "not in": "in"}


def rank_guard(engine, frame, s, env) -> None:
    """`if x.dim() != 3: raise ValueError(...)` (CRF's `_validate`): the code goes on only
    for the ranks the negated test admits, so in a probing run they are the input's, as
    with `assert x.dim() == 3` (rank_assertion)."""
    if s.orelse or not s.body or type(s.body[-1]) is not ir.Simple or s.body[-1].kind != "raise" or \
            not isinstance(s.test, ir.Compare) or len(s.test.ops) != 1 or s.test.ops[0] not in _NEGATED:
        return
    rank_assertion(engine, frame, ir.Compare(s.test.nid, s.test.left, (_NEGATED[s.test.ops[0]],),
                                             s.test.comparators), env)


def rank_tested_probe(engine, frame, test, env):
    """The probe whose rank an `if` tests (`if x.ndim == 3: x = rearrange(x, 'b n d -> b 1 n
    d')`), in a probing run; else None. Inside either way, what an op needs of its rank holds
    on that way only: it is no fact about the input (record skips it)."""
    if not engine.probing or not isinstance(test, ir.Compare) or len(test.ops) != 1:
        return None
    subject = _rank_subject(test.left)
    if subject is None:
        return None
    probe = engine.eval(frame, subject, env, record=False)
    return probe.probe if is_probe(probe) else None


def _rank_subject(node):
    """The tensor expression whose rank `node` reads: x in x.dim(), x.ndim, len(x.shape)."""
    if isinstance(node, ir.Attr) and node.name == "ndim":
        return node.obj
    if isinstance(node, ir.Call) and not node.args and isinstance(node.func, ir.Attr) and \
            node.func.name in ("dim", "ndimension"):
        return node.func.obj
    if isinstance(node, ir.Call) and isinstance(node.func, ir.Name) and node.func.id == "len" and \
            len(node.args) == 1 and isinstance(node.args[0].value, ir.Attr) and node.args[0].value.name == "shape":
        return node.args[0].value.obj
    return None


RAISED = "raised"  # admitted_ranks' `ignored` when the op cannot run with a tensor there at all


def admitted_ranks(spec, args, kwargs, probe: RankProbe, forward_attrs=None, join_probes=False):
    """(admitted ranks or None, {rank: {dim index: value the op requires}}, preserving, kept)
    for the op on fresh dims of each rank: a rank is admitted unless the op fails for every
    value of the dims (None: it fails for none, or cannot run with what else it was given);
    `preserving` says the output has the input's shape at every admitted rank (LayerNorm,
    GELU, Dropout: the output is the same probe, so later uses still tell about the input),
    `kept` how the output's rank follows the input's (_rank_kind)."""
    admitted, pins = set(), {}
    informative = False
    static_only = True  # every failure so far was the op's own text, not the input's rank
    same_shape, kinds = {}, {}  # per admitted rank
    outputs = set()  # what the op gave at each rank: one and the same means it ignores the probe
    for rank in range(0, MAX_RANK + 1):
        names = [f"_rank{rank}_{i}" for i in range(rank)]
        trial = TensorValue(tuple(S.sym(n) for n in names))
        joined = rank if join_probes and spec.name in JOINING_OPS else None
        t_args = [_with_trial(a, probe, trial, joined) for a in args]
        t_kwargs = {k: _with_trial(v, probe, trial, joined) for k, v in kwargs.items()}
        required: list = []
        ctx = OpContext(op_name=spec.name, checker=lambda c: _undecided(c, required))
        try:
            if forward_attrs is not None:
                spec.forward.check_arguments(t_args, t_kwargs)
                out = spec.forward.fn(ctx, forward_attrs, *t_args, **t_kwargs)
            else:
                out = run_spec(spec, ctx, t_args, t_kwargs)
            if isinstance(out, SomeTensors):  # pieces whose count depends on the dims
                raise Unknowable("a count of pieces")
        except (ShapeError, LegacyEmpty) as e:
            informative = True
            static_only = static_only and getattr(e, "static", False)
            continue
        except Unknowable:
            # The op runs at this rank but a branch in it depends on the dims (`chunk(3)`
            # of a dim that may be below 3): admitted; the output's rank is read from a run
            # where the trial dims are large (what model code has).
            admitted.add(rank)
            pins[rank], same_shape[rank] = {}, False
            kinds[rank] = _rank_kind(_run_with_large_dims(spec, t_args, t_kwargs, forward_attrs, names), rank)
            continue
        except Exception:  # noqa: BLE001 - a spec that cannot run with these values: no information
            return None, {}, False, None, RAISED
        admitted.add(rank)
        pins[rank] = _pinned(required, names)
        same_shape[rank] = isinstance(out, TensorValue) and out.shape == trial.shape
        kinds[rank] = _rank_kind(out, rank)
        outputs.add(_output_key(out))
    if informative and not admitted and static_only:
        # An einops pattern naming an axis its input lacks fails at every rank: no sign of
        # the input's rank (the run reports the pattern where it runs).
        return None, {}, False, None, RAISED
    if informative and len(admitted) == 2 and max(admitted) - min(admitted) == 1 and _has_unbatched_form(spec.name):
        admitted = {max(admitted)}  # the batched form (N, C, ...) of a conv, pool or pad
    low = _uniform_from(admitted, kinds)
    if low is not None and low > min(admitted):
        # `pos_emb + x` with a rank-2 pos_emb: x's rank carries over when x has rank >= 2,
        # the form model code means; the probe then also records that x has such a rank.
        admitted = {r for r in admitted if r >= low}
        informative = True
    kept = kinds[min(admitted)] if low is not None else None
    preserving = bool(admitted) and all(same_shape[r] for r in admitted)
    # `torch.arange(n, device=device)`: the op gives the same at every rank, so the value
    # was passed along, not used as a tensor (the parameter is no tensor input).
    ignored = not informative and len(outputs) == 1 and None not in outputs and len(admitted) == MAX_RANK + 1
    return frozenset(admitted) if informative else None, pins, preserving, kept, ignored


def _output_key(out):
    """A comparable form of an op's output (None when it has none)."""
    try:
        return repr(out) if isinstance(out, (TensorValue, tuple, list, int, float, str, bool)) else None
    except RecursionError:
        return None


# A trial dim's value where an op branches on it: large, and divisible by 2..16.
# -- admitted ranks, cached ---------------------------------------------------------------------
# Every probing run tries each op on trial inputs of every rank: the same op with the same
# hyperparameters (a LeNet's Conv2d(1, 6, 5) in every copy of it, the same layer after an
# edit elsewhere) gives the same answer, so answers are kept per (spec, the other arguments,
# the layer's attributes), when all of those are plain values. Answers are read-only.
_RANKS_CACHE: "OrderedDict[tuple, tuple]" = OrderedDict()
_RANKS_CACHE_SIZE = 4096
_uncached_admitted_ranks = admitted_ranks


def admitted_ranks(spec, args, kwargs, probe: RankProbe, forward_attrs=None, join_probes=False):  # noqa: F811
    try:
        key = (id(spec), spec.name, join_probes and spec.name in JOINING_OPS,
               tuple(_trial_key(a, probe) for a in args),  # specs live as long as the process
               tuple((k, _trial_key(v, probe)) for k, v in kwargs.items()),
               None if forward_attrs is None else
               tuple((k, _trial_key(v, probe)) for k, v in forward_attrs.items()))
        hash(key)
    except (_NoKey, TypeError, RecursionError):
        return _uncached_admitted_ranks(spec, args, kwargs, probe, forward_attrs, join_probes)
    hit = _RANKS_CACHE.get(key)
    if hit is None:
        hit = _RANKS_CACHE[key] = _uncached_admitted_ranks(spec, args, kwargs, probe, forward_attrs, join_probes)
        if len(_RANKS_CACHE) > _RANKS_CACHE_SIZE:
            _RANKS_CACHE.popitem(last=False)
    else:
        _RANKS_CACHE.move_to_end(key)
    return hit


class _NoKey(Exception):
    pass


@functools.lru_cache(maxsize=None)
def _field_names(cls) -> tuple:
    return tuple(f.name for f in dataclasses.fields(cls))


def same_rank_probe(v, probe) -> bool:
    """Is `v` the probe, or a value computed from the same input with the same rank offset
    (`x` and `x.mean(dim=1, keepdim=True)`): a trial of one rank stands for both."""
    return v is probe or (isinstance(v, RankProbe) and v.probe == probe.probe and v.offset == probe.offset
                          and not v.weak and not probe.weak)


# Ops joining tensors of one rank: another input of unknown rank joined to the probe
# (`torch.cat([q, k, v], -1)`, all of them inputs) is tried at the probe's rank, when
# the inputs left open are probed again (infer.probe_inputs: `join_probes`). Not on the
# first probing, where an input's rank should come from its own uses, and the input
# with the strongest ones takes the plain dim names.
JOINING_OPS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack"})


def _with_trial(v, probe, trial, joined_rank=None):
    """`v` with the probe (and values of its rank from the same input, also in a tuple or
    list: `torch.cat((x.mean(-1), x.mean(-2)), dim=-1)`) replaced by the trial; with
    `joined_rank`, the other probes in that list by fresh dims of that rank."""
    if same_rank_probe(v, probe):
        return trial
    if type(v) in (tuple, list) and any(same_rank_probe(x, probe) for x in v):
        return type(v)(trial if same_rank_probe(x, probe) else
                       _joined_trial(x, joined_rank, i) if joined_rank is not None and is_probe(x) else x
                       for i, x in enumerate(v))
    return v


def _joined_trial(other, rank: int, position: int):
    """Another input of unknown rank in a joined list, at the probe's rank: dims of its own."""
    return TensorValue(tuple(S.sym(f"_joined{position}_{i}") for i in range(rank)), other.dtype)


def _trial_key(v, probe):
    """What an op spec can read of a value, as a hashable key (_NoKey: not a plain value)."""
    if same_rank_probe(v, probe):
        return ("<probe>",)
    if isinstance(v, RankProbe):
        return ("tensor", None, v.dtype)  # another probe: a tensor of unknown rank to the spec
    if isinstance(v, TensorValue):
        # (every field a spec may read: an open-rank tensor's known last dims, the options
        # of a tensor of a few ranks, ...)
        return ("tensor", type(v)) + tuple(getattr(v, name) for name in _field_names(type(v)))
    if v is None or v is UNKNOWN or isinstance(v, (bool, int, float, str, S.Expr)):
        return (type(v), v)
    if type(v) in (tuple, list):
        return (type(v).__name__,) + tuple(_trial_key(x, probe) for x in v)
    raise _NoKey


_LARGE_DIM = 720720


def _run_with_large_dims(spec, t_args, t_kwargs, forward_attrs, names):
    """The op's output on the trial dims when each branch on them alone is decided as if
    they were large (None when it still cannot run)."""
    large = {n: _LARGE_DIM for n in names}

    def checker(cond):
        from .witness import holds
        truth = holds(cond, large) if isinstance(cond, S.Cond) and cond.symbols() <= large.keys() else None
        if truth is None:
            return _undecided(cond, [])
        return ("valid" if truth else "unsat"), "", ()

    ctx = OpContext(op_name=spec.name, checker=checker)
    try:
        if forward_attrs is not None:
            return spec.forward.fn(ctx, forward_attrs, *t_args, **t_kwargs)
        return run_spec(spec, ctx, t_args, t_kwargs)
    except Exception:  # noqa: BLE001 - no output known: the derived value stays unknown
        return None


# The lowest rank from which a broadcasting op may be read as keeping the probe's rank.
_BROADCAST_FLOOR = 2


def _uniform_from(admitted, kinds):
    """The lowest admitted rank from which the output's rank follows the input's the same
    way up to the highest, when that rank is at most _BROADCAST_FLOOR (else None)."""
    if not admitted:
        return None
    ranks = sorted(admitted)
    top = kinds[ranks[-1]]
    if top is None:
        return None
    low = ranks[-1]
    for r in reversed(ranks):
        if kinds[r] != top:
            break
        low = r
    return low if low == ranks[0] or low <= _BROADCAST_FLOOR else None


def _rank_kind(out, rank):
    """("tensor", c) when the op's output has the input's rank plus c (Linear: 0, Embedding:
    1, sum over a dim: -1), ("tuple", n, c) for n such tensors (chunk, split into a fixed
    count), None otherwise. Across admitted ranks, one kind means the output's rank follows
    the input's."""
    if isinstance(out, TensorValue):
        return ("tensor", len(out.shape) - rank) if out.shape is not None else None
    if isinstance(out, SomeTensors):  # `x.split(heads, dim=1)`: pieces of a count not known
        parts = list(out.prefix) + [out.element]
        if all(isinstance(t, TensorValue) and t.shape is not None for t in parts):
            shifts = {len(t.shape) - rank for t in parts}
            return ("pieces", None, shifts.pop()) if len(shifts) == 1 else None
        return None
    if isinstance(out, (tuple, list)) and out and all(
            isinstance(t, TensorValue) and t.shape is not None for t in out):
        shifts = {len(t.shape) - rank for t in out}
        return ("tuple", len(out), shifts.pop()) if len(shifts) == 1 else None
    return None


def derived_from(probe: RankProbe, kept):
    """The value an op whose output rank follows the probe's gives in a probing run."""
    if kept is None:
        return None
    d = RankProbe(None, probe=probe.probe, derived=True, offset=probe.offset + kept[-1], weak=probe.weak)
    if kept[0] == "tensor":
        return d
    from .values import ListVal, alike
    if kept[0] == "pieces":
        return alike(d, "tuple")  # each piece has the rank the op's uses tell
    return ListVal([d] * kept[1], "tuple")


# Ops taking an input with or without a leading batch dim, (C, L) or (N, C, L): two
# admitted ranks mean the unbatched and the batched form, and model code batches. Other
# ops with two ranks (BatchNorm1d takes (N, C) and (N, C, L)) leave the rank open.
_UNBATCHED_FORM = ("conv", "pool", "pad", "upsample", "interpolate", "instancenorm",
                   "pixelshuffle", "pixelunshuffle", "fold", "unfold", "localresponsenorm")


def _has_unbatched_form(name: str) -> bool:
    short = name.rsplit(".", 1)[-1].lower().replace("_", "")
    return any(k in short for k in _UNBATCHED_FORM) and "batchnorm" not in short


def _undecided(cond, required: list):
    """Trial checker: a condition on fresh dims decides nothing unless it is constant; the
    conditions are kept to find dims the op pins (`C == 3` for a Conv2d(3, ...))."""
    if cond is True:
        return "valid", "", ()
    if cond is False:
        return "unsat", "", ()
    required.append(cond)
    return "soft", "", ()


def _pinned(conds, names) -> dict:
    """Dim index -> value, from required equalities `trial dim == value` whose value has no
    trial dim in it (nor one of another input tried with it: _joined_trial)."""
    index = {n: i for i, n in enumerate(names)}
    out = {}
    for c in conds:
        if not isinstance(c, S.Cond) or c.op != "eq":
            continue
        for a, b in (c.args, c.args[::-1]):
            syms = a.symbols() if isinstance(a, S.Expr) else set()
            if len(syms) == 1 and a == S.sym(next(iter(syms))) and next(iter(syms)) in index:
                if not (isinstance(b, S.Expr) and any(n in index or n.startswith("_joined") for n in b.symbols())) \
                        and b is not UNKNOWN:
                    out[index[next(iter(syms))]] = b
    return out


def gather_uses(entries) -> dict:
    """probe id -> uses, from these entries and everything they called."""
    out: dict = {}
    for e in reachable(entries):
        for pid, uses in e.__dict__.get("probe_uses", {}).items():
            out.setdefault(pid, []).extend(uses)
    return out


def decide_input(param: str, uses: list, first: bool, batch: dict | None = None, lead=None,
                 invented: set | None = None):
    """The tensor a generic run binds an input to, from the uses of its probe: None when the
    body never used it as a tensor (it stays Unknown). `batch` (the context's record, see
    context_notes) learns the name of a batch dim the probe assumed; `lead` names the input
    whose leading dims a `Tensor[..., dim]` has (tails.py); `invented` learns the names of
    the symbols made up here (not those a use pinned)."""
    if not uses:
        return None
    ranks = set(range(0, MAX_RANK + 1))
    names = None
    pin_sets = []
    spatial = False  # a conv, pool or pad used it (the names then say N, C, H, W)
    integer = False  # an Embedding used it: token ids
    features = False  # a BatchNorm1d used it: (N, C) or (N, C, L)
    strong = False  # a use only a tensor has (weak-ranks: a number would do the same)
    assumed = False  # a rank picked among several the uses admit
    blind = []  # ranks admitted on one way of an `if` not decided (record)
    for kind, data in uses:
        if kind.startswith("blind-"):
            blind.append((kind[len("blind-"):], data))
        elif kind in ("ranks", "weak-ranks"):
            admitted, pins = data
            ranks &= admitted if admitted is not None else ranks
            pin_sets.append(pins)
            strong = strong or kind == "ranks"
        elif kind == "unpack":
            strong = True
            ranks &= {len(data)}
            names = names or data
        elif kind == "spatial":
            spatial = True
        elif kind == "integer":
            integer = True
        elif kind == "features":
            features = True
    if blind:
        # Uses on ways of `if`s nothing decides count where they agree with the rest, unless
        # one such use alone would pick the rank: ways that disagree (`if len(axis) == 1:
        # F.interpolate(x, mode="linear")` / `if len(axis) == 2: ... "bicubic"`) say the body
        # takes several ranks, and one way alone is a guess. Several agreeing (`if kv_heads ==
        # 1: rearrange(k, 'b 1 n d -> b n d')` / `else: einsum('b h j d', k)`), or every
        # tensor use on such ways (`if self.kind == 0: self.linear(x)` / `else: ...`), decide.
        informative = [admitted for _, (admitted, _p) in blind if admitted is not None]
        agreed = set(ranks)
        for admitted in informative:
            agreed &= admitted
        if agreed and (not strong or len(informative) >= 2 or len(agreed) > 1):
            ranks = agreed
            strong = strong or any(k == "ranks" and admitted is not None for k, (admitted, _p) in blind)
            pin_sets.extend(pins for _, (_a, pins) in blind)
    if not strong:
        return None  # used only where a number would do: no sign it is a tensor
    if not ranks:
        return None  # the uses disagree: say nothing
    partners = {data for kind, data in uses if kind == "partner-rank"}
    if len(ranks) != 1 and len(partners) == 1 and partners <= ranks:
        ranks = set(partners)  # shaped like the tensor made to broadcast over it
    if len(ranks) != 1 and integer and 2 in ranks:
        ranks = {2}  # token ids into an Embedding, no rank pinned: a batch of sequences (B, T)
    if features and ranks == {2, 3}:
        ranks = {2}  # a BatchNorm1d, nothing else pinning: a batch of feature vectors (N, C)
        spatial = assumed = True  # named N, C; the hover says the batch dim was assumed
    if len(ranks) != 1:
        # Several ranks fit (elementwise, linear): open; a last dim every use that fixes one
        # fixes alike (`nn.Linear(dim, ...)`) is known: Tensor[..., dim] (tails.py).
        tail = _pinned_last(pin_sets, ranks)
        if tail is None and ranks and min(ranks) >= 1:
            # Every admitted rank has a last dim (`'... (d r) -> ... d r'`, `x[..., :k]`):
            # a symbol of its own, like any dim a generic input is given.
            name = "C" if first else f"{param}_C"
            tail = (S.sym(name),)
            if invented is not None:
                invented.add(name)
        return TensorValue(None, tail=tail, lead=lead if tail else None)
    rank = next(iter(ranks))
    base = (_CONVENTIONAL if spatial else {**_CONVENTIONAL, **_SEQUENCE}).get(rank) \
        or tuple(f"d{i}" for i in range(rank))
    conventional = base if first else tuple(f"{param}_{n}" for n in base)
    if names is None or len(names) != rank:
        names = conventional
    else:
        # `B, S, _ = x.shape`: the dim unpacked into `_` takes its conventional name (`C`)
        names = tuple(conventional[i] if _PLACEHOLDER.fullmatch(n) and conventional[i] not in names else n
                      for i, n in enumerate(names))
    dims = [S.sym(n) for n in names]
    # A dim every use pins to the same value is that value (`C == 3` before a
    # Conv2d(3, ...)); uses that disagree leave the symbol, and the op then fails for
    # every value of it (a must-fail error).
    for i in range(rank):
        values = {pins.get(rank, {}).get(i) for pins in pin_sets}
        values.discard(None)
        if len(values) == 1:
            dims[i] = values.pop()
        elif invented is not None:
            invented.add(names[i])
    if batch is not None and rank and isinstance(dims[0], S.Expr) and (assumed or _batch_assumed(uses, rank)):
        batch[param] = names[0]
    return TensorValue(tuple(dims), Dtype("int64") if integer else None)


_PLACEHOLDER = re.compile(r"_\d+")  # the name of a dim unpacked into `_` (statements.py)


def _pinned_last(pin_sets, ranks):
    """(the value of the last dim,) when some use pins it at every admitted rank, the pins
    agree, and no admitted rank is 0; else None. (`x.view(3, 8)` pins the one dim of a
    rank-1 input to 24, but not the last dim of a rank-2 one.)"""
    if not ranks or min(ranks) < 1:
        return None
    values = set()
    for r in ranks:
        at_rank = {pins[r][r - 1] for pins in pin_sets if r - 1 in pins.get(r, {})}
        if not at_rank:
            return None
        values |= at_rank
    if len(values) != 1:
        return None
    value = values.pop()
    return (value,) if isinstance(value, (int, S.Expr)) and not isinstance(value, bool) else None


def _batch_assumed(uses: list, rank: int) -> bool:
    """Did the probe pick the batched rank where every use also admits the input without
    its leading batch dim? A conv-like use that admitted both forms is recorded with the
    batched rank only, but keeps the pins of every rank it admitted (admitted_ranks)."""
    picked = False
    for kind, data in uses:
        if kind in ("spatial", "integer", "features"):
            continue
        if kind != "ranks":  # (weak-ranks too: no note unless every use is a layer's)
            return False  # `B, C, H, W = x.shape`: the code itself fixes the rank
        admitted, pins = data
        if admitted is None or rank - 1 in admitted:
            continue
        if admitted != {rank} or set(pins) != {rank - 1, rank}:
            return False
        picked = True
    return picked


def building_entry(engine):
    """The entry of the generic instance under construction (the innermost), if any."""
    return next((f.entry for f in reversed(engine.stack) if f.entry.key[:2] == ("<new>", True)), None)


def building_parts(engine) -> list:
    """The entries of every instance under construction (not a probing one) while a generic
    instance is, innermost first; [] when none is."""
    out = [f.entry for f in reversed(engine.stack) if f.entry.key[0] == "<new>" and f.entry.key[1] != "probe"]
    return out if any(e.key[1] is True for e in out) else []


def context_notes(engine, kind: str, sub=None) -> dict:
    """What the hover says about a symbolic context: "defaults" (symbol -> the default of
    the parameter it stands for) and "batch" (def -> {input: symbol of the batch dim the
    probe assumed}). Kept on the entry of the running frame, which a memoized entry keeps,
    or, for a def no call reached, on the engine (made anew by every run)."""
    owner = engine.stack[-1].entry if engine.stack else engine
    if kind == "defaults":
        # A default met inside __init__ (`num_classes or 1000`) belongs to the generic
        # instance being built, whose entry outlives an __init__ merged into it.
        owner = building_entry(engine) or owner
    notes = owner.__dict__.setdefault("generic_notes", {}).setdefault(kind, {})
    return notes if sub is None else notes.setdefault(sub, {})
