"""The document store against plain strings: LSP line rules, encodings, random edits;
and the engine fed through it: incremental results equal a fresh analysis."""
from __future__ import annotations

import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapesense.server.documents import UTF8, UTF16, UTF32, Change, DocumentStore, LineIndex

from lsp_helpers import lsp_lines, position_of

DATA = pathlib.Path(__file__).parent / "data"

# Line breaks LSP knows, characters str.splitlines also breaks on, astral and wide chars.
ALPHABET = st.sampled_from(list("ab(x) =:.\t") + ["\n", "\r\n", "\r", "\f", "\v", "\x1c", "\x85", "\u2028", "é", "→", "\U0001F600", "\U0001D49C"])
TEXT = st.lists(ALPHABET, max_size=40).map("".join)
ENCODINGS = st.sampled_from([UTF8, UTF16, UTF32])


def _safe_offset(text: str, offset: int) -> int:
    """LSP cannot address the middle of a \\r\\n: step over it."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset + 1
    return offset


def test_line_rules_are_lsp_not_splitlines():
    index = LineIndex("a\fb\u2028c\x85d\r\ne\rf\ng")
    assert [index.line(i) for i in range(index.line_count)] == ["a\fb\u2028c\x85d", "e", "f", "g"]
    assert index.line_count == 4


def test_columns_in_each_encoding():
    index = LineIndex("x = '\U0001F600é' + y\n")
    col = index.text.index("y")
    assert index.to_client(0, col, UTF32) == (0, col)
    assert index.to_client(0, col, UTF16) == (0, col + 1)
    assert index.to_client(0, col, UTF8) == (0, col + 3 + 1)
    for enc in (UTF8, UTF16, UTF32):
        assert index.from_client(*index.to_client(0, col, enc), enc) == (0, col)
    # inside a surrogate pair / a UTF-8 sequence: snap to the character's start
    assert index.from_client(0, 6, UTF16) == (0, 5)
    assert index.from_client(0, 7, UTF8) == (0, 5)


def test_positions_past_the_end_clamp():
    index = LineIndex("ab\ncd")
    assert index.offset(*index.from_client(0, 99, UTF16)) == 2
    assert index.offset(*index.from_client(9, 0, UTF16)) == len("ab\ncd")
    assert not index.contains_client(0, 3, UTF16) and index.contains_client(0, 2, UTF16)
    assert not index.contains_client(2, 0, UTF16)


@given(text=TEXT, data=st.data(), enc=ENCODINGS)
def test_positions_round_trip(text, data, enc):
    offset = _safe_offset(text, data.draw(st.integers(0, len(text))))
    index = LineIndex(text)
    expected = position_of(text, offset, enc)
    line, col = index.position(offset)
    assert index.to_client(line, col, enc) == (expected.line, expected.character)
    assert index.offset(*index.from_client(expected.line, expected.character, enc)) == offset
    assert [index.line(i) for i in range(index.line_count)] == lsp_lines(text)


@st.composite
def edit_sequences(draw):
    text = draw(TEXT)
    edits, current = [], text
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.integers(0, 9)) == 0:
            new = draw(TEXT)
            edits.append((None, None, new))
            current = new
            continue
        a = _safe_offset(current, draw(st.integers(0, len(current))))
        b = _safe_offset(current, draw(st.integers(0, len(current))))
        start, end = min(a, b), max(a, b)
        new = draw(TEXT)
        edits.append((start, end, new))
        current = current[:start] + new + current[end:]
    return text, edits, current


@given(seq=edit_sequences(), enc=ENCODINGS)
def test_random_edits_match_plain_string(seq, enc):
    text, edits, final = seq
    store = DocumentStore(enc)
    store.open("file:///t.py", text, 1)
    plain = text
    for version, (start, end, new) in enumerate(edits, start=2):
        if start is None:
            change = Change(new)
            plain = new
        else:
            s, e = position_of(plain, start, enc), position_of(plain, end, enc)
            change = Change(new, ((s.line, s.character), (e.line, e.character)))
            plain = plain[:start] + new + plain[end:]
        store.change("file:///t.py", version, [change])
        assert store.get("file:///t.py").text == plain
    assert plain == final and store.version("file:///t.py") == len(edits) + 1


# -- incremental analysis == fresh analysis (needs the real engine) ---------------------

SNIPPETS = [
    "\n", "\r\n", "# note\n", "    ", "x = torch.flatten(x, 1)\n", "\U0001F600", "é", "(", ")", ":", "16 * 4 * 4",
    "        x = self.pool(x)\n", "def helper(t):\n    return t\n", "nn.Linear(256, 120)", "BAD SYNTAX (", "\f",
]


@st.composite
def sample_edits(draw, base: str):
    edits, current = [], base
    for _ in range(draw(st.integers(1, 6))):
        a = _safe_offset(current, draw(st.integers(0, len(current))))
        if draw(st.booleans()):
            new, end = draw(st.sampled_from(SNIPPETS)), a
        else:
            new, end = "", _safe_offset(current, min(len(current), a + draw(st.integers(1, 40))))
        edits.append((a, end, new))
        current = current[:a] + new + current[end:]
    return edits


@pytest.mark.parametrize("sample", ["mnist_cnn.py"])
def test_incremental_analysis_equals_fresh(sample, tmp_path):
    from shapesense.analysis.db import AnalysisHost, EngineSettings

    base = (DATA / sample).read_text()
    path = str(tmp_path / sample)

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(edits=sample_edits(base))
    def check(edits):
        store = DocumentStore(UTF16)
        store.open("file:///m.py", base, 1)
        host = AnalysisHost(EngineSettings(), str(tmp_path))
        host.set_file(path, base)
        host.analyze(path)
        plain = base
        for version, (start, end, new) in enumerate(edits, start=2):
            s, e = position_of(plain, start, UTF16), position_of(plain, end, UTF16)
            store.change("file:///m.py", version, [Change(new, ((s.line, s.character), (e.line, e.character)))])
            plain = plain[:start] + new + plain[end:]
            host.set_file(path, store.get("file:///m.py").text)
            host.analyze(path)
        assert store.get("file:///m.py").text == plain
        incremental = host.analyze(path)
        fresh_host = AnalysisHost(EngineSettings(), str(tmp_path))
        fresh_host.set_file(path, plain)
        fresh = fresh_host.analyze(path)
        assert incremental.facts == fresh.facts
        assert incremental.diagnostics == fresh.diagnostics
        assert incremental.annotation_fixes() == fresh.annotation_fixes()
        assert incremental.unknown_ops == fresh.unknown_ops

    check()
