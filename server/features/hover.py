"""Hover: the shape of the innermost tensor-valued expression under the cursor.

The markdown starts with a fenced block whose first line is exactly `NAME: SHAPE`
(tests and editor integrations read it), then notes on a symbolic shape (the shape with
the defaults of its hyperparameters, an assumed batch dim), then where the shape came from,
then the distinct shapes seen across call contexts. Answered from the latest finished analysis
(scheduler.current): a hover on a line the user just changed, or on a file whose
imports changed, waits briefly for the new one.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types

from shapesense.analysis.results import ShapeFact

from .. import convert
from ..guard import feature

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer

# Only what would change the rendering of plain text: emphasis (`*`, and `_` unless
# inside a word such as kernel_size), code spans, HTML, and block markers at a line start.
_MD_INLINE = re.compile(r"[\\`*<]|(?<!\w)_|_(?!\w)")
_MD_LINE_START = re.compile(r"^(\s*)([#>+=-])", re.MULTILINE)


def _escape(text: str) -> str:
    text = _MD_INLINE.sub(lambda m: "\\" + m.group(0), text)
    return _MD_LINE_START.sub(r"\1\\\2", text)


def _name(fact: ShapeFact) -> str:
    return " ".join(fact.text.split())  # a multi-line expression still fits one line


def markdown(fact: ShapeFact) -> str:
    parts = ["```python", f"{_name(fact)}: {fact.shape}", "```"]
    for note in fact.notes:  # the symbolic shape's variant with defaults, assumptions
        parts += ["", _escape(note)]
    if fact.origin:
        parts += ["", _escape(fact.origin)]
    if fact.variants:
        parts += ["", "Shapes over the call contexts:", ""]
        parts += [f"- `{v}`" + (f" ({_escape(src)})" if src else "") for v, src in _with_sources(fact)]
    return "\n".join(parts)


def _with_sources(fact: ShapeFact) -> list:
    """(variant, the contexts it comes from or "")."""
    sources = fact.variant_sources if len(fact.variant_sources) == len(fact.variants) else ("",) * len(fact.variants)
    return list(zip(fact.variants, sources))


def plaintext(fact: ShapeFact) -> str:
    lines = [f"{_name(fact)}: {fact.shape}"]
    lines.extend(fact.notes)
    if fact.origin:
        lines.append(fact.origin)
    if fact.variants:
        lines.append("Shapes over the call contexts: " + ", ".join(
            v + (f" ({src})" if src else "") for v, src in _with_sources(fact)))
    return "\n".join(lines)


def _wants_markdown(ls: "ShapeLanguageServer") -> bool:
    td = ls.client_capabilities.text_document
    formats = td.hover.content_format if td and td.hover else None
    return not formats or types.MarkupKind.Markdown in formats


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: "ShapeLanguageServer", params: types.HoverParams):
        if not ls.settings.enable:
            return None
        uri = params.text_document.uri
        # Answered at once from the latest finished analysis, placed on the current text
        # (lines changed since are left out): a hover never waits behind a running analysis.
        outcome = await ls.scheduler.current(uri)
        if outcome is not None and outcome.stale:
            ls.scheduler.catch_up(uri)
        if outcome is None or outcome.analysis is None:
            return None
        index = outcome.snapshot.index
        if not index.contains_client(params.position.line, params.position.character, ls.encoding):
            return None
        pos = convert.from_position(index, params.position, ls.encoding)
        fact = outcome.analysis.fact_at(pos)
        if fact is None:
            return None
        if _wants_markdown(ls):
            contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown(fact))
        else:
            contents = types.MarkupContent(kind=types.MarkupKind.PlainText, value=plaintext(fact))
        return types.Hover(contents=contents, range=convert.range_(index, fact.span, ls.encoding))
