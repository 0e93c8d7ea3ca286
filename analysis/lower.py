"""Lowering: parso trees -> per-def IR units.

Each def becomes its own `Unit` (keyed by qualified name), lowered from that def's source
text only, so an edit re-lowers just the defs whose text changed (`cache`). Anything the IR
does not model becomes `Opaque` (an expression) or is skipped (a statement); syntax errors
that parso recovered from lower to whatever parts are still well formed.
"""
from __future__ import annotations

import hashlib
import itertools

from . import ir
from .syntax import node_end

# The name a `yield` is lowered to a call of (no Python name can be spelled so).
YIELD = "<yield>"

_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", ">>=", "<<="}
_BINOPS = {"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"}


def lower_module(segments: list, cache: dict | None = None, log: list | None = None,
                 lines: list | None = None) -> dict:
    """All units of a parsed file: {"<module>": Unit, "Net.forward": Unit, ...}.

    `segments`: the file's top-level statements (analysis.syntax.Segment); `lines`: the text
    split with line ends kept, so sources are sliced from the text instead of rebuilt from
    the tree. A segment keeps its own lowering; only segments parsed anew are lowered again,
    and inside them only the defs whose text changed (`cache`)."""
    units: dict = {}
    _Lowerer(units, cache if cache is not None else {}, log, lines).module(segments)
    if cache is not None:
        _forget_gone(cache, units)
    return units


SPARE_LOWERINGS = 16  # lowerings of defs the file no longer has, kept for an undo


def _forget_gone(cache: dict, units: dict) -> None:
    """Drop the oldest cached lowerings of defs the file no longer has: each holds the
    parse of its def, and typing through a def's name makes a new key per keystroke (a
    session of random edits kept every old parse alive)."""
    extra = len(cache) - len(units) - SPARE_LOWERINGS
    if extra > 0:
        for key in [k for k in cache if k not in units][:extra]:
            del cache[key]


LOCAL_BITS = 20  # a module-level nid is (segment ident << LOCAL_BITS) + its index there


class _SegmentIR:
    """What one segment contributes to the module: its statements, their span and text
    tables, and the function units of its defs (anchored to the segment)."""

    __slots__ = ("skeleton", "ident", "base", "body", "spans", "fn_units", "stamp")

    def __init__(self, skeleton: bytes):
        self.skeleton = skeleton  # digest of the code the module's IR depends on
        self.ident = None  # (occurrence, salt) the base was made from
        self.base = 0
        self.body: tuple = ()
        self.spans: dict = {}
        self.fn_units: dict = {}
        self.stamp = 0  # unique per lowering: identifies the span and text tables


class _ModuleSpans:
    """The module unit's span table: each nid is looked up in its segment."""

    __slots__ = ("by_base",)

    def __init__(self, by_base: dict):
        self.by_base = by_base

    def get(self, nid, default=None):
        seg = self.by_base.get(nid >> LOCAL_BITS) if isinstance(nid, int) else None
        if seg is None:
            return default
        sp = seg.lowered.spans.get(nid)
        if sp is None:
            return default
        (a, b), (c, d) = sp
        return ((a + seg.offset, b), (c + seg.offset, d))


class _Lowerer:
    def __init__(self, units: dict, cache: dict, log, lines=None):
        self.units = units
        self.cache = cache
        self.log = log
        self.lines = lines
        self.off = 0  # file line = parse line + off, for the segment being lowered
        self.anchor = None  # that segment
        self.added: dict | None = None  # function units made while lowering a segment

    def source(self, node) -> str:
        """The node's code without its prefix, sliced from the text."""
        return self.slice(node.start_pos, node_end(node))

    def slice(self, start, end) -> str:
        (l1, c1), (l2, c2) = start, end
        l1 += self.off
        l2 += self.off
        if l1 == l2:
            return self.lines[l1 - 1][c1:c2]
        return self.lines[l1 - 1][c1:] + "".join(self.lines[l1:l2 - 1]) + self.lines[l2 - 1][:c2]

    # -- the module: one lowering per segment -------------------------------------------
    def module(self, segments):
        counts: dict = {}
        by_base: dict = {}
        body: list = []
        idents = []
        for seg in segments:
            low = seg.lowered
            if low is None:
                low = seg.lowered = _SegmentIR(self._skeleton(seg))
            k = counts.get(low.skeleton, 0)
            counts[low.skeleton] = k + 1
            salt = 0
            while True:
                base = low.base if low.ident == (k, salt) else _base(low.skeleton, k, salt)
                if base not in by_base:
                    break
                salt += 1  # two segments' idents collide (about 1 in 10^12): pick another
            if low.ident != (k, salt):
                self._lower_segment(seg, low, base, (k, salt))
            elif low.fn_units:
                self.units.update(low.fn_units)
            by_base[base] = seg
            body.extend(low.body)
            idents.append(low.skeleton + k.to_bytes(4, "little"))
        digest = hashlib.sha1(b"".join(idents)).hexdigest()
        self.units["<module>"] = ir.Unit("<module>", "module", tuple(body), (),
                                         _ModuleSpans(by_base), digest, 0, next(_STAMPS))

    def _lower_segment(self, seg, low: _SegmentIR, base: int, ident) -> None:
        self.off, self.anchor, self.added = seg.offset, seg, {}
        b = _UnitBuilder(self, "<module>", "", base << LOCAL_BITS)
        try:
            low.body = b.suite(seg.nodes)
        except RecursionError:
            low.body = ()
        low.base, low.ident, low.spans = base, ident, b.spans
        low.fn_units = self.added
        low.stamp = next(_STAMPS)
        self.added = None

    def _skeleton(self, seg) -> bytes:
        """A digest of the segment's code minus the bodies of its defs: the module's IR
        depends on nothing else (a def's body is its own unit), so editing inside a method
        keeps the module's digest, and with it every memoized result of the module."""
        self.off = seg.offset
        cuts = []
        stack = list(seg.nodes)
        while stack:
            n = stack.pop()
            if n.type == "funcdef":
                cuts.append((n.children[-1].start_pos, node_end(n.children[-1])))
            elif n.type in _HOLDS_DEFS:
                stack.extend(n.children)
        nodes = [n for n in seg.nodes if n.type != "endmarker"]
        if not nodes:
            return hashlib.blake2b(b"", digest_size=12).digest()
        cuts.sort()
        h = hashlib.blake2b(digest_size=12)
        at = nodes[0].start_pos
        for a, b in cuts:
            h.update(self.slice(at, a).encode("utf-8", "surrogatepass"))
            h.update(b"\0")
            at = b
        h.update(self.slice(at, node_end(nodes[-1])).encode("utf-8", "surrogatepass"))
        return h.digest()

    def _finish(self, b, key, body, params):
        self.units[key] = ir.Unit(key, "function", body, params, b.spans, _digest((body, params)),
                                  0, next(_STAMPS), self.anchor)

    def funcdef(self, node, key: str):
        """Lower a def's own unit (cached by its code) and its nested defs."""
        code = self.source(node)
        start = node.start_pos
        cached = self.cache.get(key)
        if cached is not None and cached[0] == code and cached[2][1] == start[1]:
            shift = start[0] - cached[2][0]
            # (a nested def's unit may itself have been moved when the def was lowered:
            # its own shift is kept, this def's added to it)
            units = {k: _moved_unit(u, u.line_shift + shift, self.anchor) for k, u in cached[1].items()}
        else:
            if self.log is not None:
                self.log.append(f"lower:{key}")
            before = len(self.units)
            b = _UnitBuilder(self, key, key + ".<locals>.")
            if node.type == "lambdef":  # a def whose body is `return <expr>`
                params = b.lambda_params(node)
                body = (ir.Return(b._id(node.children[-1]), b.expr(node.children[-1])),)
            else:
                params = b.params(node)
                name = node.children[1]  # where a hover shows the def's contract (ide)
                b.spans[ir.HEADER_NID] = (name.start_pos, node_end(name))
                body = b.suite(node.children[-1].children if node.children[-1].type == "suite" else [node.children[-1]])
            self._finish(b, key, body, params)
            # The keys this def added are the last ones inserted (a copy of every key per
            # def made lowering quadratic in the number of defs).
            units = {k: self.units[k] for k in itertools.islice(reversed(self.units), len(self.units) - before)}
            units[key] = self.units[key]
            self.cache[key] = (code, units, start)
        self.units.update(units)
        if self.added is not None:
            self.added.update(units)


# Nodes that can hold a def whose body is not part of the module's IR.
_HOLDS_DEFS = {"classdef", "decorated", "async_funcdef", "async_stmt", "suite", "if_stmt",
               "for_stmt", "while_stmt", "try_stmt", "with_stmt"}


def _digest(value) -> str:
    """A content hash of IR. IR nodes are frozen (hashable) dataclasses, so Python's own
    hash of the tree is one pass (7x faster than pickling it, which was a tenth of a cold
    analysis). Digests are only compared within this process (memo keys), where equal trees
    hash equally; two versions of a def sharing a 64-bit hash is negligibly likely."""
    return f"{hash(value) & 0xFFFFFFFFFFFFFFFF:016x}"


def _base(skeleton: bytes, k: int, salt: int) -> int:
    data = skeleton + k.to_bytes(4, "little") + salt.to_bytes(2, "little")
    return int.from_bytes(hashlib.blake2b(data, digest_size=5).digest(), "little")


def _moved_unit(u: ir.Unit, shift: int, anchor) -> ir.Unit:
    """The same unit at another place: O(1), the span table is shared."""
    return ir.Unit(u.key, u.kind, u.body, u.params, u.spans, u.digest,
                   shift, u.stamp, anchor)


class _UnitBuilder:
    """Lowers the statements of one unit, numbering nodes in source order."""

    def __init__(self, owner: _Lowerer, key: str, prefix: str, first_id: int = 0):
        self.owner = owner
        self.key = key
        self.prefix = prefix  # qualified-name prefix for defs found here
        self.next_id = first_id
        self.spans: dict = {}
        self.class_stack: list = []
        self.def_keys: dict = {}  # key -> how many defs of this unit took it

    def _id(self, node) -> int:
        nid = self.next_id
        self.next_id += 1
        if node is not None:
            self.spans[nid] = (node.start_pos, node_end(node))
        return nid

    # -- statements ---------------------------------------------------------------------
    def suite(self, children) -> tuple:
        out = []
        for child in children:
            out.extend(self.stmt(child))
        return tuple(out)

    def stmt(self, node) -> list:
        t = node.type
        try:
            if t == "simple_stmt":
                out = [s for c in node.children for s in self.small(c)]
                comment = _shape_comment(node)
                if comment and out and isinstance(out[-1], ir.Assign):
                    last = out[-1]
                    out[-1] = ir.Assign(last.nid, last.targets, last.value, comment)
                return out
            if t in ("newline", "endmarker", "operator", "keyword") or t == "error_leaf":
                return []
            if t == "suite":
                return list(self.suite(node.children))
            if t == "funcdef":
                return [self.funcdef(node, ())]
            if t == "classdef":
                return [self.classdef(node, ())]
            if t == "decorated":
                decos = node.children[0]
                deco_nodes = decos.children if decos.type == "decorators" else [decos]
                decorators = tuple(self.expr(d.children[1]) for d in deco_nodes)
                inner = node.children[1]
                if inner.type == "async_funcdef":
                    inner = inner.children[1]
                if inner.type == "funcdef":
                    return [self.funcdef(inner, decorators)]
                if inner.type == "classdef":
                    return [self.classdef(inner, decorators)]
                return []
            if t == "async_stmt":
                return self.stmt(node.children[1])
            if t == "if_stmt":
                return [self.if_stmt(node)]
            if t == "for_stmt":
                c = node.children
                orelse = self.block(c[c.index("else") + 2]) if "else" in [getattr(x, "value", None) for x in c] else ()
                return [ir.For(self._id(node), self.target(c[1]), self.expr(c[3]), self.block(c[5]), orelse)]
            if t == "while_stmt":
                c = node.children
                return [ir.While(self._id(node), self.expr(c[1]), self.block(c[3]), ())]
            if t == "with_stmt":
                items = []
                body = None
                for c in node.children[1:]:
                    if c.type == "with_item":
                        items.append((self.expr(c.children[0]), self.target(c.children[2])))
                    elif c.type == "operator" and c.value in (",", ":"):
                        continue
                    elif c.type in ("suite", "simple_stmt"):
                        body = c
                    elif c.type != "keyword":
                        items.append((self.expr(c), None))
                return [ir.With(self._id(node), tuple(items), self.block(body) if body is not None else ())]
            if t == "try_stmt":
                return [self.try_stmt(node)]
            if t == "error_node":
                return self.broken_assignment(node)
            return [s for s in self.small(node)]
        except _Skip:
            return []
        except (AttributeError, IndexError, TypeError, ValueError):
            # A shape of broken code the lowering does not expect: drop the statement
            # rather than the whole file.
            return []

    def broken_assignment(self, node) -> list:
        """`q = q.view(B, C // self.n _head)` does not parse, but it still reassigns q: its
        targets become Unknown, so that nothing is concluded from q's value before the line."""
        kids = node.children
        ops = [i for i, c in enumerate(kids) if c.type == "operator" and c.value in _ASSIGN_OPS]
        if not ops or ops[0] == 0:
            return []
        head = kids[:ops[0]]
        if not all(c.type in ("name", "testlist_star_expr", "exprlist", "atom", "power", "atom_expr", "star_expr")
                   or (c.type == "operator" and c.value == ",") for c in head):
            return []
        parts = tuple(self.target(c) for c in head if c.type != "operator")
        target = parts[0] if len(parts) == 1 else ir.TupleE(self._id(head[0]), parts)
        return [ir.Assign(self._id(node), (target,), ir.Opaque(self._id(kids[ops[0]]), "syntax error"))]

    def block(self, node) -> tuple:
        if node is None:
            return ()
        if node.type == "suite":
            return self.suite(node.children)
        return tuple(self.stmt(node))

    def if_stmt(self, node):
        c = node.children
        # if test : suite (elif test : suite)* (else : suite)?
        branches = []
        i = 0
        orelse = ()
        while i < len(c):
            kw = c[i].value
            if kw in ("if", "elif"):
                branches.append((c[i + 1], c[i + 3]))
                i += 4
            else:  # else
                orelse = self.block(c[i + 2])
                i += 3
        for test, suite in reversed(branches):
            orelse = (ir.If(self._id(test), self.expr(test), self.block(suite), orelse),)
        return orelse[0]

    def try_stmt(self, node):
        c = node.children
        body = self.block(c[2])
        handlers, orelse, final = [], (), ()
        i = 3
        while i < len(c):
            part = c[i]
            if part.type == "except_clause" or getattr(part, "value", None) == "except":
                exc_type, name = None, None
                if part.type == "except_clause":
                    kids = part.children
                    if len(kids) >= 2:
                        exc_type = self.expr(kids[1])
                    if len(kids) >= 4:
                        name = kids[3].value
                handlers.append((exc_type, name, self.block(c[i + 2])))
                i += 3
            elif part.value == "else":
                orelse = self.block(c[i + 2])
                i += 3
            elif part.value == "finally":
                final = self.block(c[i + 2])
                i += 3
            else:
                i += 1
        return ir.Try(self._id(node), body, tuple(handlers), orelse, final)

    def small(self, node) -> list:
        t = node.type
        if t in ("newline", "operator", "endmarker", "error_leaf", "error_node"):
            return []
        if t == "expr_stmt":
            return [self.expr_stmt(node)]
        if t == "return_stmt":
            value = self.expr(node.children[1]) if len(node.children) > 1 else None
            return [ir.Return(self._id(node), value)]
        if t == "keyword":
            if node.value in ("pass", "break", "continue"):
                return [ir.Simple(self._id(node), node.value)]
            if node.value == "return":  # a bare `return` is a keyword leaf, not a return_stmt
                return [ir.Return(self._id(node), None)]
            return []
        if t in ("pass_stmt", "break_stmt", "continue_stmt"):
            return [ir.Simple(self._id(node), t[:-5])]
        if t == "raise_stmt":
            return [ir.Simple(self._id(node), "raise")]
        if t == "assert_stmt":
            c = node.children
            return [ir.Assert(self._id(node), self.expr(c[1]), self.expr(c[3]) if len(c) > 3 else None)]
        if t == "import_name":
            names = []
            for path, alias in _import_name_parts(node):
                names.append((path, alias))
            return [ir.Import(self._id(node), tuple(names))]
        if t == "import_from":
            level = node.level
            module = ".".join(n.value for n in node.get_from_names())
            names = []
            if node.is_star_import():
                names.append(("*", None))
            else:
                for name, alias in node._as_name_tuples():
                    names.append((name.value, alias.value if alias is not None else None))
            return [ir.ImportFrom(self._id(node), module, level, tuple(names))]
        if t == "del_stmt":
            target = node.children[1]
            items = [c for c in target.children if c.type != "operator"] if target.type == "exprlist" else [target]
            return [ir.Delete(self._id(node), tuple(self.expr(x) for x in items))]
        if t in ("global_stmt", "nonlocal_stmt"):
            return [ir.Simple(self._id(node), t[:-5])]
        if t in ("funcdef", "classdef", "decorated", "if_stmt", "for_stmt", "while_stmt", "with_stmt", "try_stmt"):
            return self.stmt(node)
        # A bare expression statement.
        return [ir.ExprStmt(self._id(node), self.expr(node))]

    def expr_stmt(self, node):
        c = node.children
        if len(c) == 2 and c[1].type == "annassign":
            ann = c[1].children
            value = self.expr(ann[3]) if len(ann) > 3 else None
            return ir.AnnAssign(self._id(node), self.target(c[0]), self.expr(ann[1]), value)
        if len(c) == 3 and c[1].type == "operator" and c[1].value.endswith("=") and c[1].value != "=":
            return ir.AugAssign(self._id(node), self.target(c[0]), c[1].value[:-1], self.expr(c[2]))
        # a = b = value
        targets = tuple(self.target(x) for x in c[:-1:2])
        return ir.Assign(self._id(node), targets, self.expr(c[-1]))

    def params(self, funcdef) -> tuple:
        out = []
        kind_after_star = False
        for p in funcdef.get_params():
            name = p.name.value
            if p.star_count == 1:
                kind = "vararg"
                kind_after_star = True
            elif p.star_count == 2:
                kind = "kwarg"
            else:
                kind = "kwonly" if kind_after_star else "pos"
            default = self.expr(p.default) if p.default is not None else None
            ann = self.expr(p.annotation) if p.annotation is not None else None
            out.append(ir.Param(name, kind, default, ann))
        # A bare `*` (keyword-only marker) is not a param in parso; detect it.
        params_node = funcdef.children[2]
        seen_bare_star = False
        for ch in params_node.children:
            if ch.type == "operator" and ch.value == "*":
                seen_bare_star = True
            if ch.type == "param" and ch.children and getattr(ch.children[0], "value", None) == "*" and len(ch.children) <= 2 and ch.name is None:
                seen_bare_star = True
        if seen_bare_star:
            star_pos = None
            for ch in params_node.children:
                if ch.type == "operator" and ch.value == "*":
                    star_pos = ch.start_pos
            if star_pos is not None:
                out = [ir.Param(p.name, "kwonly" if p.kind == "pos" and _param_pos(funcdef, p.name) > star_pos else p.kind,
                                p.default, p.annotation) for p in out]
        return tuple(out)

    def funcdef(self, node, decorators):
        name = node.name.value
        key = self.prefix + ".".join(self.class_stack + [name])
        # A second def of the name in the same body (`if flex: def call(...) else: def
        # call(...)`, a property's setter): a unit of its own, or it would replace the first's
        n = self.def_keys[key] = self.def_keys.get(key, 0) + 1
        if n > 1:
            key = f"{key}#{n}"
        self.owner.funcdef(node, key)
        params = self.owner.units[key].params
        returns = None
        ann = node.annotation
        if ann is not None:
            returns = self.expr(ann)
        return ir.FuncDef(self._id(node.name), name, params, decorators, returns, key)

    def lambdef(self, node):
        """A lambda is lowered like a def (its own unit, named by its node id) and evaluates
        to the function, as `def` would bind it."""
        nid = self._id(node)
        key = self.prefix + ".".join(self.class_stack + [f"<lambda{nid}>"])
        self.owner.funcdef(node, key)
        return ir.FuncDef(nid, "<lambda>", self.owner.units[key].params, (), None, key)

    def lambda_params(self, node) -> tuple:
        out, after_star = [], False
        for ch in node.children[1:-2]:  # between `lambda` and `:`
            if ch.type == "operator" and ch.value == "*":
                after_star = True
            if ch.type != "param":
                continue
            kind = {1: "vararg", 2: "kwarg"}.get(ch.star_count, "kwonly" if after_star else "pos")
            after_star = after_star or ch.star_count == 1
            default = self.expr(ch.default) if ch.default is not None else None
            out.append(ir.Param(ch.name.value, kind, default, None))
        return tuple(out)

    def classdef(self, node, decorators):
        name = node.name.value
        bases = ()
        arglist = node.get_super_arglist()
        if arglist is not None:
            bases = self.arglist(arglist)
        nid = self._id(node.name)
        self.class_stack.append(name)
        try:
            suite = node.children[-1]
            body = self.block(suite)
        finally:
            self.class_stack.pop()
        return ir.ClassDef(nid, name, bases, decorators, body, _digest((nid, name, bases, decorators, body)))

    # -- targets --------------------------------------------------------------------------
    def target(self, node):
        t = node.type
        if t in ("testlist_star_expr", "exprlist", "testlist", "testlist_comp"):
            return ir.TupleE(self._id(node), tuple(self.target(x) for x in node.children[::2]))
        if t == "atom" and node.children[0].value in ("(", "["):
            if len(node.children) == 3:
                inner = node.children[1]
                if inner.type in ("testlist_comp", "testlist_star_expr", "exprlist"):
                    return ir.TupleE(self._id(node), tuple(self.target(x) for x in inner.children[::2]))
                return ir.TupleE(self._id(node), (self.target(inner),))
            return ir.TupleE(self._id(node), ())
        if t == "star_expr":
            return ir.Starred(self._id(node), self.target(node.children[1]))
        return self.expr(node)

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node):
        t = node.type
        if t == "name":
            return ir.Name(self._id(node), node.value)
        if t == "number":
            return ir.Const(self._id(node), _number(node.value))
        if t == "string":
            return ir.Const(self._id(node), _string(node))
        if t == "strings":
            nid = self._id(node)
            parts = []
            for s in node.children:
                if s.type == "string":
                    v = _string(s)
                    if not isinstance(v, str):
                        return ir.Opaque(nid, "bytes")
                    parts.append(v)
                elif s.type == "fstring":
                    parts.extend(self.fstring_parts(s))
                else:
                    return ir.Opaque(nid, "strings")
            if all(isinstance(p, str) for p in parts):
                return ir.Const(nid, "".join(parts))
            return ir.FString(nid, tuple(parts))
        if t == "fstring":
            nid = self._id(node)
            return ir.FString(nid, tuple(self.fstring_parts(node)))
        if t == "keyword":
            v = {"True": True, "False": False, "None": None}.get(node.value, _SENTINEL)
            if v is _SENTINEL:
                return ir.Opaque(self._id(node), node.value)
            return ir.Const(self._id(node), v)
        if t == "operator" and node.value == "...":
            return ir.Const(self._id(node), Ellipsis)
        if t == "atom":
            return self.atom(node)
        if t in ("atom_expr", "power"):
            return self.atom_expr(node)
        if t in ("arith_expr", "term", "shift_expr", "and_expr", "xor_expr", "expr"):
            c = node.children
            first = self.expr(c[0])
            ops, rest, nids = [], [], []
            for i in range(1, len(c), 2):
                rest.append(self.expr(c[i + 1]))
                ops.append(c[i].value)
                nids.append(self._id(node) if i == len(c) - 2 else self._id(None))
                if i < len(c) - 2:  # `a - b` of `a - b - c`: its own span, for its diagnostics
                    self.spans[nids[-1]] = (c[0].start_pos, node_end(c[i + 1]))
            if len(ops) == 1:
                return ir.BinOp(nids[0], ops[0], first, rest[0])
            # Flat, however long (ir.OpChain): a nested BinOp per operator would recurse
            # once per term everywhere the IR is hashed, compared or walked.
            return ir.OpChain(nids[-1], first, tuple(ops), tuple(rest), tuple(nids))
        if t == "factor":
            return ir.UnaryOp(self._id(node), node.children[0].value, self.expr(node.children[1]))
        if t == "not_test":
            return ir.UnaryOp(self._id(node), "not", self.expr(node.children[1]))
        if t in ("and_test", "or_test"):
            op = "and" if t == "and_test" else "or"
            return ir.BoolOp(self._id(node), op, tuple(self.expr(x) for x in node.children[::2]))
        if t == "comparison":
            c = node.children
            ops, comps = [], []
            for i in range(1, len(c), 2):
                o = c[i]
                ops.append(o.value if o.type in ("operator", "keyword") else " ".join(x.value for x in o.children))
                comps.append(self.expr(c[i + 1]))
            return ir.Compare(self._id(node), self.expr(c[0]), tuple(ops), tuple(comps))
        if t == "test":  # a if cond else b
            c = node.children
            return ir.IfExp(self._id(node), self.expr(c[2]), self.expr(c[0]), self.expr(c[4]))
        if t in ("testlist_star_expr", "testlist", "exprlist", "testlist_comp"):
            return ir.TupleE(self._id(node), tuple(self.expr(x) for x in node.children[::2]))
        if t == "star_expr":
            return ir.Starred(self._id(node), self.expr(node.children[1]))
        if t == "namedexpr_test":
            return self.expr(node.children[2])
        if t == "yield_expr":
            return self.yield_expr(node)
        if t == "lambdef":
            return self.lambdef(node)
        return ir.Opaque(self._id(node), t)

    def yield_expr(self, node):
        """`yield x` / `yield from xs`: a call of the marker YIELD (a def holding one is a
        generator: memo.call_user collects what it yields)."""
        c = node.children
        arg = c[1] if len(c) > 1 else None
        star = 0
        if arg is not None and arg.type == "yield_arg":  # `yield from xs`
            arg, star = arg.children[1], 1
        args = (ir.Arg(self.expr(arg), None, star),) if arg is not None else ()
        return ir.Call(self._id(node), ir.Name(self._id(c[0]), YIELD), args)

    def fstring_parts(self, node) -> list:
        parts = []
        for c in node.children:
            if c.type == "fstring_string":
                parts.append(c.value.replace("{{", "{").replace("}}", "}"))
            elif c.type == "fstring_expr":
                kids = c.children
                expr = self.expr(kids[1])
                conv, spec = "", ""
                for k in kids[2:]:
                    if k.type == "fstring_conversion":
                        conv = k.get_code(include_prefix=False)[1:]
                    elif k.type == "fstring_format_spec":
                        spec = k.get_code(include_prefix=False)[1:]
                parts.append((expr, conv, spec))
        return parts

    def atom(self, node):
        c = node.children
        first = c[0].value if c[0].type == "operator" else None
        if first == "(":
            if len(c) == 2:
                return ir.TupleE(self._id(node), ())
            inner = c[1]
            if inner.type == "testlist_comp":
                if _is_comp(inner):
                    return self.comprehension(node, "gen", inner)
                return ir.TupleE(self._id(node), tuple(self.expr(x) for x in inner.children[::2]))
            if inner.type == "yield_expr":
                return self.yield_expr(inner)
            return self.expr(inner)
        if first == "[":
            if len(c) == 2:
                return ir.ListE(self._id(node), ())
            inner = c[1]
            if inner.type == "testlist_comp":
                if _is_comp(inner):
                    return self.comprehension(node, "list", inner)
                return ir.ListE(self._id(node), tuple(self.expr(x) for x in inner.children[::2]))
            return ir.ListE(self._id(node), (self.expr(inner),))
        if first == "{":
            if len(c) == 2:
                return ir.DictE(self._id(node), ())
            inner = c[1]
            if inner.type == "dictorsetmaker":
                return self.dict_or_set(node, inner)
            return ir.SetE(self._id(node), (self.expr(inner),))
        if c[0].type in ("string", "fstring"):
            return self.expr(node.children[0]) if len(c) == 1 else ir.Opaque(self._id(node), "strings")
        return ir.Opaque(self._id(node), "atom")

    def dict_or_set(self, node, inner):
        c = inner.children
        if any(getattr(x, "type", "") in ("comp_for", "sync_comp_for") for x in c):
            if len(c) >= 4 and c[1].type == "operator" and c[1].value == ":":
                nid = self._id(node)
                elt = ir.TupleE(self._id(None), (self.expr(c[0]), self.expr(c[2])))
                return ir.Comprehension(nid, "dict", elt, self.comp_for(c[3]))
            return ir.Comprehension(self._id(node), "set", self.expr(c[0]), self.comp_for(c[1]))
        if len(c) >= 3 and c[1].type == "operator" and c[1].value == ":" or (c and c[0].type == "operator" and c[0].value == "**"):
            items = []
            i = 0
            while i < len(c):
                if c[i].type == "operator" and c[i].value == "**":
                    items.append((None, self.expr(c[i + 1])))
                    i += 3
                else:
                    items.append((self.expr(c[i]), self.expr(c[i + 2])))
                    i += 4
            return ir.DictE(self._id(node), tuple(items))
        return ir.SetE(self._id(node), tuple(self.expr(x) for x in c[::2]))

    def comprehension(self, node, kind, inner):
        nid = self._id(node)
        elt = self.expr(inner.children[0])
        return ir.Comprehension(nid, kind, elt, self.comp_for(inner.children[1]))

    def comp_for(self, node) -> tuple:
        gens = []
        cur = node
        while cur is not None:
            if cur.type == "comp_for":  # async wrapper
                cur = cur.children[-1] if cur.children[0].value == "async" else cur
            c = cur.children
            target = self.target(c[1])
            it = self.expr(c[3])
            ifs = []
            nxt = c[4] if len(c) > 4 else None
            while nxt is not None and nxt.type == "comp_if":
                ifs.append(self.expr(nxt.children[1]))
                nxt = nxt.children[2] if len(nxt.children) > 2 else None
            gens.append((target, it, tuple(ifs)))
            cur = nxt if nxt is not None and nxt.type in ("sync_comp_for", "comp_for") else None
        return tuple(gens)

    def atom_expr(self, node):
        c = list(node.children)
        if c[0].type == "keyword" and c[0].value == "await":
            return self.expr(c[1]) if len(c) == 2 else ir.Opaque(self._id(node), "await")
        if node.type == "power" or (len(c) >= 3 and c[-2].type == "operator" and c[-2].value == "**"):
            # power: base ** exponent (base may itself be an atom_expr)
            if len(c) == 3 and c[1].value == "**":
                return ir.BinOp(self._id(node), "**", self.expr(c[0]), self.expr(c[2]))
        value = self.expr(c[0])
        for i, trailer in enumerate(c[1:]):
            if trailer.type != "trailer":
                return ir.Opaque(self._id(node), "trailer")
            first = trailer.children[0].value
            if first == ".":
                nid = self._prefix_id(c, i + 1)
                value = ir.Attr(nid, value, trailer.children[1].value)
            elif first == "(":
                nid = self._prefix_id(c, i + 1)
                args = self.arglist(trailer.children[1]) if len(trailer.children) == 3 else ()
                value = ir.Call(nid, value, args)
            elif first == "[":
                nid = self._prefix_id(c, i + 1)
                value = ir.Subscript(nid, value, self.subscript(trailer.children[1]))
        return value

    def _prefix_id(self, children, upto: int) -> int:
        """An id whose span covers children[0..upto] (the expression so far)."""
        nid = self.next_id
        self.next_id += 1
        self.spans[nid] = (children[0].start_pos, node_end(children[upto]))
        return nid

    def arglist(self, node) -> tuple:
        if node.type == "arglist":
            items = [x for x in node.children if not (x.type == "operator" and x.value == ",")]
        else:
            items = [node]
        out = []
        for a in items:
            if a.type == "argument":
                ac = a.children
                if ac[0].type == "operator" and ac[0].value in ("*", "**"):
                    out.append(ir.Arg(self.expr(ac[1]), None, len(ac[0].value)))
                elif len(ac) >= 3 and ac[1].type == "operator" and ac[1].value == "=":
                    if ac[0].type != "name":  # `f(a.b=1)` mid-typing: not a keyword
                        out.append(ir.Arg(ir.Opaque(self._id(a), "argument")))
                        continue
                    out.append(ir.Arg(self.expr(ac[2]), ac[0].value))
                elif len(ac) >= 2 and ac[1].type in ("comp_for", "sync_comp_for"):
                    nid = self._id(a)
                    out.append(ir.Arg(ir.Comprehension(nid, "gen", self.expr(ac[0]), self.comp_for(ac[1]))))
                else:
                    out.append(ir.Arg(ir.Opaque(self._id(a), "argument")))
            elif a.type == "star_expr":
                out.append(ir.Arg(self.expr(a.children[1]), None, 1))
            else:
                out.append(ir.Arg(self.expr(a)))
        return tuple(out)

    def subscript(self, node):
        if node.type == "subscriptlist":
            return ir.TupleE(self._id(node), tuple(self.subscript(x) for x in node.children[::2]))
        if node.type == "subscript":
            c = node.children
            parts = [None, None, None]
            idx = 0
            for ch in c:
                if ch.type == "operator" and ch.value == ":":
                    idx += 1
                elif ch.type == "sliceop":
                    if len(ch.children) > 1:
                        parts[2] = self.expr(ch.children[1])
                else:
                    parts[idx] = self.expr(ch)
            return ir.Slice(self._id(node), *parts)
        if node.type == "operator" and node.value == ":":
            return ir.Slice(self._id(node), None, None, None)
        return self.expr(node)


_STAMPS = itertools.count(1)


def _shape_comment(simple_stmt) -> str | None:
    """The `# shape: [...]` comment at the end of a statement line (in the newline's prefix)."""
    last = simple_stmt.children[-1]
    prefix = getattr(last, "prefix", "")
    if "shape:" not in prefix:
        return None
    i = prefix.find("#")
    return prefix[i:].strip() if i >= 0 else None


class _Skip(Exception):
    pass


_SENTINEL = object()


def _is_comp(node) -> bool:
    return len(node.children) == 2 and node.children[1].type in ("comp_for", "sync_comp_for")


def _param_pos(funcdef, name: str):
    for p in funcdef.get_params():
        if p.name.value == name:
            return p.start_pos
    return (0, 0)


def _number(text: str):
    t = text.replace("_", "")
    try:
        if t.lower().startswith(("0x", "0o", "0b")):
            return int(t, 0)
        if t.endswith(("j", "J")):
            return complex(t)
        if any(ch in t for ch in ".eE") and not t.lower().startswith("0x"):
            return float(t)
        return int(t)
    except ValueError:
        return None


def _string(node):
    try:
        return node._get_payload() if not node.string_prefix.lower().count("b") else None
    except Exception:  # noqa: BLE001 - malformed literal mid-typing
        return None


def _import_name_parts(node):
    """(dotted path, alias) pairs of `import a.b as c, d`."""
    out = []
    c = node.children[1]
    items = c.children[::2] if c.type == "dotted_as_names" else [c]
    for item in items:
        if item.type == "dotted_as_name":
            path = item.children[0]
            alias = item.children[2].value
        else:
            path, alias = item, None
        if path.type == "dotted_name":
            dotted = "".join(x.value for x in path.children)
        else:
            dotted = path.value
        out.append((dotted, alias))
    return out
