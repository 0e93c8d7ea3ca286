"""Heap writes in the two ways of an `if` whose test is not known.

Locals are joined where the two ways meet (`join_env`), but `self.conv1 = ...` or
`layers.append(...)` write to objects both ways share: without care, the way run last wins
(`if deep_stem: self.conv1 = nn.Sequential(...) else: self.conv1 = nn.Conv2d(3, 64, 7)` left
the Conv2d only, a shape the deep-stem model does not have). So each way starts from the heap
as it was before the `if`, and where they meet every object either way wrote holds the join of
the two states (two modules become one of two, lists of another length become unknown).
"""
from __future__ import annotations

from . import values
from .values import Container, DictOptions, DictVal, Instance, ListVal, NNModule

_LIST_ATTRS = ("unknown", "element", "prefix")


def state(obj):
    """What a write may change in `obj`, as a copy."""
    if isinstance(obj, (Instance, NNModule)):
        return ("attrs", dict(obj.attrs), frozenset(getattr(obj, "maybe_absent", ())))
    if isinstance(obj, (ListVal, Container)):
        keys = list(obj.keys) if isinstance(obj, Container) and obj.keys is not None else None
        return ("items", list(obj.items), keys, {a: getattr(obj, a) for a in _LIST_ATTRS if hasattr(obj, a)})
    if isinstance(obj, DictVal):
        return ("dict", dict(obj.items), getattr(obj, "unknown", False),
                obj.options if isinstance(obj, DictOptions) else None)
    return None


def restore(obj, st) -> None:
    if st is None:
        return
    if st[0] == "attrs":
        obj.attrs.clear()
        obj.attrs.update(st[1])
        if st[2] or getattr(obj, "maybe_absent", None):
            obj.maybe_absent = st[2]
    elif st[0] == "items":
        obj.items[:] = st[1]
        if isinstance(obj, Container):
            obj.keys = None if st[2] is None else list(st[2])
        for a in _LIST_ATTRS:
            if a in st[3]:
                setattr(obj, a, st[3][a])
            elif a in obj.__dict__:
                delattr(obj, a)
    elif st[0] == "dict":
        obj.items.clear()
        obj.items.update(st[1])
        obj.unknown = st[2]
        # A dict the two ways filled with other keys is one of the two (DictOptions: a
        # Sequential of it is one of two Sequentials), the same object for its readers.
        if st[3] is not None:
            obj.__class__ = DictOptions
            obj.options = st[3]
        elif type(obj) is DictOptions:
            obj.__class__ = DictVal
            del obj.options
    values.changed(obj)


def joined(engine, obj, a, b):
    """The state where the two ways meet, from the state each way left."""
    if a is None or b is None or a[0] != b[0]:
        return b
    if a[0] == "attrs":
        out = dict(a[1])
        for k, v in b[1].items():
            out[k] = engine.join(a[1][k], v) if k in a[1] else v
        # An attribute only one way set (`if rep: self.pre_logits = ...`) may be absent:
        # `hasattr(self, "pre_logits")` is not known after the `if`.
        return ("attrs", out, a[2] | b[2] | (a[1].keys() ^ b[1].keys()))
    if a[0] == "items":
        same = (len(a[1]) == len(b[1]) and a[2] == b[2] and a[3] == b[3])
        if same:
            return ("items", [engine.join(x, y) for x, y in zip(a[1], b[1])], a[2], a[3])
        # Another number of items (`if has_local: out.append(local_out)`): how many is not
        # known; each is like every item either way made (their join), as a loop's are.
        return ("items", [], None if a[2] is None else [],
                {"unknown": True, "element": _element(engine, a, b) if isinstance(obj, ListVal) else None,
                 "prefix": 0})
    if a[1].keys() == b[1].keys() and not a[2] and not b[2]:
        return ("dict", {k: engine.join(v, b[1][k]) for k, v in a[1].items()}, False, None)
    either = values.dict_options([_dict_of(a), _dict_of(b)])
    if isinstance(either, DictOptions):
        return ("dict", {}, True, either.options)
    return ("dict", {}, True, None)


def _dict_of(st):
    """A dict value with the state `st`."""
    if st[3] is not None:
        return DictOptions(st[3])
    d = DictVal(st[1])
    if st[2]:
        d.unknown = True
    return d


def _element(engine, a, b):
    """The join of the items of two list states, or None (not known)."""
    items = []
    for st in (a, b):
        if st[3].get("unknown"):
            element = st[3].get("element")
            if element is None:
                return None
            items += [element] + st[1][:st[3].get("prefix", 0)]
        else:
            items += st[1]
    return values.join_alike(engine, items) if items else None


class BranchWrites:
    """Objects written by one way of an undecided `if`, with their state before it. An
    object made inside the way (a newer `oid`) is that way's own: it is left as it is."""

    def __init__(self):
        self.before: dict = {}  # id -> (object, state before the first write)
        self.start = values.Obj().oid  # objects made from here on are newer

    def note(self, obj) -> None:
        if id(obj) not in self.before and getattr(obj, "oid", self.start) < self.start:
            self.before[id(obj)] = (obj, state(obj))


def _run_way(engine, run):
    """One way, with the objects it writes noted (and their state before it)."""
    writes = BranchWrites()
    engine._branch_writes.append(writes)
    try:
        return run(), writes
    finally:
        engine._branch_writes.pop()


def run_both_ways(engine, run_a, run_b):
    """Run the two ways (each a zero-argument callable returning its env or None) on the
    same heap, then leave every object either wrote in the joined state."""
    a, wa = _run_way(engine, run_a)
    after_a = {k: state(obj) for k, (obj, _) in wa.before.items()}
    for obj, before in wa.before.values():
        restore(obj, before)  # the other way starts from the heap as it was
    b, wb = _run_way(engine, run_b)
    if a is None and b is None:
        return a, b
    for k in set(wa.before) | set(wb.before):
        obj, before = wa.before[k] if k in wa.before else wb.before[k]
        end_a, end_b = after_a.get(k, before), state(obj)
        if a is None:
            final = end_b
        elif b is None:
            final = end_a
        else:
            final = joined(engine, obj, end_a, end_b)
        restore(obj, final)
    return a, b
