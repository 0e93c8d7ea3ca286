"""Reading source files from disk without trusting them.

A cloned repository can hold a named pipe called `x.py` (opening it blocks forever), a
`y.py` linked to `/dev/zero` (reading it never ends) or a link to a file outside the
project. So: only regular files (checked before opening, and again on the open file, which
is opened non-blocking so a pipe swapped in between cannot block), at most `limit + 1`
bytes read whatever the file's size claims, and no file reached through a link that
leaves the folder it is in. Each skip raises SkippedFile and is logged once.
"""
from __future__ import annotations

import logging
import os
import stat

log = logging.getLogger(__name__)

MAX_SOURCE_BYTES = 2_000_000  # files read for other files' sake (imports, indexing)

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_logged: set = set()


class SkippedFile(OSError):
    """A file not read on purpose; `str()` says which and why."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def leaves(path: str, roots) -> bool:
    """Is `path` inside one of `roots` by name but, through a link, somewhere outside it?"""
    path = os.path.abspath(path)
    for root in roots or ():
        root = os.path.abspath(root)
        if _within(path, root):
            return not _within(os.path.realpath(path), os.path.realpath(root))
    return False


def skipped(path: str, why: str) -> SkippedFile:
    """Log (once) that `path` is not read, and the error saying so."""
    if len(_logged) < 10_000 and (path, why) not in _logged:
        _logged.add((path, why))
        log.warning("not read: %s: %s", path, why)
    return SkippedFile(f"{path}: {why}")


def read_source_bytes(path: str, limit: int, roots=None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Raises SkippedFile (see the
    module doc), or OSError when it cannot be read at all."""
    if leaves(path, roots):
        raise skipped(path, "a link to outside the workspace")
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise skipped(path, _kind(mode))
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # replaced since the check
            raise skipped(path, _kind(mode))
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise skipped(path, f"larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)
