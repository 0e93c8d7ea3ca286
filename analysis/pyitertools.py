"""itertools over values the analysis knows: zip_longest, combinations, permutations,
product, chain (and chain.from_iterable), islice, accumulate, repeat.

Model code pairs feature fields with `itertools.combinations(embeds, 2)` (recommenders) and
walks memories with `zip_longest(past, new, layers)`; each builds a tuple of known items
here, so the loop over it runs with them. An iterable whose items are not known gives
Unknown (the loop then runs as over anything unknown); results past limits.MAX_ITEMS items
are Unknown too (pybuiltins.call_builtin).
"""
from __future__ import annotations

import itertools

from . import shapes as S
from .shapes import UNKNOWN
from .values import ListVal

_MAX_ITEMS = 4096  # combinations of a long list explode: past this, Unknown


def _items(engine, v):
    return engine.iterate(None, v)


def _tuples(groups) -> ListVal:
    return ListVal([ListVal(list(g), "tuple") for g in groups], "tuple")


def _plain_int(v) -> bool:
    return type(v) is int


def _bounded(n) -> bool:
    return n <= _MAX_ITEMS


def zip_longest(engine, args, kwargs, site):
    lists = [_items(engine, a) for a in args]
    if any(x is None for x in lists) or set(kwargs) - {"fillvalue"}:
        return UNKNOWN
    fill = kwargs.get("fillvalue")
    return _tuples(itertools.zip_longest(*lists, fillvalue=fill))


def combinations(engine, args, kwargs, site):
    items = _items(engine, args[0]) if args else None
    r = args[1] if len(args) > 1 else kwargs.get("r")
    if items is None or not _plain_int(r) or r < 0 or not _bounded(len(items) ** min(r, 8)):
        return UNKNOWN
    return _tuples(itertools.combinations(items, r))


def permutations(engine, args, kwargs, site):
    items = _items(engine, args[0]) if args else None
    r = args[1] if len(args) > 1 else kwargs.get("r", len(items) if items is not None else None)
    if items is None or not _plain_int(r) or r < 0 or not _bounded(len(items) ** min(r, 8)):
        return UNKNOWN
    return _tuples(itertools.permutations(items, r))


def product(engine, args, kwargs, site):
    lists = [_items(engine, a) for a in args]
    repeat = kwargs.get("repeat", 1)
    if any(x is None for x in lists) or not _plain_int(repeat) or repeat < 0:
        return UNKNOWN
    total = 1
    for x in lists:
        total *= len(x)
    if not _bounded(total ** repeat if total else 0):
        return UNKNOWN
    return _tuples(itertools.product(*lists, repeat=repeat))


def chain(engine, args, kwargs, site):
    lists = [_items(engine, a) for a in args]
    if any(x is None for x in lists):
        return UNKNOWN
    return ListVal([x for items in lists for x in items], "tuple")


def chain_from_iterable(engine, args, kwargs, site):
    outer = _items(engine, args[0]) if len(args) == 1 else None
    return UNKNOWN if outer is None else chain(engine, outer, {}, site)


def islice(engine, args, kwargs, site):
    items = _items(engine, args[0]) if args else None
    bounds = args[1:]
    if items is None or not 1 <= len(bounds) <= 3 or not all(b is None or _plain_int(b) for b in bounds):
        return UNKNOWN
    return ListVal(list(itertools.islice(items, *bounds)), "tuple")


def accumulate(engine, args, kwargs, site):
    """Running sums (the default): of ints and dims, like offsets of channel groups."""
    items = _items(engine, args[0]) if len(args) == 1 else None
    if items is None or set(kwargs) - {"initial"}:
        return UNKNOWN
    out = [kwargs["initial"]] if kwargs.get("initial") is not None else []
    total = out[0] if out else None
    for x in items:
        if not (isinstance(x, int) and not isinstance(x, bool)):
            return UNKNOWN
        total = x if total is None else S.add(total, x)
        out.append(total)
    return ListVal(out, "tuple")


def repeat(engine, args, kwargs, site):
    times = args[1] if len(args) > 1 else kwargs.get("times")
    if not args or not _plain_int(times) or not 0 <= times <= _MAX_ITEMS:
        return UNKNOWN  # (endless without a count)
    return ListVal([args[0]] * times, "tuple")


TABLE = {
    "itertools.zip_longest": zip_longest, "itertools.combinations": combinations,
    "itertools.permutations": permutations, "itertools.product": product, "itertools.chain": chain,
    "itertools.chain.from_iterable": chain_from_iterable, "itertools.islice": islice,
    "itertools.accumulate": accumulate, "itertools.repeat": repeat,
}
