"""The language server object: state shared by the feature modules, and its wiring."""
from __future__ import annotations

import asyncio
import logging
import traceback
from importlib import metadata
from typing import Any, Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcMethodNotFound
from pygls.lsp.server import LanguageServer

from .documents import UTF16, DocumentStore, LineIndex
from .paths import path_to_uri, read_text, uri_to_path
from .protocol import ShapeProtocol
from .scheduler import Scheduler
from .settings import Settings
from .worker import AnalysisWorker

_LIBRARY_PATHS: dict = {}


def library_paths(python: str):
    """sys.path of the interpreter whose libraries are analysed (None: this one), asked
    once per interpreter (analysis.libraries.interpreter_paths runs it isolated)."""
    if not python:
        return None
    if python not in _LIBRARY_PATHS:
        from shapesense.analysis.libraries import interpreter_paths

        paths = interpreter_paths(python)
        if paths is None:
            log.warning("ShapeSense: cannot ask %s for its import path; using the server's own", python)
        _LIBRARY_PATHS[python] = paths
    return _LIBRARY_PATHS[python]


def _project_python(settings) -> str:
    project = settings.project
    return getattr(project, "python", None) or ""

log = logging.getLogger(__name__)


def _version() -> str:
    try:
        return metadata.version("shapesense")
    except metadata.PackageNotFoundError:  # running from a plain checkout
        return "0+unknown"


class ShapeLanguageServer(LanguageServer):
    def __init__(self, host_factory: Callable | None = None):
        super().__init__("shapesense", _version(), protocol_cls=ShapeProtocol)
        self.documents = DocumentStore(UTF16)
        self.settings = Settings()
        self.initial_settings = Settings()  # from initializationOptions
        self.encoding = UTF16
        self.pull_diagnostics = False  # the client pulls (textDocument/diagnostic)
        self.workspace_roots: list[str] = []
        self.workspace_trusted = True  # initializationOptions.workspaceTrusted (VS Code) is not false
        self.folder_trusted = False  # ... is true: the folder's own pyproject.toml may name a Python
        self.pending_problems: list[str] = []  # settings problems, shown once initialized
        self.indexing: asyncio.Future | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.worker = AnalysisWorker(self.engine_settings(), None, self.log_error, host_factory)
        self.scheduler = Scheduler(self.worker, self.documents, lambda: self.settings, self.log_error)

    def start_io(self, stdin=None, stdout=None):
        """LSP over stdio with our framing and process ending (server/transport.py)."""
        from .transport import serve_stdio

        serve_stdio(self, stdin, stdout)

    # -- settings ------------------------------------------------------------------
    def engine_settings(self) -> dict[str, Any]:
        """The EngineSettings fields the user controls."""
        return {
            "solver_timeout_ms": self.settings.solver_timeout_ms,
            "annotation_style": self.settings.annotation_style,
            # An untrusted folder names no interpreter we would run (its settings and its
            # pyproject.toml are the folder's): libraries come from the server's own Python.
            "library_paths": library_paths(self.settings.interpreter
                                           or (_project_python(self.settings) if self.folder_trusted else ""))
            if self.workspace_trusted else None,
            "disk_cache": True,  # parsed files in the user's cache folder (analysis.diskcache)
        }

    def apply_settings(self, settings: Settings) -> None:
        old, self.settings = self.settings, settings
        if old == settings:
            return
        self.worker.reconfigure(self.engine_settings())
        self.scheduler.invalidate()
        self.refresh_all()

    def refresh_all(self) -> None:
        """Open documents' results may have changed (settings, other files)."""
        self.scheduler.touch_all()
        if self.pull_diagnostics:
            self.request_refresh("diagnostics")
        self.request_refresh("inlay_hints")

    def request_refresh(self, what: str) -> None:
        caps = self.client_capabilities.workspace if self.protocol.client_capabilities else None
        try:
            if what == "diagnostics" and caps and caps.diagnostics and caps.diagnostics.refresh_support:
                self.workspace_diagnostic_refresh(None)
            elif what == "inlay_hints" and caps and caps.inlay_hint and caps.inlay_hint.refresh_support:
                self.workspace_inlay_hint_refresh(None)
        except Exception:
            log.exception("refresh request failed")

    # -- client-facing logging (thread-safe) ----------------------------------------
    def log_message(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        params = types.LogMessageParams(type=kind, message=message)
        self._on_loop(lambda: self.window_log_message(params))

    def log_error(self, message: str) -> None:
        log.error(message)
        self.log_message(message, types.MessageType.Error)

    def show_message(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        params = types.ShowMessageParams(type=kind, message=message)
        self._on_loop(lambda: self.window_show_message(params))

    def _on_loop(self, fn: Callable[[], Any]) -> None:
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            fn()
        else:
            loop.call_soon_threadsafe(fn)

    def bind_loop(self) -> None:
        self._loop = asyncio.get_running_loop()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Anything pygls caught outside our handlers: tell the client, keep serving."""
        if isinstance(error, (JsonRpcMethodNotFound, JsonRpcInvalidParams)):
            # the client already got an error response; a note in the log is enough
            self.log_message(f"ShapeSense: {error}", types.MessageType.Warning)
            return
        detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self.log_error(f"ShapeSense server error ({getattr(source, '__name__', source)}): {detail}")

    # -- documents -------------------------------------------------------------------
    def index_for(self, path: str | None, default: tuple[str, LineIndex]) -> tuple[str, LineIndex] | None:
        """(uri, line index) for a related location's file; None if unreadable."""
        if path is None:
            return default
        uri = path_to_uri(path)
        if uri == default[0]:
            return default
        doc = self.documents.get(uri)
        if doc is not None:
            return uri, doc.index
        text = read_text(path)
        return None if text is None else (uri, LineIndex(text))

    def path_of(self, uri: str) -> str:
        return uri_to_path(uri)


def build_server(host_factory: Callable | None = None) -> ShapeLanguageServer:
    """A server with every feature registered (`host_factory` lets tests swap the engine)."""
    from .features import register_all

    ls = ShapeLanguageServer(host_factory)
    register_all(ls)
    return ls
