"""URIs <-> the path keys the engine uses; walking a workspace for Python files and
reading them (regular files only, bounded, no links out of the folder: analysis/disk.py)."""
from __future__ import annotations

import os
from collections.abc import Iterator

from pygls.uris import from_fs_path, to_fs_path

from shapesense.analysis.disk import MAX_SOURCE_BYTES, SkippedFile, leaves, read_source_bytes, skipped

__all__ = ["MAX_SOURCE_BYTES", "SkippedFile"]  # for the callers of read_source

MAX_READ_BYTES = 64 * 2**20  # a file asked for by name (the CLI's, a related location)

# Folders that hold no user code worth indexing (or far too much of it).
SKIP_DIRS = {
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", "__pycache__",
    "node_modules", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    "build", "dist", ".eggs",
}


def uri_to_path(uri: str) -> str:
    """A file URI's path; other schemes (untitled:, vscode-notebook-cell:) keep the URI
    itself as the engine's key, so unsaved buffers still get analysed."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return path or uri


def path_to_uri(path: str) -> str:
    if ":" in path and not os.path.isabs(path):
        return path  # already a URI key (see uri_to_path)
    return from_fs_path(path) or path


def python_files(root: str, limit: int | None = None) -> Iterator[str]:
    """`.py` files under `root` (or `root` itself), sorted, skipping tool and env folders
    and files linked from inside `root` to outside it."""
    if os.path.isfile(root):
        if root.endswith(".py"):
            yield root
        return
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                if os.path.islink(path) and leaves(path, [root]):
                    skipped(path, "a link to outside the folder")
                    continue
                yield path
                count += 1
                if limit is not None and count >= limit:
                    return


def read_source(path: str, limit: int = MAX_READ_BYTES, roots=None) -> str:
    """A file's text as Python would decode it (UTF-8, BOM dropped; else Latin-1).
    Newlines are kept as they are: positions follow LSP's line rules. Raises SkippedFile
    (a pipe, a device, a link out of `roots`, over `limit` bytes: logged) or OSError."""
    data = read_source_bytes(path, limit, roots)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_text(path: str, limit: int = MAX_READ_BYTES, roots=None) -> str | None:
    """`read_source`, or None when the file is not read."""
    try:
        return read_source(path, limit, roots)
    except OSError:
        return None

