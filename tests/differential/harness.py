"""The differential harness: run a `Case` in real PyTorch and through its spec, and compare.

For one case:

1. torch side: build the tensors (seeded per case), resolve the API ("torch.x.y" is an
   attribute path from `torch`, "Tensor.x" a method or attribute of the first argument, a
   class deriving from `nn.Module` is constructed with the case's ctor args, put in eval
   mode unless `case.training`, then called), and record the output structure (tensor shape,
   nested tuples, ints, tuples of ints, dtypes) or "error" with the exception's message.
   Floats are drawn with randn; when torch raises, the case is retried with floats in
   [0, 1): an error that goes away was about values (probabilities, variances), not shapes,
   and the benign draw is judged. A case with integer/bool tensors whose outcome changes
   with a second seed (indices, masks, divisors) is a bad case: it cannot judge a spec.
2. spec side: turn `T` into `TensorValue`, `DT` into `spec.Dtype`, run the spec (constructor
   then forward for modules) with a plain `OpContext()`. `ShapeError` is "error",
   `Unknowable` is "unknown" (no verdict), any other exception is a crash of the spec.
3. compare: both error, or both succeed with the same structure, is agreement. "unknown"
   (no verdict) and "partial" (a result with unknown dims/rank that matches where known) are
   not covered: reported and counted, never failures.
4. symbolic check on a sample (every `SYMBOLIC_EVERY`-th case of each API): every input
   tensor dim >= 1 becomes a fresh symbol (the analyser's symbols are dims >= 1, so zero
   stays 0), the spec runs with a z3-backed checker (the engine's `analysis/solver.check`
   when present, else the small encoding here; SHAPESENSE_DIFF_SOLVER=own forces ours)
   under the assumption symbol == concrete value; its verdict and its output dims
   (substituted back) must agree with the concrete spec run.

Torch is imported lazily, so importing this module never needs torch.
Run `python -m tests.differential.harness [-v] [API ...]` to print results.
"""
from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import traceback
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any

try:  # the installed package name; the repo's top-level folders are its sources
    import shapesense.analysis.ops  # noqa: F401  (registers every spec)
    from shapesense.analysis import shapes as S
    from shapesense.analysis.ops import spec as SP
except ImportError:  # pragma: no cover - running from a checkout without install
    import analysis.ops  # noqa: F401
    from analysis import shapes as S
    from analysis.ops import spec as SP

from .case import DT, Case, T

# Every n-th case of each API also gets the symbolic check (1: all of them; 0: none).
SYMBOLIC_EVERY = int(os.environ.get("SHAPESENSE_DIFF_SYMBOLIC_EVERY", "5"))

# Outcome kinds
OK, ERROR, UNKNOWN_, CRASH, BAD = "ok", "error", "unknown", "crash", "bad-case"
# Verdicts
AGREE, DISAGREE, NOVERDICT, PARTIAL = "agree", "disagree", "unknown", "partial"


# ---------------------------------------------------------------------------------------
# Normalized output structure
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sh:
    """A tensor in a normalized output: its dims (None: unknown rank) and dtype (not compared)."""

    dims: tuple | None
    dtype: str | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        if self.dims is None:
            return "Tensor[...]"
        return "Tensor[" + ", ".join(repr(d) for d in self.dims) + "]"


class _Unk:
    def __repr__(self):
        return "?"


UNK = _Unk()  # an unknown value/dim in a spec's output
FLOAT = "<float>"


@dataclass
class Outcome:
    kind: str  # ok | error | unknown | crash | bad-case
    value: Any = None  # normalized structure when ok
    message: str = ""

    def text(self) -> str:
        if self.kind == OK:
            return repr(self.value)
        if self.kind in (ERROR, UNKNOWN_):
            return f"{self.kind}: {_short(self.message)}"
        return f"{self.kind}:\n{self.message}"


def _short(msg: str, limit: int = 240) -> str:
    msg = " ".join(str(msg).split())
    return msg if len(msg) <= limit else msg[: limit - 3] + "..."


@dataclass
class CaseResult:
    case: Case
    text: str
    torch: Outcome
    spec: Outcome
    verdict: str  # agree | disagree | unknown | partial | crash | bad-case
    symbolic: Outcome | None = None
    symbolic_verdict: str | None = None  # None: not sampled
    dtype_note: str = ""
    allowed: Any = None  # the allow-list entry that excuses a failure

    @property
    def failing(self) -> bool:
        return self.verdict in (DISAGREE, CRASH, BAD) or self.symbolic_verdict in (DISAGREE, CRASH)

    @property
    def failed(self) -> bool:
        return self.failing and self.allowed is None

    def describe(self) -> str:
        lines = [f"  case:   {self.text}",
                 f"  torch:  {self.torch.text()}",
                 f"  spec:   {self.spec.text()}"]
        if self.symbolic is not None and self.symbolic_verdict in (DISAGREE, CRASH):
            lines.append(f"  symbolic spec run: {self.symbolic.text()}")
        tag = self.verdict if self.verdict != AGREE else f"symbolic {self.symbolic_verdict}"
        if self.allowed is not None:
            tag += f" (allow-listed: {self.allowed.reason})"
        return f"[{tag}]\n" + "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Rendering a case as a call
# ---------------------------------------------------------------------------------------

def _is_T(x) -> bool:
    return isinstance(x, T) or (type(x).__name__ == "T" and hasattr(x, "shape") and hasattr(x, "high"))


def _is_DT(x) -> bool:
    return isinstance(x, DT) or (type(x).__name__ == "DT" and hasattr(x, "name"))


def render_arg(x) -> str:
    if _is_T(x):
        inner = ", ".join(str(d) for d in x.shape)
        extra = "" if x.dtype == "float32" else f", dtype={x.dtype}"
        if x.dtype not in ("float16", "bfloat16", "float32", "float64", "bool") and x.high != 2:
            extra += f", high={x.high}"
        return f"T({inner}{extra})"
    if _is_DT(x):
        return f"torch.{x.name}"
    if isinstance(x, tuple):
        body = ", ".join(render_arg(i) for i in x)
        return f"({body},)" if len(x) == 1 else f"({body})"
    if isinstance(x, list):
        return "[" + ", ".join(render_arg(i) for i in x) + "]"
    return repr(x)


def _render_call(args, kwargs) -> str:
    parts = [render_arg(a) for a in args] + [f"{k}={render_arg(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def render(case: Case) -> str:
    if case.ctor or case.ctor_kwargs or _spec_kind(case.api) == "module":
        text = f"{case.api}({_render_call(case.ctor, case.ctor_kwargs)})({_render_call(case.args, case.kwargs)})"
    else:
        text = f"{case.api}({_render_call(case.args, case.kwargs)})"
    return text + (" [training]" if case.training else "")


def _spec_kind(api):
    spec = SP.REGISTRY.get(api)
    return spec.kind if spec is not None else None


# ---------------------------------------------------------------------------------------
# Torch side
# ---------------------------------------------------------------------------------------

_TORCH = None


def torch_module():
    global _TORCH
    if _TORCH is None:
        import torch
        _TORCH = torch
    return _TORCH


def _build_torch(x, torch, unit=False):
    """Case data -> torch values. Floats are randn, or uniform in [0, 1) when `unit`."""
    if _is_T(x):
        dtype = getattr(torch, x.dtype)
        if x.dtype == "bool":
            return torch.randint(0, 2, x.shape).bool()
        if dtype.is_floating_point or dtype.is_complex:
            return (torch.rand if unit else torch.randn)(x.shape, dtype=dtype)
        return torch.randint(0, max(x.high, 1), x.shape, dtype=dtype)
    if _is_DT(x):
        return getattr(torch, x.name)
    if isinstance(x, tuple):
        return tuple(_build_torch(i, torch, unit) for i in x)
    if isinstance(x, list):
        return [_build_torch(i, torch, unit) for i in x]
    if isinstance(x, dict):
        return {k: _build_torch(v, torch, unit) for k, v in x.items()}
    return x


def _resolve_torch(api: str, torch):
    parts = api.split(".")
    if parts[0] == "Tensor":
        return ("method", parts[1])
    if parts[0] not in ("torch", "einops"):
        raise LookupError(f"API {api!r} is neither torch.*, einops.* nor Tensor.*")
    if parts[0] == "einops":  # einops' submodules are imported on demand (einops.layers.torch)
        obj = importlib.import_module(".".join(parts[:-1]))
        parts = parts[-2:]
    else:
        obj = torch
    for p in parts[1:]:
        obj = getattr(obj, p)
    if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
        return ("module", obj)
    return ("function", obj)


def norm_torch(x, torch):
    if isinstance(x, torch.Tensor):
        return Sh(tuple(int(d) for d in x.shape), str(x.dtype).removeprefix("torch."))
    if isinstance(x, torch.Size):
        return tuple(int(d) for d in x)
    if isinstance(x, torch.dtype):
        return str(x).removeprefix("torch.")
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        return FLOAT
    if isinstance(x, (tuple, list)):
        return tuple(norm_torch(i, torch) for i in x)
    if isinstance(x, dict):  # einops.parse_shape
        return tuple((k, norm_torch(v, torch)) for k, v in x.items())
    return f"<{type(x).__name__}>"


def _needs_data(case: Case) -> bool:
    """Integer/bool tensors carry data that can decide the outcome (indices, masks, divisors)."""
    return any(t.dtype not in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
               for t in _tensors(case.args, case.kwargs, case.ctor, case.ctor_kwargs))


def _has_floats(case: Case) -> bool:
    return any(t.dtype in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
               for t in _tensors(case.args, case.kwargs, case.ctor, case.ctor_kwargs))


def run_torch(case: Case, seed_offset: int = 0, unit: bool = False) -> Outcome:
    torch = torch_module()
    try:
        kind, target = _resolve_torch(case.api, torch)
    except (AttributeError, LookupError) as exc:
        return Outcome(BAD, message=f"cannot resolve {case.api} in torch: {exc}")
    torch.manual_seed(zlib.crc32(render(case).encode()) + seed_offset)
    try:
        args = _build_torch(case.args, torch, unit)
        kwargs = _build_torch(case.kwargs, torch, unit)
        ctor = _build_torch(case.ctor, torch, unit)
        ctor_kwargs = _build_torch(case.ctor_kwargs, torch, unit)
    except Exception as exc:  # a case that cannot even be built
        return Outcome(BAD, message=f"cannot build inputs: {type(exc).__name__}: {exc}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if kind == "method":
                if not args:
                    return Outcome(BAD, message="a Tensor.* case needs the tensor as first argument")
                attr = getattr(args[0], target)
                out = attr(*args[1:], **kwargs) if callable(attr) else attr
            elif kind == "module":
                m = target(*ctor, **ctor_kwargs)
                m.train(case.training)
                out = m(*args, **kwargs)
            else:
                out = target(*args, **kwargs)
        except Exception as exc:
            return Outcome(ERROR, message=f"{type(exc).__name__}: {exc}")
    try:
        return Outcome(OK, norm_torch(out, torch))
    except Exception as exc:  # pragma: no cover - defensive
        return Outcome(BAD, message=f"cannot normalize torch output: {exc!r}")


# ---------------------------------------------------------------------------------------
# Spec side
# ---------------------------------------------------------------------------------------

def to_spec(x, dims_of=None):
    """Case data -> spec values. `dims_of(T)` may replace a tensor's dims (symbolic run)."""
    if _is_T(x):
        shape = tuple(x.shape) if dims_of is None else dims_of(x)
        return SP.TensorValue(shape, x.dtype)
    if _is_DT(x):
        return SP.Dtype(x.name)
    if isinstance(x, tuple):
        return tuple(to_spec(i, dims_of) for i in x)
    if isinstance(x, list):
        return [to_spec(i, dims_of) for i in x]
    if isinstance(x, dict):
        return {k: to_spec(v, dims_of) for k, v in x.items()}
    return x


def norm_spec(v, mapping=None):
    """Spec output -> normalized structure; `mapping` substitutes symbols (symbolic run)."""
    if isinstance(v, SP.TensorValue):
        if v.shape is None or v.shape is S.UNKNOWN:
            return Sh(None, v.dtype)
        return Sh(tuple(_norm_dim(d, mapping) for d in v.shape), v.dtype)
    if v is S.UNKNOWN:
        return UNK
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, S.Expr)):
        return _norm_dim(v, mapping)
    if isinstance(v, SP.Dtype):
        return str(v)
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        return FLOAT
    if isinstance(v, (tuple, list)):
        return tuple(norm_spec(i, mapping) for i in v)
    if isinstance(v, dict):
        return tuple((k, norm_spec(i, mapping)) for k, i in v.items())
    return f"<{type(v).__name__}>"


def _norm_dim(d, mapping):
    if d is S.UNKNOWN:
        return UNK
    if isinstance(d, S.Expr) and mapping is not None:
        d = S.substitute(d, mapping)
    if isinstance(d, S.Expr) and S.mentions_piece(d):
        return UNK  # the size of one piece of a count not known: unknown one by one (joining._pieces)
    if isinstance(d, bool):
        return d
    if isinstance(d, int):
        return d
    if d is S.UNKNOWN:
        return UNK
    return f"<symbolic {d}>"  # never equal to a concrete dim: shows up as a disagreement


def run_spec_case(case: Case, ctx=None, dims_of=None) -> tuple[Outcome, Any]:
    """Run the case's spec; returns (outcome, raw spec output)."""
    spec = SP.REGISTRY.get(case.api)
    if spec is None:
        return Outcome(BAD, message=f"no spec registered for {case.api}"), None
    ctx = ctx if ctx is not None else SP.OpContext(op_name=case.api)
    try:
        args = to_spec(case.args, dims_of)
        kwargs = to_spec(case.kwargs, dims_of)
        if spec.kind == "module":
            m = SP.run_spec(spec, ctx, to_spec(case.ctor), to_spec(case.ctor_kwargs))
            if isinstance(m, dict):  # the module's mode, as on the torch side (eval unless training)
                m = {**m, "training": case.training}
            fwd = spec.forward
            if fwd is None:
                raise SP.Unknowable(f"{case.api} has no forward spec")
            try:
                bound = fwd.signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise SP.Unknowable(f"arguments do not match {fwd.name}: {exc}") from None
            out = fwd.fn(ctx, m, *bound.args, **bound.kwargs)
        else:
            out = SP.run_spec(spec, ctx, args, kwargs)
    except SP.ShapeError as exc:
        return Outcome(ERROR, message=f"[{exc.code}] {exc.message}"), None
    except SP.Unknowable as exc:
        return Outcome(UNKNOWN_, message=str(exc)), None
    except Exception:
        return Outcome(CRASH, message=traceback.format_exc()), None
    return Outcome(OK), out


# ---------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------

def match(t, s) -> str:
    """agree | partial | disagree between a torch and a spec structure."""
    if s is UNK:
        return PARTIAL
    if isinstance(t, Sh) or isinstance(s, Sh):
        if not (isinstance(t, Sh) and isinstance(s, Sh)):
            return DISAGREE
        if s.dims is None:
            return PARTIAL
        if t.dims is None or len(t.dims) != len(s.dims):
            return DISAGREE
        return _combine(match(a, b) for a, b in zip(t.dims, s.dims))
    if isinstance(t, tuple) or isinstance(s, tuple):
        if not (isinstance(t, tuple) and isinstance(s, tuple)) or len(t) != len(s):
            return DISAGREE
        return _combine(match(a, b) for a, b in zip(t, s))
    return AGREE if t == s else DISAGREE


def _combine(verdicts) -> str:
    out = AGREE
    for v in verdicts:
        if v == DISAGREE:
            return DISAGREE
        if v == PARTIAL:
            out = PARTIAL
    return out


def _dtype_diffs(t, s, out: list):
    if isinstance(t, Sh) and isinstance(s, Sh):
        if s.dtype is not None and t.dtype != s.dtype:
            out.append(f"{t.dtype} (torch) vs {s.dtype} (spec)")
    elif isinstance(t, tuple) and isinstance(s, tuple):
        for a, b in zip(t, s):
            _dtype_diffs(a, b, out)


def compare(t: Outcome, s: Outcome) -> str:
    if t.kind == BAD or s.kind == BAD:
        return BAD
    if s.kind == CRASH:
        return CRASH
    if s.kind == UNKNOWN_:
        return NOVERDICT
    if t.kind == ERROR:
        return AGREE if s.kind == ERROR else DISAGREE
    if s.kind == ERROR:
        return DISAGREE
    return match(t.value, s.value)


# ---------------------------------------------------------------------------------------
# Z3 translation of dims and conditions, and a checker pinned to concrete values
# ---------------------------------------------------------------------------------------

def _z3():
    import z3
    return z3


def z3_dim(d, z3, env: dict):
    if isinstance(d, bool):
        return z3.IntVal(int(d))
    if isinstance(d, int):
        return z3.IntVal(d)
    if not isinstance(d, S.Expr):
        raise TypeError(f"cannot encode dim {d!r}")
    total = None
    for mono, c in d.terms.items():
        term = z3.IntVal(c)
        for atom in mono:
            term = term * _z3_atom(atom, z3, env)
        total = term if total is None else total + term
    return total if total is not None else z3.IntVal(0)


def _floordiv(a, b, z3):
    # Python floors; z3's integer division is Euclidean (equal to floor for b > 0).
    return z3.If(b >= 0, a / b, (-a) / (-b))


def _z3_atom(atom, z3, env):
    if atom.kind == "sym":
        name = atom.args[0]
        if name not in env:
            env[name] = z3.Int(name)
        return env[name]
    a, b = (z3_dim(x, z3, env) for x in atom.args)
    if atom.kind == "div":
        return _floordiv(a, b, z3)
    if atom.kind == "mod":
        return a - b * _floordiv(a, b, z3)
    if atom.kind == "max":
        return z3.If(a >= b, a, b)
    raise TypeError(f"unknown atom kind {atom.kind}")


def z3_cond(c, z3, env: dict):
    if isinstance(c, bool):
        return z3.BoolVal(c)
    if not isinstance(c, S.Cond):
        raise TypeError(f"cannot encode condition {c!r}")
    if c.op in ("eq", "le", "lt"):
        a, b = (z3_dim(x, z3, env) for x in c.args)
        return {"eq": a == b, "le": a <= b, "lt": a < b}[c.op]
    if c.op == "not":
        return z3.Not(z3_cond(c.args[0], z3, env))
    parts = [z3_cond(x, z3, env) for x in c.args]
    return z3.And(*parts) if c.op == "and" else z3.Or(*parts)


class PinnedChecker:
    """checker(cond) for OpContext, deciding under `symbol == value` assumptions."""

    def __init__(self, assumptions: dict):
        z3 = self.z3 = _z3()
        self.env: dict = {}
        self.solver = z3.Solver()
        self.solver.set("timeout", 5000)
        for name, value in assumptions.items():
            self.env[name] = z3.Int(name)
            self.solver.add(self.env[name] == value)
        self.calls = 0

    def __call__(self, cond):
        z3 = self.z3
        self.calls += 1
        f = z3_cond(cond, z3, self.env)
        s = self.solver
        s.push()
        s.add(z3.Not(f))
        r_not = s.check()
        s.pop()
        if r_not == z3.unsat:
            return "valid", "", ()
        s.push()
        s.add(f)
        r = s.check()
        s.pop()
        if r == z3.unsat:
            return "unsat", "", ()
        if r == z3.sat and r_not == z3.sat:
            return "contingent", "", ()
        return "unknown", "", ()


def _lead_solver():
    """The engine's own `solver.check`, unless SHAPESENSE_DIFF_SOLVER=own asks for ours."""
    if os.environ.get("SHAPESENSE_DIFF_SOLVER", "") == "own":
        return None
    try:
        try:
            from shapesense.analysis import solver
        except ImportError:  # pragma: no cover
            from analysis import solver
        return solver.check
    except Exception:
        return None


def make_checker(assumptions: dict):
    """A checker deciding under `symbol == value` for every (name, value) in assumptions.

    Uses the engine's solver (analysis/solver.py `check`) when it exists, so the encoding
    that is verified is the one the analyser uses; else the small encoding above.
    """
    check = _lead_solver()
    if check is None:
        return PinnedChecker(assumptions)
    facts = [(S.eq(S.sym(name), value), f"{name} == {value}") for name, value in assumptions.items()]
    return lambda cond: check(facts, cond)


def run_symbolic(case: Case, concrete: Outcome) -> tuple[Outcome, str]:
    """The symbolic spec run of a case and its verdict against the concrete spec run."""
    mapping: dict = {}

    # Symbols are dims >= 1 in the analyser, so a zero-size dim stays a concrete 0.
    def dims_of(t):
        dims = []
        for d in t.shape:
            if d < 1:
                dims.append(d)
                continue
            name = f"d{len(mapping)}"
            mapping[name] = d
            dims.append(S.sym(name))
        return tuple(dims)

    # Build args first to learn the symbols, then create the checker with them.
    probe = to_spec(case.args, dims_of), to_spec(case.kwargs, dims_of)
    del probe
    names = iter(list(mapping))

    def dims_again(t):
        return tuple(d if d < 1 else S.sym(next(names)) for d in t.shape)

    try:
        ctx = SP.OpContext(op_name=case.api, checker=make_checker(mapping))
    except Exception:
        return Outcome(CRASH, message=traceback.format_exc()), CRASH
    outcome, raw = run_spec_case(case, ctx, dims_again)
    if outcome.kind == OK and isinstance(raw, SP.SomeTensors) and isinstance(concrete.value, tuple):
        # Pieces of an unknown count (split by a symbolic size): the known first pieces, then
        # every other piece of the concrete run must look like the element.
        rest = len(concrete.value) - len(raw.prefix)
        raw = tuple(raw.prefix) + (raw.element,) * max(rest, 0)
    if outcome.kind == OK:
        try:
            outcome.value = norm_spec(raw, mapping)
        except Exception:
            return Outcome(CRASH, message=traceback.format_exc()), CRASH
    if outcome.kind == CRASH:
        return outcome, CRASH
    if outcome.kind == UNKNOWN_:
        return outcome, NOVERDICT
    if concrete.kind == ERROR or outcome.kind == ERROR:
        return outcome, AGREE if concrete.kind == outcome.kind else DISAGREE
    verdict = match(concrete.value, outcome.value)
    if verdict == DISAGREE:
        # A symbolic result may know less than the concrete one but never differ.
        return outcome, DISAGREE
    return outcome, verdict


# ---------------------------------------------------------------------------------------
# Running cases
# ---------------------------------------------------------------------------------------

CASE_SECONDS = 20  # a spec run longer than this is reported as a crash (hang guard)


class _Timeout(Exception):
    pass


def _limited(fn, *args):
    """fn(*args) under a wall-clock limit (main thread on POSIX only; else unlimited)."""
    import signal
    import threading
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return fn(*args)

    def on_alarm(signum, frame):
        raise _Timeout(f"spec run exceeded {CASE_SECONDS}s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        return fn(*args)
    except _Timeout as exc:
        return Outcome(CRASH, message=str(exc)), None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_case(case: Case, symbolic: bool = False) -> CaseResult:
    text = render(case)
    t = run_torch(case)
    if t.kind == ERROR and _has_floats(case):
        # Shape errors do not depend on values. An error that goes away with floats drawn in
        # [0, 1) is a value-domain error (probabilities, variances): judge the benign draw.
        alt = run_torch(case, unit=True)
        if alt.kind == OK:
            t = Outcome(OK, alt.value, message=f"floats drawn in [0, 1); randn gave {t.message}")
    s, raw = _limited(run_spec_case, case)
    if s.kind == OK:
        try:
            s.value = norm_spec(raw)
        except Exception:
            s = Outcome(CRASH, message=traceback.format_exc())
    verdict = compare(t, s)
    if verdict not in (NOVERDICT, BAD) and _needs_data(case):
        # A case whose torch outcome depends on the drawn values cannot judge a shape spec.
        t2 = run_torch(case, seed_offset=1)
        if t2.kind != t.kind or (t.kind == OK and t2.value != t.value):
            t = Outcome(BAD, message=f"torch's outcome depends on the tensor data: {t.text()} "
                                     f"with one draw, {t2.text()} with another")
            verdict = BAD
    result = CaseResult(case, text, t, s, verdict)
    if verdict == AGREE and t.kind == OK:
        diffs: list = []
        _dtype_diffs(t.value, s.value, diffs)
        result.dtype_note = "; ".join(diffs)
    if symbolic and s.kind in (OK, ERROR) and any(True for _ in _tensors(case.args, case.kwargs)):
        sym = _limited(run_symbolic, case, s)
        result.symbolic, result.symbolic_verdict = sym if sym[1] is not None else (sym[0], CRASH)
    return result


def _tensors(*xs):
    for x in xs:
        if _is_T(x):
            yield x
        elif isinstance(x, (tuple, list)):
            yield from _tensors(*x)
        elif isinstance(x, dict):
            yield from _tensors(*x.values())


def allow_entry(case: Case, allowlist=None):
    if allowlist is None:
        from .allowlist import ALLOW as allowlist
    for entry in allowlist:
        if entry.api != case.api:
            continue
        if entry.case is not None and entry.case != case:
            continue
        if entry.when is not None and not entry.when(case):
            continue
        return entry
    return None


def run_api(api: str, cases: list, symbolic_every: int = SYMBOLIC_EVERY, allowlist=None) -> list:
    results = []
    for i, case in enumerate(cases):
        r = run_case(case, symbolic=symbolic_every > 0 and i % symbolic_every == 0)
        if r.failing:
            r.allowed = allow_entry(case, allowlist)
        results.append(r)
    return results


def format_failures(api: str, results: list) -> str:
    bad = [r for r in results if r.failed]
    head = (f"{api}: {len(bad)} of {len(results)} cases disagree with torch "
            f"({sum(r.verdict == AGREE for r in results)} agree, "
            f"{sum(r.verdict in (NOVERDICT, PARTIAL) for r in results)} unknown)")
    return head + "\n" + "\n".join(r.describe() for r in bad)


# ---------------------------------------------------------------------------------------
# Loading case files
# ---------------------------------------------------------------------------------------

def load_case_files() -> tuple[dict, dict]:
    """({family: [Case]}, {family: error traceback}) for every module in cases/."""
    from . import cases as pkg
    families, errors = {}, {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        try:
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            families[info.name] = list(getattr(mod, "CASES"))
        except Exception:
            errors[info.name] = traceback.format_exc()
    return families, errors


def cases_by_api(families: dict | None = None) -> dict:
    """{api: [(family, Case)]}, in file order."""
    if families is None:
        families, _ = load_case_files()
    out: dict = {}
    for fam, cases in families.items():
        for c in cases:
            out.setdefault(c.api, []).append((fam, c))
    return out


def run_all(symbolic_every: int = SYMBOLIC_EVERY):
    """({api: [CaseResult]}, {api: family}, load errors)."""
    families, errors = load_case_files()
    grouped = cases_by_api(families)
    results, family_of = {}, {}
    for api in sorted(grouped):
        family_of[api] = grouped[api][0][0]
        results[api] = run_api(api, [c for _, c in grouped[api]], symbolic_every)
    return results, family_of, errors


def inspect_signature(fn):
    """The OpSpec signature of a spec function (its parameters after ctx)."""
    sig = inspect.signature(fn)
    return sig.replace(parameters=list(sig.parameters.values())[1:])


# Results recorded by the pytest run, for the terminal summary in conftest.py.
RECORDED: list = []


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("apis", nargs="*", help="only these APIs (default: all)")
    p.add_argument("-v", "--verbose", action="store_true", help="print every case")
    p.add_argument("--symbolic-every", type=int, default=SYMBOLIC_EVERY)
    a = p.parse_args(argv)
    families, errors = load_case_files()
    for fam, err in errors.items():
        print(f"case file {fam} failed to load:\n{err}")
    grouped = cases_by_api(families)
    failed = 0
    for api in sorted(grouped):
        if a.apis and api not in a.apis:
            continue
        results = run_api(api, [c for _, c in grouped[api]], a.symbolic_every)
        n_bad = sum(r.failed for r in results)
        failed += n_bad
        print(f"{api}: {len(results)} cases, {sum(r.verdict == AGREE for r in results)} agree, "
              f"{n_bad} failing")
        for r in results:
            if a.verbose or r.failing:
                print("  " + r.describe().replace("\n", "\n  "))
    return 1 if failed or errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
