"""Diagnostics, pushed or pulled.

Clients that can pull (textDocument/diagnostic, LSP 3.17) get pull only: both at once
would show every problem twice. Others get textDocument/publishDiagnostics, tagged with
the analysed document version; results of superseded versions are never pushed (see
scheduler.py). A pull is answered from the current text's analysis if it lands within
half a second, else from the latest one placed on the current text, and the client is
asked to pull again (workspace/diagnostic/refresh) when the current one arrives.
"""
from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from lsprotocol import types

from .. import convert
from ..guard import feature
from ..worker import Outcome

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer


def lsp_diagnostics(ls: "ShapeLanguageServer", outcome: Outcome) -> list[types.Diagnostic]:
    analysis = outcome.analysis
    if analysis is None or not ls.settings.enable:
        return []
    snap = outcome.snapshot
    this = (snap.uri, snap.index)
    out = []
    for diag in convert.shown_diagnostics(analysis, snap.path, snap.index.text, ls.settings):  # ignores, include/exclude
        converted = convert.diagnostic(
            diag, snap.index, ls.encoding, ls.settings, lambda path: ls.index_for(path, this)
        )
        if converted is not None:
            out.append(converted)
    for note in outcome.notes:  # a limit was hit: say why results are missing or old
        start = types.Position(0, 0)
        out.append(types.Diagnostic(
            range=types.Range(start, start), message=note, severity=types.DiagnosticSeverity.Information,
            source="shapesense", code="analysis-limit",
        ))
    return out


def publish(ls: "ShapeLanguageServer", outcome: Outcome) -> None:
    snap = outcome.snapshot
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=snap.uri, diagnostics=lsp_diagnostics(ls, outcome), version=snap.version)
    )


def clear(ls: "ShapeLanguageServer", uri: str) -> None:
    if not ls.pull_diagnostics:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _result_id(ls: "ShapeLanguageServer", items: list[types.Diagnostic]) -> str:
    """Same items (ranges included) => same id, whatever the version: the client's copy is still right."""
    payload = json.dumps(ls.protocol._converter.unstructure(items), sort_keys=True)
    return hashlib.blake2b(payload.encode(), digest_size=8).hexdigest()


def register(ls: "ShapeLanguageServer") -> None:
    def on_result(outcome: Outcome) -> None:
        if not ls.pull_diagnostics:
            publish(ls, outcome)

    ls.scheduler.on_result = on_result
    ls.scheduler.on_refresh = ls.request_refresh
    ls.scheduler.log_note = lambda message: ls.log_message(message, types.MessageType.Info)

    @feature(
        ls,
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier="shapesense", inter_file_dependencies=True, workspace_diagnostics=False),
    )
    async def document_diagnostic(ls: "ShapeLanguageServer", params: types.DocumentDiagnosticParams):
        outcome = await ls.scheduler.settled(params.text_document.uri)
        if outcome is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        items = lsp_diagnostics(ls, outcome)
        result_id = _result_id(ls, items)
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)
