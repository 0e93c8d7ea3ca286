"""The per-def intermediate representation: small frozen nodes, no positions inside.

Every node carries a `nid` (its index in the unit, assigned in source order, so the same
code always gets the same ids). Source spans live in a side table of the `Unit`, which
keeps them out of the hashed value: moving a def (a comment added above it) leaves its IR
and everything memoized on it valid.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Node:
    nid: int


HEADER_NID = -1  # the span of a def's name in its own unit's span table


# -- expressions ------------------------------------------------------------------------
@dataclass(frozen=True)
class Name(Node):
    id: str


@dataclass(frozen=True)
class Const(Node):
    value: Any  # int, float, str, bool, None, Ellipsis


@dataclass(frozen=True)
class Attr(Node):
    obj: Node
    name: str


@dataclass(frozen=True)
class Arg:
    value: Node
    name: str | None = None  # keyword name
    star: int = 0  # 1: *value, 2: **value


@dataclass(frozen=True)
class Call(Node):
    func: Node
    args: tuple  # of Arg


@dataclass(frozen=True)
class Subscript(Node):
    obj: Node
    index: Node


@dataclass(frozen=True)
class Slice(Node):
    lower: Node | None
    upper: Node | None
    step: Node | None


@dataclass(frozen=True)
class BinOp(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class OpChain(Node):
    """`a + b - c + ...` (two operators or more of one precedence, left-associated), flat:
    a chain of thousands of terms needs no deep recursion to lower, hash, compare, walk or
    evaluate. `nids[i]` is the id of the partial result after `ops[i]` (the last is `nid`;
    the others have no span, as the inner nodes of a nested BinOp had none)."""

    first: Node
    ops: tuple  # operator strings
    rest: tuple  # the right operand of each operator
    nids: tuple


@dataclass(frozen=True)
class UnaryOp(Node):
    op: str  # "-", "+", "~", "not"
    operand: Node


@dataclass(frozen=True)
class Compare(Node):
    left: Node
    ops: tuple  # "==", "<", "is", "is not", "in", "not in", ...
    comparators: tuple


@dataclass(frozen=True)
class BoolOp(Node):
    op: str  # "and" | "or"
    values: tuple


@dataclass(frozen=True)
class IfExp(Node):
    test: Node
    body: Node
    orelse: Node


@dataclass(frozen=True)
class TupleE(Node):
    elts: tuple


@dataclass(frozen=True)
class ListE(Node):
    elts: tuple


@dataclass(frozen=True)
class SetE(Node):
    elts: tuple


@dataclass(frozen=True)
class DictE(Node):
    items: tuple  # of (key Node | None for **, value Node)


@dataclass(frozen=True)
class Starred(Node):
    value: Node


@dataclass(frozen=True)
class Comprehension(Node):
    kind: str  # "list" | "set" | "dict" | "gen"
    elt: Node  # for dicts: a TupleE(key, value)
    generators: tuple  # of (target, iter, ifs)


@dataclass(frozen=True)
class Lambda(Node):
    params: tuple
    body: Node


@dataclass(frozen=True)
class FString(Node):
    """f"stage{i}": literal parts (str) and expression parts (Node), with format specs."""

    parts: tuple  # of str | (Node, conversion, format spec)


@dataclass(frozen=True)
class Opaque(Node):
    """Anything not modelled (f-strings, yield, await ...): evaluates to Unknown."""

    what: str = ""


# -- statements -------------------------------------------------------------------------
@dataclass(frozen=True)
class Assign(Node):
    targets: tuple
    value: Node
    shape_comment: str | None = None  # "[B, 3, H, W]" from `  # shape: [B, 3, H, W]`


@dataclass(frozen=True)
class AugAssign(Node):
    target: Node
    op: str
    value: Node


@dataclass(frozen=True)
class AnnAssign(Node):
    target: Node
    annotation: Node
    value: Node | None


@dataclass(frozen=True)
class ExprStmt(Node):
    value: Node


@dataclass(frozen=True)
class Return(Node):
    value: Node | None


@dataclass(frozen=True)
class If(Node):
    test: Node
    body: tuple
    orelse: tuple


@dataclass(frozen=True)
class For(Node):
    target: Node
    iter: Node
    body: tuple
    orelse: tuple


@dataclass(frozen=True)
class While(Node):
    test: Node
    body: tuple
    orelse: tuple


@dataclass(frozen=True)
class With(Node):
    items: tuple  # of (expr, target | None)
    body: tuple


@dataclass(frozen=True)
class Try(Node):
    body: tuple
    handlers: tuple  # of (type Node | None, name | None, body tuple)
    orelse: tuple
    finalbody: tuple


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "pos" | "vararg" | "kwonly" | "kwarg"
    default: Node | None = None
    annotation: Node | None = None


@dataclass(frozen=True)
class FuncDef(Node):
    """A def statement; its body is the separate unit `unit_key`."""

    name: str
    params: tuple
    decorators: tuple
    returns: Node | None
    unit_key: str  # qualified name of the unit holding the body


@dataclass(frozen=True)
class ClassDef(Node):
    name: str
    bases: tuple  # of Arg
    decorators: tuple
    body: tuple
    digest: str = ""  # content hash of the fields above: identifies the class's code


@dataclass(frozen=True)
class Assert(Node):
    test: Node
    msg: Node | None


@dataclass(frozen=True)
class Import(Node):
    names: tuple  # of (dotted module, asname | None)


@dataclass(frozen=True)
class ImportFrom(Node):
    module: str
    level: int
    names: tuple  # of (name, asname | None); ("*", None) for star


@dataclass(frozen=True)
class Delete(Node):
    """del a, b[i], c.d"""

    targets: tuple


@dataclass(frozen=True)
class Simple(Node):
    """pass / break / continue / raise / global ..."""

    kind: str


@dataclass
class Unit:
    """The lowered body of one def (or of the module's top level).

    `body` and `params` are the hashed part; `spans` maps nid -> (start, end), for results
    only (the source text of a node is read from the file at its span). Spans are in the lines of the parse they
    came from: `span()` adds `line_shift` (the def moved within its segment's parse) and the
    offset of the segment it belongs to (`anchor`, see analysis.syntax), so moving a def or
    a whole segment changes no table. The module's unit gets a table that looks each nid up
    in its own segment and returns file lines already.
    """

    key: str  # qualified name: "<module>", "Net.forward", "Net.forward.<locals>.helper"
    kind: str  # "module" | "function"
    body: tuple
    params: tuple = ()
    spans: Any = field(default_factory=dict)
    digest: str = ""  # content hash of body and params
    line_shift: int = 0  # lines to add to `spans` (the def moved since it was lowered)
    stamp: int = 0  # unique per lowering: identifies this span table
    anchor: Any = None  # the segment whose `offset` turns parse lines into file lines

    def shift(self) -> int:
        """Lines to add to the recorded spans to get file lines."""
        return self.line_shift + (self.anchor.offset if self.anchor is not None else 0)

    def span(self, nid):
        """The file span of node `nid`, or None."""
        return _moved(self.spans.get(nid), self.shift())


def _moved(span, shift):
    if span is None or not shift:
        return span
    (a, b), (c, d) = span
    return ((a + shift, b), (c + shift, d))
