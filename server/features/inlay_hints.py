"""Inlay hints: `: Tensor[...]` after assignment targets.

A hint carries text edits only when the engine offers an annotation for that very
target (FileAnalysis.annotations): the engine knows where an annotation is legal and
writes it in the configured style, so the server only pairs hints with annotations.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from shapesense.analysis.results import FileAnalysis, Fix, ShapeFact

from .. import convert
from ..guard import feature

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer


def annotation_for(analysis: FileAnalysis, fact: ShapeFact) -> Fix | None:
    """The annotation inserted right after the target (jaxtyping style), else the one
    added later on the target's line (a shape comment, an assert after the statement)."""
    line = fact.span.end[0]
    other_targets = {f.span.end for f in analysis.facts if f.is_target and f.span.end[0] == line} - {fact.span.end}
    later_on_line = None
    for fix in analysis.annotation_fixes():
        starts = {edit.span.start for edit in fix.edits}
        if fact.span.end in starts:
            return fix
        if later_on_line is None and not starts & other_targets and any(
            s[0] == line and s > fact.span.end for s in starts
        ):
            later_on_line = fix
    return later_on_line


def _in_range(pos: tuple[int, int], start: tuple[int, int], end: tuple[int, int]) -> bool:
    return start <= pos <= end


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False), default=[])
    async def inlay_hint(ls: "ShapeLanguageServer", params: types.InlayHintParams):
        if not (ls.settings.enable and ls.settings.inlay_hints):
            return []
        outcome = await ls.scheduler.current(params.text_document.uri)
        if outcome is None or outcome.analysis is None:
            return []
        index, enc = outcome.snapshot.index, ls.encoding
        start = convert.from_position(index, params.range.start, enc)
        end = convert.from_position(index, params.range.end, enc)
        hints, seen = [], set()
        for fact in sorted(outcome.analysis.facts, key=lambda f: f.span.end):
            if not fact.is_target or fact.span.end in seen or not _in_range(fact.span.end, start, end):
                continue
            seen.add(fact.span.end)
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
