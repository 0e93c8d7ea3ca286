"""Interval reasoning: the cheap decision before Z3.

Every symbol is a dim >= 1, so many conditions are decided by bounds alone (`0 <= 3*heads`,
`0 < (H - 1)//stride + 1`). `verdict(cond)` answers "valid" or "unsat" when the bounds of
its sides decide it for every value of the symbols, and None otherwise. Ignoring the
assumptions is sound for both answers: what holds (or fails) for every value still does
once more facts are known.
"""
from __future__ import annotations

import math

from . import shapes as S

INF = math.inf
_ANY = (-INF, INF)


def bounds(d) -> tuple:
    """(low, high) of a dim over all values of its symbols (symbols are >= 1)."""
    if isinstance(d, bool):
        return _ANY
    if isinstance(d, int):
        return (d, d)
    if not isinstance(d, S.Expr):
        return _ANY
    lo, hi = 0, 0
    for mono, coef in d.terms.items():
        mlo, mhi = coef, coef
        for atom in mono:
            mlo, mhi = _mul((mlo, mhi), _atom_bounds(atom))
        lo, hi = lo + mlo, hi + mhi
    return (lo, hi)


def _atom_bounds(atom) -> tuple:
    if atom.kind == "sym":
        return (1, INF)
    if atom.kind == "max":
        (al, ah), (bl, bh) = bounds(atom.args[0]), bounds(atom.args[1])
        return (max(al, bl), max(ah, bh))
    a, b = bounds(atom.args[0]), bounds(atom.args[1])
    if b[0] < 1:
        return _ANY  # a divisor that may be 0 or negative: nothing to say
    if atom.kind == "mod":
        return (0, b[1] - 1)
    return (_floordiv_low(a[0], b), _floordiv_high(a[1], b))


def _floordiv_low(a_lo, b) -> float:
    if a_lo == -INF:
        return -INF
    if a_lo >= 0:
        return 0 if b[1] == INF else a_lo // b[1]
    return a_lo // b[0]  # a negative numerator is most negative over the smallest divisor


def _floordiv_high(a_hi, b) -> float:
    if a_hi == INF:
        return INF
    if a_hi >= 0:
        return a_hi // b[0]
    return -1 if b[1] == INF else a_hi // b[1]


def _mul(x, y) -> tuple:
    products = [_times(a, b) for a in x for b in y]
    return (min(products), max(products))


def _times(a, b):
    if a == 0 or b == 0:
        return 0  # 0 * inf: a zero bound times an unbounded one stays 0
    return a * b


def verdict(cond):
    """"valid", "unsat" or None (undecided by bounds)."""
    if cond is True:
        return "valid"
    if cond is False:
        return "unsat"
    if not isinstance(cond, S.Cond):
        return None
    if cond.op in ("eq", "le", "lt"):
        a, b = cond.args
        lo, hi = bounds(S.sub(b, a))  # the condition on b - a
        if cond.op == "le":
            return "valid" if lo >= 0 else "unsat" if hi < 0 else None
        if cond.op == "lt":
            return "valid" if lo > 0 else "unsat" if hi <= 0 else None
        return "valid" if lo == hi == 0 else "unsat" if lo > 0 or hi < 0 else None
    if cond.op == "not":
        inner = verdict(cond.args[0])
        return {"valid": "unsat", "unsat": "valid"}.get(inner)
    parts = [verdict(c) for c in cond.args]
    if cond.op == "and":
        if "unsat" in parts:
            return "unsat"
        return "valid" if all(p == "valid" for p in parts) else None
    if cond.op == "or":
        if "valid" in parts:
            return "valid"
        return "unsat" if all(p == "unsat" for p in parts) else None
    return None
