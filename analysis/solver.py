"""Deciding symbolic conditions: cheap exact reasoning first, Z3 for the remainder.

`check(assumptions, cond)` answers for the admissible values of the symbols (every symbol
is a dim >= 1, constrained by the assumptions):

- "valid": cond holds for all of them;
- "unsat": cond holds for none of them (with the assumptions that force it: an unsat core);
- "contingent": it holds for some; the counterexample is a model where it fails;
- "unknown": solver timeout or something it cannot encode.

Besides the per-query timeout, an analysis may run under a total solver budget
(`analysis_budget`): past it, every query that would reach Z3 answers "unknown" (so no
diagnostic comes from it) and is not cached, so a later analysis with time left decides it.

Only the slice of assumptions that shares symbols with `cond` (transitively) is sent to the
solver, and answers are cached by (the slice's set of conditions, cond), so an edit re-solves
only changed slices, and a slice met again in another order or another def is not re-solved.
"""
from __future__ import annotations

import contextlib
import time
from collections import OrderedDict

from . import intervals, witness
from . import shapes as S
from .shapes import Cond, Expr

_CACHE: "OrderedDict[tuple, tuple]" = OrderedDict()
_CACHE_SIZE = 4096
SOLVE_LOG: list = []  # appended on every real solver call (the query log reads it)


class _Budget:
    """Solver time left in the running analysis (None: no budget) and the queries
    answered "unknown" because it ran out."""

    left_s: float | None = None
    skipped: int = 0


_BUDGET = _Budget()


@contextlib.contextmanager
def analysis_budget(total_ms: int | None):
    """Run one analysis with at most `total_ms` of Z3 time in all (None: unlimited)."""
    saved = (_BUDGET.left_s, _BUDGET.skipped)
    _BUDGET.left_s = None if total_ms is None else total_ms / 1000
    _BUDGET.skipped = 0
    try:
        yield _BUDGET
    finally:
        _BUDGET.left_s, _BUDGET.skipped = saved


def relevant_slice(assumptions, cond) -> list:
    """The assumptions connected to cond through shared symbols."""
    wanted = set(cond.symbols())
    chosen: list = []
    pending = list(assumptions)
    changed = True
    while changed:
        changed = False
        rest = []
        for a in pending:
            c = a[0]
            syms = c.symbols() if isinstance(c, Cond) else set()
            if syms & wanted:
                chosen.append(a)
                wanted |= syms
                changed = True
            else:
                rest.append(a)
        pending = rest
    return chosen


def check(assumptions, cond, timeout_ms: int = 500):
    """assumptions: list of (Cond, origin). Returns (verdict, counterexample, core_origins)."""
    if cond is True:
        return "valid", "", ()
    if cond is False:
        return "unsat", "", ()
    if not isinstance(cond, Cond):
        return "unknown", "", ()
    cheap = intervals.verdict(cond)  # bounds alone (symbols are >= 1), before any Z3
    if cheap is not None:
        return cheap, "", ()
    slice_ = relevant_slice(assumptions, cond)
    for a, _ in slice_:
        if a == cond:
            return "valid", "", ()
        if a == S.not_(cond):
            return "unsat", "", tuple(o for c, o in slice_ if c == a)
    # The canonical slice: the set of its conditions, whatever order and origins they came
    # in (the same def's facts after an edit elsewhere, or another def with the same code).
    conds = tuple(c for c, _ in slice_)
    key = (frozenset(conds), cond)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        verdict, cex, core = hit
        return verdict, cex, tuple(o for c, o in slice_ if c in core)
    cex = witness.contingent([c for c, _ in slice_], cond)
    if cex is not None:
        return "contingent", cex, ()  # concrete witnesses both ways: no Z3 needed
    left = _BUDGET.left_s
    if left is not None and left <= 0:
        _BUDGET.skipped += 1
        return "unknown", "", ()  # over the analysis's solver budget: no verdict, no cache
    capped = left is not None and left * 1000 < timeout_ms
    if capped:
        timeout_ms = max(1, int(left * 1000))
    SOLVE_LOG.append(str(cond))
    started = time.perf_counter()
    result = _z3_check([c for c, _ in slice_], cond, timeout_ms)
    if left is not None:
        _BUDGET.left_s = left - (time.perf_counter() - started)
    if capped and result[0] == "unknown":
        _BUDGET.skipped += 1
        return result  # cut short by the budget: a later analysis may decide it
    verdict, cex, core_idx = result
    _CACHE[key] = (verdict, cex, frozenset(conds[i] for i in core_idx))
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return verdict, cex, tuple(slice_[i][1] for i in core_idx)


def warm_up() -> None:
    """Import z3 and solve once (~20 ms): a server does it at start, before any file opens."""
    x = S.sym("warm_up_n")
    _z3_check([], S.ge(x, 0), 100)


def _z3_check(assumptions, cond, timeout_ms):
    import z3

    syms = SymbolTable()
    try:
        goal = _enc(cond, syms, z3)
        encoded = [_enc(a, syms, z3) for a in assumptions]
    except _CannotEncode:
        return "unknown", "", ()
    domain = [v >= 1 for v in syms.values()]

    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*domain)
    labels = []
    for i, e in enumerate(encoded):
        label = z3.Bool(f"a{i}")
        labels.append(label)
        s.assert_and_track(e, label)
    s.push()
    s.add(goal)
    sat_goal = s.check()
    if sat_goal == z3.unsat:
        core = s.unsat_core()
        idx = tuple(i for i, label in enumerate(labels) if any(label.eq(c) for c in core))
        return "unsat", "", idx
    s.pop()
    s.add(z3.Not(goal))
    sat_neg = s.check()
    if sat_neg == z3.unsat:
        return "valid", "", ()
    if sat_goal == z3.unknown or sat_neg == z3.unknown:
        return "unknown", "", ()
    model = s.model()
    parts = []
    for name, v in sorted(syms.items()):
        val = model.eval(v, model_completion=True)
        parts.append(f"{name} = {val}")
    return "contingent", ", ".join(parts), ()


class _CannotEncode(Exception):
    pass


class SymbolTable(dict):
    """Symbol name -> Z3 variable, plus `atoms`: the div/mod/max atoms already encoded."""

    def __init__(self):
        super().__init__()
        self.atoms: dict = {}


def _enc(c, syms, z3):
    if isinstance(c, bool):
        return z3.BoolVal(c)
    if not isinstance(c, Cond):
        raise _CannotEncode(c)
    if c.op in ("eq", "le", "lt"):
        a, b = (_term(x, syms, z3) for x in c.args)
        return a == b if c.op == "eq" else a <= b if c.op == "le" else a < b
    if c.op == "not":
        return z3.Not(_enc(c.args[0], syms, z3))
    if c.op == "and":
        return z3.And(*[_enc(a, syms, z3) for a in c.args])
    if c.op == "or":
        return z3.Or(*[_enc(a, syms, z3) for a in c.args])
    raise _CannotEncode(c)


def term(d, syms: dict):
    """A dim as a Z3 integer term (symbols created in `syms`)."""
    import z3

    return _term(d, syms, z3)


def _term(d, syms, z3):
    if isinstance(d, bool):
        raise _CannotEncode(d)
    if isinstance(d, int):
        return z3.IntVal(d)
    if not isinstance(d, Expr):
        raise _CannotEncode(d)
    total = None
    for mono, coeff in d.terms.items():
        t = z3.IntVal(coeff)
        for atom in mono:
            t = t * _atom(atom, syms, z3)
        total = t if total is None else total + t
    return total


def _atom(atom, syms, z3):
    """An atom's Z3 term. `syms` maps symbol names to Z3 variables; the encoded div/mod/max
    atoms are remembered beside it (nested dims share sub-expressions, and encoding a shared
    one once keeps the work linear in the distinct atoms)."""
    if atom.kind == "sym":
        name = atom.args[0]
        if name not in syms:
            syms[name] = z3.Int(name)
        return syms[name]
    memo = syms.atoms if isinstance(syms, SymbolTable) else {}
    if atom in memo:
        return memo[atom]
    a, b = (_term(x, syms, z3) for x in atom.args)
    if atom.kind == "div":
        out = a / b  # Z3's integer division floors for positive divisors, like Python
    elif atom.kind == "mod":
        out = a % b
    elif atom.kind == "max":
        out = z3.If(a >= b, a, b)
    else:
        raise _CannotEncode(atom)
    memo[atom] = out
    return out
