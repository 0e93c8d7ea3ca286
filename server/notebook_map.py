"""A notebook's code cells as one Python text, and positions between the two.

The cells are laid one after another (in the order the caller gives) with one line break
between them, so line `k` of a cell is line `start + k` of the virtual file and columns
are untouched. IPython syntax that Python cannot parse (`%magic`, `%%cell magic`, `!shell`,
`obj?` help) is replaced by `pass` at the same indentation, one line for one line, so the
parse never breaks and the mapping stays 1:1. A cell is run on its own by the kernel, so a
statement left open at its end (a bracket or string still being typed) must not swallow the
next cells: it becomes `pass` too, until it is closed. No LSP here: plain code-point positions.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .documents import line_starts

# Cell magics whose body is still Python run by the kernel; any other (%%bash, %%html,
# %%writefile, ...) makes the whole cell foreign text.
PYTHON_BODY_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "profile", "memit"}

_EOL = re.compile(r"\r\n|\r|\n")
_CELL_MAGIC = re.compile(r"\s*%%(\w+)")
_HELP_PREFIX = re.compile(r"\s*\?")
_HELP_SUFFIX = re.compile(r"[\w.\])]\?\??\s*$")
# `x = !ls`, `y = %time f()`: an assignment whose value is IPython syntax
_ASSIGNED_MAGIC = re.compile(r"\s*[\w.\[\], ]+=\s*[%!]")


def _split(text: str) -> list[str]:
    return _EOL.split(text)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _is_ipython_line(line: str) -> bool:
    """Is this logical-line start IPython syntax rather than Python?"""
    stripped = line.lstrip(" \t")
    if not stripped or stripped.startswith("#"):
        return False
    if stripped[0] in "%!":
        return not stripped.startswith("!=")
    if _HELP_PREFIX.match(line) or _HELP_SUFFIX.search(line.split("#", 1)[0].rstrip() or " "):
        return True
    return bool(_ASSIGNED_MAGIC.match(line)) and not re.match(r"\s*[\w.\[\], ]+=\s*!=", line)


class _Scanner:
    """Just enough of Python's lexer to know whether a line starts a new logical line
    (not inside a bracket, a triple-quoted string or after a backslash)."""

    def __init__(self):
        self.depth = 0
        self.quote = ""  # the open triple quote, if any
        self.backslash = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and not self.quote and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        self.backslash = False
        while i < n:
            if self.quote:
                end = line.find(self.quote, i)
                while end > 0 and _escaped(line, end):
                    end = line.find(self.quote, end + 1)
                if end < 0:
                    return
                i = end + 3
                self.quote = ""
                continue
            ch = line[i]
            if ch == "#":
                return
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth = max(0, self.depth - 1)
            elif ch in "'\"":
                if line.startswith(ch * 3, i):
                    self.quote = ch * 3
                    i += 3
                    continue
                end = i + 1
                while end < n and line[end] != ch:
                    end += 2 if line[end] == "\\" else 1
                i = end + 1
                continue
            elif ch == "\\" and i == n - 1:
                self.backslash = True
            i += 1


def _escaped(line: str, at: int) -> bool:
    slashes = 0
    while at - slashes - 1 >= 0 and line[at - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1


def python_source(cell_text: str) -> str:
    """The cell's text with IPython-only lines replaced; same line count, same line breaks."""
    lines = _split(cell_text)
    breaks = _EOL.findall(cell_text)
    first = next((i for i, l in enumerate(lines) if l.strip()), None)
    out = list(lines)
    if first is not None and (m := _CELL_MAGIC.match(lines[first])):
        out[first] = _indent(lines[first]) + "pass"
        if m.group(1) not in PYTHON_BODY_CELL_MAGICS:
            for i in range(first + 1, len(lines)):
                out[i] = ""
            return _join(out, breaks)
        start = first + 1
    else:
        start = 0
    scanner = _Scanner()
    continued = False  # the previous line was IPython syntax ending in a backslash
    statement = start  # the line the current logical line started on
    for i in range(start, len(lines)):
        line = lines[i]
        if scanner.at_statement_start():
            statement = i
        if continued:
            out[i] = ""
            continued = line.rstrip().endswith("\\")
            continue
        if scanner.at_statement_start() and _is_ipython_line(line):
            out[i] = _indent(line) + "pass"
            continued = line.rstrip().endswith("\\")
            continue
        scanner.feed(line)
    if not scanner.at_statement_start():  # left open at the cell's end: leave it out
        out[statement] = _indent(lines[statement]) + "pass"
        for i in range(statement + 1, len(lines)):
            out[i] = ""
    return _join(out, breaks)


def _join(lines: list[str], breaks: list[str]) -> str:
    parts = []
    for i, line in enumerate(lines):
        parts.append(line)
        if i < len(breaks):
            parts.append(breaks[i])
    return "".join(parts)


@dataclass(frozen=True)
class Placement:
    """Where one cell sits in the virtual file."""

    uri: str
    start: int  # first line
    lines: int  # its line count

    @property
    def end(self) -> int:
        return self.start + self.lines  # exclusive

    def holds(self, line: int) -> bool:
        return self.start <= line < self.end


class NotebookText:
    """The virtual file of a notebook's code cells; rebuilt from per-cell texts that are
    converted once per cell version (`update`), so an edit re-converts one cell."""

    def __init__(self):
        self._source: dict[str, tuple[str, str, int]] = {}  # uri -> (cell text, python source, lines)
        self.order: list[str] = []
        self.placements: dict[str, Placement] = {}
        self._starts: list[int] = []
        self.text = ""

    def set_cell(self, uri: str, text: str) -> None:
        if self._source.get(uri, (None,))[0] != text:
            source = python_source(text)
            self._source[uri] = (text, source, len(line_starts(source)))

    def python(self, uri: str) -> str:
        """The cell's text as laid out in the virtual file ('' for a cell not in it)."""
        entry = self._source.get(uri)
        return entry[1] if entry else ""

    def drop_cell(self, uri: str) -> None:
        self._source.pop(uri, None)

    def layout(self, order: list[str]) -> str:
        """Lay out the cells `order` names (each must have been `set_cell`); the new text."""
        self.order = [u for u in order if u in self._source]
        parts, placements, line = [], {}, 0
        for uri in self.order:
            _, source, count = self._source[uri]
            placements[uri] = Placement(uri, line, count)
            parts.append(source)
            line += count
        self.placements = placements
        self._starts = [placements[u].start for u in self.order]
        self.text = "\n".join(parts)
        return self.text

    def cell_at(self, line: int) -> Placement | None:
        """The cell holding virtual line `line`."""
        i = bisect.bisect_right(self._starts, line) - 1
        if i < 0:
            return None
        placement = self.placements[self.order[i]]
        return placement if placement.holds(line) else None
