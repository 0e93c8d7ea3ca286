"""Library files parsed without their def bodies; a body is parsed when a call first reaches it.

A model file that imports `timm.layers` makes the engine read a dozen library modules, and
a call reaches a few defs of each: parsing every body (parso is most of a first open) is
wasted. So a library file is parsed as its *skeleton*: the same text with the body of
every def that starts below its header replaced by `pass` and blank lines (line numbers
unchanged; CPython's own parser, `ast`, finds the bodies in a few milliseconds). Module and
class statements, def headers, decorators and defaults are all there, so the file's top
level runs as before; each def's unit is a `LazyUnit` whose body is parsed and lowered from
the real text the first time the engine reads it. Workspace files are always parsed whole
(every def of them is analysed).
"""
from __future__ import annotations

import ast

from . import ir, lower
from .syntax import _parse


class LazyUnit(ir.Unit):
    """A function unit whose body, params, spans, digest and line shift are made the first
    time one of them is read, by `load()` -> (body, params, spans, digest, line_shift).
    `deferred`: (def line, last line) when its body was left out of a skeleton (the disk
    cache stores that to make it again), else None; `stub_params`: the params of its
    header; `nested`: the units of defs and lambdas inside the body, made with it and added
    to `file_units` (the file's units, set by whoever builds that dict)."""

    def __init__(self, key: str, anchor, load, deferred=None, stub_params=()):  # (not the dataclass __init__)
        self.key, self.kind, self.anchor = key, "function", anchor
        self.stamp = next(lower._STAMPS)
        self.deferred = deferred
        self.stub_params = stub_params
        self.nested: dict = {}
        self.file_units: dict | None = None
        self._load = load

    @property
    def loaded(self) -> bool:
        return "_load" not in self.__dict__

    def _get(self, name: str):
        d = self.__dict__
        if "_load" in d:
            load = d.pop("_load")
            try:
                d["_body"], d["_params"], d["_spans"], d["_digest"], d["_line_shift"] = load()
            except BaseException:
                d["_load"] = load
                raise
        return d[name]

    def _set(name):  # noqa: N805 - a helper of the class body
        def setter(self, value):
            self._get(name)
            self.__dict__[name] = value
        return setter

    body = property(lambda self: self._get("_body"), _set("_body"))
    params = property(lambda self: self._get("_params"), _set("_params"))
    spans = property(lambda self: self._get("_spans"), _set("_spans"))
    digest = property(lambda self: self._get("_digest"), _set("_digest"))
    line_shift = property(lambda self: self._get("_line_shift"), _set("_line_shift"))
    del _set


def skeleton(text: str):
    """(the skeleton text, {def line: its last line} of every def whose body it left out),
    or None when the file is not one to treat so (ast cannot parse it, unusual line ends)."""
    if "\r" in text or "\x0c" in text or "\x0b" in text or "\x1c" in text or "\x1d" in text \
            or "\x1e" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return None  # lines as ast and parso count them could differ: parse it whole
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.split("\n")
    deferred: dict = {}
    stack = list(ast.iter_child_nodes(tree))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0]
            b0, end = first.lineno, node.end_lineno
            head = lines[b0 - 1].encode("utf-8", "surrogatepass")[:first.col_offset]
            if b0 > node.lineno and end is not None and not head.strip():  # the body starts a line
                indent = lines[b0 - 1][:len(lines[b0 - 1]) - len(lines[b0 - 1].lstrip())]
                lines[b0 - 1] = indent + "pass"
                for k in range(b0, end):
                    lines[k] = ""
                deferred[node.lineno] = end
                continue  # defs inside it come with it
        stack.extend(ast.iter_child_nodes(node))
    if not deferred:
        return None
    return "\n".join(lines), deferred


def defer(units: dict, lines: list, deferred: dict) -> None:
    """Replace the units of the defs `skeleton` left out with LazyUnits that lower the real
    body from `lines` (the file's real text, line ends kept), in `units` (the lowering of
    the skeleton) and in their segments' lowerings."""
    for key, unit in list(units.items()):
        if unit.kind != "function" or unit.anchor is None or isinstance(unit, LazyUnit):
            continue
        header = unit.span(ir.HEADER_NID)
        end = deferred.get(header[0][0]) if header else None
        if end is not None:
            lazy = lazy_unit(key, unit.anchor, header[0][0], end, lines, unit.params)
            units[key] = lazy
            owner = unit.anchor.lowered
            if owner is not None and owner.fn_units.get(key) is unit:
                owner.fn_units[key] = lazy
    adopt(units)


def adopt(units: dict) -> None:
    """Point the deferred units of a file's units dict at it (a new dict is made whenever
    the file is lowered again), with the units their bodies made."""
    for unit in list(units.values()):
        if isinstance(unit, LazyUnit) and unit.deferred is not None:
            unit.file_units = units
            units.update(unit.nested)


def lazy_unit(key: str, anchor, line: int, end: int, lines: list, stub_params: tuple) -> LazyUnit:
    def load():
        return _lower_def(unit, line, end, lines)

    unit = LazyUnit(key, anchor, load, (line, end), stub_params)
    return unit


def _lower_def(unit: LazyUnit, line: int, end: int, lines: list) -> tuple:
    """Parse and lower one def from its lines (under `if 1:` when it is indented, which
    puts the parser where the def was: a block, after a complete statement)."""
    key, anchor = unit.key, unit.anchor
    region = lines[line - 1:end]
    indented = bool(region) and region[0][:1] in (" ", "\t")
    if indented:
        region = ["if 1:\n"] + region
    tree = _parse(region)
    node = tree.children[0]
    if indented:
        node = node.children[-1].children[1] if node.type == "if_stmt" and node.children[-1].type == "suite" else None
    if node is not None and node.type == "async_stmt":
        node = node.children[1]
    if node is None or node.type != "funcdef" or node.start_pos[0] != 1 + indented:
        return _opaque_body(unit)
    made: dict = {}
    lowerer = lower._Lowerer(made, {}, None, region + [""])  # (a def ends at the start of the line after it)
    lowerer.anchor = anchor
    try:
        lowerer.funcdef(node, key)
    except RecursionError:
        return _opaque_body(unit)
    shift = line - (1 + indented) - anchor.offset  # region line + this + anchor offset = file line
    for other, made_unit in made.items():
        if other != key:  # defs and lambdas nested in the body
            unit.nested[other] = lower._moved_unit(made_unit, shift, anchor)
    if unit.file_units is not None:
        for other, nested in unit.nested.items():
            unit.file_units.setdefault(other, nested)
    own = made[key]
    return own.body, own.params, own.spans, own.digest, shift


def _opaque_body(unit: LazyUnit) -> tuple:
    """A body we could not lower: its calls return Unknown (never a made-up None)."""
    body = (ir.Return(0, ir.Opaque(1, "unparsed library def")),)
    return body, unit.stub_params, {}, lower._digest((unit.key, body)), 0
