"""Jupyter notebooks (LSP 3.17 notebookDocument/* sync).

A notebook's Python code cells are analysed as one program: their texts, laid out in
execution order where the client gives it (else document order), make one virtual Python
document keyed by the notebook's URI (server/notebook_map.py builds it). That document goes
through the usual store, worker and scheduler like any open file. Each cell is a *view* of
its result: the cell's facts, diagnostics and fixes, still in virtual-file positions, with a
line index (CellIndex) that maps them to the cell's own lines and client units. So hover,
inlay hints, code lenses and pulled diagnostics need nothing notebook-specific (the
scheduler's `view_of` hook hands a request on a cell its view); code actions ask the index
to split a repair over the cells it edits; pushed diagnostics are split here, one publish
per cell URI. Markdown cells and cells of other languages are ignored.

Cell texts live in the document store too (edits apply with its LSP line rules and
encodings), under a language id the scheduler does not analyse on its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from lsprotocol import types

from shapesense.analysis.results import Diagnostic, FileAnalysis, Fix, Related, Span, TextEdit

from .. import convert
from ..documents import Change, LineIndex
from ..guard import feature
from ..notebook_map import NotebookText, Placement
from ..worker import Outcome, Snapshot
from .diagnostics import lsp_diagnostics

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer

NOTEBOOK_TYPE = "jupyter-notebook"
PYTHON_CELL_LANGUAGES = {"python", "python3", "py", "ipython"}
# Cells sit in the document store under this language id: the scheduler only analyses
# Python documents, and a cell is analysed as part of its notebook, never alone.
CELL_LANGUAGE_ID = "shapesense-notebook-cell"

SYNC_OPTIONS = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithNotebook(
            notebook=NOTEBOOK_TYPE, cells=[types.NotebookCellLanguage(language="python")]
        )
    ],
    save=False,
)


# -- cells ---------------------------------------------------------------------------


@dataclass
class Cell:
    uri: str
    kind: types.NotebookCellKind
    language: str
    order: int | None  # the kernel's execution count, when the client gives one

    @property
    def is_python(self) -> bool:
        return self.kind == types.NotebookCellKind.Code and self.language.lower() in PYTHON_CELL_LANGUAGES


def execution_order(cell: types.NotebookCell) -> int | None:
    """From executionSummary, else the `execution_count` a Jupyter client keeps in metadata."""
    if cell.execution_summary is not None and isinstance(cell.execution_summary.execution_order, int):
        return cell.execution_summary.execution_order
    meta = cell.metadata if isinstance(cell.metadata, dict) else {}
    for holder in (meta, meta.get("metadata") if isinstance(meta.get("metadata"), dict) else {}):
        count = holder.get("execution_count")
        if isinstance(count, int) and not isinstance(count, bool):
            return count
    return None


def program_order(cells: list[Cell]) -> list[str]:
    """The Python cells as the kernel would have run them: executed cells by execution
    count, then the cells never run, in document order (they would run next)."""
    code = [c for c in cells if c.is_python]
    ran = sorted((c for c in code if c.order is not None), key=lambda c: c.order)
    return [c.uri for c in ran] + [c.uri for c in code if c.order is None]


# -- a cell as a view of the notebook's analysis -----------------------------------------


# (uri, version, line index, first virtual line) of the cell holding a virtual line
CellLocator = Callable[[int], "tuple[str, int, LineIndex, int] | None"]


class CellIndex:
    """The line index a cell's results are converted with: engine positions are in the
    virtual file, client positions in the cell (its own text decides the units). `text`
    is the virtual file with every other cell's lines emptied: positions in it are the
    engine's, and what is read from it (ignore comments, a statement's first line) is
    this cell's alone."""

    def __init__(self, cell: LineIndex, place: Placement, whole: LineIndex, locate: CellLocator):
        self.cell = cell
        self.start = place.start
        self.end = place.end
        self.whole = whole
        self._locate = locate
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            total = self.whole.line_count
            starts = self.whole.starts
            begin = starts[self.start] if self.start < total else len(self.whole.text)
            end = starts[self.end] if self.end < total else len(self.whole.text)
            self._text = "\n" * self.start + self.whole.text[begin:end] + "\n" * max(0, total - 1 - self.end)
        return self._text

    @property
    def line_count(self) -> int:
        return self.whole.line_count

    def line(self, n: int) -> str:
        return self.whole.line(n) if self.start <= n < self.end else ""

    def edits_per_document(self, fix: Fix, encoding: str) -> list[tuple[str, int, list[types.TextEdit]]]:
        """(cell uri, cell version, edits) for each cell `fix` edits: a repair offered in
        one cell may change the layer another cell defines."""
        out: dict[str, tuple[str, int, list]] = {}
        for edit in fix.edits:
            found = self._locate(edit.span.start[0])
            if found is None:
                continue
            uri, version, index, start = found
            rng = convert.range_(index, _shift(edit.span, -start), encoding)
            out.setdefault(uri, (uri, version, []))[2].append(types.TextEdit(range=rng, new_text=edit.new_text))
        return list(out.values())

    def from_client(self, line: int, units: int, encoding: str) -> tuple[int, int]:
        cl, col = self.cell.from_client(line, units, encoding)
        return cl + self.start, col

    def contains_client(self, line: int, units: int, encoding: str) -> bool:
        return self.cell.contains_client(line, units, encoding)

    def to_client(self, line: int, col: int, encoding: str) -> tuple[int, int]:
        return self.cell.to_client(line - self.start, col, encoding)


def _shift(span: Span, lines: int) -> Span:
    return Span((span.start[0] + lines, span.start[1]), (span.end[0] + lines, span.end[1]))


def _is_import_insert(edit: TextEdit) -> bool:
    return edit.span.start == edit.span.end and edit.new_text.lstrip().startswith(("import ", "from "))


@dataclass
class Notebook:
    uri: str
    path: str  # the engine's key for the virtual file (the notebook's own path)
    cells: list[Cell] = field(default_factory=list)
    source: NotebookText = field(default_factory=NotebookText)
    version: int = 0  # of the virtual document
    published: dict[str, list] = field(default_factory=dict)  # cell uri -> last diagnostics sent
    _views: tuple[object, dict] = field(default_factory=lambda: (None, {}))
    _by_cell: dict[str, tuple[list, list]] = field(default_factory=dict)

    def cell(self, uri: str) -> Cell | None:
        return next((c for c in self.cells if c.uri == uri), None)

    def view(self, whole: Outcome, uri: str, cell_text: LineIndex, cell_version: int, locate: CellLocator) -> Outcome | None:
        """Cell `uri`'s part of the notebook's analysis `whole` (cached per result)."""
        place = self.source.placements.get(uri)
        if place is None:
            return None
        if self._views[0] is not whole:
            self._views = (whole, {})
            self._by_cell = self._split(whole.analysis)
        key = (uri, cell_version)
        hit = self._views[1].get(key)
        if hit is None:
            index = CellIndex(cell_text, place, whole.snapshot.index, locate)
            snap = Snapshot(uri, whole.snapshot.path, cell_version, index)
            analysis = None if whole.analysis is None else self._cell_analysis(whole.analysis, place, cell_text)
            changed = None if whole.changed is None else (whole.changed[0] - place.start, whole.changed[1] - place.start)
            first = bool(self.source.order) and self.source.order[0] == uri
            hit = self._views[1][key] = replace(
                whole, snapshot=snap, analysis=analysis, changed=changed, notes=whole.notes if first else ()
            )
        return hit

    def diagnostics_by_cell(self, whole: Outcome) -> dict[str, list]:
        if self._views[0] is not whole:
            self._views = (whole, {})
            self._by_cell = self._split(whole.analysis)
        return {uri: diags for uri, (_, diags) in self._by_cell.items() if diags}

    def may_suppress(self, uri: str) -> bool:
        """Does the cell hold a suppression comment (which may be reported as unused)?"""
        return "shapesense:" in self.source.python(uri)

    def _split(self, analysis: FileAnalysis | None) -> dict[str, tuple[list, list]]:
        """The facts and diagnostics of each cell, in one pass over the analysis."""
        out: dict[str, tuple[list, list]] = {}
        if analysis is None:
            return out
        for kind, items in ((0, analysis.facts), (1, analysis.diagnostics)):
            for item in items:
                place = self.source.cell_at(item.span.start[0])
                if place is not None:
                    out.setdefault(place.uri, ([], []))[kind].append(item)
        return out

    def _cell_analysis(self, whole: FileAnalysis, place: Placement, cell_text: LineIndex) -> FileAnalysis:
        magic_first = cell_text.line(0).lstrip().startswith("%%")
        import_line = place.start + (1 if magic_first else 0)
        facts, diags = self._by_cell.get(place.uri, ([], []))
        diags = [self._localize(d, place, import_line) for d in diags]

        def annotations() -> list[Fix]:
            return [f for f in (self._own_fix(f, place, import_line) for f in whole.annotation_fixes()) if f]

        return FileAnalysis(
            whole.path,
            facts=facts,
            diagnostics=diags,
            unknown_ops=whole.unknown_ops,
            make_annotations=annotations,
        )

    def _localize(self, diag: Diagnostic, place: Placement, import_line: int) -> Diagnostic:
        related = []
        for rel in diag.related:
            if rel.path not in (None, self.path) or place.holds(rel.span.start[0]):
                related.append(replace(rel, path=None) if rel.path == self.path else rel)
                continue
            other = self.source.cell_at(rel.span.start[0])
            if other is not None:  # in another cell: that cell's URI and lines
                related.append(Related(_shift(rel.span, -other.start), rel.message, other.uri))
        fixes = tuple(f for f in (self._cells_fix(f, place, import_line) for f in diag.fixes) if f)
        return replace(diag, related=tuple(related), fixes=fixes)

    def _cells_fix(self, fix: Fix, place: Placement, import_line: int) -> Fix | None:
        """A repair may edit any cell (a code action's edit names each cell it changes);
        kept when every edit lies inside one cell."""
        for edit in fix.edits:
            other = self.source.cell_at(edit.span.start[0])
            if other is None or not other.holds(edit.span.end[0]):
                return self._own_fix(fix, place, import_line)
        return fix

    @staticmethod
    def _own_fix(fix: Fix, place: Placement, import_line: int) -> Fix | None:
        """The fix as an edit of this cell alone (an annotation, which an inlay hint may
        carry: a hint edits its own document): an import the engine would add at the top
        of the file goes to the top of this cell; a fix that edits another cell is left out."""
        edits = []
        for edit in fix.edits:
            if place.holds(edit.span.start[0]) and place.holds(edit.span.end[0]):
                edits.append(edit)
            elif _is_import_insert(edit):
                edits.append(TextEdit(Span((import_line, 0), (import_line, 0)), edit.new_text))
            else:
                return None
        return replace(fix, edits=tuple(edits))


# -- the server side -------------------------------------------------------------------


def _change(c) -> Change:
    rng = getattr(c, "range", None)
    if rng is None:
        return Change(c.text)
    return Change(c.text, ((rng.start.line, rng.start.character), (rng.end.line, rng.end.character)))


class Notebooks:
    """The open notebooks and which notebook each cell belongs to."""

    def __init__(self, ls: "ShapeLanguageServer"):
        self.ls = ls
        self.by_uri: dict[str, Notebook] = {}
        self.owner: dict[str, str] = {}  # cell uri -> notebook uri
        self._languages: dict[str, str] = {}  # cell uri -> the client's language id

    def open_cell(self, nb: Notebook, item: types.TextDocumentItem) -> None:
        self.ls.documents.open(item.uri, item.text, item.version, CELL_LANGUAGE_ID)
        self.owner[item.uri] = nb.uri
        self._languages[item.uri] = item.language_id

    def close_cell(self, nb: Notebook, uri: str) -> None:
        self.ls.documents.close(uri)
        self.owner.pop(uri, None)
        self._languages.pop(uri, None)
        nb.source.drop_cell(uri)

    def language(self, uri: str) -> str:
        return self._languages.get(uri, "python")

    def rebuild(self, nb: Notebook, delay: bool = True) -> None:
        """Lay the cells out again and hand the virtual file to the engine; only cells whose
        text changed are converted again (NotebookText caches the rest)."""
        for cell in nb.cells:
            doc = self.ls.documents.get(cell.uri)
            if cell.is_python and doc is not None:
                nb.source.set_cell(cell.uri, doc.text)
        text = nb.source.layout(program_order(nb.cells))
        nb.version += 1
        if nb.uri in self.ls.documents:
            self.ls.documents.change(nb.uri, nb.version, [Change(text)])
        else:
            self.ls.documents.open(nb.uri, text, nb.version, "python")
        self.ls.worker.set_file(nb.path, text)
        self.ls.scheduler.touch(nb.uri, delay=delay)

    def view_of(self, uri: str):
        """For the scheduler: a cell's Outcome is made from its notebook's."""
        nb = self.by_uri.get(self.owner.get(uri, ""))
        if nb is None or uri not in nb.source.placements:
            return None

        def make(whole: Outcome | None) -> Outcome | None:
            doc = self.ls.documents.get(uri)
            return None if doc is None or whole is None else nb.view(whole, uri, doc.index, doc.version, locate)

        def locate(line: int):
            place = nb.source.cell_at(line)
            cell = self.ls.documents.get(place.uri) if place is not None else None
            return None if cell is None else (place.uri, cell.version, cell.index, place.start)

        return nb.uri, make

    def publish(self, nb: Notebook, whole: Outcome) -> None:
        """Diagnostics per cell URI; only what changed is sent. Other cells' results may
        change with an edit in one cell: pulling clients and inlay hints are told to refresh."""
        ls = self.ls
        current: dict[str, list] = {}
        engine = nb.diagnostics_by_cell(whole)
        first = nb.source.order[0] if nb.source.order else None
        for uri in nb.source.order:
            if uri in nb.published and not (nb.published[uri] or engine.get(uri) or uri == first or nb.may_suppress(uri)):
                current[uri] = []  # nothing before, nothing now: no need to convert anything
                continue
            view = self.view_of(uri)
            outcome = view[1](whole) if view else None
            current[uri] = lsp_diagnostics(ls, outcome) if outcome is not None else []
        stale = [u for u in nb.published if u not in current]
        changed = [u for u, items in current.items() if nb.published.get(u) != items] + stale
        for uri in stale:
            current.setdefault(uri, [])
        if not ls.pull_diagnostics:
            for uri in changed:
                doc = ls.documents.get(uri)
                ls.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(
                        uri=uri, diagnostics=current[uri], version=doc.version if doc is not None else None
                    )
                )
        elif changed:
            ls.request_refresh("diagnostics")
        nb.published = {u: items for u, items in current.items() if u not in stale}
        ls.request_refresh("inlay_hints")
        _refresh_code_lenses(ls)

    def clear(self, uri: str, nb: Notebook) -> None:
        if nb.published.pop(uri, None) and not self.ls.pull_diagnostics:
            self.ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _refresh_code_lenses(ls: "ShapeLanguageServer") -> None:
    """A model's lens sits in its class's cell but depends on the cells that call it."""
    caps = ls.client_capabilities.workspace if ls.protocol.client_capabilities else None
    if caps and caps.code_lens and caps.code_lens.refresh_support:
        try:
            ls.workspace_code_lens_refresh(None)
        except Exception as exc:
            ls.log_message(f"ShapeSense: code lens refresh failed: {exc!r}")


def _cells(params_cells, notebooks: Notebooks) -> list[Cell]:
    return [Cell(c.document, c.kind, notebooks.language(c.document), execution_order(c)) for c in params_cells or []]


def register(ls: "ShapeLanguageServer") -> None:
    # pygls advertises notebookDocumentSync from this attribute at `initialize`
    ls._notebook_document_sync = SYNC_OPTIONS
    notebooks = Notebooks(ls)
    ls.scheduler.view_of = notebooks.view_of

    file_results = ls.scheduler.on_result  # diagnostics.py's (registered before this module)

    def on_result(outcome: Outcome):
        nb = notebooks.by_uri.get(outcome.snapshot.uri)
        if nb is None:
            return file_results(outcome) if file_results else None
        notebooks.publish(nb, outcome)
        return None

    ls.scheduler.on_result = on_result

    @feature(ls, types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open(ls: "ShapeLanguageServer", params: types.DidOpenNotebookDocumentParams):
        doc = params.notebook_document
        old = notebooks.by_uri.get(doc.uri)
        if old is not None:  # reopened without a close: start over
            for cell in old.cells:
                notebooks.close_cell(old, cell.uri)
        nb = notebooks.by_uri[doc.uri] = Notebook(doc.uri, ls.path_of(doc.uri))
        for item in params.cell_text_documents:
            notebooks.open_cell(nb, item)
        nb.cells = _cells(doc.cells, notebooks)
        notebooks.rebuild(nb, delay=False)

    @feature(ls, types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change(ls: "ShapeLanguageServer", params: types.DidChangeNotebookDocumentParams):
        uri = params.notebook_document.uri
        nb = notebooks.by_uri.get(uri)
        if nb is None:
            ls.log_message(f"ShapeSense: notebookDocument/didChange for a notebook that is not open: {uri}")
            return
        cells = params.change.cells
        if cells is None:
            return  # notebook metadata only
        if cells.structure is not None:
            for item in cells.structure.did_open or []:
                notebooks.open_cell(nb, item)
            for ident in cells.structure.did_close or []:
                notebooks.close_cell(nb, ident.uri)
                notebooks.clear(ident.uri, nb)
            array = cells.structure.array
            start = max(0, min(array.start, len(nb.cells)))
            nb.cells[start:start + max(0, array.delete_count)] = _cells(array.cells, notebooks)
        by_uri = {c.uri: c for c in nb.cells}
        for data in cells.data or []:
            cell = by_uri.get(data.document)
            if cell is not None:
                cell.kind, cell.order = data.kind, execution_order(data)
        for content in cells.text_content or []:
            doc = ls.documents.change(
                content.document.uri, content.document.version, [_change(c) for c in content.changes]
            )
            if doc is None:
                ls.log_message(f"ShapeSense: a change for a cell that is not open: {content.document.uri}")
        for cell in nb.cells:
            if not cell.is_python:
                nb.source.drop_cell(cell.uri)
        notebooks.rebuild(nb)

    @feature(ls, types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close(ls: "ShapeLanguageServer", params: types.DidCloseNotebookDocumentParams):
        uri = params.notebook_document.uri
        nb = notebooks.by_uri.pop(uri, None)
        if nb is None:
            return
        for cell in nb.cells:
            notebooks.close_cell(nb, cell.uri)
            notebooks.clear(cell.uri, nb)
        for ident in params.cell_text_documents:
            if ident.uri in ls.documents:
                notebooks.close_cell(nb, ident.uri)
        ls.documents.close(uri)
        ls.scheduler.forget(uri)
        ls.worker.remove_file(nb.path)
