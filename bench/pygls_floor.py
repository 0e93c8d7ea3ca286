"""The protocol floor: a pygls 2 server that analyses nothing.

    python -m bench.run --server-cmd "python -m bench.pygls_floor" --no-inprocess

On every didOpen/didChange it applies the change with pygls's own document store and
publishes an empty diagnostic list tagged with the version; hover/inlay/code actions answer
trivially. Its edit -> diagnostics time is what JSON-RPC over a pipe + pygls's dispatch cost
before any analysis, the part of ShapeSense's latency no engine work can remove.
"""
from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bench-floor", "0")


def _publish(ls: LanguageServer, uri: str, version: int) -> None:
    ls.workspace.get_text_document(uri).source  # touch the text like a real server would
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[]))


@server.feature(types.INITIALIZED)
def initialized(ls: LanguageServer, params: types.InitializedParams) -> None:
    ls.window_log_message(types.LogMessageParams(types.MessageType.Log, "floor: indexed 0 Python files"))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: types.HoverParams):
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="`Tensor[8, 3]`"))


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
def inlay(ls: LanguageServer, params: types.InlayHintParams):
    return []


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
def code_action(ls: LanguageServer, params: types.CodeActionParams):
    return []


if __name__ == "__main__":
    server.start_io()
