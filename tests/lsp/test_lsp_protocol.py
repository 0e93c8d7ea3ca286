"""Protocol behaviour of the server, over stdio, on a fake engine (see lsp_fake_host.py):
encodings, incremental sync, versions, code-action round trips, bad input, settings."""
from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcMethodNotFound
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import (
    FAKE_SERVER,
    TIMEOUT,
    apply_text_edits,
    change,
    diagnostics,
    edits_for,
    encoding,
    find_position,
    hover_first_line,
    hover_until,
    make_client,
    open_doc,
    position_of,
    published,
    pulls,
    raw_request,
    start,
    wait_until,
)

pytestmark = pytest.mark.asyncio


def _uri(client: LanguageClient, name: str) -> str:
    return (client.root / name).as_uri()


async def _hover(client, uri, pos):
    return await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
        ),
        TIMEOUT,
    )


async def test_negotiates_position_encoding(fake: LanguageClient):
    expected = {"vscode": "utf-16", "neovim": "utf-8"}[fake.kind]
    assert (fake.init_result.capabilities.position_encoding or "utf-16") == expected


async def test_diagnostic_fields_and_hover(fake: LanguageClient):
    uri = _uri(fake, "a.py")
    text = "x = BAD\ny = MAYBE\n"
    open_doc(fake, uri, text)
    diags = await diagnostics(fake, uri, 1)
    by_code = {d.code: d for d in diags}
    err = by_code["shape-mismatch"]
    assert err.source == "shapesense"
    assert err.severity == types.DiagnosticSeverity.Error
    assert err.code_description.href.endswith("docs/diagnostics.md#shape-mismatch")
    assert err.range.start == types.Position(0, 4) and err.range.end == types.Position(0, 7)
    assert err.related_information[0].location.uri == uri
    assert err.related_information[0].message == "first line"
    assert by_code["illegal-value"].severity == types.DiagnosticSeverity.Warning

    hover = await _hover(fake, uri, types.Position(0, 0))
    assert hover_first_line(hover) == "x: Tensor[3]"
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("```python\nx: Tensor[3]\n```")
    assert hover.range == types.Range(types.Position(0, 0), types.Position(0, 1))


async def test_astral_unicode_and_crlf(fake: LanguageClient):
    """Columns after emoji and across \\r\\n, \\r and \\f agree with an independent count."""
    enc = encoding(fake)
    uri = _uri(fake, "u.py")
    text = "s = '\U0001F600é' + BAD\r\nt = '\f' + BAD\rw = BAD\n"
    open_doc(fake, uri, text)
    diags = sorted(await diagnostics(fake, uri, 1), key=lambda d: (d.range.start.line, d.range.start.character))
    expected = [position_of(text, i, enc) for i in range(len(text)) if text.startswith("BAD", i)]
    assert [d.range.start for d in diags] == expected
    assert [d.range.start.line for d in diags] == [0, 1, 2]  # \f is not a line break

    # hover on `w` (third line, after a lone \r)
    assert hover_first_line(await _hover(fake, uri, find_position(text, "w =", enc))) == "w: Tensor[3]"


async def test_incremental_edits_keep_text_in_sync(fake: LanguageClient):
    enc = encoding(fake)
    uri = _uri(fake, "inc.py")
    text = "a = BAD\nb = 1\n"
    open_doc(fake, uri, text)
    await diagnostics(fake, uri, 1)

    # insert an astral character before BAD, then a CRLF line, then delete line "b = 1"
    pos = find_position(text, "BAD", enc)
    change(fake, uri, 2, ((pos.line, pos.character), (pos.line, pos.character), "'\U0001F40D' + "))
    text = text.replace("BAD", "'\U0001F40D' + BAD")
    change(fake, uri, 3, ((0, 0), (0, 0), "c = 12345\r\n"))
    text = "c = 12345\r\n" + text
    start, end = find_position(text, "b = 1", enc), find_position(text, "b = 1\n", enc, delta=6)
    change(fake, uri, 4, ((start.line, start.character), (end.line, end.character), ""))
    text = text.replace("b = 1\n", "")

    diags = await diagnostics(fake, uri, 4)
    assert [d.range.start for d in diags] == [find_position(text, "BAD", enc)]
    hover = await _hover(fake, uri, find_position(text, "a =", enc))
    assert hover_first_line(hover) == f"a: Tensor[{len(chr(39) + chr(0x1F40D) + chr(39) + ' + BAD')}]"


async def test_code_action_round_trip(fake: LanguageClient):
    enc = encoding(fake)
    uri = _uri(fake, "fix.py")
    text = "x = f(BAD)\n"
    open_doc(fake, uri, text)
    [diag] = await diagnostics(fake, uri, 1)
    actions = await fake.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    [action] = [a for a in actions if a.title == "Replace BAD with GOOD"]
    assert action.kind == types.CodeActionKind.QuickFix and action.is_preferred
    if action.edit is None:  # lazily resolved (both recorded clients resolve "edit")
        action = await fake.code_action_resolve_async(action)
    new_text = apply_text_edits(text, edits_for(action.edit, uri), enc)
    assert new_text == "x = f(GOOD)\n"
    change(fake, uri, 2, new_text)
    assert await diagnostics(fake, uri, 2) == []


async def test_resolve_after_edit_uses_current_text(fake: LanguageClient):
    """An action listed before an edit resolves against the text after it."""
    enc = encoding(fake)
    uri = _uri(fake, "stale.py")
    text = "x = BAD\n"
    open_doc(fake, uri, text)
    [diag] = await diagnostics(fake, uri, 1)
    actions = await fake.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    [action] = [a for a in actions if a.title.startswith("Replace")]
    change(fake, uri, 2, ((0, 0), (0, 0), "# moved\n"))
    text = "# moved\n" + text
    resolved = await fake.code_action_resolve_async(action) if action.edit is None else action
    if action.edit is None:
        assert apply_text_edits(text, edits_for(resolved.edit, uri), enc) == "# moved\nx = GOOD\n"


async def test_annotation_actions_and_inlay_hints(fake: LanguageClient):
    enc = encoding(fake)
    uri = _uri(fake, "ann.py")
    text = "first = 1\nsecond = 22\n"
    open_doc(fake, uri, text)
    hints = await fake.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(2, 0)),
        )
    )
    assert [(h.position, h.label) for h in hints] == [
        (find_position(text, " = 1", enc), ": Tensor[1]"),
        (find_position(text, " = 22", enc), ": Tensor[2]"),
    ]
    assert apply_text_edits(text, hints[1].text_edits, enc) == "first = 1\nsecond: T2 = 22\n"

    actions = await fake.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(1, 0), types.Position(1, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert [a.title for a in actions] == ["Annotate second"]
    whole = await fake.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[], only=["source"]),
        )
    )
    [action] = whole
    action = await fake.code_action_resolve_async(action) if action.edit is None else action
    assert apply_text_edits(text, edits_for(action.edit, uri), enc) == "first: T1 = 1\nsecond: T2 = 22\n"


async def test_close_clears_diagnostics(fake: LanguageClient):
    if pulls(fake):
        pytest.skip("this client pulls diagnostics")
    uri = _uri(fake, "close.py")
    open_doc(fake, uri, "x = BAD\n")
    assert await published(fake, uri, 1)
    count = len(fake.published)
    fake.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await wait_until(fake, lambda: len(fake.published) > count and fake.published[-1].uri == uri)
    assert not fake.published[-1].diagnostics


async def test_pull_diagnostics_result_ids(fake: LanguageClient):
    if not pulls(fake):
        pytest.skip("this client takes pushed diagnostics")
    uri = _uri(fake, "pull.py")
    open_doc(fake, uri, "x = BAD\n")
    ident = types.TextDocumentIdentifier(uri=uri)
    first = await fake.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=ident))
    assert first.kind == "full" and len(first.items) == 1 and first.result_id
    again = await fake.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=ident, previous_result_id=first.result_id)
    )
    assert again.kind == "unchanged" and again.result_id == first.result_id
    assert not [p for p in fake.published if p.uri == uri]  # no double reporting


async def test_bad_input_keeps_serving(fake: LanguageClient):
    uri = _uri(fake, "ok.py")
    open_doc(fake, uri, "x = 1\n")
    await diagnostics(fake, uri, 1)
    # unknown document, position past the end of the line / the file
    assert await _hover(fake, _uri(fake, "missing.py"), types.Position(0, 0)) is None
    assert await _hover(fake, uri, types.Position(0, 99)) is None
    assert await _hover(fake, uri, types.Position(99, 0)) is None
    # malformed params: an InvalidParams error, not silence
    with pytest.raises(JsonRpcInvalidParams):
        await raw_request(fake, "textDocument/hover", {"textDocument": 5})
    with pytest.raises(JsonRpcInvalidParams):
        await raw_request(fake, "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": "all"})
    # unknown request and notification
    with pytest.raises(JsonRpcMethodNotFound):
        await raw_request(fake, "shapesense/noSuchMethod", {})
    fake.protocol.notify("shapesense/noSuchNotification", {})
    # a change for a document that was never opened, with a range past the end
    change(fake, _uri(fake, "never.py"), 3, ((50, 0), (60, 0), "x"))
    change(fake, uri, 2, ((50, 0), (60, 0), "\ny = 22"))
    assert hover_first_line(await hover_until(fake, uri, types.Position(2, 0), "y: Tensor[2]")) == "y: Tensor[2]"


async def test_engine_exception_is_logged_not_fatal(fake: LanguageClient):
    uri = _uri(fake, "crash.py")
    open_doc(fake, uri, "x = CRASH\n")
    await wait_until(fake, lambda: any("fake engine crash" in m.message for m in fake.log_messages))
    assert await _hover(fake, uri, types.Position(0, 0)) is None
    ok = _uri(fake, "fine.py")
    open_doc(fake, ok, "x = 1\n")
    assert hover_first_line(await _hover(fake, ok, types.Position(0, 0))) == "x: Tensor[1]"


async def test_indexing_reports_progress(fake: LanguageClient):
    def ended():
        return any(
            isinstance(v, types.WorkDoneProgressEnd) for reports in fake.progress_reports.values() for v in reports
        )

    await wait_until(fake, ended)
    [reports] = [r for r in fake.progress_reports.values() if r]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert "indexed" in reports[-1].message


# -- settings -------------------------------------------------------------------------

@pytest_lsp.fixture(config=ClientServerConfig(server_command=FAKE_SERVER, client_factory=make_client))
async def bare(lsp_client: LanguageClient):
    """A started but uninitialised server: the test initialises it with its own options."""
    yield
    await lsp_client.shutdown_session()


async def test_burst_of_edits_publishes_only_the_newest_version(bare: LanguageClient, workspace):
    """Edits inside one debounce window give one publish, for the last version; the
    analysis started on open is dropped when it finishes after the first edit."""
    await start(bare, "vscode", workspace, {"debounceMs": 1000})
    uri = (workspace / "burst.py").as_uri()
    open_doc(bare, uri, "x = BAD\n")
    for version in range(2, 8):
        change(bare, uri, version, "x = " + "BAD " * version + "\n")
    diags = await published(bare, uri, 7)
    assert len(diags) == 7
    versions = [p.version for p in bare.published if p.uri == uri]
    assert versions in ([7], [1, 7])


async def test_invalid_settings_fall_back_with_a_message(bare: LanguageClient, workspace):
    await start(bare, "vscode", workspace, {"debounceMs": "soon", "annotationStyle": "fancy", "inlayHints": False})
    await wait_until(bare, lambda: len(bare.messages) >= 2)
    text = " ".join(m.message for m in bare.messages)
    assert "debounceMs" in text and "annotationStyle" in text
    uri = (workspace / "s.py").as_uri()
    open_doc(bare, uri, "x = BAD\n")
    assert len(await published(bare, uri, 1)) == 1  # still serving, defaults in force
    hints = await bare.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(1, 0)),
        )
    )
    assert not hints  # the valid value of the same object still applies


async def test_workspace_configuration_controls_severity(bare: LanguageClient, workspace):
    bare.set_configuration({"conditionalSeverity": "hint"}, section="shapesense")
    await start(bare, "vscode", workspace)
    uri = (workspace / "sev.py").as_uri()
    await wait_until(bare, lambda: bare.log_messages and any("indexed" in m.message for m in bare.log_messages))
    open_doc(bare, uri, "x = MAYBE\n")
    [diag] = await published(bare, uri, 1)
    assert diag.severity == types.DiagnosticSeverity.Hint

    bare.set_configuration({"conditionalSeverity": "off"}, section="shapesense")
    count = len(bare.published)
    bare.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_until(bare, lambda: any(p.uri == uri and not p.diagnostics for p in bare.published[count:]))


async def test_disabled_server_reports_nothing(bare: LanguageClient, workspace):
    await start(bare, "vscode", workspace, {"enable": False})
    uri = (workspace / "off.py").as_uri()
    open_doc(bare, uri, "x = BAD\n")
    assert await published(bare, uri, 1) == []
    assert await _hover(bare, uri, types.Position(0, 0)) is None
