"""The workspace beyond the open buffers: indexing on start, watched-file changes.

Indexing hands every `.py` file of the workspace folders to the engine (so imports of
workspace modules resolve to summaries), reporting work-done progress. Disk I/O runs in
a helper thread; the engine is only touched by the analysis worker. Only regular files of
at most MAX_SOURCE_BYTES inside the folders are read (pipes, devices and links out of the
workspace are skipped and logged: server/paths.py).
"""
from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from lsprotocol import types

from ..guard import feature
from ..paths import MAX_SOURCE_BYTES, path_to_uri, python_files, read_source, read_text

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer

MAX_FILES = 20_000  # a workspace bigger than this is probably not one project
REPORT_EVERY = 50
MAX_SKIPS_LOGGED = 50  # to the client; the server log has every one


def _list_files(roots: list[str]) -> list[str]:
    files: list[str] = []
    for root in roots:
        files.extend(python_files(root, limit=MAX_FILES - len(files)))
        if len(files) >= MAX_FILES:
            break
    return files


def _read_all(paths: list[str], roots: list[str]) -> list[tuple[str, str | None, str | None]]:
    """(path, text, None) or (path, None, why it was not read) for each path."""
    out = []
    for path in paths:
        try:
            out.append((path, read_source(path, MAX_SOURCE_BYTES, roots), None))
        except OSError as exc:
            out.append((path, None, str(exc)))
    return out


def _supports_progress(ls: "ShapeLanguageServer") -> bool:
    window = ls.client_capabilities.window
    return bool(window and window.work_done_progress)


async def index(ls: "ShapeLanguageServer") -> None:
    if not ls.workspace_roots:
        return
    loop = asyncio.get_running_loop()
    token = None
    if _supports_progress(ls):
        token = str(uuid.uuid4())
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(
                token, types.WorkDoneProgressBegin(title="ShapeSense: indexing", percentage=0, cancellable=False)
            )
        except Exception as exc:
            ls.log_message(f"ShapeSense: no progress reporting: {exc}")
            token = None
    indexed, skipped = 0, 0
    try:
        files = await loop.run_in_executor(None, _list_files, ls.workspace_roots)
        for start in range(0, len(files), REPORT_EVERY):
            batch = await loop.run_in_executor(None, _read_all, files[start:start + REPORT_EVERY], ls.workspace_roots)
            for path, text, why in batch:
                if text is None:
                    skipped += 1
                    if skipped <= MAX_SKIPS_LOGGED:
                        ls.log_message(f"ShapeSense: not read: {why}")  # (never "indexed": clients wait for that word)
                elif path_to_uri(path) not in ls.documents:
                    ls.worker.set_file(path, text)
                    indexed += 1
            if token is not None:
                done = min(start + REPORT_EVERY, len(files))
                ls.work_done_progress.report(
                    token,
                    types.WorkDoneProgressReport(message=f"{done}/{len(files)} files", percentage=100 * done // max(1, len(files))),
                )
        await ls.worker.run(lambda host: None)  # hand the texts to the engine now
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=f"{indexed} files indexed"))
    ls.log_message(f"ShapeSense: indexed {indexed} Python files" + (f", skipped {skipped}" if skipped else ""))
    if indexed:
        ls.scheduler.invalidate()
        ls.refresh_all()


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(ls: "ShapeLanguageServer", params: types.DidChangeWatchedFilesParams):
        loop = asyncio.get_running_loop()
        changed = False
        for event in params.changes:
            if not event.uri.startswith("file:") or event.uri in ls.documents:
                continue  # an open buffer is the truth for its file
            path = ls.path_of(event.uri)
            if not path.endswith(".py"):
                continue
            if event.type == types.FileChangeType.Deleted:
                ls.worker.remove_file(path)
            else:
                text = await loop.run_in_executor(None, read_text, path, MAX_SOURCE_BYTES, ls.workspace_roots)
                if text is None:
                    continue
                ls.worker.set_file(path, text)
            changed = True
        if changed:
            ls.scheduler.invalidate()
            ls.refresh_all()
