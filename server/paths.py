"""URIs <-> the path keys the engine uses; walking a workspace for Python files."""
from __future__ import annotations

import os
from collections.abc import Iterator

from pygls.uris import from_fs_path, to_fs_path

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
    """`.py` files under `root` (or `root` itself), sorted, skipping tool and env folders."""
    if os.path.isfile(root):
        if root.endswith(".py"):
            yield root
        return
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield os.path.join(dirpath, name)
                count += 1
                if limit is not None and count >= limit:
                    return


def read_text(path: str) -> str | None:
    """A file's text as Python would decode it (UTF-8, BOM dropped); None if unreadable.
    Newlines are kept as they are: positions follow LSP's line rules."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
