"""Inlay hints: `: Tensor[...]` after assignment targets.

A hint carries text edits only when the engine offers an annotation for that very
target (FileAnalysis.annotations): the engine knows where an annotation is legal and
writes it in the configured style, so the server only pairs hints with annotations.

Cost: the targets of an analysis and their annotations are indexed once per analysis
(by end position, and annotations by the line they edit), so a request costs the hints
in its range plus a binary search, not the whole file (pairing every target with every
annotation made whole-file hints quadratic: 70 s on 6,500 lines).
"""
from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from lsprotocol import types

from shapesense.analysis.results import FileAnalysis, Fix, ShapeFact

from .. import convert
from ..guard import feature

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer


class _TargetIndex:
    """One analysis's assignment targets, sorted by end (first fact per end position), and
    its annotation fixes by the positions and lines their edits start at."""

    def __init__(self, analysis: FileAnalysis):
        by_end: dict = {}
        for fact in analysis.facts:
            if fact.is_target and fact.span.end not in by_end:
                by_end[fact.span.end] = fact
        self.ends = sorted(by_end)
        self.targets = [by_end[e] for e in self.ends]
        self.ends_on_line: dict[int, set] = {}
        for end in self.ends:
            self.ends_on_line.setdefault(end[0], set()).add(end)
        self._analysis = analysis
        self._fixes: tuple[dict, dict] | None = None

    def fixes(self) -> tuple[dict, dict]:
        """({start position: first fix with an edit there}, {line: [(fix order, fix, starts)]}),
        built on first use (annotations are made lazily)."""
        if self._fixes is None:
            at, on_line = {}, {}
            for order, fix in enumerate(self._analysis.annotation_fixes()):
                starts = {edit.span.start for edit in fix.edits}
                for s in starts:
                    at.setdefault(s, (order, fix))
                for line in {s[0] for s in starts}:
                    on_line.setdefault(line, []).append((order, fix, starts))
            self._fixes = at, on_line
        return self._fixes

    def in_range(self, start: tuple[int, int], end: tuple[int, int]) -> list[ShapeFact]:
        lo = bisect.bisect_left(self.ends, start)
        hi = bisect.bisect_right(self.ends, end)
        return self.targets[lo:hi]


def _index(analysis: FileAnalysis) -> _TargetIndex:
    index = analysis.__dict__.get("_inlay_index")
    if index is None:
        index = analysis.__dict__["_inlay_index"] = _TargetIndex(analysis)
    return index


def annotation_for(analysis: FileAnalysis, fact: ShapeFact) -> Fix | None:
    """The annotation inserted right after the target (jaxtyping style), else the one
    added later on the target's line (a shape comment, an assert after the statement)."""
    index = _index(analysis)
    at, on_line = index.fixes()
    line = fact.span.end[0]
    other_targets = index.ends_on_line.get(line, set()) - {fact.span.end}
    exact = at.get(fact.span.end)
    if exact is not None:
        return exact[1]
    for _, fix, starts in on_line.get(line, ()):  # in the file's order: the first one qualifying
        if not starts & other_targets and any(s[0] == line and s > fact.span.end for s in starts):
            return fix
    return None


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False), default=[])
    async def inlay_hint(ls: "ShapeLanguageServer", params: types.InlayHintParams):
        if not (ls.settings.enable and ls.settings.inlay_hints):
            return []
        uri = params.text_document.uri
        outcome = await ls.scheduler.current(uri)
        if outcome is None or outcome.analysis is None:
            return []
        if outcome.stale:  # ask the client to fetch them again once the current text is analysed
            ls.scheduler.served_stale(uri, "inlay_hints")
        index, enc = outcome.snapshot.index, ls.encoding
        start = convert.from_position(index, params.range.start, enc)
        end = convert.from_position(index, params.range.end, enc)
        hints = []
        for fact in _index(outcome.analysis).in_range(start, end):
            fix = annotation_for(outcome.analysis, fact)
            hints.append(
                types.InlayHint(
                    position=convert.position(index, fact.span.end, enc),
                    label=f": {fact.shape}",
                    kind=types.InlayHintKind.Type,
                    tooltip=fact.origin or None,
                    text_edits=convert.text_edits(fix, index, enc) if fix else None,
                )
            )
        return hints
