"""Open documents: our own text store with LSP's line rules and position encodings.

pygls's `TextDocument.lines` uses `str.splitlines`, which also breaks on `\\f`, `\\v`,
`\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`; LSP breaks only on `\\n`, `\\r\\n` and `\\r`.
Columns inside the server are code points (Python `str` indices, as in the engine's
results); the client speaks the negotiated encoding (UTF-16 for VS Code, often UTF-8 for
Neovim), converted here and nowhere else.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"

_EOL = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets (code points) where each line starts; always at least one line."""
    return [0] + [m.end() for m in _EOL.finditer(text)]


def _units(ch: str, encoding: str) -> int:
    if encoding == UTF16:
        return 2 if ord(ch) > 0xFFFF else 1
    if encoding == UTF8:
        cp = ord(ch)
        return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
    return 1


def units_to_col(line: str, units: int, encoding: str) -> int:
    """Client units -> code-point column, clamped to the line; a column inside a
    character (half a surrogate pair, part of a UTF-8 sequence) snaps to its start."""
    if encoding == UTF32 or line.isascii():
        return max(0, min(units, len(line)))
    seen = 0
    for col, ch in enumerate(line):
        seen += _units(ch, encoding)
        if seen > units:
            return col
    return len(line)


def col_to_units(line: str, col: int, encoding: str) -> int:
    col = max(0, min(col, len(line)))
    if encoding == UTF32 or line.isascii():
        return col
    return sum(_units(ch, encoding) for ch in line[:col])


class LineIndex:
    """Line table of one text snapshot: (line, col) <-> offset, all in code points."""

    def __init__(self, text: str):
        self.text = text
        self.starts = line_starts(text)

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, n: int) -> str:
        """Line `n` without its line break ('' past the end)."""
        if n < 0 or n >= len(self.starts):
            return ""
        start = self.starts[n]
        end = self.starts[n + 1] if n + 1 < len(self.starts) else len(self.text)
        while end > start and self.text[end - 1] in "\r\n":
            end -= 1
        return self.text[start:end]

    def offset(self, line: int, col: int) -> int:
        """Offset of (line, col); past-the-end positions clamp to the end."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        return self.starts[line] + max(0, min(col, len(self.line(line))))

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, min(offset - self.starts[line], len(self.line(line)))

    # Client-unit conversions (encoding = the negotiated position encoding).
    def from_client(self, line: int, units: int, encoding: str) -> tuple[int, int]:
        if line < 0:
            return 0, 0
        if line >= len(self.starts):
            return self.position(len(self.text))
        return line, units_to_col(self.line(line), units, encoding)

    def contains_client(self, line: int, units: int, encoding: str) -> bool:
        """Is (line, units) a position inside the text (end of a line included)?"""
        if line < 0 or units < 0 or line >= len(self.starts):
            return False
        return units <= col_to_units(self.line(line), len(self.line(line)), encoding)

    def to_client(self, line: int, col: int, encoding: str) -> tuple[int, int]:
        if line >= len(self.starts):
            line = len(self.starts) - 1
            col = len(self.line(line))
        line = max(line, 0)
        return line, col_to_units(self.line(line), col, encoding)


@dataclass
class Document:
    uri: str
    version: int  # the client's: numbering restarts when a document is reopened
    index: LineIndex
    language_id: str = "python"
    # Ours: unique across the store's life (bumped by every open and change), so a
    # document reopened with the same version is never mistaken for its old text.
    revision: int = 0
    opened: int = 0  # the revision it was opened at: older ones belong to an earlier open

    @property
    def text(self) -> str:
        return self.index.text


@dataclass(frozen=True)
class Change:
    """One content change in client units; `range is None` replaces the whole text."""

    text: str
    range: tuple[tuple[int, int], tuple[int, int]] | None = None


def apply_change(index: LineIndex, change: Change, encoding: str) -> LineIndex:
    if change.range is None:
        return LineIndex(change.text)
    (sl, sc), (el, ec) = change.range
    start = index.offset(*index.from_client(sl, sc, encoding))
    end = index.offset(*index.from_client(el, ec, encoding))
    if end < start:  # a reversed range: be lenient rather than lose text
        start, end = end, start
    text = index.text
    return LineIndex(text[:start] + change.text + text[end:])


class DocumentStore:
    """The open documents, keyed by URI. Lives on the event loop thread."""

    def __init__(self, encoding: str = UTF16):
        self.encoding = encoding
        self._docs: dict[str, Document] = {}
        self._revisions = 0

    def _next_revision(self) -> int:
        self._revisions += 1
        return self._revisions

    def open(self, uri: str, text: str, version: int, language_id: str = "python") -> Document:
        """A new document, replacing any open one under `uri` whatever its version."""
        revision = self._next_revision()
        doc = Document(uri, version, LineIndex(text), language_id, revision, revision)
        self._docs[uri] = doc
        return doc

    def change(self, uri: str, version: int, changes: list[Change]) -> Document | None:
        doc = self._docs.get(uri)
        if doc is None:
            return None
        index = doc.index
        for change in changes:
            index = apply_change(index, change, self.encoding)
        doc.index = index
        doc.version = version
        doc.revision = self._next_revision()
        return doc

    def close(self, uri: str) -> Document | None:
        return self._docs.pop(uri, None)

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)

    def version(self, uri: str) -> int | None:
        doc = self._docs.get(uri)
        return None if doc is None else doc.version

    def revision(self, uri: str) -> int | None:
        doc = self._docs.get(uri)
        return None if doc is None else doc.revision

    def same_open(self, uri: str, revision: int) -> bool:
        """Is `revision` a text of the document open now under `uri`, not of an earlier
        open of it (whose analysis must not answer for this one)?"""
        doc = self._docs.get(uri)
        return doc is not None and revision >= doc.opened

    def __iter__(self):
        return iter(list(self._docs.values()))

    def __contains__(self, uri: str) -> bool:
        return uri in self._docs
