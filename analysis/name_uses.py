"""How a unit's body uses its plain names, for guessing what a parameter nobody passes holds.

A model that nobody builds gets symbols for its constructor parameters (generic.py), and a
symbol is a number. Some parameters are not: a block class (`block(inplanes, planes)`,
`block.expansion`: block_params.py) or a sequence of sizes (`len(categories)`,
`for h in hidden_dims`, `layers[0]`). The body says which, and one walk per unit digest
records it (units are immutable by digest).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ir
from .ircodec import FIELDS

# Builtins whose one argument is an iterable: `len(categories)`, `sum(categories)`.
_ITERABLE_BUILTINS = frozenset({"len", "list", "tuple", "sum", "sorted", "enumerate", "zip", "set",
                                "iter", "reversed", "any", "all", "map", "filter"})


@dataclass
class NameUse:
    called: bool = False  # `block(...)`
    attrs: set = field(default_factory=set)  # attributes read: `block.expansion`
    indexed: bool = False  # `layers[0]`
    iterated: bool = False  # `for h in dims`, `len(dims)`, `zip(dims, ...)`, `*dims`, `x in dims`
    # Used where a number or a flag goes, or rebound: `dim * 2`, `dim > 0`, `isinstance(v,
    # tuple)`, `dims = ...` (the name then holds something else).
    scalar: bool = False
    asserted_class: object = None  # the class node of `assert isinstance(net, SirenNet)`
    tested: bool = False  # in the test of an `if` (or of `a if t else b`): `if return_loss:`
    passed_to: set = field(default_factory=set)  # plain names of the functions it is passed to
    asserted: bool = False  # in the test of an `assert`: `assert not (cross and context is None)`
    rounded: bool = False  # inside what int() / round() / math.ceil / math.floor is given: `int(256 * width)`


def nodes(root):
    """Every IR node under `root`."""
    stack = [root]
    while stack:
        v = stack.pop()
        if type(v) is tuple:
            stack.extend(v)
            continue
        names = FIELDS.get(type(v))
        if names is None:
            continue
        yield v
        stack.extend(getattr(v, n) for n in names)


_CACHE: dict = {}  # unit digest -> {name: NameUse}
_CACHE_CAP = 4096


def name_uses(unit) -> dict:
    """{name: NameUse} for the plain names of a unit's body."""
    found = _CACHE.get(unit.digest)
    if found is not None:
        return found
    found = {}

    def use(node):
        return found.setdefault(node.id, NameUse()) if type(node) is ir.Name else None

    for n in nodes(unit.body):
        t = type(n)
        if t is ir.Call:
            if (u := use(n.func)) is not None:
                u.called = True
            func = n.func.id if type(n.func) is ir.Name else None
            for a in n.args:
                if (u := use(a.value)) is None:
                    continue
                if func is not None:
                    u.passed_to.add(func)
                elif type(n.func) is ir.Attr and _root_name(n.func) == "self":
                    u.passed_to.add("self")  # `self.attn(x, mask=mask)`: to a part of the model
                elif type(n.func) is not ir.Attr:
                    u.passed_to.add("")  # to a value called (`fns[i](x, mask)`)
                if a.star == 1 or (func in _ITERABLE_BUILTINS and not a.name):
                    u.iterated = True
                elif func in ("isinstance", "type", "int", "float", "range"):
                    u.scalar = True
            if _rounding_call(n.func):
                for a in n.args:
                    for m in nodes(a.value):
                        if (u := use(m)) is not None:
                            u.rounded = True
        elif t is ir.Attr:
            if (u := use(n.obj)) is not None:
                u.attrs.add(n.name)
        elif t is ir.Subscript:
            if (u := use(n.obj)) is not None:
                u.indexed = True
        elif t is ir.For:
            if (u := use(n.iter)) is not None:
                u.iterated = True
        elif t is ir.Comprehension:
            for _, it, _ in n.generators:
                if (u := use(it)) is not None:
                    u.iterated = True
        elif t is ir.Starred:
            if (u := use(n.value)) is not None:
                u.iterated = True
        elif t in (ir.BinOp, ir.UnaryOp):
            for side in ((n.left, n.right) if t is ir.BinOp else (n.operand,)):
                if (u := use(side)) is not None:
                    u.scalar = True
        elif t is ir.OpChain:
            for side in (n.first, *n.rest):
                if (u := use(side)) is not None:
                    u.scalar = True
        elif t is ir.Compare:
            sides = (n.left, *n.comparators)
            for i, side in enumerate(sides):
                if (u := use(side)) is None:
                    continue
                # `k in dims`: a sequence; any other comparison: a number (or a flag)
                if i >= 1 and n.ops[i - 1] in ("in", "not in"):
                    u.iterated = True
                elif not (i == 0 and all(op in ("in", "not in", "is", "is not") for op in n.ops)):
                    u.scalar = True
        elif t is ir.Assert and type(n.test) is ir.Call and type(n.test.func) is ir.Name and \
                n.test.func.id == "isinstance" and len(n.test.args) == 2 and \
                not any(a.name or a.star for a in n.test.args) and type(n.test.args[1].value) in (ir.Name, ir.Attr):
            if (u := use(n.test.args[0].value)) is not None:
                u.asserted_class = n.test.args[1].value
        elif t in (ir.If, ir.IfExp):
            for m in nodes(n.test):
                if (u := use(m)) is not None:
                    u.tested = True
        if t is ir.Assert:
            for m in nodes(n.test):
                if (u := use(m)) is not None:
                    u.asserted = True
        elif t in (ir.Assign, ir.AugAssign, ir.AnnAssign):
            for target in (n.targets if t is ir.Assign else (n.target,)):
                for m in nodes(target):
                    if (u := use(m)) is not None:
                        u.scalar = True  # rebound: what it holds afterwards is not the parameter
    if len(_CACHE) >= _CACHE_CAP:
        _CACHE.clear()
    _CACHE[unit.digest] = found
    return found


_ROUNDING = frozenset({"int", "round", "math.ceil", "math.floor", "ceil", "floor"})


def _rounding_call(func) -> bool:
    if type(func) is ir.Name:
        return func.id in _ROUNDING
    return type(func) is ir.Attr and type(func.obj) is ir.Name and f"{func.obj.id}.{func.name}" in _ROUNDING


def rounded_parameter(unit, name: str) -> bool:
    """Is `name` part of what the body rounds to an int (`int(in_channels * width)`,
    `round(3 * depth)`)? A float default of such a parameter scales sizes."""
    u = name_uses(unit).get(name)
    return u is not None and u.rounded


def _root_name(node):
    while type(node) is ir.Attr:
        node = node.obj
    return node.id if type(node) is ir.Name else None


def sequence_parameter(unit, name: str) -> bool:
    """Does the body use `name` only as a sequence (iterated or indexed), never called, read
    an attribute of, or used as a number, a flag or a target?"""
    u = name_uses(unit).get(name)
    return u is not None and (u.iterated or u.indexed) and not (u.called or u.attrs or u.scalar)


def used_as_no_number(unit, name: str) -> bool:
    """Does the body use `name` as something a number is not: iterated, indexed, called, or
    an attribute read (`len(in_degrees)`, even if it is also compared)?"""
    u = name_uses(unit).get(name)
    return u is not None and (u.iterated or u.indexed or u.called or bool(u.attrs))


def number_parameters(unit) -> frozenset:
    """The names a unit uses as numbers only (`2 * rel_pos_length - 1`): a constructor's None
    default of one is given as a size (its symbol); a tensor or a layer passed in
    (`custom_freqs=None`, then `freqs = custom_freqs`) is not."""
    declared = {p.name for p in getattr(unit, "params", ()) if _int_annotation(p.annotation)}
    return frozenset(name for name, use in name_uses(unit).items()
                     if (use.scalar or name in declared) and not (use.called or use.attrs or use.indexed or use.iterated))


def _int_annotation(node) -> bool:
    """`int`, `Optional[int]`, `int | None` (a parameter declared a number)."""
    if isinstance(node, ir.Name):
        return node.id == "int"
    if isinstance(node, ir.Subscript) and isinstance(node.obj, (ir.Name, ir.Attr)):
        head = node.obj.id if isinstance(node.obj, ir.Name) else node.obj.name
        return head == "Optional" and _int_annotation(node.index)
    if isinstance(node, ir.BinOp) and node.op == "|":
        sides = (node.left, node.right)
        return any(_int_annotation(x) for x in sides) and \
            all(_int_annotation(x) or (isinstance(x, ir.Const) and x.value is None) for x in sides)
    return False
