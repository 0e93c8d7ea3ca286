"""Text synchronisation: didOpen / didChange / didClose / didSave.

The open buffer is the truth for its file; the engine hears about every buffer change
at once (for other files' cross-file analysis) and the document's own analysis is
debounced. Closing hands the file back to what is on disk.
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from ..documents import Change
from ..guard import feature
from ..paths import MAX_SOURCE_BYTES, read_text
from .diagnostics import clear

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer


def _change(c) -> Change:
    rng = getattr(c, "range", None)
    if rng is None:
        return Change(c.text)
    return Change(c.text, ((rng.start.line, rng.start.character), (rng.end.line, rng.end.character)))


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: "ShapeLanguageServer", params: types.DidOpenTextDocumentParams):
        td = params.text_document
        # A didOpen replaces the document and everything known about it, whatever its
        # version: clients restart numbering when they reopen a file.
        doc = ls.documents.open(td.uri, td.text, td.version, td.language_id)
        ls.scheduler.forget(td.uri)
        ls.worker.set_file(ls.path_of(td.uri), doc.text)
        ls.scheduler.touch(td.uri, delay=False)

    @feature(ls, types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: "ShapeLanguageServer", params: types.DidChangeTextDocumentParams):
        td = params.text_document
        doc = ls.documents.change(td.uri, td.version, [_change(c) for c in params.content_changes])
        if doc is None:
            ls.log_message(f"ShapeSense: didChange for a document that is not open: {td.uri}")
            return
        ls.worker.set_file(ls.path_of(td.uri), doc.text)
        ls.scheduler.touch(td.uri)

    @feature(ls, types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: "ShapeLanguageServer", params: types.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        ls.documents.close(uri)
        ls.scheduler.forget(uri)
        clear(ls, uri)
        path = ls.path_of(uri)
        text = await asyncio.get_running_loop().run_in_executor(None, read_text, path, MAX_SOURCE_BYTES, ls.workspace_roots)
        if uri in ls.documents:  # reopened meanwhile: the buffer wins
            return
        if text is None:
            ls.worker.remove_file(path)
        else:
            ls.worker.set_file(path, text)

    @feature(ls, types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: "ShapeLanguageServer", params: types.DidSaveTextDocumentParams):
        # Other files may import this one: their results may change.
        ls.scheduler.invalidate()
        ls.refresh_all()
