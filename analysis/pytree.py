"""torch.utils._pytree over values the analysis knows: tree_flatten, tree_unflatten,
tree_leaves, tree_map.

Residual wrappers hand a branch's output through `(out, *rest), spec = tree_flatten(out)`,
change the first leaf and rebuild it with `tree_unflatten((out, *rest), spec)`
(lucidrains' hyper-connections around every attention and feed-forward block). As in
torch 2.13: tuples, lists and dicts (by their keys) are nodes, anything else (None too)
is a leaf. A structure the analysis does not know (a list of unknown length, an Unknown)
gives Unknown.
"""
from __future__ import annotations

from .shapes import UNKNOWN
from .values import DictVal, ListVal


class TreeSpec:
    """The shape of a flattened structure: ("leaf",), (kind, children) for a list or tuple,
    ("dict", keys, children)."""

    def __init__(self, node):
        self.node = node

    def structural_key(self, key):
        return ("treespec", self.node)


_UNFLATTENABLE = object()


def _flatten(v, leaves: list):
    if isinstance(v, ListVal) and v.kind in ("list", "tuple") and type(v) is ListVal and not getattr(v, "unknown", False):
        children = _flatten_all(v.items, leaves)
        return _UNFLATTENABLE if children is _UNFLATTENABLE else (v.kind, children)
    if type(v) is DictVal:
        children = _flatten_all(v.items.values(), leaves)
        return _UNFLATTENABLE if children is _UNFLATTENABLE else ("dict", tuple(v.items), children)
    if v is UNKNOWN or getattr(v, "unknown", False) or isinstance(v, (ListVal, DictVal)):
        return _UNFLATTENABLE  # (a subclass or a structure not known: its leaves are not known)
    leaves.append(v)
    return ("leaf",)


def _flatten_all(items, leaves: list):
    children = []
    for x in items:
        c = _flatten(x, leaves)
        if c is _UNFLATTENABLE:
            return c
        children.append(c)
    return tuple(children)


def _build(node, leaves):
    """The structure of `node` with the next leaves of the iterator `leaves` (StopIteration
    when there are too few)."""
    kind = node[0]
    if kind == "leaf":
        return next(leaves)
    if kind == "dict":
        return DictVal({k: _build(c, leaves) for k, c in zip(node[1], node[2])})
    return ListVal([_build(c, leaves) for c in node[1]], kind)


def tree_flatten(engine, args, kwargs, site):
    if len(args) != 1 or kwargs:
        return UNKNOWN
    leaves: list = []
    node = _flatten(args[0], leaves)
    if node is _UNFLATTENABLE:
        return UNKNOWN
    return ListVal([ListVal(leaves, "list"), TreeSpec(node)], "tuple")


def tree_leaves(engine, args, kwargs, site):
    flat = tree_flatten(engine, args, kwargs, site)
    return flat.items[0] if isinstance(flat, ListVal) else UNKNOWN


def tree_unflatten(engine, args, kwargs, site):
    leaves = args[0] if args else kwargs.get("leaves")
    spec = args[1] if len(args) > 1 else kwargs.get("treespec")
    if not isinstance(spec, TreeSpec) or not isinstance(leaves, ListVal) or getattr(leaves, "unknown", False):
        return UNKNOWN
    items = iter(leaves.items)
    try:
        out = _build(spec.node, items)
    except StopIteration:
        return UNKNOWN  # (torch raises: the leaves do not fit the spec)
    return out if next(items, _UNFLATTENABLE) is _UNFLATTENABLE else UNKNOWN


def tree_map(engine, args, kwargs, site):
    if len(args) != 2 or kwargs:
        return UNKNOWN
    fn, tree = args
    leaves: list = []
    node = _flatten(tree, leaves)
    if node is _UNFLATTENABLE:
        return UNKNOWN
    mapped = [engine.call_value(fn, [leaf], {}, site) for leaf in leaves]
    return _build(node, iter(mapped))


TABLE = {}
for _module in ("torch.utils._pytree", "torch.utils.pytree"):
    TABLE.update({f"{_module}.tree_flatten": tree_flatten, f"{_module}.tree_unflatten": tree_unflatten,
                  f"{_module}.tree_leaves": tree_leaves, f"{_module}.tree_map": tree_map})
