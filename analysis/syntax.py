"""Parse trees, owned here: one parso parse per top-level statement ("segment").

A file is kept as a list of segments. A segment is one top-level statement (a class, a def,
a driver line) together with the blank and comment lines before it, parsed as part of a
region: its parso nodes carry line numbers relative to that region, and `offset` turns them
into lines of the file. An edit re-parses only the segments it touches (plus the one before,
which an indented line or an `else:` can extend), and moves the segments after it by
changing one integer each. That keeps an edit's parse cost independent of the file's size,
which parso's own DiffParser is not (it diffs every line and shifts every node after the
edit). An edit inside the body of a method of a top-level class re-parses that method
alone, under a stand-in `class _:` header, and grafts it into the class.

Why a region re-parse equals the full parse: a segment starts where the parser is back at
the top level with no open bracket or string, so parsing from there depends only on the
text that follows. A region ends where the next, unchanged segment still parses as the same
top-level statement (checked by parsing it along with the region); if it does not (an
unclosed bracket or string swallowed it), the region grows; a method is kept the same way,
else the class is re-parsed. tests/test_syntax.py checks
segment by segment against a full parse on random edits, broken syntax included.

We never use parso's global cache (jedi shares it).
"""
from __future__ import annotations

import bisect
import re

import parso
from parso.utils import split_lines as _parso_split_lines

_GRAMMAR = parso.load_grammar()
_ERRORS = ("error_node", "error_leaf")
_COMMENT_LINE = re.compile(r"[ \t\f]*(#[^\r\n]*)?(\r\n|\r|\n)?\Z")
# Characters str.splitlines breaks on and Python does not (parso keeps them in the line).
_NOT_PYTHON_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str, keepends: bool = True) -> list[str]:
    """parso's split_lines (lines as Python counts them, and a last "" after a final
    newline), in C when the text holds none of the breaks only str.splitlines knows
    (parso's took about 9% of a comment edit on a 3,000-line file, in a profile)."""
    if not keepends or any(c in text for c in _NOT_PYTHON_BREAKS):
        return _parso_split_lines(text, keepends=keepends)
    out = text.splitlines(keepends=True)
    if not text or text.endswith("\n"):
        out.append("")
    return out


class Segment:
    """One top-level statement (or a few that cannot be told apart, in broken code).

    A segment restored from the disk cache (analysis.diskcache) has its lowering but no
    parse tree: `nodes` parses its lines alone the first time an edit needs them (`source`
    is its tree; its offset is then start - 1)."""

    __slots__ = ("_nodes", "start", "end", "offset", "lowered", "source", "__weakref__")

    def __init__(self, nodes: list | None, start: int, end: int, offset: int, source=None):
        self._nodes = nodes  # parso nodes, lines relative to the region they were parsed in
        self.start = start  # first line of the file it covers (1-based, its prefix included)
        self.end = end  # first line after it
        self.offset = offset  # file line = node line + offset
        self.lowered = None  # the lowering of this segment (analysis.lower keeps it here)
        self.source = source  # the SyntaxTree that parses `nodes` on demand

    @property
    def nodes(self) -> list:
        if self._nodes is None:
            self._nodes = self.source.parse_segment(self)
        return self._nodes

    @nodes.setter
    def nodes(self, value: list) -> None:
        self._nodes = value

    def move(self, delta: int) -> None:
        self.start += delta
        self.end += delta
        self.offset += delta


class SyntaxTree:
    def __init__(self):
        self.segments: list[Segment] | None = None
        self.lines: list[str] | None = None
        self.text: str | None = None
        self.reparsed_lines = 0  # lines parsed by the last update (for the benchmarks)

    def update(self, text: str, log: list | None = None) -> list[Segment]:
        """Bring the segments to `text`; returns them."""
        if text == self.text and self.segments is not None:
            return self.segments
        new_lines = split_lines(text, keepends=True)
        done = False
        if self.segments is not None and self.lines is not None:
            try:
                done = self._reparse_regions(new_lines)
                if done and log is not None:
                    log.append("reparse")
            except RecursionError:
                raise
            except Exception:  # noqa: BLE001 - any surprise: parse the whole file instead
                done = False
        if not done:
            module = _GRAMMAR.parse(text, error_recovery=True, cache=False)
            if self.segments is not None:
                _release_segments(self.segments)
            self.segments = _split(module.children, 0, len(new_lines) + 1)
            self.reparsed_lines = len(new_lines)
            if log is not None:
                log.append("parse")
        self.lines = new_lines
        self.text = text
        return self.segments

    def parse_segment(self, seg: Segment) -> list:
        """The nodes of a segment that has none yet (restored from the disk cache), from its
        lines alone: it starts where a full parse is back at the top level with nothing
        open, and ends where the next statement starts in column 0, so the region parses
        to the same nodes (lines counted from the segment's first line, its offset). Must
        be called before the lines change (an update asks for them while its old lines are
        current). Raises if the region does not parse to exactly that one segment: the
        update then parses the whole file."""
        if seg.offset != seg.start - 1 or self.lines is None:
            raise ValueError("not a lazily parsed segment")
        region = self.lines[seg.start - 1: seg.end - 1]
        pieces = _split(_parse(region).children, seg.start - 1, seg.end)
        if len(pieces) != 1 or pieces[0].start != seg.start or pieces[0].end != seg.end:
            raise ValueError("a restored segment parses differently alone")
        return pieces[0].nodes

    # -- incremental ------------------------------------------------------------------------
    def _reparse_regions(self, new: list[str]) -> bool:
        old, segs = self.lines, self.segments
        n = min(len(old), len(new))
        p = _equal_run(old, new, n)  # lines equal at the start
        if p == len(old) == len(new):
            self.reparsed_lines = 0
            return True
        s = _equal_run(old[::-1], new[::-1], n - p)  # lines equal at the end (not overlapping the start)
        delta = len(new) - len(old)
        first = p + 1  # first changed line (old and new numbering agree up to it)
        last = max(len(old) - s, first)  # last changed line of the old text
        if self._comment_edit(p, len(old) - s, len(new) - s, delta, new):
            return True
        if self._reparse_method(first, last, delta, new):
            return True
        i = _find(segs, first)
        if first <= segs[i].nodes[0].start_pos[0] + segs[i].offset and i > 0:
            i -= 1  # the change reaches the segment's first line: it may extend the one before
        j = _find(segs, last)
        grow = 1
        while True:
            ext = segs[j + 1] if j + 1 < len(segs) else None
            a = segs[i].start
            if ext is None:
                region = new[a - 1:]
                fresh = _split(_parse(region).children, a - 1, len(new) + 1)
                _release_segments(segs[i:])
                self.segments = segs[:i] + fresh
                self.reparsed_lines = len(region)
                return True
            # The region, plus the next (unchanged) segment up to its first line of code: the
            # tokens of the region are then exactly those of a full parse, and the region is
            # done if that next segment still starts a top-level statement right after it.
            b = ext.start + delta
            head = ext.nodes[0].start_pos[0] + ext.offset + delta
            region = new[a - 1: head]
            children = _parse(region).children
            k = _child_at(children, head - a + 1)
            if k is not None and k > 0:
                before = children[k - 1]
                if before.type not in _ERRORS and before.end_pos == (b - a + 1, 0):
                    _release(children[k:])  # the next segment's head, parsed only to check
                    del children[k:]
                    self._splice(i, j, _split(children, a - 1, b), delta)
                    self.reparsed_lines = len(region)
                    return True
            _release(children)
            j = min(len(segs) - 1, j + grow)
            grow *= 2

    def _comment_edit(self, p: int, old_stop: int, new_stop: int, delta: int, new: list[str]) -> bool:
        """Lines p+1..old_stop became new[p:new_stop], and all of them (old and new) are
        blank or comment lines: when they lie in the prefix of one leaf (the blank lines
        and comments before a token, not inside a string), no parse is needed. That leaf's
        prefix takes the new lines and the leaves after it in its segment move by `delta`.
        False: not such an edit (the caller parses)."""
        old = self.lines
        if not all(_COMMENT_LINE.match(line) for line in old[p:old_stop]) or \
                not all(_COMMENT_LINE.match(line) for line in new[p:new_stop]):
            return False
        segs = self.segments
        k = _find(segs, p + 1)
        seg = segs[k]
        off = seg.offset
        at = (p + 1 - off, 0)  # where the change starts, the segment's numbering
        leaf, before = _leaf_from(seg.nodes, at)
        if leaf is None or leaf.line + off <= old_stop or leaf.type in _ERRORS or leaf.type == "endmarker":
            return False  # (the file's end, left to a parse: _split may drop or add a segment)
        if before is not None and (before.type in _ERRORS or node_end(before) > at):
            return False  # inside a string that spans lines, or after a broken token
        if before is not None:
            l1, c1 = node_end(before)
        else:  # the segment's first token: its prefix starts the segment, in column 0
            l1, c1 = leaf.line - len(split_lines(leaf.prefix)) + 1, 0
        l1 += off
        l2 = leaf.line + off + delta  # the leaf's line is an unchanged one after the edit
        prefix = new[l1 - 1][c1:] + "".join(new[l1:l2 - 1]) + new[l2 - 1][:leaf.column] if l1 < l2 else \
            new[l1 - 1][c1:leaf.column]
        if _continues(prefix) or _continues(leaf.prefix):
            return False  # a line continuation: the tokens may change
        if delta:
            _shift_from(seg.nodes, leaf.start_pos, delta)
            seg.end += delta
            for other in segs[k + 1:]:
                other.move(delta)
        leaf.prefix = prefix
        seg.lowered = None  # its text changed: lower it again (to the same code)
        self.reparsed_lines = 0
        return True

    def _reparse_method(self, first: int, last: int, delta: int, new: list[str]) -> bool:
        """An edit inside the body of one method of a top-level class re-parses that method
        alone, under a stand-in `class _:` header (the parser is then in the same state as
        in the class: a class body, after a complete statement), and grafts it into the
        class. Like a region, it is kept only if the next line of code after it still
        starts a statement where it did. False: not such an edit; the caller re-parses the
        segments."""
        segs = self.segments
        k = _find(segs, first)
        seg = segs[k]
        if _find(segs, last) != k or not seg.nodes or seg.nodes[0].type != "classdef":
            return False
        cls, off = seg.nodes[0], seg.offset
        suite = cls.children[-1]
        if suite.type != "suite":
            return False
        f, l = first - off, last - off  # the changed lines in the segment's numbering
        for idx, node in enumerate(suite.children):
            if node.type in ("funcdef", "decorated") and node.start_pos[0] <= f and l < node_end(node)[0]:
                break
        else:
            return False
        func = node.children[-1] if node.type == "decorated" else node
        if func.type != "funcdef" or func.children[-1].type != "suite" or f <= func.children[-1].start_pos[0]:
            return False  # only inside a multi-line body, below the `def ...:` line
        before = suite.children[idx - 1]
        if before.type in _ERRORS or node_end(before)[1] != 0:
            return False  # the parser may not be at a clean statement start there
        # Its lines, from the end of the node before it (the blank lines and comments
        # between are its first leaf's prefix), segment numbering.
        start, stop = node_end(before)[0], node_end(node)[0]
        later = suite.children[idx + 1:] + seg.nodes[1:]
        nxt = later[0] if later else (segs[k + 1].nodes[0] if k + 1 < len(segs) else None)
        if nxt is None:
            return False
        nxt_off = off if later else segs[k + 1].offset
        head = nxt.start_pos[0] + nxt_off + delta  # file line of the next code, new numbering
        lines = new[start + off - 1: head]
        tree = _parse(["class _:\n"] + lines)
        dummy = tree.children[0]
        if dummy.type != "classdef" or dummy.children[-1].type != "suite":
            _release(tree.children)
            return False
        kids = dummy.children[-1].children
        first_code = (2 + node.start_pos[0] - start, node.start_pos[1])
        fresh = next((c for c in kids if c.start_pos == first_code), None)
        if fresh is None or fresh.type != node.type or node_end(fresh) != (2 + stop - start + delta, 0):
            _release(tree.children)
            return False
        expect = (head - (start + off) + 2, nxt.start_pos[1])
        after = kids[kids.index(fresh) + 1:] if later else tree.children[1:]
        if not after or after[0].start_pos != expect:  # (cut after one line, it may be broken)
            _release(tree.children)
            return False
        kids.remove(fresh)
        _release(tree.children)  # the stand-in class and what followed the method
        _shift_lines(fresh, start - 2)
        fresh.parent = suite
        _release([node])
        suite.children[idx] = fresh
        if delta:
            for sibling in later:
                _shift_lines(sibling, delta)
            seg.end += delta
            for other in segs[k + 1:]:
                other.move(delta)
        seg.lowered = None  # its nodes changed in place: lower it again
        self.reparsed_lines = len(lines) + 1
        return True

    def _splice(self, i: int, j: int, fresh: list, delta: int) -> None:
        """Segments i..j become `fresh`; the ones after move by `delta` lines."""
        segs = self.segments
        if delta:
            for seg in segs[j + 1:]:
                seg.move(delta)
        _release_segments(segs[i:j + 1])
        self.segments = segs[:i] + fresh + segs[j + 1:]


def _release_segments(segs: list[Segment]) -> None:
    """Segments the file no longer has. Their parse nodes are unlinked and dropped, and
    their lowering forgets its function units (each unit points back to its segment, a
    cycle); the rest of the lowering stays, for the span tables of older results."""
    for seg in segs:
        if seg._nodes:
            _release(seg._nodes)
            seg._nodes = []
        if seg.lowered is not None:
            seg.lowered.fn_units = {}


def _release(nodes: list) -> None:
    """Unlink parse nodes nobody will read again from their parents. Parso nodes point to
    their parents and parents to their children, so every dropped subtree is a reference
    cycle: left to the cyclic collector, a long edit session piled up a million dead nodes
    between full collections, and each of those collections held the server for seconds.
    Without the upward links, reference counting frees them at once."""
    stack = list(nodes)
    while stack:
        n = stack.pop()
        n.parent = None
        children = getattr(n, "children", None)
        if children:
            stack.extend(children)


def _equal_run(a: list, b: list, most: int) -> int:
    """How many lines a and b have in common from their start, at most `most`: compared a
    block at a time (a list compare runs in C), then a line at a time in the block that
    differs."""
    n = 0
    while n < most and a[n:n + min(64, most - n)] == b[n:n + min(64, most - n)]:
        n += min(64, most - n)
    while n < most and a[n] == b[n]:
        n += 1
    return n


def _continues(prefix: str) -> bool:
    """Does a prefix (blank lines, comments) hold a backslash continuing a line?"""
    return "\\" in prefix and any("\\" in line.partition("#")[0] for line in split_lines(prefix))


def _leaf_from(nodes: list, pos: tuple) -> tuple:
    """(the first leaf starting at or after `pos`, the leaf before it) among `nodes`."""
    before = None
    stack = list(reversed(nodes))
    while stack:
        n = stack.pop()
        children = getattr(n, "children", None)
        if children is None:
            if n.start_pos >= pos:
                return n, before
            before = n
        elif children and node_end(n) <= pos:
            before = n.get_last_leaf()
        else:
            stack.extend(reversed(children))
    return None, before


def _shift_from(nodes: list, pos: tuple, delta: int) -> None:
    """Move every leaf starting at or after `pos` by `delta` lines: a subtree wholly after
    it as _shift_lines does, one it starts in leaf by leaf."""
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n.start_pos >= pos:
            _shift_lines(n, delta)
        elif getattr(n, "children", None) and node_end(n) > pos:
            stack.extend(n.children)


def _shift_lines(node, delta: int) -> None:
    """Move a parsed subtree by `delta` lines (its leaves hold their own positions)."""
    stack = [node]
    while stack:
        n = stack.pop()
        children = getattr(n, "children", None)
        if children is None:
            n.line += delta
        else:
            stack.extend(children)


def node_end(node) -> tuple:
    """Where a node ends (parso's end_pos without splitting every leaf into lines)."""
    while True:
        children = getattr(node, "children", None)
        if children is None:
            break
        if not children:
            return node.end_pos
        node = children[-1]
    value = node.value
    if "\n" in value or "\r" in value:
        return node.end_pos
    return node.line, node.column + len(value)


def _parse(lines: list[str]):
    return _GRAMMAR.parse("".join(lines), error_recovery=True, cache=False)


def _child_at(children: list, line: int):
    """Index of the top-level node starting at column 0 of `line` (region lines), or None."""
    for k in range(len(children) - 1, -1, -1):
        pos = children[k].start_pos
        if pos[0] < line:
            return None
        if pos == (line, 0):
            return k
    return None


def _find(segs: list[Segment], line: int) -> int:
    """Index of the segment holding `line` (the last one for lines past the end)."""
    k = bisect.bisect_right(segs, line, key=lambda s: s.start) - 1
    return min(max(k, 0), len(segs) - 1)


def _split(children: list, offset: int, stop: int) -> list[Segment]:
    """Segments of a parsed region's top-level nodes. `offset`: file line of the region's
    line 0; `stop`: the file line after the region. A new segment starts after a node that
    ends a line cleanly (not an error node) and before a node in column 0: only there is
    the parser back at the top level with nothing open. A region's endmarker with no text of
    its own (the region ended right after a newline) is dropped; at the end of a file it
    is a segment holding the trailing comments."""
    for node in children:
        # Cut from the region's module (a parse of its own): nothing reads a top-level
        # node's parent, and the module would keep every released segment alive in a cycle.
        node.parent = None
    segs: list[Segment] = []
    current: list = []
    start = 1 + offset
    for k, node in enumerate(children):
        if node.type == "endmarker" and not node.prefix and node.start_pos[1] == 0 and (current or segs):
            break
        current.append(node)
        nxt = children[k + 1] if k + 1 < len(children) else None
        if nxt is None:
            break
        if node.end_pos[1] == 0 and node.type not in _ERRORS and nxt.start_pos[1] == 0:
            end = node.end_pos[0] + offset
            segs.append(Segment(current, start, end, offset))
            current, start = [], end
    if current:
        segs.append(Segment(current, start, stop, offset))
    elif segs:
        segs[-1].end = stop
    return segs
