"""Python sets as the analysis sees them: a ListVal of kind "set" holding distinct items.

CPython iterates a set in the order of its hash table. An int hashes to itself and the
smallest table has 8 slots, so a set of ints from 0 to 7 (axis indices:
`set(range(4)) - {1, 3}`) iterates in ascending order, whatever order they went in. Any
other set's order is not modelled (a str's hash is salted per process), so iterating it is
Unknown, while what does not depend on order (len, `in`, sorted, sum, min, max, any, all)
still reads its items.
"""
from __future__ import annotations

from . import shapes as S
from .shapes import UNKNOWN
from .values import ListVal

_SMALLEST_TABLE = 8  # slots of CPython's smallest set table (PySet_MINSIZE)


def is_set(v) -> bool:
    return isinstance(v, ListVal) and v.kind == "set" and not getattr(v, "unknown", False)


def _plain(x) -> bool:
    return isinstance(x, (int, float, str)) and not isinstance(x, S.Expr)


def make(items):
    """The set of `items`, or Unknown when equal items cannot be told apart (symbols)."""
    if items is None or not all(_plain(x) for x in items):
        return UNKNOWN
    out: list = []
    for x in items:
        if x not in out:  # Python's equality: 1, 1.0 and True are one item, the first kept
            out.append(x)
    return ListVal(out, "set")


def iteration_order(v: ListVal) -> list | None:
    """The items in the order a `for` loop meets them, or None when that is not known."""
    if all(isinstance(x, int) and not isinstance(x, S.Expr) and 0 <= x < _SMALLEST_TABLE for x in v.items):
        return sorted(v.items, key=int)
    return None


def items_in_any_order(engine, v) -> list | None:
    """The items of an iterable for a use that ignores their order."""
    if is_set(v):
        return list(v.items)
    return engine.iterate(None, v)


def binary_op(op: str, a, b):
    """`a - b`, `a | b`, `a & b`, `a ^ b` of two sets of plain items; None when not that."""
    if op not in ("-", "|", "&", "^") or not (is_set(a) and is_set(b)):
        return None
    if not all(_plain(x) for x in a.items + b.items):
        return UNKNOWN
    if op == "-":
        return ListVal([x for x in a.items if x not in b.items], "set")
    if op == "&":
        return ListVal([x for x in a.items if x in b.items], "set")
    if op == "|":
        return make(a.items + b.items)
    return ListVal([x for x in a.items if x not in b.items] + [x for x in b.items if x not in a.items], "set")


_OPERATOR_OF = {"union": "|", "intersection": "&", "difference": "-", "symmetric_difference": "^"}


def method(engine, obj: ListVal, name: str, args: list):
    """A method of a set (`pruned.union(heads)`, `s.add(i)`); None when not one modelled
    here (the caller then says Unknown)."""
    if name in _OPERATOR_OF:
        out = obj
        for other in args:  # (`a.union(b, c)`: any iterables, made sets first)
            other = make(items_in_any_order(engine, other))
            if out is UNKNOWN or other is UNKNOWN:
                return UNKNOWN
            out = binary_op(_OPERATOR_OF[name], out, other)
        return ListVal(list(out.items), "set") if out is obj else out
    if name in ("issubset", "issuperset", "isdisjoint") and len(args) == 1:
        other = make(items_in_any_order(engine, args[0]))
        if other is UNKNOWN or not is_set(obj) or not all(_plain(x) for x in obj.items):
            return UNKNOWN
        mine, theirs = set(obj.items), set(other.items)
        return {"issubset": mine <= theirs, "issuperset": mine >= theirs, "isdisjoint": not mine & theirs}[name]
    if name in ("add", "discard", "update"):
        engine._mutated(obj)
        items = [args[0]] if name != "update" else items_in_any_order(engine, args[0]) if args else []
        if items is None or not all(_plain(x) for x in items + obj.items):
            obj.unknown = True
            return None
        if name == "discard":
            obj.items[:] = [x for x in obj.items if x not in items]
        else:
            obj.items[:] = make(obj.items + items).items
        return None
    return None
