"""Ignore comments, their quick fix, unused-ignore reports and [tool.shapesense] at the
workspace root, over LSP on the real engine, driven like VS Code and Neovim."""
from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import TIMEOUT, apply_text_edits, change, diagnostics, edits_for, encoding, open_doc, start, wait_until

pytestmark = pytest.mark.asyncio

# 0-based lines: 4 an error on a one-line statement, 6 an error on the second line of a
# multi-line statement, 8 an improper-value whose line already ignores another code.
PROGRAM = '''import torch
import torch.nn as nn

fc = nn.Linear(400, 120)
a = fc(torch.randn(8, 256))
y = torch.relu(
    fc(torch.randn(8, 256))
)
c = nn.Conv2d(6, 16, 5, groups=4)  # shapesense: ignore[dtype-mismatch]
'''


def _shown(diags) -> list[tuple[int, str]]:
    return sorted((d.range.start.line, d.code) for d in diags if d.source == "shapesense")


async def _actions(client: LanguageClient, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    return await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diag.range,
                context=types.CodeActionContext(diagnostics=[diag], only=[types.CodeActionKind.QuickFix]),
            )
        ),
        TIMEOUT,
    )


async def _apply(client: LanguageClient, uri: str, text: str, version: int, action: types.CodeAction) -> str:
    """Apply the action's edit as the editor would (incremental changes), return the new text."""
    if action.edit is None:
        action = await client.code_action_resolve_async(action)
    edits = edits_for(action.edit, uri)
    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    change(client, uri, version, *[((e.range.start.line, e.range.start.character),
                                    (e.range.end.line, e.range.end.character), e.new_text) for e in ordered])
    return apply_text_edits(text, edits, encoding(client))


async def test_quick_fix_writes_ignore_comments_that_silence(real: LanguageClient):
    uri = (real.root / "model.py").as_uri()
    text = PROGRAM
    open_doc(real, uri, text)
    diags = await diagnostics(real, uri, 1)
    assert _shown(diags) == [(4, "shape-mismatch"), (6, "shape-mismatch"), (8, "improper-value")]
    version = 1
    for line, expected in [
        (4, "a = fc(torch.randn(8, 256))  # shapesense: ignore[shape-mismatch]"),
        (6, "    fc(torch.randn(8, 256))  # shapesense: ignore[shape-mismatch]"),
        (8, "c = nn.Conv2d(6, 16, 5, groups=4)  # shapesense: ignore[dtype-mismatch, improper-value]"),
    ]:
        [diag] = [d for d in diags if d.range.start.line == line]
        actions = await _actions(real, uri, diag)
        [ignore] = [a for a in actions if a.title.startswith("Ignore ")]
        assert ignore.title == f"Ignore {diag.code} on this line"
        assert ignore.kind == types.CodeActionKind.QuickFix and ignore.diagnostics[0].code == diag.code
        version += 1
        text = await _apply(real, uri, text, version, ignore)
        assert text.splitlines()[line] == expected
        diags = await diagnostics(real, uri, version)
        assert line not in [ln for ln, _ in _shown(diags)]
    assert _shown(diags) == []


async def test_a_statements_first_line_covers_it_and_silenced_errors_get_no_repairs(real: LanguageClient):
    uri = (real.root / "model.py").as_uri()
    text = PROGRAM.replace("y = torch.relu(\n", "y = torch.relu(  # shapesense: ignore\n").replace(
        "a = fc(torch.randn(8, 256))", "a = fc(torch.randn(8, 256)); s = '# shapesense: ignore'")
    open_doc(real, uri, text)
    diags = await diagnostics(real, uri, 1)
    # line 6 is silenced from line 5; line 4's "comment" is inside a string
    assert _shown(diags) == [(4, "shape-mismatch"), (8, "improper-value")]
    silenced = types.Diagnostic(range=types.Range(types.Position(6, 4), types.Position(6, 27)), message="")
    assert not await _actions(real, uri, silenced)
    # the same error, not silenced, has its repair and its ignore action
    change(real, uri, 2, text.replace("y = torch.relu(  # shapesense: ignore\n", "y = torch.relu(\n"))
    [shown] = [d for d in await diagnostics(real, uri, 2) if d.range.start.line == 6]
    titles = [a.title for a in await _actions(real, uri, shown)]
    assert "Ignore shape-mismatch on this line" in titles and len(titles) >= 2, titles


async def test_warn_unused_ignores_setting(real_bare: LanguageClient, workspace):
    client = real_bare
    await start(client, "neovim", workspace, {"warnUnusedIgnores": True})
    uri = (workspace / "model.py").as_uri()
    text = PROGRAM.replace("a = fc(torch.randn(8, 256))", "a = fc(torch.randn(8, 256))  # shapesense: ignore[shape-mismatch, shape-missmatch]")
    text += "z = 1  # shapesense: ignore\n"
    open_doc(client, uri, text)
    diags = await diagnostics(client, uri, 1)
    unused = sorted((d.range.start.line, d.message) for d in diags if d.code == "unused-ignore")
    assert [line for line, _ in unused] == [4, 8, 9]
    assert "unknown diagnostic code 'shape-missmatch'" in unused[0][1]
    assert "unused 'shapesense: ignore[dtype-mismatch]' comment" in unused[1][1]
    assert "unused 'shapesense: ignore' comment" in unused[2][1]
    for d in diags:
        if d.code == "unused-ignore":
            assert d.severity == types.DiagnosticSeverity.Warning
            assert d.code_description.href.endswith("docs/diagnostics.md#unused-ignore")
    [last] = [d for d in diags if d.code == "unused-ignore" and d.range.start.line == 9]
    assert (last.range.start.character, last.range.end.character) == (7, len("z = 1  # shapesense: ignore"))


PYPROJECT = '''[project]
name = "demo"

[tool.shapesense]
disable = ["improper-value"]
severity = { shape-mismatch = "information" }
exclude = ["legacy"]
annotation-style = "comment"
'''


async def test_project_config_at_the_workspace_root(real_bare: LanguageClient, workspace):
    client = real_bare
    (workspace / "pyproject.toml").write_text(PYPROJECT)
    (workspace / "legacy").mkdir()
    (workspace / "legacy" / "old.py").write_text(PROGRAM)
    await start(client, "vscode", workspace)
    uri = (workspace / "model.py").as_uri()
    open_doc(client, uri, PROGRAM)
    diags = await diagnostics(client, uri, 1)
    assert _shown(diags) == [(4, "shape-mismatch"), (6, "shape-mismatch")]
    assert {d.severity for d in diags} == {types.DiagnosticSeverity.Information}
    legacy = (workspace / "legacy" / "old.py").as_uri()
    open_doc(client, legacy, PROGRAM)
    assert await diagnostics(client, legacy, 1) == []
    assert (await _annotation(client)).startswith("        x = torch.flatten(x, 1)  # shape: [B, 256]\n")
    assert not [m for m in client.messages if "pyproject" in m.message]


async def test_editor_settings_override_the_project(real_bare: LanguageClient, workspace):
    client = real_bare
    (workspace / "pyproject.toml").write_text(PYPROJECT)
    await start(client, "vscode", workspace, {"annotationStyle": "assert"})
    uri = (workspace / "model.py").as_uri()
    open_doc(client, uri, PROGRAM)
    await diagnostics(client, uri, 1)
    assert await _annotation(client) == "        x = torch.flatten(x, 1)\n        assert x.shape == (B, 256)"


async def _annotation(client: LanguageClient) -> str:
    """mnist_cnn.py's `x = torch.flatten(x, 1)` line after its annotate action."""
    path = client.root / "mnist_cnn.py"
    uri, text = path.as_uri(), path.read_text()
    open_doc(client, uri, text)
    line = text.splitlines().index("        x = torch.flatten(x, 1)")
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
    fixed = apply_text_edits(text, edits_for(action.edit, uri), encoding(client))
    return "\n".join(fixed.splitlines()[line:line + 2])


async def test_a_bad_project_config_is_shown_once_and_the_rest_applies(real_bare: LanguageClient, workspace):
    client = real_bare
    (workspace / "pyproject.toml").write_text(
        '[tool.shapesense]\ndisable = ["improper-value"]\nsolver_timeout = 5\nseverity = { shape-mismatch = "loud" }\n')
    await start(client, "neovim", workspace)
    uri = (workspace / "model.py").as_uri()
    open_doc(client, uri, PROGRAM)
    diags = await diagnostics(client, uri, 1)
    assert _shown(diags) == [(4, "shape-mismatch"), (6, "shape-mismatch")]  # disable still applied
    await wait_until(client, lambda: len([m for m in client.messages if "pyproject.toml" in m.message]) >= 2)
    shown = [m.message for m in client.messages if "pyproject.toml" in m.message]
    assert len(shown) == 2
    assert any("unknown key 'solver_timeout'" in m for m in shown)
    assert any("shape-mismatch = 'loud'" in m for m in shown)
    # a second look finds no repeat
    change(client, uri, 2, PROGRAM + "\n")
    await diagnostics(client, uri, 2)
    assert [m.message for m in client.messages if "pyproject.toml" in m.message] == shown


async def test_unused_ignores_have_removal_fixes(real_bare: LanguageClient, workspace):
    client = real_bare
    await start(client, "vscode", workspace, {"warnUnusedIgnores": True})
    uri = (workspace / "model.py").as_uri()
    text = PROGRAM.replace("a = fc(torch.randn(8, 256))",
                           "a = fc(torch.randn(8, 256))  # shapesense: ignore[shape-mismatch, illegal-value]")
    text += "z = 1  # noqa  # shapesense: ignore\n"
    open_doc(client, uri, text)
    diags = await diagnostics(client, uri, 1)
    version = 1
    for line, title, expected in [
        (4, "Remove 'illegal-value' from the ignore comment",
         "a = fc(torch.randn(8, 256))  # shapesense: ignore[shape-mismatch]"),
        (8, "Remove the unused ignore comment", "c = nn.Conv2d(6, 16, 5, groups=4)"),
        (9, "Remove the unused ignore comment", "z = 1  # noqa"),
    ]:
        [diag] = [d for d in diags if d.code == "unused-ignore" and d.range.start.line == line]
        actions = await _actions(client, uri, diag)
        [fix] = [a for a in actions if a.title == title]
        version += 1
        text = await _apply(client, uri, text, version, fix)
        assert text.splitlines()[line] == expected
        diags = await diagnostics(client, uri, version)
    assert _shown(diags) == [(6, "shape-mismatch"), (8, "improper-value")]  # no unused ignore left
