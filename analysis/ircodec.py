"""The IR as JSON, for the disk cache (analysis.diskcache).

An IR value is JSON: str, int, float, bool and None as themselves; every other value is a
list whose first item says what it is: a tuple, Ellipsis, a complex, or an IR class (by
its index in the sorted table of analysis.ir's node classes). Decoding rebuilds a value only
through that table, checking each class's field count and node id, so a file that is not
what `encode` wrote gives CorruptEntry, never an object of another kind.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from . import ir, lower

_TUPLE, _ELLIPSIS, _COMPLEX = 0, 1, 2
_FIRST_CLASS = 8
CLASSES = tuple(sorted((c for c in vars(ir).values()
                        if isinstance(c, type) and is_dataclass(c) and c.__module__ == ir.__name__
                        and c is not ir.Unit), key=lambda c: c.__name__))
_TAG = {c: i + _FIRST_CLASS for i, c in enumerate(CLASSES)}
FIELDS = {c: tuple(f.name for f in fields(c)) for c in CLASSES}
_PLAIN = (str, int, float, bool, type(None))
_CLASS_AT = (None,) * _FIRST_CLASS + CLASSES  # tag -> IR class
_ARITY = (0,) * _FIRST_CLASS + tuple(len(FIELDS[c]) + 1 for c in CLASSES)
_HAS_NID = (False,) * _FIRST_CLASS + tuple(FIELDS[c][:1] == ("nid",) for c in CLASSES)


class CorruptEntry(ValueError):
    """An entry that is not what this version writes."""


def encode(value):
    t = type(value)
    if t is tuple:
        return [_TUPLE, *[encode(v) for v in value]]
    tag = _TAG.get(t)
    if tag is not None:
        return [tag, *[encode(getattr(value, f)) for f in FIELDS[t]]]
    if t in _PLAIN:
        return value
    if value is Ellipsis:
        return [_ELLIPSIS]
    if t is complex:
        return [_COMPLEX, value.real, value.imag]
    raise TypeError(f"no encoding for {t.__name__}")


def decode(data):
    """An IR value from its JSON form; raises CorruptEntry on anything this module would not
    have written (a dict, an unknown tag, a wrong field count, a node id that is no int)."""
    if type(data) is not list:
        if type(data) in _PLAIN:
            return data
        raise CorruptEntry("not an IR value")
    tag = data[0] if data else None
    if type(tag) is not int:
        raise CorruptEntry("untagged list")
    # (JSON primitives are taken as they are, without a call: decoding is most of a restore)
    if tag == _TUPLE:
        return tuple([v if type(v) in _PLAIN else decode(v) for v in data[1:]])
    cls = _CLASS_AT[tag] if 0 <= tag < len(_CLASS_AT) else None
    if cls is not None:
        if len(data) != _ARITY[tag]:
            raise CorruptEntry(f"{cls.__name__} with {len(data) - 1} fields")
        args = [v if type(v) in _PLAIN else decode(v) for v in data[1:]]
        if _HAS_NID[tag] and type(args[0]) is not int:
            raise CorruptEntry("a node id that is not an int")
        if cls is ir.ClassDef:
            # The stored digest came from another process's hash(): make it this one's, as
            # lowering the class here would (analysis.lower.classdef).
            args[5] = lower._digest(tuple(args[:5]))
        try:
            return cls(*args)
        except TypeError as exc:
            raise CorruptEntry(str(exc)) from None
    if tag == _ELLIPSIS and len(data) == 1:
        return Ellipsis
    if tag == _COMPLEX and len(data) == 3 and all(type(x) in (int, float) for x in data[1:]):
        return complex(data[1], data[2])
    raise CorruptEntry(f"unknown tag {tag!r}")


def spans_out(spans: dict, delta: int) -> list:
    """A span table as a flat list (nid, line, col, line, col, ...), lines moved by delta."""
    out = []
    for nid, ((a, b), (c, d)) in spans.items():
        out += (nid, a + delta, b, c + delta, d)
    return out


def spans_in(flat) -> dict:
    if type(flat) is not list or len(flat) % 5 or not all(type(x) is int for x in flat):
        raise CorruptEntry("span table")
    it = iter(flat)
    return {nid: ((a, b), (c, d)) for nid, a, b, c, d in zip(it, it, it, it, it)}
