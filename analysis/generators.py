"""Generator functions: a def whose body yields (`for ind in range(length): yield t[ind]`).

Calling one runs its body at once and collects what it yields, in order, into an iterator
value (pybuiltins.IteratorVal): `next(it)` takes the first item left, a `for` loop or
`list(...)` takes them all. A `yield` inside a loop of unknown trip count makes the count
unknown: the iterator then holds items that all look like the join of those yielded.
What `yield` itself evaluates to (a value sent in) is None: nothing is ever sent.
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict

from . import ir
from .lower import YIELD
from .shapes import UNKNOWN

_IS_GENERATOR: OrderedDict = OrderedDict()  # (path, unit key, digest) -> bool
_CACHE_SIZE = 4096


def is_yield(node) -> bool:
    return isinstance(node, ir.Call) and isinstance(node.func, ir.Name) and node.func.id == YIELD


def is_generator(path: str, unit) -> bool:
    """Does the def's own body (not a def nested in it) hold a `yield`?"""
    key = (path, unit.key, unit.digest)
    hit = _IS_GENERATOR.get(key)
    if hit is None:
        hit = _IS_GENERATOR[key] = any(_has_yield(s) for s in unit.body)
        if len(_IS_GENERATOR) > _CACHE_SIZE:
            _IS_GENERATOR.popitem(last=False)
    return hit


_FIELDS: dict = {}  # IR class -> the names of its fields (dataclasses.fields is slow)


def _has_yield(node) -> bool:
    kind = type(node)
    if kind is tuple or kind is list or isinstance(node, (tuple, list)):
        return any(_has_yield(x) for x in node)
    if is_yield(node):
        return True
    if kind is ir.FuncDef or kind is ir.ClassDef:
        return False  # their bodies are units of their own
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(node)) \
            if dataclasses.is_dataclass(node) and not isinstance(node, type) else ()
    return any(_has_yield(getattr(node, n)) for n in names)


def record_yield(engine, frame, node, env):
    """Evaluate a `yield` (its value, or the items of `yield from`) into the frame's yields."""
    if not node.args:
        value, items = None, [None]
    else:
        arg = node.args[0]
        value = engine.eval(frame, arg.value, env)
        items = engine.iterate(frame, value) if arg.star else [value]
    if frame.yields is None:
        return None  # (a yield outside a def's own body: a lambda's)
    if items is None or frame.unknown_loops:
        frame.yields_unknown = True
    if items is None:
        items = [getattr(value, "element", None) or UNKNOWN]
    frame.yields.extend(items)
    return None


def result(engine, frame):
    """The iterator a generator's call returns, made by that call (`next` consumes it: a
    second call must not get the same one, memo.py's rule for objects a call made)."""
    from .pybuiltins import IteratorVal
    items = frame.yields or []
    it = IteratorVal(items)
    if getattr(frame, "yields_unknown", False):
        it = IteratorVal([])
        it.unknown = True
        it.element = engine._join_all(items) if items else None
    it.origin = frame.entry
    return it
