"""An analysis of an older text, placed on the document's current text.

Requests are answered from the latest finished analysis instead of waiting for the one
that is running. Between that analysis's text and the current one, the lines before the
first changed character and after the last one are identical: results on those lines
move by a constant number of lines, and results touching the changed lines are dropped.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from shapesense.analysis.results import Diagnostic, FileAnalysis, Fix, Span, TextEdit

from .documents import LineIndex


def _common_prefix(a: str, b: str) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # binary search on slice equality: memcmp, no Python loop per char
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass(frozen=True)
class LineMap:
    """Old lines [0, head) are new lines [0, head); old lines [tail_old, ...) are new
    lines [tail_old + shift, ...); old lines in between changed."""

    head: int
    tail_old: int
    shift: int
    changed: tuple[int, int]  # new lines [lo, hi) that no old result covers

    @staticmethod
    def between(old: LineIndex, new: LineIndex) -> "LineMap":
        a, b = old.text, new.text
        if a == b:
            n = old.line_count
            return LineMap(n, n, 0, (n, n))
        p = _common_prefix(a, b)
        s = _common_suffix(a, b, min(len(a), len(b)) - p)
        head = bisect.bisect_right(old.starts, p) - 1  # the line holding the first change
        # The first old line wholly inside the common suffix that also starts a line in
        # the new text (a "\r" + "\n" split can differ at the seam).
        delta = len(b) - len(a)
        k = max(head, bisect.bisect_left(old.starts, len(a) - s))
        while k < old.line_count:
            j = bisect.bisect_left(new.starts, old.starts[k] + delta)
            if j < new.line_count and new.starts[j] == old.starts[k] + delta and j >= head:
                return LineMap(head, k, j - k, (head, j))
            k += 1
        n_old = old.line_count
        return LineMap(head, n_old, new.line_count - n_old, (head, new.line_count))

    def line(self, old_line: int) -> int | None:
        if old_line < self.head:
            return old_line
        if old_line >= self.tail_old:
            return old_line + self.shift
        return None

    def span(self, span: Span) -> Span | None:
        (l1, c1), (l2, c2) = span
        n1, n2 = self.line(l1), self.line(l2)
        if n1 is None or n2 is None or (l1 < self.head) != (l2 < self.head):
            return None
        return Span((n1, c1), (n2, c2))

    def fix(self, fix: Fix) -> Fix | None:
        edits = []
        for edit in fix.edits:
            span = self.span(edit.span)
            if span is None:
                return None
            edits.append(TextEdit(span, edit.new_text))
        return Fix(fix.title, tuple(edits), fix.kind, fix.preferred)


def placed(analysis: FileAnalysis, lines: LineMap) -> FileAnalysis:
    """`analysis` with every result moved onto the new text; results on changed lines
    (or that need them: a fix editing one) are left out."""
    out = FileAnalysis(analysis.path, unknown_ops=analysis.unknown_ops)
    for fact in analysis.facts:
        span = lines.span(fact.span)
        if span is not None:
            out.facts.append(fact._replace(span=span))
    for diag in analysis.diagnostics:
        span = lines.span(diag.span)
        if span is None:
            continue
        related = []
        for rel in diag.related:
            if rel.path is None:
                rspan = lines.span(rel.span)
                if rspan is None:
                    continue
                rel = type(rel)(rspan, rel.message, None)
            related.append(rel)
        fixes = tuple(f for f in (lines.fix(x) for x in diag.fixes) if f is not None)
        out.diagnostics.append(Diagnostic(span, diag.severity, diag.code, diag.message, tuple(related), fixes))

    def annotations() -> list[Fix]:
        return [f for f in (lines.fix(x) for x in analysis.annotation_fixes()) if f is not None]

    out.make_annotations = annotations
    return out
