"""`# shapesense: ignore` comments: which diagnostics they silence, and which are unused.

One pure function over (file text, diagnostics), used by the CLI and the server alike.
A comment silences the diagnostics that start on its line, and, when it sits on the first
line of a statement that spans several lines, every diagnostic of that statement. With
codes (`# shapesense: ignore[shape-mismatch, improper-value]`) only those codes.

Comments are found with a small scanner instead of `tokenize`: the text being typed is
often not valid Python (an unclosed bracket, a half-written string), and tokenize raises
on it. The scanner tracks strings (so a `#` inside one is not a comment), brackets and
backslash continuations, which is all it takes to know each line's comment and the line
its statement starts on.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .results import Diagnostic, Span

UNUSED_IGNORE = "unused-ignore"
# The codes an ignore comment may name: every code the engine reports (ops/spec.py names
# them; spelled out here because importing the op specs takes most of a second, which the
# server's `initialize` and the CLI's config check should not pay).
ENGINE_CODES = ("shape-mismatch", "illegal-shape", "illegal-value", "improper-value", "dtype-mismatch")
# Every code a diagnostic can have (configuration may disable or re-grade any of them).
ALL_CODES = ENGINE_CODES + (UNUSED_IGNORE,)

# `shapesense: ignore` at the start of a comment, or after another comment on the same line
# (`# type: ignore  # shapesense: ignore[...]`).
_DIRECTIVE = re.compile(r"#\s*shapesense\s*:\s*ignore(?![\w-])(?:\[(?P<codes>[^\]\n]*)\])?")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class LineInfo:
    statement_start: int  # the line the statement this line belongs to starts on
    comment: int | None  # column of the comment's `#`, None when the line has none
    open_at_end: bool  # the line ends inside a string or after a backslash: no comment can follow


@dataclass(frozen=True)
class IgnoreComment:
    line: int
    span: Span  # the directive, from its `#` to its closing `]` (or `ignore`)
    codes: tuple[str, ...] | None  # None: every code
    codes_end: int | None = None  # column of the `]` (where another code is appended)


@dataclass(frozen=True)
class Suppression:
    kept: list[Diagnostic]  # the diagnostics no comment silenced, in their order
    unused: list[Diagnostic]  # `unused-ignore` diagnostics (only when asked for)


def split_lines(text: str) -> list[str]:
    """Lines by LSP's rules (`\\n`, `\\r\\n`, `\\r`), without their line breaks."""
    return _LINE_BREAK.split(text)


def scan(lines: list[str]) -> list[LineInfo]:
    """For each line: where its statement starts, where its comment is."""
    infos: list[LineInfo] = []
    depth = 0  # open brackets
    quote: str | None = None  # the delimiter of the string we are in ('"', "'''", ...)
    start = 0
    for number, line in enumerate(lines):
        if depth == 0 and quote is None and (not infos or not infos[-1].open_at_end):
            start = number
        comment = None
        continued = False
        i, n = 0, len(line)
        while i < n:
            ch = line[i]
            if quote is not None:
                if ch == "\\":
                    if i == n - 1:
                        continued = True  # a string continued on the next line
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
                i += 1
                continue
            if ch == "#":
                comment = i
                break
            if ch in "\"'":
                quote = ch * 3 if line.startswith(ch * 3, i) else ch
                i += len(quote)
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth = max(0, depth - 1)
            elif ch == "\\" and i == n - 1:
                continued = True
            i += 1
        if quote is not None and len(quote) == 1 and not continued:
            quote = None  # an unterminated one-line string ends with its line
        open_at_end = continued or quote is not None
        infos.append(LineInfo(start, comment, open_at_end))
    return infos


def find_ignores(lines: list[str], infos: list[LineInfo]) -> dict[int, IgnoreComment]:
    """The ignore comment of each line that has one."""
    found: dict[int, IgnoreComment] = {}
    for number, info in enumerate(infos):
        if info.comment is None:
            continue
        line = lines[number]
        match = _DIRECTIVE.search(line, info.comment)
        if match is None:
            continue
        raw = match.group("codes")
        codes = None
        codes_end = None
        if raw is not None:
            codes = tuple(c.strip() for c in raw.split(",") if c.strip()) or None
            codes_end = match.end() - 1
        span = Span((number, match.start()), (number, match.end()))
        found[number] = IgnoreComment(number, span, codes, codes_end)
    return found


def apply(text: str, diagnostics: list[Diagnostic], warn_unused: bool = False) -> Suppression:
    """The diagnostics that stay, plus `unused-ignore` diagnostics when `warn_unused`:
    one per comment that silenced nothing, per unknown code, and per listed code that
    silenced nothing on a comment that silenced something else."""
    if "shapesense" not in text:  # the common case, without scanning anything
        return Suppression(list(diagnostics), [])
    lines = split_lines(text)
    infos = scan(lines)
    ignores = find_ignores(lines, infos)
    if not ignores:
        return Suppression(list(diagnostics), [])
    used: dict[int, set[str | None]] = {line: set() for line in ignores}
    kept = []
    for diag in diagnostics:
        line = diag.span.start[0]
        places = [line]
        if 0 <= line < len(infos) and infos[line].statement_start != line:
            places.append(infos[line].statement_start)
        hit = None
        for place in places:
            comment = ignores.get(place)
            if comment is not None and (comment.codes is None or diag.code in comment.codes):
                hit = comment
                break
        if hit is None:
            kept.append(diag)
        else:
            used[hit.line].add(None if hit.codes is None else diag.code)
    unused = _unused(ignores, used) if warn_unused else []
    return Suppression(kept, unused)


def _unused(ignores: dict[int, IgnoreComment], used: dict[int, set]) -> list[Diagnostic]:
    out = []
    for line, comment in sorted(ignores.items()):
        hits = used[line]
        if comment.codes is None:
            if not hits:
                out.append(_unused_diag(comment, "unused 'shapesense: ignore' comment: nothing to silence here"))
            continue
        unknown = [c for c in comment.codes if c not in ENGINE_CODES]
        for code in unknown:
            out.append(_unused_diag(comment, f"unknown diagnostic code '{code}' in 'shapesense: ignore' "
                                             f"(known: {', '.join(ENGINE_CODES)})"))
        idle = [c for c in comment.codes if c in ENGINE_CODES and c not in hits]
        if not hits and not unknown:
            listed = ", ".join(comment.codes)
            out.append(_unused_diag(comment, f"unused 'shapesense: ignore[{listed}]' comment: nothing to silence here"))
        else:
            for code in idle:
                out.append(_unused_diag(comment, f"unused code '{code}' in 'shapesense: ignore': no {code} here"))
    return out


def _unused_diag(comment: IgnoreComment, message: str) -> Diagnostic:
    return Diagnostic(comment.span, "warning", UNUSED_IGNORE, message)


@dataclass(frozen=True)
class IgnoreEdit:
    """Where to write an ignore for one code: insert `text` at (line, column)."""

    line: int
    column: int
    text: str


def ignore_edit(text: str, line: int, code: str) -> IgnoreEdit | None:
    """The edit that adds `code` to an ignore comment for a diagnostic starting on `line`:
    appended to the list of an ignore comment already there (on the line or at its
    statement's start), else a new comment at the end of the line (or of its statement's
    first line when a comment cannot follow this one). None when nothing can be written
    (the comment there already silences every code, or no line can take a comment)."""
    lines = split_lines(text)
    if not 0 <= line < len(lines):
        return None
    infos = scan(lines)
    ignores = find_ignores(lines, infos)
    start = infos[line].statement_start
    for place in dict.fromkeys((line, start)):
        comment = ignores.get(place)
        if comment is None:
            continue
        if comment.codes is None:
            return None
        if code in comment.codes:
            return None
        return IgnoreEdit(place, comment.codes_end, ", " + code)
    for place in dict.fromkeys((line, start)):
        if not infos[place].open_at_end:
            body = lines[place]
            end = len(body.rstrip(" \t"))
            return IgnoreEdit(place, end, f"  # shapesense: ignore[{code}]")
    return None
