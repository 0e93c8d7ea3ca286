"""End to end on the real engine: the MNIST CNN whose LeNet-5 head expects 400 features
where its trunk leaves 256 (tests/lsp/data/mnist_cnn.py), driven like VS Code and Neovim."""
from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import (
    TIMEOUT,
    apply_text_edits,
    change,
    diagnostics,
    edits_for,
    encoding,
    find_position,
    hover_first_line,
    hover_until,
    open_doc,
    published,
    start,
    wait_until,
)

pytestmark = pytest.mark.asyncio

FC1_USE = "self.fc1(x)"


def _sample(client: LanguageClient) -> tuple[str, str]:
    path = client.root / "mnist_cnn.py"
    return path.as_uri(), path.read_text()


async def _hover(client, uri, pos):
    return await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
        ),
        TIMEOUT,
    )


def _errors(diags):
    return [d for d in diags if d.severity == types.DiagnosticSeverity.Error]


async def test_linear_in_features_error_and_repair(real: LanguageClient):
    enc = encoding(real)
    uri, text = _sample(real)
    open_doc(real, uri, text)
    [err] = _errors(await diagnostics(real, uri, 1))
    assert err.source == "shapesense" and err.code == "shape-mismatch"
    assert "256" in err.message and "400" in err.message
    fc1 = find_position(text, FC1_USE, enc)
    assert err.range.start.line == fc1.line
    assert err.code_description.href.endswith("docs/diagnostics.md#shape-mismatch")
    assert err.related_information, "the conflicting dims should point to where they came from"

    actions = await real.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=err.range,
            context=types.CodeActionContext(diagnostics=[err], only=[types.CodeActionKind.QuickFix]),
        )
    )
    repairs = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert repairs, "the solver should offer in_features=256"
    action = next((a for a in repairs if a.is_preferred), repairs[0])
    if action.edit is None:
        action = await real.code_action_resolve_async(action)
    edits = edits_for(action.edit, uri)
    fixed = apply_text_edits(text, edits, enc)
    assert fixed != text

    # send the repair as incremental changes, last edit first so ranges stay valid
    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    change(real, uri, 2, *[((e.range.start.line, e.range.start.character), (e.range.end.line, e.range.end.character), e.new_text) for e in ordered])
    assert _errors(await diagnostics(real, uri, 2)) == []


async def test_hover_on_names_and_calls(real: LanguageClient):
    enc = encoding(real)
    uri, text = _sample(real)
    open_doc(real, uri, text)
    flatten_target = find_position(text, "x = torch.flatten", enc)
    assert hover_first_line(await _hover(real, uri, flatten_target)) == "x: Tensor[B, 256]"
    call = await _hover(real, uri, find_position(text, "self.conv1(x)", enc, delta=2))
    assert hover_first_line(call) == "self.conv1(x): Tensor[B, 6, 24, 24]"
    use = await _hover(real, uri, find_position(text, "self.conv1(x)", enc, delta=len("self.conv1(")))
    assert hover_first_line(use) == "x: Tensor[B, 1, 28, 28]"


async def test_hover_says_where_the_shape_came_from(real: LanguageClient):
    enc = encoding(real)
    uri, text = _sample(real)
    open_doc(real, uri, text)
    call = await _hover(real, uri, find_position(text, "self.conv1(x)", enc, delta=2))
    origin = call.contents.value.split("```")[-1]
    assert "Conv2d" in origin and "Tensor[B, 1, 28, 28]" in origin  # the op and its input shape


async def test_inlay_hints_after_assignments(real: LanguageClient):
    enc = encoding(real)
    uri, text = _sample(real)
    open_doc(real, uri, text)
    start = find_position(text, "    def forward", enc)
    hints = await asyncio.wait_for(
        real.text_document_inlay_hint_async(
            types.InlayHintParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start, types.Position(start.line + 20, 0)),
            )
        ),
        TIMEOUT,
    )
    first_x = find_position(text, "x = self.pool(F.relu(self.conv1", enc, delta=1)
    labels = {(h.position.line, h.position.character): h.label for h in hints}
    assert labels[(first_x.line, first_x.character)] == ": Tensor[B, 6, 12, 12]"
    flat = find_position(text, "x = torch.flatten", enc, delta=1)
    assert labels[(flat.line, flat.character)] == ": Tensor[B, 256]"


async def test_edits_with_astral_text_keep_positions(real: LanguageClient):
    enc = encoding(real)
    uri, text = _sample(real)
    open_doc(real, uri, text)
    await diagnostics(real, uri, 1)
    # a comment with emoji and a CRLF line inserted above forward, then on the fc1 line
    anchor = find_position(text, "    def forward", enc)
    comment = "    # \U0001F9E0 digits \U0001F522 go here\r\n"
    change(real, uri, 2, ((anchor.line, 0), (anchor.line, 0), comment))
    text = text.replace("    def forward", comment + "    def forward", 1)
    fc1 = find_position(text, "x = F.relu(self.fc1(x))", enc)
    change(real, uri, 3, ((fc1.line, fc1.character), (fc1.line, fc1.character), "\u00e9 = 1  # \U0001F600\n        "))
    text = text.replace("x = F.relu(self.fc1(x))", "\u00e9 = 1  # \U0001F600\n        x = F.relu(self.fc1(x))", 1)
    [err] = _errors(await diagnostics(real, uri, 3))
    assert err.range.start.line == find_position(text, FC1_USE, enc).line
    hover = await _hover(real, uri, find_position(text, "x = torch.flatten", enc))
    assert hover_first_line(hover) == "x: Tensor[B, 256]"


async def test_pushed_diagnostics_carry_versions(real_push: LanguageClient):
    client = real_push
    enc = encoding(client)
    uri, text = _sample(client)
    open_doc(client, uri, text, version=5)
    [err] = _errors(await published(client, uri, 5))
    fix = find_position(text, "16 * 5 * 5", enc)
    end = find_position(text, "16 * 5 * 5", enc, delta=len("16 * 5 * 5"))
    change(client, uri, 6, ((fix.line, fix.character), (end.line, end.character), "16 * 4 * 4"))
    assert _errors(await published(client, uri, 6)) == []
    count = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await wait_until(client, lambda: any(p.uri == uri and not p.diagnostics for p in client.published[count:]))


@pytest.mark.parametrize("style, inserted", [
    ("jaxtyping", 'x: Float[Tensor, "B 256"] = torch.flatten(x, 1)'),
    ("comment", "x = torch.flatten(x, 1)  # shape: [B, 256]"),
    ("assert", "x = torch.flatten(x, 1)\n        assert x.shape == (B, 256)"),
])
async def test_annotation_style_setting(real_bare: LanguageClient, workspace, style, inserted):
    client = real_bare
    await start(client, "vscode", workspace, {"annotationStyle": style})
    enc = encoding(client)
    uri, text = _sample(client)
    open_doc(client, uri, text)
    line = find_position(text, "x = torch.flatten", enc).line
    actions = await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(types.Position(line, 8), types.Position(line, 8)),
                context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.RefactorRewrite]),
            )
        ),
        TIMEOUT,
    )
    [action] = actions
    if action.edit is None:
        action = await client.code_action_resolve_async(action)
    assert inserted in apply_text_edits(text, edits_for(action.edit, uri), enc)

    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)),
        )
    )
    [hint] = hints
    assert hint.label == ": Tensor[B, 256]"
    assert inserted in apply_text_edits(text, hint.text_edits, enc)


HEAD = """import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc(x)
"""
MAIN = """import torch
from pkg.blocks import Head

head = Head()
y = head(torch.randn(8, 128))
"""


def _cross_file_workspace(root):
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "blocks.py").write_text(HEAD)
    (root / "main.py").write_text(MAIN)


async def test_cross_file_shapes_follow_watched_files(real_bare: LanguageClient, workspace):
    client = real_bare
    _cross_file_workspace(workspace)
    await start(client, "vscode", workspace)
    main = (workspace / "main.py").as_uri()
    open_doc(client, main, MAIN)
    await published(client, main, 1)
    y = types.Position(4, 0)
    assert hover_first_line(await _hover(client, main, y)) == "y: Tensor[8, 10]"

    blocks = workspace / "pkg" / "blocks.py"
    blocks.write_text(HEAD.replace("nn.Linear(128, 10)", "nn.Linear(128, 20)"))
    count = len(client.published)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=blocks.as_uri(), type=types.FileChangeType.Changed)])
    )
    await wait_until(client, lambda: any(p.uri == main for p in client.published[count:]))
    assert hover_first_line(await _hover(client, main, y)) == "y: Tensor[8, 20]"


async def test_cross_file_shapes_follow_open_buffers_and_saves(real_bare: LanguageClient, workspace):
    client = real_bare
    _cross_file_workspace(workspace)
    await start(client, "vscode", workspace)
    main = (workspace / "main.py").as_uri()
    blocks = (workspace / "pkg" / "blocks.py").as_uri()
    open_doc(client, main, MAIN)
    open_doc(client, blocks, HEAD)
    await published(client, main, 1)
    # the unsaved buffer of the other file already counts
    line = HEAD.splitlines().index("        self.fc = nn.Linear(128, 10)")
    col = HEAD.splitlines()[line].index("10)")
    change(client, blocks, 2, ((line, col), (line, col + 2), "30"))
    assert hover_first_line(await hover_until(client, main, types.Position(4, 0), "y: Tensor[8, 30]")) == \
        "y: Tensor[8, 30]"
    # saving it re-checks the other open files
    count = len(client.published)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=blocks)))
    await wait_until(client, lambda: any(p.uri == main for p in client.published[count:]))
