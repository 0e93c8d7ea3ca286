"""initialize / initialized / shutdown: encoding, roots, settings, registrations."""
from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder

from .. import config
from ..documents import UTF16
from ..guard import feature
from ..paths import uri_to_path
from ..settings import SECTION, parse_settings
from . import configuration, workspace

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer

CLIENT_REPLY_TIMEOUT_S = 10


def _roots(params: types.InitializeParams) -> list[str]:
    uris = [f.uri for f in params.workspace_folders or []]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    roots = [uri_to_path(u) for u in uris if u.startswith("file:")]
    if not roots and params.root_path:
        roots = [params.root_path]
    return roots


def _dynamic(ls: "ShapeLanguageServer", attr: str) -> bool:
    ws = ls.client_capabilities.workspace
    cap = getattr(ws, attr, None) if ws else None
    return bool(cap and cap.dynamic_registration)


async def _register_watchers(ls: "ShapeLanguageServer") -> None:
    registrations = []
    if _dynamic(ls, "did_change_watched_files"):
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern="**/*.py")]
        )
        registrations.append(
            types.Registration(id=str(uuid.uuid4()), method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)
        )
    if _dynamic(ls, "did_change_configuration"):
        # with a section, clients send that section's values in the notification
        options = types.DidChangeConfigurationRegistrationOptions(section=SECTION)
        registrations.append(
            types.Registration(id=str(uuid.uuid4()), method=types.WORKSPACE_DID_CHANGE_CONFIGURATION, register_options=options)
        )
    if registrations:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=registrations))


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.INITIALIZE)
    def initialize(ls: "ShapeLanguageServer", params: types.InitializeParams):
        ls.bind_loop()
        # Same choice pygls advertises (the client's first supported encoding).
        chosen = ServerCapabilitiesBuilder.choose_position_encoding(params.capabilities)
        ls.encoding = getattr(chosen, "value", chosen) or UTF16
        ls.documents.encoding = ls.encoding
        td = params.capabilities.text_document
        ls.pull_diagnostics = bool(td and td.diagnostic is not None)
        ls.workspace_roots = _roots(params)
        options = params.initialization_options
        # VS Code says whether it trusts the folder. A client that says nothing is trusted
        # with what its user configured, never with an interpreter the folder itself names.
        said = options.get("workspaceTrusted") if isinstance(options, dict) else None
        ls.workspace_trusted = said is not False
        ls.folder_trusted = said is True
        base, project_problems = config.server_base(ls.workspace_roots)  # [tool.shapesense]
        settings, problems = parse_settings(params.initialization_options, base)
        ls.initial_settings = settings
        ls.pending_problems = project_problems + problems
        ls.settings = settings
        ls.worker.reconfigure(ls.engine_settings(), ls.workspace_roots[0] if ls.workspace_roots else None)

    @feature(ls, types.INITIALIZED)
    async def initialized(ls: "ShapeLanguageServer", params: types.InitializedParams):
        for problem in ls.pending_problems:
            ls.show_message(problem, types.MessageType.Warning)
        ls.pending_problems = []
        # Each step may fail (or never be answered) on a client that half-supports it;
        # none may stop the others.
        for step in (configuration.fetch, _register_watchers):
            try:
                await asyncio.wait_for(step(ls), CLIENT_REPLY_TIMEOUT_S)
            except Exception as exc:
                ls.log_message(f"ShapeSense: {step.__name__} failed: {exc!r}", types.MessageType.Warning)
        ls.indexing = asyncio.ensure_future(workspace.index(ls))

    @feature(ls, types.SHUTDOWN)
    def shutdown(ls: "ShapeLanguageServer", params: None):
        if ls.indexing is not None:
            ls.indexing.cancel()
        ls.scheduler.shutdown()
        from shapesense.analysis import diskcache

        diskcache.flush(timeout=5.0)  # the parsed files of this session, for the next one
