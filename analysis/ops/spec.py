"""The operator spec machinery: declare an op once, run it concretely or symbolically.

An op spec is a plain Python function whose parameters mirror PyTorch's signature, with a
leading `ctx`. It receives spec-level values:

- `TensorValue` for tensors (`.shape` is a tuple of dims, or None when the rank is unknown),
- dims (`int`, `Expr`, or `UNKNOWN`) for integers,
- Python `bool`, `float`, `str`, `None`, tuples and lists of those,
- `Dtype` (a `str` subclass such as "float32") for torch dtypes,
- `UNKNOWN` for anything the analysis could not determine.

It states its preconditions with `ctx.require(cond, code, message)` and returns the output
(a `TensorValue`, a tuple of them, a dim, ...). Written with the dim algebra of `shapes`
(`eq`, `le`, `+`, `//`, ...), the same body folds to plain ints when every dim is known and
builds symbolic conditions for the solver otherwise. That is the "declare once" rule.

Module specs (`nn.Conv2d`, ...) are a constructor function that returns the module's
attributes as a dict, plus a `forward` registered on it.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from .. import shapes as S
from ..shapes import UNKNOWN

# Diagnostic codes, following Refty's categories.
SHAPE_MISMATCH = "shape-mismatch"  # incompatible shape
ILLEGAL_SHAPE = "illegal-shape"  # a dim becomes zero or negative
ILLEGAL_VALUE = "illegal-value"  # a hyperparameter outside its domain
IMPROPER_VALUE = "improper-value"  # a hyperparameter that breaks a constraint (dim index...)
DTYPE_MISMATCH = "dtype-mismatch"


class Dtype(str):
    """A torch dtype by its canonical name ("float32", "int64", "bool", ...)."""


FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64"}
INT_DTYPES = {"uint8", "int8", "int16", "int32", "int64"}
DEFAULT_FLOAT = Dtype("float32")


@dataclass(frozen=True)
class TensorValue:
    shape: tuple | None  # None: unknown rank
    dtype: str | None = None
    values: tuple | None = None  # small constant 1-D tensors only (see constant_values.py)
    strides: tuple | None = None  # only where certain (see layout.py); None: unknown
    tail: tuple | None = None  # unknown rank, known last dims: Tensor[..., dim] (analysis/tails.py)
    lead: Any = None  # with a tail: which input's leading dims come before it (tails.py)
    numpy: bool = False  # a NumPy array modelled as a tensor: torch's shape rules, not its errors

    @property
    def rank(self):
        return UNKNOWN if self.shape is None else len(self.shape)

    def text(self) -> str:
        if self.shape is None and self.tail:
            return "Tensor[..., " + ", ".join(S.dim_text(d) for d in self.tail) + "]"
        return S.shape_text(self.shape)

    def size_text(self) -> str:
        return "[...]" if self.shape is None else S.size_text(self.shape)


class ShapeError(Exception):
    """An op fails for every admissible shape: becomes an error diagnostic."""

    def __init__(self, code: str, message: str, repair: dict | None = None, core: tuple = (),
                 static: bool = False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.repair = repair or {}  # hyperparameter name -> value that would make it work
        self.core = core  # origins (opaque to specs) of the facts that force the failure
        # Fails whatever the values are, from the op's own text (an einops pattern naming an
        # axis one side lacks): wrong wherever it runs, on an undecided way too.
        self.static = static


class Unknowable(Exception):
    """The spec cannot say anything: the result is Unknown and no diagnostic is made."""


class LegacyEmpty(Unknowable):
    """A 1-D tensor among others of a higher rank may be the empty tensor `torch.cat`
    skips (PyTorch's legacy rule): Unknown here, but a rank no model code means for an
    input of unknown rank (generic.admitted_ranks does not admit it)."""


# Parameters of torch ops and layers that never change a result's shape: a `**kwargs` of
# unknown content spread into a call that gives every other parameter explicitly changes
# no shape (`Conv2d(in_ch, out_ch, k, stride, padding, **kwargs)` in a block nobody builds).
SHAPE_NEUTRAL_PARAMS = frozenset({
    "device", "dtype", "padding_mode", "bias", "inplace", "eps", "momentum", "affine",
    "track_running_stats", "elementwise_affine", "p", "negative_slope", "approximate",
    "generator", "requires_grad", "memory_format", "layout", "pin_memory", "non_blocking",
    "alpha", "beta", "threshold", "value", "lambd", "min_val", "max_val", "init",
    "num_parameters", "training", "_random_samples",
})


def spread_is_neutral(spec: "OpSpec", args, kwargs) -> bool:
    """Could a `**kwargs` of unknown content spread into this call change its shape? Not
    when every parameter the call leaves out is shape-neutral (and the op takes no
    `**kwargs` of its own)."""
    params = spec.signature.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return False
    try:
        given = spec.signature.bind_partial(*args, **kwargs).arguments
    except TypeError:
        return False
    return all(p.name in given or p.name in SHAPE_NEUTRAL_PARAMS for p in params
               if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY))


class _AnyInt:
    """An int index whose value is not known (`x[:, i]` in a loop over range(t)): it selects
    one position, so the dim goes; the dispatcher passes it for the engine's SOME_INT."""

    def __repr__(self):
        return "<int>"


ANY_INT = _AnyInt()


class Pieces(NamedTuple):
    """What a list of unknown length holds when it is exactly the pieces `chunk`/`split` cut
    a dim into, each once (ops.joining._pieces): the dim's index and size, the symbol that
    stands for one piece's size in the element (shapes.piece_symbol), and the size of every
    piece but the last when known (`chunk(k)` splits by ceil(n/k); None otherwise)."""

    dim: int
    size: Any
    piece: Any
    per: Any = None

    def kept_by(self, shape) -> bool:
        """Does a tensor of this shape still hold one piece's size at the cut dim (an op on
        each piece that kept it: `bn(c)`, not `c.repeat(2, 1)`)?"""
        return shape is not None and self.dim < len(shape) and type(shape[self.dim]) is type(self.piece) \
            and shape[self.dim] == self.piece


@dataclass(frozen=True)
class SomeNumbers:
    """A sequence of numbers of unknown length (`list(categories)` of a sizes parameter, a
    list a loop appended ints to): `torch.tensor` of it is one-dimensional, of unknown size."""

    integers: bool = False  # every item is an int
    length: Any = None  # how many, when a comprehension over `range(n)` made it: n
    inner: tuple = ()  # the sizes of each item, when each is a sequence of its own


@dataclass(frozen=True)
class SomeTensors:
    """A list of tensors of unknown length: the items it surely starts with, then any
    number of tensors that look like `element` (a loop of unknown trip count appended
    them: `features.append(layer(features))`, `outputs.append(h)`). A spec that joins
    them (cat, stack) can tell the rank and the dims they all share, never a count.
    `whole`: a `Pieces` when the list holds exactly the pieces of one dim: cat along that dim
    gives its size back."""

    prefix: tuple
    element: Any
    whole: Any = None


@dataclass
class Warning_:
    code: str
    message: str
    condition: str
    counterexample: str
    core: tuple = ()


@dataclass
class OpSpec:
    name: str
    fn: Callable
    signature: inspect.Signature
    kind: str = "function"  # "function" | "method" | "attr" | "module"
    forward: "OpSpec | None" = None
    fits: set = field(default_factory=set, repr=False)  # argument layouts known to bind

    def check_arguments(self, args, kwargs) -> None:
        """Unknowable unless the arguments bind to the signature. Whether they do depends
        only on how many are positional and which are named, so that is remembered: an
        inspect.Signature.bind per op call was a tenth of a cold analysis."""
        layout = (len(args), tuple(kwargs))
        if layout in self.fits:
            return
        try:
            self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise Unknowable(f"arguments do not match {self.name}: {exc}") from None
        self.fits.add(layout)


REGISTRY: dict[str, OpSpec] = {}


def _register(names, fn, kind):
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[1:]  # drop ctx
    spec = OpSpec(names[0], fn, sig.replace(parameters=params), kind)
    for name in names:
        REGISTRY[name] = spec
    return spec


def op(*names: str):
    """Register a function spec under one or more qualified names.

    `torch.x` / `torch.nn.functional.x` are functions; `Tensor.x` is a method whose first
    parameter receives the tensor itself.
    """

    def deco(fn):
        _register(names, fn, "function")
        return fn

    return deco


def attr(*names: str):
    """Register a tensor attribute (`Tensor.shape`, `Tensor.T`): fn(ctx, self)."""

    def deco(fn):
        _register(names, fn, "attr")
        return fn

    return deco


class _ModuleDecl:
    def __init__(self, spec: OpSpec):
        self.spec = spec

    def forward(self, fn):
        self.spec.forward = OpSpec(self.spec.name + ".forward", fn,
                                   inspect.signature(fn).replace(
                                       parameters=list(inspect.signature(fn).parameters.values())[2:]),
                                   "function")
        return fn


def module(*names: str):
    """Register an nn.Module spec: the constructor returns the module's attributes (dict).

    Register its forward with `@Name.forward` on a function fn(ctx, m, input, ...), where m
    is that dict.
    """

    def deco(fn):
        return _ModuleDecl(_register(names, fn, "module"))

    return deco


def lookup(name: str) -> OpSpec | None:
    return REGISTRY.get(name)


# ---------------------------------------------------------------------------------------
# The context a spec runs in
# ---------------------------------------------------------------------------------------

def _text(message) -> str:
    return message() if callable(message) else message


@dataclass
class OpContext:
    """What a spec can ask of the engine while it runs.

    `checker` decides symbolic conditions: checker(cond) -> ("valid"|"unsat"|"contingent"|
    "unknown", counterexample_text, core). Without one, symbolic conditions are never
    decided (no diagnostics from them), which is what a purely concrete run wants.
    """

    op_name: str = ""
    checker: Callable | None = None
    warnings: list = field(default_factory=list)
    assumed: list = field(default_factory=list)  # conditions assumed true after a warning
    soft_assumed: list = field(default_factory=list)  # ... and on made-up symbols (no warning)
    call_hook: Callable | None = None  # dispatch for ctx.call (set by the engine)

    # -- preconditions ------------------------------------------------------------------
    def require(self, cond, code: str, message, repair: dict | None = None) -> None:
        """`message` is a str, or a function making it: a hot op's message on symbolic dims
        costs more to print than the check (it is made only when something is reported)."""
        if cond is UNKNOWN or cond is True:
            return
        if cond is False:
            raise ShapeError(code, _text(message), repair)
        if self.checker is None:
            return
        verdict, counterexample, core = self.checker(cond)
        message = _text(message) if verdict in ("unsat", "contingent") else message
        if verdict == "unsat":
            raise ShapeError(code, message, repair, core)
        if verdict == "contingent":
            self.warnings.append(Warning_(code, message, str(cond), counterexample, core))
            self.assumed.append(cond)
        elif verdict == "soft":
            # On symbols the analysis made up: no warning, but what the op needs of them
            # holds after it (`H >= kernel_size`), so later lines are exact in them (never
            # the ground of an error: a path the analysis joined may be one no run takes).
            self.soft_assumed.append(cond)

    def fail(self, code: str, message: str, repair: dict | None = None, static: bool = False):
        raise ShapeError(code, message, repair, static=static)

    def decide(self, cond) -> bool:
        """A branch inside a spec: True/False when provable, else Unknowable."""
        if isinstance(cond, bool):
            return cond
        if cond is UNKNOWN or self.checker is None:
            raise Unknowable(f"cannot decide {cond}")
        verdict, _, _ = self.checker(cond)
        if verdict == "valid":
            return True
        if verdict == "unsat":
            return False
        raise Unknowable(f"cannot decide {cond}")

    def call(self, name: str, *args, **kwargs):
        """Run another spec (one mechanism: nn modules call their functional specs)."""
        spec = REGISTRY[name]
        return run_spec(spec, self, args, kwargs)

    # -- small helpers specs use everywhere -------------------------------------------------
    @staticmethod
    def shape(t) -> tuple:
        if not isinstance(t, TensorValue):
            raise Unknowable("not a tensor")
        if t.shape is None:
            raise Unknowable("unknown rank")
        return t.shape

    @staticmethod
    def known_int(v) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise Unknowable(f"not a known int: {v!r}")
        return v

    def wrap_dim(self, dim, rank: int, code: str = IMPROPER_VALUE) -> int:
        """Normalize a possibly negative dim index, with PyTorch's range message."""
        dim = self.known_int(dim)
        lo, hi = -max(rank, 1), max(rank, 1) - 1
        if not lo <= dim <= hi:
            self.fail(code, f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})",
                      repair={"dim": hi if dim > hi else lo})  # the nearest valid index
        return dim + rank if dim < 0 else dim


def run_spec(spec: OpSpec, ctx: OpContext, args: tuple, kwargs: dict):
    """Bind arguments to the spec's signature and run it.

    A binding failure means the call does not match the API (unmodelled overload or a
    TypeError at run time); either way the result is Unknown, never a diagnostic.
    """
    spec.check_arguments(args, kwargs)
    out = spec.fn(ctx, *args, **kwargs)
    if _has_non_int_dim(out):
        # `nn.Linear(dim, None)`: torch raises a TypeError; a branch of a def nobody calls
        # with that value may build it, so it is Unknown here, never a shape with `None`.
        raise Unknowable("a size that is not an int")
    return out


def _has_non_int_dim(out) -> bool:
    if isinstance(out, TensorValue):
        return out.shape is not None and any(d is None or isinstance(d, (float, str)) for d in out.shape)
    if isinstance(out, (tuple, list)):
        return any(_has_non_int_dim(x) for x in out)
    if isinstance(out, dict):
        return any(_has_non_int_dim(x) for x in out.values())
    return False


def sizes_arg(size) -> tuple:
    """Accept `f(2, 3)`, `f((2, 3))` and `f([2, 3])` (or torch.Size) as a size."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]  # (a sequence holding one unknown dim is a size of rank 1)
    elif len(size) == 1 and size[0] is UNKNOWN:
        raise Unknowable("unknown size")  # (one unknown argument: a whole size, or one dim)
    if any(isinstance(d, TensorValue) for d in size):
        # (torch takes a 0-dim integer tensor here; model code passes ints, and a generic
        # run must not read `torch.zeros(b, n)` as a sign that b and n are tensors)
        raise TypeError("a size must be given as ints")
    return tuple(size)


def as_tuple(v, n: int, name: str = "argument") -> tuple:
    """Expand an int-or-tuple hyperparameter (kernel_size=3 -> (3, 3))."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return tuple(v) * n
        if len(v) != n:
            raise Unknowable(f"{name} has {len(v)} values, expected {n}")
        return tuple(v)
    return (v,) * n


def is_tensor(v) -> bool:
    return isinstance(v, TensorValue)


def promote(*dtypes) -> str | None:
    """A small version of PyTorch's type promotion, over known dtypes only."""
    known = [d for d in dtypes if d is not None]
    if len(known) != len(dtypes):
        return None
    order = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex32", "complex64", "complex128"]
    return max(known, key=lambda d: order.index(d) if d in order else -1) if known else None
