"""Jupyter notebooks over LSP 3.17 notebookDocument/* sync, on the real engine, driven like
VS Code (UTF-16, pushed diagnostics) and Neovim (UTF-8, pulled diagnostics).

The notebook: a markdown cell, then three code cells run as one program; cell 3 uses the
tensor cell 1 defines, cell 2 has a shape bug, and IPython lines (`%magic`, `!shell`, `x?`)
sit among the code.
"""
from __future__ import annotations

import asyncio
import json
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from shapesense.server.notebook_map import NotebookText, python_source

from lsp_helpers import (
    REAL_SERVER,
    TIMEOUT,
    apply_text_edits,
    capabilities,
    diagnostics,
    edits_for,
    encoding,
    find_position,
    hover_first_line,
    make_client,
    pulls,
    wait_until,
)

SAMPLE = pathlib.Path(__file__).parents[2] / "samples" / "notebook_mnist.ipynb"
MARKDOWN = "# MNIST, one cell at a time\n\nThe `Linear` in cell 2 is wrong.\n"
CELL1 = "%matplotlib inline\nimport torch\nimport torch.nn as nn\n\nx = torch.randn(64, 1, 28, 28)\n"
CELL2 = (
    "conv = nn.Conv2d(1, 6, 5)\n"
    "!nvidia-smi\n"
    "h = conv(x)\n"
    "fc = nn.Linear(100, 10)\n"
    "y = fc(h.flatten(1))\n"
)
CELL3 = 'x?\nnote = "形状 😀"; w = x.view(64, -1)\nz = w.sum(1)\n'


async def _start(client: LanguageClient, kind: str, workspace: pathlib.Path, options: dict | None = None):
    """Initialise with the client's recorded capabilities plus notebook sync (as VS Code
    sends it; the recordings predate it)."""
    caps = capabilities(kind)
    caps.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities(dynamic_registration=True, execution_summary_support=True)
    )
    params = types.InitializeParams(
        capabilities=caps,
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)],
        initialization_options={"debounceMs": 30, **(options or {})},
    )
    client.kind = kind
    client.root = workspace
    client.code_lens_refreshes = 0

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(params):  # VS Code answers it and asks for the lenses again
        client.code_lens_refreshes += 1

    client.init_result = await client.initialize_session(params)


CONFIG = ClientServerConfig(server_command=REAL_SERVER, client_factory=make_client)


@pytest_lsp.fixture(config=CONFIG, params=["vscode", "neovim"])
async def real(request, lsp_client: LanguageClient, workspace):
    """The real server, driven like VS Code and like Neovim."""
    await _start(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG, params=["vscode", "neovim"])
async def real_warn_unused(request, lsp_client: LanguageClient, workspace):
    """The same, with `warnUnusedIgnores` on."""
    await _start(lsp_client, request.param, workspace, {"warnUnusedIgnores": True})
    yield
    await lsp_client.shutdown_session()


class Notebook:
    """The client's side of one open notebook: cell URIs, texts and versions."""

    def __init__(self, client: LanguageClient, name: str = "explore.ipynb"):
        self.client = client
        self.uri = (client.root / name).as_uri()
        self.version = 0
        self.cells: list[dict] = []  # {"uri", "kind", "text", "version", "order"}

    def cell_uri(self, n: int) -> str:
        return f"vscode-notebook-cell:{self.uri[len('file://'):]}#W{n}sZmlsZQ%3D%3D"

    def _cell(self, c: dict) -> types.NotebookCell:
        summary = types.ExecutionSummary(execution_order=c["order"]) if c.get("order") else None
        return types.NotebookCell(kind=c["kind"], document=c["uri"], execution_summary=summary)

    def _item(self, c: dict) -> types.TextDocumentItem:
        lang = "python" if c["kind"] == types.NotebookCellKind.Code else "markdown"
        return types.TextDocumentItem(uri=c["uri"], language_id=lang, version=c["version"], text=c["text"])

    def open(self, cells: list[tuple[str, str]] | list[tuple[str, str, int]]) -> list[str]:
        for n, spec in enumerate(cells):
            kind, text = spec[0], spec[1]
            self.cells.append({
                "uri": self.cell_uri(n),
                "kind": types.NotebookCellKind.Markup if kind == "md" else types.NotebookCellKind.Code,
                "text": text, "version": 1, "order": spec[2] if len(spec) > 2 else None,
            })
        self.version = 1
        self.client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=self.uri, notebook_type="jupyter-notebook", version=self.version,
                    cells=[self._cell(c) for c in self.cells],
                ),
                cell_text_documents=[self._item(c) for c in self.cells],
            )
        )
        return [c["uri"] for c in self.cells]

    def _send(self, cells: types.NotebookDocumentCellChanges) -> None:
        self.version += 1
        self.client.notebook_document_did_change(
            types.DidChangeNotebookDocumentParams(
                notebook_document=types.VersionedNotebookDocumentIdentifier(uri=self.uri, version=self.version),
                change=types.NotebookDocumentChangeEvent(cells=cells),
            )
        )

    def edit(self, uri: str, edits: list[types.TextEdit]) -> int:
        """Apply `edits` to a cell (last first, so ranges stay valid); its new version."""
        c = next(c for c in self.cells if c["uri"] == uri)
        enc = encoding(self.client)
        c["text"] = apply_text_edits(c["text"], edits, enc)
        c["version"] += 1
        ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
        changes = [types.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for e in ordered]
        self._send(types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=uri, version=c["version"]), changes=changes
            )
        ]))
        return c["version"]

    def remove(self, uri: str) -> None:
        index = next(i for i, c in enumerate(self.cells) if c["uri"] == uri)
        self.cells.pop(index)
        self._send(types.NotebookDocumentCellChanges(structure=types.NotebookDocumentCellChangeStructure(
            array=types.NotebookCellArrayChange(start=index, delete_count=1, cells=[]),
            did_close=[types.TextDocumentIdentifier(uri=uri)],
        )))

    def move(self, uri: str, to: int) -> None:
        """Move a cell, sent as VS Code's client sends it: one array change over the span of
        cells whose order changed, no cell opened or closed."""
        before = [c["uri"] for c in self.cells]
        cell = self.cells.pop(before.index(uri))
        self.cells.insert(to, cell)
        lo, hi = min(before.index(uri), to), max(before.index(uri), to) + 1
        self._send(types.NotebookDocumentCellChanges(structure=types.NotebookDocumentCellChangeStructure(
            array=types.NotebookCellArrayChange(start=lo, delete_count=hi - lo, cells=[self._cell(c) for c in self.cells[lo:hi]]),
        )))

    def insert(self, index: int, text: str) -> str:
        uri = self.cell_uri(100 + len(self.cells))
        c = {"uri": uri, "kind": types.NotebookCellKind.Code, "text": text, "version": 1, "order": None}
        self.cells.insert(index, c)
        self._send(types.NotebookDocumentCellChanges(structure=types.NotebookDocumentCellChangeStructure(
            array=types.NotebookCellArrayChange(start=index, delete_count=0, cells=[self._cell(c)]),
            did_open=[self._item(c)],
        )))
        return uri

    def text(self, uri: str) -> str:
        return next(c["text"] for c in self.cells if c["uri"] == uri)


async def _hover(client: LanguageClient, uri: str, pos: types.Position) -> str | None:
    hover = await asyncio.wait_for(
        client.text_document_hover_async(types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)),
        TIMEOUT,
    )
    return hover_first_line(hover)


async def _hover_until(client: LanguageClient, uri: str, pos: types.Position, want: str | None) -> str | None:
    """Hover until it shows `want`: a request always describes the newest text, but
    the client may have sent the edit just before."""
    last = None
    for _ in range(50):
        last = await _hover(client, uri, pos)
        if last == want:
            return last
        await asyncio.sleep(0.1)
    return last


def _errors(diags):
    return [d for d in diags if d.severity == types.DiagnosticSeverity.Error]


async def _cell_diagnostics(client: LanguageClient, uri: str, version: int | None = None, want=None):
    """Diagnostics of a cell the way this client gets them; with `want`, wait until
    `want(items)` holds (a pushed list comes once per change)."""
    if want is None:
        return await diagnostics(client, uri, version)
    if pulls(client):
        for _ in range(100):
            items = await diagnostics(client, uri)
            if want(items):
                return items
            await asyncio.sleep(0.1)
        return items

    def find():
        for p in reversed(client.published):
            if p.uri == uri:
                return p if want(p.diagnostics) else None
        return None

    return list((await wait_until(client, find)).diagnostics)


def _open_mnist(client: LanguageClient) -> tuple[Notebook, list[str]]:
    nb = Notebook(client)
    uris = nb.open([("md", MARKDOWN), ("code", CELL1), ("code", CELL2), ("code", CELL3)])
    return nb, uris


@pytest.mark.asyncio
async def test_capability_is_advertised(real: LanguageClient):
    sync = real.init_result.capabilities.notebook_document_sync
    assert sync is not None
    [selector] = sync.notebook_selector
    assert selector.notebook == "jupyter-notebook"
    assert [c.language for c in selector.cells] == ["python"]


@pytest.mark.asyncio
async def test_cells_are_one_program(real: LanguageClient):
    enc = encoding(real)
    nb, (md, c1, c2, c3) = _open_mnist(real)

    # cell 3 uses x from cell 1; its line has non-ASCII text before the hovered name
    w_pos = find_position(CELL3, "w = x.view", enc)
    assert await _hover(real, c3, w_pos) == "w: Tensor[64, 784]"
    assert await _hover(real, c1, find_position(CELL1, "x = torch", enc)) == "x: Tensor[64, 1, 28, 28]"
    assert await _hover(real, md, types.Position(0, 2)) is None

    # the bug in cell 2, on cell 2's URI and line; nothing on the other cells
    [err] = _errors(await _cell_diagnostics(real, c2, 1))
    assert err.code == "shape-mismatch" and "64x3456 and 100x10" in err.message, err.message
    assert err.range.start == find_position(CELL2, "fc(h.flatten(1))", enc), err.range
    related = {r.location.uri: r.location.range.start.line for r in err.related_information or []}
    assert related and set(related) <= {c1, c2}, related
    for other in (c1, c3):
        assert await _cell_diagnostics(real, other) == []

    # inlay hints of cell 3 only, in cell 3's positions (and client units)
    hints = await asyncio.wait_for(
        real.text_document_inlay_hint_async(types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=c3),
            range=types.Range(types.Position(0, 0), types.Position(3, 0)),
        )),
        TIMEOUT,
    )
    labels = {(h.position.line, h.position.character): h.label for h in hints}
    assert labels == {
        (w_pos.line, w_pos.character + 1): ": Tensor[64, 784]",
        (2, 1): ": Tensor[64]",
    }, labels


@pytest.mark.asyncio
async def test_quick_fix_in_a_cell(real: LanguageClient):
    enc = encoding(real)
    nb, (md, c1, c2, c3) = _open_mnist(real)
    [err] = _errors(await _cell_diagnostics(real, c2, 1))
    actions = await asyncio.wait_for(
        real.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=c2),
            range=err.range,
            context=types.CodeActionContext(diagnostics=[err], only=[types.CodeActionKind.QuickFix]),
        )),
        TIMEOUT,
    )
    repairs = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert repairs, actions
    action = next((a for a in repairs if a.is_preferred), repairs[0])
    if action.edit is None:
        action = await asyncio.wait_for(real.code_action_resolve_async(action), TIMEOUT)
    edits = edits_for(action.edit, c2)
    assert edits, action.edit
    fixed = apply_text_edits(CELL2, edits, enc)
    assert "nn.Linear(3456, 10)" in fixed, fixed

    version = nb.edit(c2, edits)
    assert _errors(await _cell_diagnostics(real, c2, version, want=lambda d: not _errors(d))) == []
    assert await _hover(real, c2, find_position(fixed, "y = fc", enc)) == "y: Tensor[64, 10]"


@pytest.mark.asyncio
async def test_annotation_action_in_a_later_cell_brings_its_import(real: LanguageClient):
    """An annotation whose import the engine would put at the top of the file lands at
    the top of the cell it is for: a cell's action edits only that cell."""
    enc = encoding(real)
    nb, (md, c1, c2, c3) = _open_mnist(real)
    await _cell_diagnostics(real, c2, 1)
    pos = find_position(CELL3, "w = x.view", enc)
    actions = await asyncio.wait_for(
        real.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=c3),
            range=types.Range(pos, pos),
            context=types.CodeActionContext(diagnostics=[]),
        )),
        TIMEOUT,
    )
    annotate = [a for a in actions if a.kind == types.CodeActionKind.RefactorRewrite]
    assert annotate, actions
    action = annotate[0]
    if action.edit is None:
        action = await asyncio.wait_for(real.code_action_resolve_async(action), TIMEOUT)
    changed = [dc.text_document.uri for dc in action.edit.document_changes or []] or list(action.edit.changes or {})
    assert changed == [c3], changed
    annotated = apply_text_edits(CELL3, edits_for(action.edit, c3), enc)
    assert "64, 784" in annotated or "64 784" in annotated, annotated


@pytest.mark.asyncio
async def test_cell_edit_updates_other_cells(real: LanguageClient):
    enc = encoding(real)
    nb, (md, c1, c2, c3) = _open_mnist(real)
    await _cell_diagnostics(real, c2, 1)
    start = find_position(CELL1, "64, 1, 28, 28", enc)
    end = types.Position(start.line, start.character + 2)
    nb.edit(c1, [types.TextEdit(range=types.Range(start, end), new_text="32")])
    # cell 3's view(64, -1) folds the new batch into its columns
    w_pos = find_position(CELL3, "w = x.view", enc)
    assert await _hover_until(real, c3, w_pos, "w: Tensor[64, 392]") == "w: Tensor[64, 392]"
    [err] = _errors(await _cell_diagnostics(real, c2, want=lambda d: "32x3456" in str([e.message for e in d])))
    assert "32x3456 and 100x10" in err.message
    # lenses of other cells may depend on the edited one: the client is asked to fetch them again
    lens_caps = real.capabilities.workspace.code_lens
    assert real.code_lens_refreshes > 0 if lens_caps and lens_caps.refresh_support else real.code_lens_refreshes == 0


@pytest.mark.asyncio
async def test_removed_and_inserted_cells(real: LanguageClient):
    enc = encoding(real)
    nb, (md, c1, c2, c3) = _open_mnist(real)
    assert _errors(await _cell_diagnostics(real, c2, 1))
    w_pos = find_position(CELL3, "w = x.view", enc)
    assert await _hover(real, c3, w_pos) == "w: Tensor[64, 784]"

    nb.remove(c1)  # x is gone: no shapes depend on it, and no diagnostic from unknown
    assert await _hover_until(real, c3, w_pos, None) is None
    assert await _cell_diagnostics(real, c2, want=lambda d: not d) == []
    assert await _hover(real, c1, types.Position(4, 0)) is None

    # a new cell between the markdown and cell 2 defines x again
    new = nb.insert(1, "import torch\nimport torch.nn as nn\nx = torch.zeros(8, 1, 12, 12)\n")
    assert await _hover_until(real, new, types.Position(2, 0), "x: Tensor[8, 1, 12, 12]") == "x: Tensor[8, 1, 12, 12]"
    [err] = _errors(await _cell_diagnostics(real, c2, want=_errors))
    assert "8x384 and 100x10" in err.message, err.message
    assert err.range.start.line == 4


@pytest.mark.asyncio
async def test_moved_cell_runs_in_its_new_place(real: LanguageClient):
    enc = encoding(real)
    nb = Notebook(real, "moves.ipynb")
    first, second, use = nb.open([
        ("code", "import torch\nx = torch.randn(2, 3)\n"),
        ("code", "x = torch.randn(5, 5)\n"),
        ("code", "y = x\n"),
    ])
    y = find_position("y = x\n", "y", enc)
    assert await _hover(real, use, y) == "y: Tensor[5, 5]"
    nb.move(second, 2)  # now after the cell that reads x
    assert await _hover_until(real, use, y, "y: Tensor[2, 3]") == "y: Tensor[2, 3]"
    assert await _hover(real, second, types.Position(0, 0)) == "x: Tensor[5, 5]"
    nb.move(second, 1)
    assert await _hover_until(real, use, y, "y: Tensor[5, 5]") == "y: Tensor[5, 5]"


@pytest.mark.asyncio
async def test_unfinished_cell_leaves_the_next_cells_alone(real: LanguageClient):
    """Typing `fc(` at the end of one cell: the cells after it keep their results."""
    enc = encoding(real)
    nb = Notebook(real, "typing.ipynb")
    define, typing, after = nb.open([
        ("code", "import torch\nimport torch.nn as nn\nfc = nn.Linear(3, 4)\nx = torch.randn(2, 3)\n"),
        ("code", "y = fc(x)\nz = fc(\n"),
        ("code", "w = x.t()\n"),
    ])
    w = find_position("w = x.t()\n", "w", enc)
    assert await _hover(real, after, w) == "w: Tensor[3, 2]"
    assert await _hover(real, typing, types.Position(0, 0)) == "y: Tensor[2, 4]"
    assert await _cell_diagnostics(real, typing, 1) == []

@pytest.mark.asyncio
async def test_execution_order_decides(real: LanguageClient):
    """Cells that ran are laid out by execution count; cells never run come after them."""
    enc = encoding(real)
    nb = Notebook(real, "order.ipynb")
    first, second, never = nb.open([
        ("code", "import torch\nx = torch.randn(2, 3)\n", 2),
        ("code", "import torch\nx = torch.randn(5, 5)\n", 1),
        ("code", "y = x\n"),
    ])
    assert await _hover(real, never, find_position("y = x\n", "y", enc)) == "y: Tensor[2, 3]"


@pytest.mark.asyncio
async def test_close_clears_cells(real: LanguageClient):
    nb, (md, c1, c2, c3) = _open_mnist(real)
    assert _errors(await _cell_diagnostics(real, c2, 1))
    real.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=nb.uri),
        cell_text_documents=[types.TextDocumentIdentifier(uri=c["uri"]) for c in nb.cells],
    ))
    if not pulls(real):
        assert await _cell_diagnostics(real, c2, want=lambda d: not d) == []
    assert await _hover_until(real, c3, types.Position(1, 20), None) is None


@pytest.mark.asyncio
async def test_sample_notebook(real: LanguageClient):
    """samples/notebook_mnist.ipynb, read the way an editor hands a .ipynb over: the bug
    and its repair in the model's cell, the driver's shapes in the last cell."""
    enc = encoding(real)
    cells = json.loads(SAMPLE.read_text())["cells"]
    specs = [("md" if c["cell_type"] == "markdown" else "code", "".join(c["source"])) for c in cells]
    nb = Notebook(real, SAMPLE.name)
    uris = nb.open(specs)
    model_cell = next(i for i, (_, text) in enumerate(specs) if "class LeNet" in text)
    model_text = specs[model_cell][1]
    [err] = _errors(await _cell_diagnostics(real, uris[model_cell], 1))
    assert "64x256 and 400x120" in err.message, err.message
    assert err.range.start == find_position(model_text, "self.fc1(x)", enc)
    for i, uri in enumerate(uris):
        if i != model_cell and specs[i][0] == "code":
            assert _errors(await _cell_diagnostics(real, uri)) == []
    last = specs[-1][1]
    assert await _hover(real, uris[-1], find_position(last, "batch", enc)) == "batch: Tensor[64, 1, 28, 28]"

    actions = await asyncio.wait_for(
        real.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uris[model_cell]),
            range=err.range,
            context=types.CodeActionContext(diagnostics=[err], only=[types.CodeActionKind.QuickFix]),
        )),
        TIMEOUT,
    )
    [fix] = [a for a in actions if a.title == "Set in_features to 256"]
    if fix.edit is None:
        fix = await asyncio.wait_for(real.code_action_resolve_async(fix), TIMEOUT)
    version = nb.edit(uris[model_cell], edits_for(fix.edit, uris[model_cell]))
    assert "nn.Linear(256, 120)" in nb.text(uris[model_cell])
    assert await _cell_diagnostics(real, uris[model_cell], version, want=lambda d: not _errors(d)) == []
    probs = find_position(last, "probs =", enc)
    assert await _hover_until(real, uris[-1], probs, "probs: Tensor[64, 10]") == "probs: Tensor[64, 10]"


async def _actions(client: LanguageClient, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    actions = await asyncio.wait_for(
        client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag], only=[types.CodeActionKind.QuickFix]),
        )),
        TIMEOUT,
    )
    out = []
    for action in actions:
        if action.edit is None:
            action = await asyncio.wait_for(client.code_action_resolve_async(action), TIMEOUT)
        out.append(action)
    return out


def _edited(edit: types.WorkspaceEdit) -> list[str]:
    return [dc.text_document.uri for dc in edit.document_changes or []] or list(edit.changes or {})


@pytest.mark.asyncio
async def test_repair_in_one_cell_edits_the_cell_that_defines_the_layer(real: LanguageClient):
    enc = encoding(real)
    nb = Notebook(real, "layers.ipynb")
    define, use = nb.open([
        ("code", "import torch\nimport torch.nn as nn\nfc = nn.Linear(100, 10)\n"),
        ("code", "x = torch.randn(8, 3456)\ny = fc(x)\n"),
    ])
    [err] = _errors(await _cell_diagnostics(real, use, 1))
    assert err.range.start.line == 1 and "8x3456 and 100x10" in err.message
    [fix] = [a for a in await _actions(real, use, err) if a.title == "Set in_features to 3456"]
    assert _edited(fix.edit) == [define], fix.edit
    if fix.edit.document_changes:
        assert fix.edit.document_changes[0].text_document.version == 1
    nb.edit(define, edits_for(fix.edit, define))
    assert nb.text(define).splitlines()[2] == "fc = nn.Linear(3456, 10)"
    assert await _cell_diagnostics(real, use, want=lambda d: not _errors(d)) == []
    assert await _hover_until(real, use, find_position("x = torch.randn(8, 3456)\ny = fc(x)\n", "y", enc), "y: Tensor[8, 10]") == "y: Tensor[8, 10]"


@pytest.mark.asyncio
async def test_ignore_comment_in_a_cell(real: LanguageClient):
    """`# shapesense: ignore[...]` is read from the cell's own line, and its quick fix writes it there."""
    nb, (md, c1, c2, c3) = _open_mnist(real)
    [err] = _errors(await _cell_diagnostics(real, c2, 1))
    [ignore] = [a for a in await _actions(real, c2, err) if a.title.startswith("Ignore shape-mismatch")]
    assert _edited(ignore.edit) == [c2]
    version = nb.edit(c2, edits_for(ignore.edit, c2))
    assert nb.text(c2).splitlines()[4] == "y = fc(h.flatten(1))  # shapesense: ignore[shape-mismatch]", nb.text(c2)
    assert await _cell_diagnostics(real, c2, version, want=lambda d: not _errors(d)) == []



@pytest.mark.asyncio
async def test_ignore_comments_are_per_cell(real_warn_unused: LanguageClient):
    """An ignore comment counts in its own cell: used there, it is not reported as unused
    from another cell's view; an unused one is reported once, in its cell."""
    nb = Notebook(real_warn_unused, "ignores.ipynb")
    used, unused, plain = nb.open([
        ("code", "import torch\nx = torch.randn(2, 3)\ny = x @ x  # shapesense: ignore[shape-mismatch]\n"),
        ("code", "z = x.sum()  # shapesense: ignore\n"),
        ("code", "w = x + 1\n"),
    ])
    assert await _cell_diagnostics(real_warn_unused, used, 1) == []
    [note] = await _cell_diagnostics(real_warn_unused, unused, 1)
    assert note.code == "unused-ignore" and note.range.start.line == 0, note
    assert await _cell_diagnostics(real_warn_unused, plain, 1) == []

@pytest.mark.asyncio
async def test_code_lens_sits_on_the_class_in_its_cell(real: LanguageClient):
    cells = json.loads(SAMPLE.read_text())["cells"]
    specs = [("md" if c["cell_type"] == "markdown" else "code", "".join(c["source"])) for c in cells]
    nb = Notebook(real, SAMPLE.name)
    uris = nb.open(specs)
    model_cell = next(i for i, (_, text) in enumerate(specs) if "class LeNet" in text)
    await _cell_diagnostics(real, uris[model_cell], 1)
    for i, uri in enumerate(uris):
        if specs[i][0] != "code":
            continue
        lenses = await asyncio.wait_for(
            real.text_document_code_lens_async(types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))),
            TIMEOUT,
        )
        where = [(lens.range.start.line, lens.command.title) for lens in lenses or []]
        if i == model_cell:
            [(line, title)] = where
            assert line == 0 and "Tensor[64, 1, 28, 28]" in title, where
        else:
            assert where == [], (i, where)

@pytest.mark.asyncio
async def test_bad_notebook_messages_change_nothing(real: LanguageClient):
    """Changes for a notebook or cell that is not open, and an array change past the end,
    are logged or clamped; the notebook keeps its results. Cells of other languages and
    cells whose text never came are left out of the program."""
    enc = encoding(real)
    nb = Notebook(real, "robust.ipynb")
    code, r_cell = nb.open([("code", "import torch\nx = torch.randn(3, 4)\n"), ("code", "x <- c(1, 2)\n")])
    # the second cell is R: re-announce it with its language (the opening above said python)
    nb._send(types.NotebookDocumentCellChanges(structure=types.NotebookDocumentCellChangeStructure(
        array=types.NotebookCellArrayChange(start=1, delete_count=1, cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=r_cell + "r")]),
        did_open=[types.TextDocumentItem(uri=r_cell + "r", language_id="r", version=1, text="y <- x[1]\n")],
        did_close=[types.TextDocumentIdentifier(uri=r_cell)],
    )))
    real.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=nb.uri + "-missing", version=9),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(data=[])),
    ))
    nb._send(types.NotebookDocumentCellChanges(
        structure=types.NotebookDocumentCellChangeStructure(
            array=types.NotebookCellArrayChange(start=99, delete_count=5, cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document="cell:never-opened")]),
        ),
        text_content=[types.NotebookDocumentCellContentChanges(
            document=types.VersionedTextDocumentIdentifier(uri="cell:not-open", version=2),
            changes=[types.TextDocumentContentChangeWholeDocument(text="boom(")],
        )],
    ))
    x = find_position("import torch\nx = torch.randn(3, 4)\n", "x =", enc)
    assert await _hover_until(real, code, x, "x: Tensor[3, 4]") == "x: Tensor[3, 4]"
    await wait_until(real, lambda: any("not open" in m.message for m in real.log_messages))
    assert await _hover(real, r_cell + "r", types.Position(0, 0)) is None
    assert await _cell_diagnostics(real, code) == []

# -- the cell <-> virtual file mapping, without a server --------------------------------------


@pytest.mark.parametrize("cell, python", [
    ("%matplotlib inline\nimport torch", "pass\nimport torch"),
    ("!pip install einops\nfiles = !ls\nt = %time f()", "pass\npass\npass"),
    ("x?\n??x\ntorch.randn??", "pass\npass\npass"),
    ("if True:\n    %time y = 1\n    !ls", "if True:\n    pass\n    pass"),
    ("%%bash\necho hi\nls -la", "pass\n\n"),
    ("%%time\nx = 1\n!ls \\\n  -la\ny = 2", "pass\nx = 1\npass\n\ny = 2"),
    # Python that only looks like IPython: strings, brackets, operators, comments
    ("s = \"\"\"\n!not shell\n%not magic\n\"\"\"", "s = \"\"\"\n!not shell\n%not magic\n\"\"\""),
    ("a = (1,\n  %2)", "a = (1,\n  %2)"),
    ("x != 3\nx %= 2\nprint('why?')  # really?", "x != 3\nx %= 2\nprint('why?')  # really?"),
    ("a\r\n%ls\r\nb", "a\r\npass\r\nb"),
    # a statement still open at the cell's end (being typed) is left out, not the next cells
    ("x = 1\ny = f(\n  2,", "x = 1\npass\n"),
    ("def g():\n    y = f(\n", "def g():\n    pass\n"),
    ("s = \"\"\"abc\nmore", "pass\n"),
])
def test_ipython_lines_become_pass(cell, python):
    assert python_source(cell) == python


def test_cells_laid_out_line_for_line():
    text = NotebookText()
    text.set_cell("a", "x = 1\n")
    text.set_cell("b", "%ls\ny = x")
    text.set_cell("c", "z = y")
    assert text.layout(["b", "a", "c"]) == "pass\ny = x\nx = 1\n\nz = y"
    assert [(p.uri, p.start, p.lines) for p in text.placements.values()] == [("b", 0, 2), ("a", 2, 2), ("c", 4, 1)]
    assert [text.cell_at(n).uri for n in range(5)] == ["b", "b", "a", "a", "c"]
    assert text.cell_at(5) is None
    text.drop_cell("a")
    assert text.layout(["b", "a", "c"]) == "pass\ny = x\nz = y"
