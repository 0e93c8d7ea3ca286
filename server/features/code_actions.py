"""Code actions: solver repairs (quick fixes), shape annotations, and ignore comments.

Where the client resolves edits lazily (codeAction/resolve), the listed actions carry
only `data` naming the action; resolve re-derives the edit from the analysis of the
document's current version (matching title and inserted text), so an action listed
before an edit never applies a stale edit. Edits are versioned when the client supports it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from shapesense.analysis import suppression
from shapesense.analysis.results import Diagnostic, FileAnalysis, Fix, Span, TextEdit

from .. import convert
from ..guard import feature
from ..worker import Outcome

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer

ANNOTATE_FILE_KIND = "source.shapesense.annotate"
ANNOTATE_FILE_TITLE = "Annotate all tensor shapes in this file"


def _overlaps(span: Span, start: tuple[int, int], end: tuple[int, int]) -> bool:
    return span.start <= end and start <= span.end


def _is_import(edit: TextEdit) -> bool:
    return edit.new_text.lstrip().startswith(("import ", "from "))


def _anchor_lines(fix: Fix) -> tuple[int, int] | None:
    """The lines an annotation is about: where its edits go, not counting an added
    import, and counting the statement above a line inserted after it (assert style)."""
    edits = [e for e in fix.edits if not _is_import(e)] or list(fix.edits)
    if not edits:
        return None
    first = min(e.span.start[0] for e in edits)
    last = max(e.span.end[0] for e in edits)
    if all(e.span.start[1] == 0 and e.new_text.endswith(("\n", "\r")) for e in edits if e.span.start[0] == first):
        first = max(0, first - 1)
    return first, last


def _kind_allowed(kind: str, only: list[str] | None) -> bool:
    if not only:
        return not kind.startswith("source")  # source actions only when asked for
    return any(kind == k or kind.startswith(k + ".") for k in only)


def _merged_annotations(analysis: FileAnalysis) -> Fix | None:
    """All annotation edits of the file as one fix: identical edits (e.g. the same
    import) once, and an edit overlapping an earlier one skipped."""
    edits, taken = [], []
    for fix in analysis.annotation_fixes():
        for edit in fix.edits:
            if edit in edits:
                continue
            s, e = edit.span.start, edit.span.end
            if any(s < te and ts < e for ts, te in taken):
                continue
            edits.append(edit)
            taken.append((s, e))
    if not edits:
        return None
    return Fix(ANNOTATE_FILE_TITLE, tuple(edits), kind=ANNOTATE_FILE_KIND)


def _candidates(analysis: FileAnalysis, start, end, only) -> list[tuple[str, int, Fix, Any]]:
    """(origin, index within the origin, fix, engine diagnostic or None) at the range."""
    out = []
    index = 0
    for diag in analysis.diagnostics:
        for fix in diag.fixes:
            if _overlaps(diag.span, start, end) and _kind_allowed(fix.kind, only):
                out.append(("fix", index, fix, diag))
            index += 1
    for index, fix in enumerate(analysis.annotation_fixes()):
        lines = _anchor_lines(fix)
        if lines is not None and lines[0] <= end[0] and start[0] <= lines[1] and _kind_allowed(fix.kind, only):
            out.append(("annotation", index, fix, None))
    if _kind_allowed(ANNOTATE_FILE_KIND, only):
        merged = _merged_annotations(analysis)
        if merged is not None:
            out.append(("file", 0, merged, None))
    return out


def _ignore_fix(text: str, diag: Diagnostic) -> Fix | None:
    """`# shapesense: ignore[code]` for one diagnostic (added to a comment already there)."""
    if diag.code not in suppression.ENGINE_CODES:
        return None
    line = diag.span.start[0]
    edit = suppression.ignore_edit(text, line, diag.code)
    if edit is None:
        return None
    where = "on this line" if edit.line == line else "in this statement"
    at = (edit.line, edit.column)
    return Fix(f"Ignore {diag.code} {where}", (TextEdit(Span(at, at), edit.text),), kind="quickfix")


def _fixes(analysis: FileAnalysis, origin: str) -> list[Fix]:
    if origin == "annotation":
        return list(analysis.annotation_fixes())
    return [f for d in analysis.diagnostics for f in d.fixes]


def _data(snap, origin: str, index: int, fix: Fix) -> dict:
    """What resolve needs to find the same action again, even after an edit."""
    return {
        "uri": snap.uri, "version": snap.version, "origin": origin, "index": index, "title": fix.title,
        "texts": [e.new_text for e in fix.edits], "line": min((e.span.start[0] for e in fix.edits), default=0),
    }


def _find(analysis: FileAnalysis, data: dict, same_version: bool) -> Fix | None:
    origin = data.get("origin")
    if origin == "file":
        return _merged_annotations(analysis)
    fixes = _fixes(analysis, str(origin))
    index = data.get("index")
    if same_version and isinstance(index, int) and 0 <= index < len(fixes) and fixes[index].title == data.get("title"):
        return fixes[index]
    # The text changed: the same title and inserted text, nearest the old place.
    same = [f for f in fixes if f.title == data.get("title") and [e.new_text for e in f.edits] == data.get("texts")]
    line = data.get("line") if isinstance(data.get("line"), int) else 0
    return min(same, key=lambda f: abs(min((e.span.start[0] for e in f.edits), default=0) - line), default=None)


def _workspace_edit(ls: "ShapeLanguageServer", outcome: Outcome, fix: Fix) -> types.WorkspaceEdit:
    snap = outcome.snapshot
    # a notebook cell's index splits a fix over the cells it edits (features/notebooks.py)
    per_document = getattr(snap.index, "edits_per_document", None)
    if per_document is not None:
        parts = per_document(fix, ls.encoding)
    else:
        parts = [(snap.uri, snap.version, convert.text_edits(fix, snap.index, ls.encoding))]
    ws = ls.client_capabilities.workspace
    if ws and ws.workspace_edit and ws.workspace_edit.document_changes:
        return types.WorkspaceEdit(document_changes=[
            types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)
            for uri, version, edits in parts
        ])
    return types.WorkspaceEdit(changes={uri: edits for uri, _, edits in parts})


def _lazy_edits(ls: "ShapeLanguageServer") -> bool:
    td = ls.client_capabilities.text_document
    ca = td.code_action if td else None
    return bool(ca and ca.resolve_support and "edit" in (ca.resolve_support.properties or []))


def register(ls: "ShapeLanguageServer") -> None:
    options = types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite, ANNOTATE_FILE_KIND],
        resolve_provider=True,
    )

    @feature(ls, types.TEXT_DOCUMENT_CODE_ACTION, options, default=[])
    async def code_action(ls: "ShapeLanguageServer", params: types.CodeActionParams):
        if not ls.settings.enable:
            return []
        outcome = await ls.scheduler.current(params.text_document.uri)
        if outcome is None or outcome.analysis is None:
            return []
        snap, enc = outcome.snapshot, ls.encoding
        start = convert.from_position(snap.index, params.range.start, enc)
        end = convert.from_position(snap.index, params.range.end, enc)
        this = (snap.uri, snap.index)
        lazy = _lazy_edits(ls)
        actions = []
        # What the user sees: ignore comments and the project's include/exclude applied.
        visible = convert.shown_diagnostics(outcome.analysis, snap.path, snap.index.text, ls.settings)
        shown_ids = {id(d) for d in visible}
        candidates = [c for c in _candidates(outcome.analysis, start, end, params.context.only)
                      if c[3] is None or id(c[3]) in shown_ids]
        # Every repair is re-checked by the engine before it is offered (on the analysis
        # thread, cached per text): an edit that does not remove the error is dropped.
        repairs = {id(d): d for _, _, _, d in candidates if d is not None}
        confirmed = {}
        for key, d in repairs.items():
            confirmed[key] = await ls.worker.run(lambda host, d=d: host.verified_fixes(snap.path, d)) or ()
        candidates = [c for c in candidates if c[3] is None or c[2] in confirmed[id(c[3])]]
        for origin, index, fix, diag in candidates:
            lsp_diag = None
            if diag is not None:
                lsp_diag = convert.diagnostic(diag, snap.index, enc, ls.settings, lambda p: ls.index_for(p, this))
                if lsp_diag is None:
                    continue  # the user turned this kind of problem off: no fixes for it either
            action = types.CodeAction(
                title=fix.title,
                kind=fix.kind,
                diagnostics=[lsp_diag] if lsp_diag else None,
                is_preferred=fix.preferred or None,
                data=_data(snap, origin, index, fix),
            )
            if not lazy:
                action.edit = _workspace_edit(ls, outcome, fix)
            actions.append(action)
        if _kind_allowed(types.CodeActionKind.QuickFix, params.context.only):
            for diag in visible:
                if not _overlaps(diag.span, start, end):
                    continue
                # An unused ignore carries its removal; a shape problem gets an ignore comment.
                fixes = diag.fixes if diag.code == suppression.UNUSED_IGNORE else [_ignore_fix(snap.index.text, diag)]
                lsp_diag = convert.diagnostic(diag, snap.index, enc, ls.settings, lambda p: ls.index_for(p, this))
                for fix in fixes:
                    if fix is None or lsp_diag is None:
                        continue
                    # Plain text edits at known places: given at once, even to lazy clients.
                    actions.append(types.CodeAction(
                        title=fix.title, kind=fix.kind, diagnostics=[lsp_diag], edit=_workspace_edit(ls, outcome, fix),
                    ))
        return actions

    @feature(ls, types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: "ShapeLanguageServer", action: types.CodeAction):
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        if not isinstance(uri, str) or action.edit is not None:
            return action
        outcome = await ls.scheduler.current(uri)
        if outcome is None or outcome.analysis is None:
            return action
        fix = _find(outcome.analysis, data, outcome.snapshot.version == data.get("version"))
        if fix is None:
            action.disabled = types.CodeActionDisabled(reason="The code changed; this fix no longer applies.")
            return action
        action.edit = _workspace_edit(ls, outcome, fix)
        return action
