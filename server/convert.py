"""Engine results (code-point spans) -> lsprotocol values (client position units)."""
from __future__ import annotations

from importlib import metadata
from typing import Callable

from lsprotocol import types

from shapesense.analysis import results as r
from shapesense.analysis import suppression

from .documents import LineIndex
from .settings import Settings

SOURCE = "shapesense"

# Where diagnostics.md lives, relative to the repository root; the base URL comes from
# the installed package's metadata (a Documentation/Repository project URL) when it has one.
DIAGNOSTICS_DOC = "docs/diagnostics.md"

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def _docs_base() -> str:
    try:
        urls = metadata.metadata("shapesense").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("repository", "source", "homepage", "documentation"):
            url = url.strip().rstrip("/")
            if "github.com" in url and "/blob/" not in url:
                url += "/blob/main"
            return url + "/"
    return ""


DOCS_BASE = _docs_base()


def code_href(code: str) -> str:
    return f"{DOCS_BASE}{DIAGNOSTICS_DOC}#{code}"


def position(index: LineIndex, pos: r.Position, encoding: str) -> types.Position:
    line, units = index.to_client(pos[0], pos[1], encoding)
    return types.Position(line=line, character=units)


def range_(index: LineIndex, span: r.Span, encoding: str) -> types.Range:
    return types.Range(start=position(index, span.start, encoding), end=position(index, span.end, encoding))


def from_position(index: LineIndex, pos: types.Position, encoding: str) -> r.Position:
    return index.from_client(pos.line, pos.character, encoding)


def severity(diag: r.Diagnostic, settings: Settings) -> types.DiagnosticSeverity | None:
    """The project's per-code choice ([tool.shapesense] disable / severity) first; then
    errors stay errors and conditional failures ("warning") follow the user's setting."""
    override = settings.project.override(diag.code) if settings.project is not None else None
    if override is not None:
        return _SEVERITY.get(override)  # None for "off"
    if diag.severity == "error":
        return types.DiagnosticSeverity.Error
    if diag.code == suppression.UNUSED_IGNORE:
        return types.DiagnosticSeverity.Warning  # not a conditional failure
    if settings.conditional_severity == "off":
        return None
    return _SEVERITY.get(settings.conditional_severity, types.DiagnosticSeverity.Warning)


def shown_diagnostics(analysis: r.FileAnalysis, path: str, text: str, settings: Settings) -> list[r.Diagnostic]:
    """The engine's diagnostics of one file that reach the user, before `severity`: none
    for a file the project's include/exclude leave out, ignore comments applied, and the
    unused ones reported when `warnUnusedIgnores` asks for it (the CLI does the same)."""
    project = settings.project
    if project is not None and not project.selects(path):
        return []
    result = suppression.apply(text, analysis.diagnostics, settings.warn_unused_ignores)
    if not result.unused:
        return result.kept
    return sorted(result.kept + result.unused, key=lambda d: d.span.start)


IndexFor = Callable[[str | None], "tuple[str, LineIndex] | None"]


def diagnostic(
    diag: r.Diagnostic,
    index: LineIndex,
    encoding: str,
    settings: Settings,
    index_for: IndexFor,
    data: object = None,
) -> types.Diagnostic | None:
    """`index_for(path)` gives (uri, LineIndex) of a related location's file (None: this file)."""
    sev = severity(diag, settings)
    if sev is None:
        return None
    related = []
    for rel in diag.related:
        found = index_for(rel.path)
        if found is None:
            continue
        uri, rel_index = found
        related.append(
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=range_(rel_index, rel.span, encoding)),
                message=rel.message,
            )
        )
    return types.Diagnostic(
        range=range_(index, diag.span, encoding),
        message=diag.message,
        severity=sev,
        code=diag.code,
        code_description=types.CodeDescription(href=code_href(diag.code)),
        source=SOURCE,
        related_information=related or None,
        data=data,
    )


def text_edits(fix: r.Fix, index: LineIndex, encoding: str) -> list[types.TextEdit]:
    return [types.TextEdit(range=range_(index, e.span, encoding), new_text=e.new_text) for e in fix.edits]
