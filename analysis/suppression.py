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
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from operator import add, mul

from .results import Diagnostic, Fix, Span, TextEdit

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
class Layout:
    """What the ignore rules need to know about a text's lines."""

    lines: list[str]
    statement_start: list[int]  # per line: the line its statement starts on
    comments: dict[int, int]  # line -> column of its comment's `#`
    open_at_end: set[int]  # lines ending inside a string or after a backslash: no comment can follow


@dataclass(frozen=True)
class IgnoreComment:
    line: int
    span: Span  # the directive, from its `#` to its closing `]` (or `ignore`)
    codes: tuple[str, ...] | None  # None: every code
    codes_end: int | None = None  # column of the `]` (where another code is appended)
    codes_start: int | None = None  # column just after the `[`
    removal_start: int = 0  # where deleting the directive starts (the blanks before it included)


@dataclass(frozen=True)
class Suppression:
    kept: list[Diagnostic]  # the diagnostics no comment silenced, in their order
    unused: list[Diagnostic]  # `unused-ignore` diagnostics (only when asked for)


def split_lines(text: str) -> list[str]:
    """Lines by LSP's rules (`\\n`, `\\r\\n`, `\\r`), without their line breaks."""
    return _LINE_BREAK.split(text)


# Outside strings only `#`, quotes and backslashes need a closer look; everything else is
# left to C (regex searches, str.count). A string's end: its closing quote, or for a
# one-quote string the end of its line (unterminated, as while typing), backslashes escaping.
_INTERESTING = re.compile(r"[#\"'\\]")
_STRING_END = {  # "unrolled" patterns: runs of plain characters are matched in one step
    '"': re.compile(r'[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*(?:"|(?=[\r\n])|\Z)'),
    "'": re.compile(r"[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*(?:'|(?=[\r\n])|\Z)"),
    '"""': re.compile(r'[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:"""|\Z)'),
    "'''": re.compile(r"[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\Z)"),
}
_REST_OF_LINE = re.compile(r"[^\r\n]*")
_NOT_STRUCTURE = re.compile(r"[^()\[\]{}\\\r\n]+")
_CLOSED_PAIR = re.compile(r"\(\)|\[\]|\{\}")


def layout(text: str) -> Layout:
    """Each line's comment and the line its statement starts on: a statement goes on
    while a bracket is open, a string spans lines, or a line ends with a backslash."""
    last = _last[0]
    if last is not None and (last[0] is text or last[0] == text):
        return last[1]
    lines = split_lines(text)
    if "\r" in text:
        starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
    else:  # line k starts after k line breaks of one character
        starts = [0, *map(add, accumulate(map(len, lines[:-1])), range(1, len(lines)))]
    count = len(lines)
    comments: dict[int, int] = {}
    open_at_end: set[int] = set()
    continues = bytearray(count)  # 1: the line continues the statement of the line before
    code: list[str] = []  # the text outside strings and comments (strings' line breaks kept)
    pos = cut = 0
    while (m := _INTERESTING.search(text, pos)) is not None:
        i = m.start()
        ch = text[i]
        if ch == "\\":  # outside a string: a line continuation, judged per line below
            pos = i + 1
            continue
        code.append(text[cut:i])
        if ch == "#":
            line = bisect_right(starts, i) - 1
            comments[line] = i - starts[line]
            cut = pos = _REST_OF_LINE.match(text, i).end()
            continue
        quote = ch * 3 if text.startswith(ch * 3, i) else ch
        end = _STRING_END[quote].match(text, i + len(quote)).end()
        breaks = _LINE_BREAK.findall(text, i, end)
        if breaks:
            first = bisect_right(starts, i) - 1
            open_at_end.update(range(first, first + len(breaks)))
            continues[first + 1:first + 1 + len(breaks)] = b"\x01" * len(breaks)
            code.append("".join(breaks))
        cut = pos = end
    code.append(text[cut:])
    # Brackets and backslashes only, with the pairs closed on their own line removed: most
    # lines end up empty and cost nothing below.
    skeleton = _NOT_STRUCTURE.sub("", "".join(code))
    while True:
        shorter = _CLOSED_PAIR.sub("", skeleton)
        if len(shorter) == len(skeleton):
            break
        skeleton = shorter
    depth = 0
    for number, shape in enumerate(split_lines(skeleton)[:count - 1]):
        if shape:
            opened = shape.count("(") + shape.count("[") + shape.count("{")
            depth = max(0, depth + opened - (len(shape) - opened - shape.count("\\")))
            if shape.endswith("\\"):
                open_at_end.add(number)
                continues[number + 1] = 1
        if depth:
            continues[number + 1] = 1
    statement_start = list(accumulate(map(mul, range(count), map((1).__xor__, continues)), max))
    result = Layout(lines, statement_start, comments, open_at_end)
    _last[0] = (text, result)
    return result


_last: list = [None]  # (text, layout) of the last text: its diagnostics and code actions share it


def find_ignores(lay: Layout) -> dict[int, IgnoreComment]:
    """The ignore comment of each line that has one."""
    found: dict[int, IgnoreComment] = {}
    for number, column in lay.comments.items():
        match = _DIRECTIVE.search(lay.lines[number], column)
        if match is None:
            continue
        raw = match.group("codes")
        codes = codes_end = codes_start = None
        if raw is not None:
            codes = tuple(c.strip() for c in raw.split(",") if c.strip()) or None
            codes_start, codes_end = match.span("codes")
        span = Span((number, match.start()), (number, match.end()))
        removal_start = len(lay.lines[number][:match.start()].rstrip(" \t"))
        found[number] = IgnoreComment(number, span, codes, codes_end, codes_start, removal_start)
    return found


def apply(text: str, diagnostics: list[Diagnostic], warn_unused: bool = False) -> Suppression:
    """The diagnostics that stay, plus `unused-ignore` diagnostics when `warn_unused`:
    one per comment that silenced nothing, per unknown code, and per listed code that
    silenced nothing on a comment that silenced something else."""
    if _DIRECTIVE.search(text) is None:  # the common case, without scanning anything
        return Suppression(list(diagnostics), [])
    lay = layout(text)
    ignores = find_ignores(lay)
    if not ignores:
        return Suppression(list(diagnostics), [])
    used: dict[int, set[str | None]] = {line: set() for line in ignores}
    kept = []
    for diag in diagnostics:
        line = diag.span.start[0]
        places = [line]
        if 0 <= line < len(lay.statement_start) and lay.statement_start[line] != line:
            places.append(lay.statement_start[line])
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
        idle = [c for c in comment.codes if c in ENGINE_CODES and c not in hits]
        for code in unknown:
            out.append(_unused_diag(comment, f"unknown diagnostic code '{code}' in 'shapesense: ignore' "
                                             f"(known: {', '.join(ENGINE_CODES)})", code))
        if not hits and not unknown:
            listed = ", ".join(comment.codes)
            out.append(_unused_diag(comment, f"unused 'shapesense: ignore[{listed}]' comment: nothing to silence here"))
        else:
            for code in idle:
                out.append(_unused_diag(comment, f"unused code '{code}' in 'shapesense: ignore': no {code} here", code))
    return out


def _unused_diag(comment: IgnoreComment, message: str, code: str | None = None) -> Diagnostic:
    """An unused-ignore diagnostic with its fix: remove `code` from the comment's list, or
    the whole directive when nothing would be left in it."""
    line = comment.line
    rest = [c for c in comment.codes or () if c != code] if code is not None else []
    if rest:
        span = Span((line, comment.codes_start), (line, comment.codes_end))
        fix = Fix(f"Remove '{code}' from the ignore comment", (TextEdit(span, ", ".join(rest)),))
    else:
        span = Span((line, comment.removal_start), comment.span.end)
        fix = Fix("Remove the unused ignore comment", (TextEdit(span, ""),))
    return Diagnostic(comment.span, "warning", UNUSED_IGNORE, message, fixes=(fix,))


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
    lay = layout(text)
    if not 0 <= line < len(lay.lines):
        return None
    ignores = find_ignores(lay)
    start = lay.statement_start[line]
    for place in dict.fromkeys((line, start)):
        comment = ignores.get(place)
        if comment is None:
            continue
        if comment.codes is None or code in comment.codes:
            return None
        return IgnoreEdit(place, comment.codes_end, ", " + code)
    for place in dict.fromkeys((line, start)):
        if place not in lay.open_at_end:
            end = len(lay.lines[place].rstrip(" \t"))
            return IgnoreEdit(place, end, f"  # shapesense: ignore[{code}]")
    return None
