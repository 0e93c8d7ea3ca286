"""Concrete witnesses: the second cheap decision before Z3.

A condition that holds for one admissible assignment of its symbols and fails for another is
"contingent", whatever Z3 would add; most conditions on shapes built from hyperparameters
are (`C == dim`, `n % heads == 0`), and nonlinear ones can cost Z3 its whole timeout. A few
small assignments are tried (each symbol >= 1, every assumption of the slice must hold);
anything else is left to Z3, which alone may say "valid" or "unsat".
"""
from __future__ import annotations

from . import shapes as S

_VALUES = (1, 2, 3, 4, 6, 7, 8, 12, 16, 64)


def _assignments(names: list):
    """A few deterministic assignments: all symbols equal, then mixed small values."""
    for v in _VALUES:
        yield {n: v for n in names}
    for shift in range(1, 8):
        yield {n: _VALUES[(i * 3 + shift) % len(_VALUES)] for i, n in enumerate(names)}


def holds(cond, mapping: dict):
    """The condition's truth for an assignment of every symbol (None if not decidable)."""
    if isinstance(cond, bool):
        return cond
    if not isinstance(cond, S.Cond):
        return None
    if cond.op in ("eq", "le", "lt"):
        try:
            a, b = (S.substitute(x, mapping) for x in cond.args)
        except (ZeroDivisionError, ArithmeticError):
            return None
        if not (isinstance(a, int) and isinstance(b, int)) or isinstance(a, S.Expr) or isinstance(b, S.Expr):
            return None
        return a == b if cond.op == "eq" else a <= b if cond.op == "le" else a < b
    parts = [holds(c, mapping) for c in cond.args]
    if None in parts:
        return None
    if cond.op == "not":
        return not parts[0]
    return all(parts) if cond.op == "and" else any(parts) if cond.op == "or" else None


def contingent(assumptions: list, cond):
    """A counterexample text ("C = 2, dim = 3") when witnesses show the condition holds for
    some admissible values and fails for others; None when they do not settle it."""
    names = set(cond.symbols())
    for a in assumptions:
        if isinstance(a, S.Cond):
            names |= a.symbols()
    names = sorted(names)
    if not names or len(names) > 24:
        return None
    seen_true, failing = False, None
    for mapping in _assignments(names):
        if not all(holds(a, mapping) is True for a in assumptions):
            continue
        truth = holds(cond, mapping)
        if truth is True:
            seen_true = True
        elif truth is False and failing is None:
            failing = mapping
        if seen_true and failing is not None:
            return ", ".join(f"{n} = {failing[n]}" for n in names)
    return None
