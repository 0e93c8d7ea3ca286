"""Client-side helpers for the LSP tests: a recording client and small drivers.

Waiting is event-driven: every notification the client records wakes the waiters, which
re-check their condition; nothing sleeps.
"""
from __future__ import annotations

import asyncio
import copy
import pathlib
import re
import sys
from typing import Any, Callable

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

TIMEOUT = 60  # seconds: a hung server fails the test instead of hanging the run

HERE = pathlib.Path(__file__).parent
DATA = HERE / "data"

REAL_SERVER = [sys.executable, "-m", "shapesense", "serve", "--stdio"]
FAKE_SERVER = [sys.executable, str(HERE / "lsp_fake_host.py")]

CLIENTS = {
    "vscode": "visual-studio-code",  # UTF-16, push diagnostics
    "neovim": "neovim",  # UTF-8, pull diagnostics
}


def capabilities(kind: str) -> types.ClientCapabilities:
    if kind == "neovim-push":  # Neovim's capabilities minus pull diagnostics
        caps = copy.deepcopy(client_capabilities("neovim"))
        caps.text_document.diagnostic = None
        return caps
    return client_capabilities(CLIENTS[kind])


async def start(client: LanguageClient, kind: str, root: pathlib.Path, options: dict | None = None):
    params = types.InitializeParams(
        capabilities=capabilities(kind),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options={"debounceMs": 30, **(options or {})},
    )
    client.kind = kind
    client.root = root
    client.init_result = await client.initialize_session(params)


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # every PublishDiagnosticsParams, in order
    client.registrations = []
    client.waiters = []

    def wake():
        for ev in client.waiters:
            ev.set()

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)
        wake()

    def log_message(client: LanguageClient, params: types.LogMessageParams):
        client.log_messages.append(params)
        wake()

    def show_message(client: LanguageClient, params: types.ShowMessageParams):
        client.messages.append(params)
        wake()

    def progress(client: LanguageClient, params: types.ProgressParams):
        DEFAULT_CLIENT_FEATURES[types.PROGRESS](client, params)
        wake()

    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        client.registrations.extend(params.registrations)
        wake()

    def inlay_refresh(client: LanguageClient, params: None):
        return None

    features = dict(DEFAULT_CLIENT_FEATURES)
    features.update({
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
        types.WINDOW_LOG_MESSAGE: log_message,
        types.WINDOW_SHOW_MESSAGE: show_message,
        types.PROGRESS: progress,
        types.CLIENT_REGISTER_CAPABILITY: register_capability,
        types.WORKSPACE_INLAY_HINT_REFRESH: inlay_refresh,
    })
    register_lsp_features(client, features)
    return client


async def wait_until(client: LanguageClient, predicate: Callable[[], Any], timeout: float = TIMEOUT):
    """Wait until `predicate()` is truthy, re-checking on every recorded notification."""

    async def run():
        while not (result := predicate()):
            ev = asyncio.Event()
            client.waiters.append(ev)
            try:
                await ev.wait()
            finally:
                client.waiters.remove(ev)
        return result

    return await asyncio.wait_for(run(), timeout)


async def raw_request(client: LanguageClient, method: str, params: Any) -> Any:
    """Send a request whose params need not fit the method's type (malformed on purpose)."""
    from concurrent.futures import Future

    msg_id = f"raw-{len(client.protocol._request_futures)}-{id(params)}"
    future: Future = Future()
    client.protocol._request_futures[msg_id] = future
    client.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await asyncio.wait_for(asyncio.wrap_future(future), TIMEOUT)


def pulls(client: LanguageClient) -> bool:
    td = client.capabilities.text_document
    return bool(td and td.diagnostic is not None)


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )


def change(client: LanguageClient, uri: str, version: int, *changes) -> None:
    """`changes`: (start, end, text) in client units, or a str for a full replacement."""
    content = []
    for c in changes:
        if isinstance(c, str):
            content.append(types.TextDocumentContentChangeWholeDocument(text=c))
        else:
            (sl, sc), (el, ec), text = c
            rng = types.Range(types.Position(sl, sc), types.Position(el, ec))
            content.append(types.TextDocumentContentChangePartial(range=rng, text=text))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=content
        )
    )


async def published(client: LanguageClient, uri: str, version: int | None = None) -> list[types.Diagnostic]:
    """The diagnostics pushed for `uri` (at `version`, when given)."""

    def find():
        for p in reversed(client.published):
            if p.uri == uri and (version is None or p.version == version):
                return p
        return None

    return list((await wait_until(client, find)).diagnostics)


async def diagnostics(client: LanguageClient, uri: str, version: int | None = None) -> list[types.Diagnostic]:
    """Diagnostics of the document's newest text, the way this client gets them."""
    if pulls(client):
        report = await asyncio.wait_for(
            client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            ),
            TIMEOUT,
        )
        return list(report.items)
    return await published(client, uri, version)


def encoding(client: LanguageClient) -> str:
    return client.init_result.capabilities.position_encoding or "utf-16"


def units(s: str, enc: str) -> int:
    if enc == "utf-8":
        return len(s.encode("utf-8"))
    if enc == "utf-16":
        return len(s.encode("utf-16-le")) // 2
    return len(s)


def lsp_lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def position_of(text: str, offset: int, enc: str) -> types.Position:
    """LSP position of a code-point offset, computed independently of the server."""
    before = lsp_lines(text[:offset])
    return types.Position(line=len(before) - 1, character=units(before[-1], enc))


def find_position(text: str, needle: str, enc: str, nth: int = 0, delta: int = 0) -> types.Position:
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    return position_of(text, offset + delta, enc)


def offset_of(text: str, pos: types.Position, enc: str) -> int:
    lines = lsp_lines(text)
    starts, acc = [], 0
    for m in re.finditer(r"\r\n|\r|\n", text):
        starts.append(acc)
        acc = m.end()
    starts.append(acc)
    line = lines[pos.line]
    col = 0
    while col < len(line) and units(line[: col + 1], enc) <= pos.character:
        col += 1
    return starts[pos.line] + col


def apply_text_edits(text: str, edits: list[types.TextEdit], enc: str) -> str:
    spans = sorted(((offset_of(text, e.range.start, enc), offset_of(text, e.range.end, enc), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_for(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    if edit.document_changes:
        return [e for dc in edit.document_changes if dc.text_document.uri == uri for e in dc.edits]
    return list((edit.changes or {}).get(uri, []))


async def hover_until(client: LanguageClient, uri: str, pos: types.Position, want: str, tries: int = 100):
    """Hover until the first line is `want` (bounded): a hover is answered at once from the
    latest finished analysis, which may predate the change just made."""
    h = None
    for _ in range(tries):
        h = await asyncio.wait_for(client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)), TIMEOUT)
        if h is not None and hover_first_line(h) == want:
            return h
        await asyncio.sleep(0.1)
    return h


def hover_first_line(hover: types.Hover | None) -> str | None:
    if hover is None:
        return None
    value = hover.contents.value
    lines = value.splitlines()
    if lines and lines[0].startswith("```"):
        return lines[1]
    return lines[0] if lines else None
