"""Responsiveness: requests are answered from the latest finished analysis, a slow or huge
file does not hold up requests about another, superseded runs are cancelled, and limits
(time, size) end in a message instead of silence.

Most tests run the real server on a deliberately slow fake engine (lsp_slow_host.py:
`SLOW = N` burns N ms of CPU per analysis, polling the cancel check like the engine). The
time bounds below are hang guards only, far above what is expected and far below what the
old behaviour took (it waited for the whole slow analysis); latency is measured in bench/.
"""
from __future__ import annotations

import asyncio
import pathlib
import random
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import (
    HERE,
    REAL_SERVER,
    change,
    hover_first_line,
    make_client,
    open_doc,
    published,
    start,
    wait_until,
)

from shapesense.server.documents import LineIndex
from shapesense.server.stale import LineMap
from shapesense.server.worker import fit

SLOW_SERVER = [sys.executable, str(HERE / "lsp_slow_host.py")]
GUARD = 10.0  # seconds: a hang guard; each slow analysis below takes 30 s or more
DEFAULTS = {"debounceMs": None}  # the helpers set 30 ms; null means the default (adaptive)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SLOW_SERVER, client_factory=make_client))
async def slow(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=REAL_SERVER, client_factory=make_client))
async def real_server(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def _hover(client, uri, line, col=0):
    return await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, col))
        ),
        GUARD,
    )


async def _inlay(client, uri, start_line, end_line):
    return await asyncio.wait_for(
        client.text_document_inlay_hint_async(
            types.InlayHintParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(types.Position(start_line, 0), types.Position(end_line, 0)),
            )
        ),
        GUARD,
    )


async def _published(client, uri, version):
    return await asyncio.wait_for(published(client, uri, version), GUARD)


# -- the scheduler, on the slow fake engine ------------------------------------------------

@pytest.mark.asyncio
async def test_hover_on_a_small_file_while_another_analyses(slow: LanguageClient, tmp_path):
    await start(slow, "vscode", tmp_path, DEFAULTS)
    big, small = (tmp_path / "big.py").as_uri(), (tmp_path / "small.py").as_uri()
    open_doc(slow, big, "SLOW = 60000\nx = abc\n")
    await asyncio.sleep(0.2)  # the big file's analysis is running
    open_doc(slow, small, "y = abcd\n")
    # no analysis of small.py exists yet: the request waits for it, and big.py gives way
    assert hover_first_line(await _hover(slow, small, 0)) == "y: Tensor[4]"
    assert len(await _published(slow, small, 1)) == 0
    change(slow, small, 2, "y = abcdef\n")
    assert (await _published(slow, small, 2)) == []
    assert hover_first_line(await _hover(slow, small, 0)) == "y: Tensor[6]"


@pytest.mark.asyncio
async def test_requests_use_the_latest_analysis_while_a_new_one_runs(slow: LanguageClient, tmp_path):
    await start(slow, "vscode", tmp_path, DEFAULTS)
    uri = (tmp_path / "a.py").as_uri()
    open_doc(slow, uri, "x = abc\ny = BAD\n")
    assert len(await _published(slow, uri, 1)) == 1
    # an edit whose analysis takes a minute; lines below the edit move down by one
    change(slow, uri, 2, ((0, 0), (0, 0), "SLOW = 60000\n"))
    assert hover_first_line(await _hover(slow, uri, 1)) == "x: Tensor[3]"
    assert hover_first_line(await _hover(slow, uri, 2)) == "y: Tensor[3]"
    hints = await _inlay(slow, uri, 0, 3)
    assert [(h.position.line, h.label) for h in hints] == [(1, ": Tensor[3]"), (2, ": Tensor[3]")]
    actions = await asyncio.wait_for(slow.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(2, 4), types.Position(2, 7)),
        context=types.CodeActionContext(diagnostics=[]),
    )), GUARD)
    assert "Replace BAD with GOOD" in [a.title for a in actions]


@pytest.mark.asyncio
async def test_a_burst_of_edits_cancels_superseded_runs(slow: LanguageClient, tmp_path):
    await start(slow, "vscode", tmp_path, DEFAULTS)
    uri = (tmp_path / "burst.py").as_uri()
    open_doc(slow, uri, "STATS = 1\nSLOW = 1500\nz = 1\n")
    await _published(slow, uri, 1)
    for version in range(2, 10):  # typing: each edit lands while the previous run is running
        change(slow, uri, version, ((2, 5), (2, 5), "1"))
        await asyncio.sleep(0.05)
    assert await _published(slow, uri, 9) == []
    finished, cancelled = map(int, hover_first_line(await _hover(slow, uri, 0))[len("STATS: Tensor["):-1].split(","))
    assert cancelled >= 1, "the run of a superseded text was not cancelled"
    assert finished <= 3, "a burst of edits queued analyses"  # the open, maybe one more, the last
    assert [p.version for p in slow.published if p.uri == uri][-1] == 9


@pytest.mark.asyncio
async def test_over_budget_gives_a_message_and_the_earlier_results(slow: LanguageClient, tmp_path):
    await start(slow, "vscode", tmp_path, {**DEFAULTS, "analysisBudgetMs": 300})
    uri = (tmp_path / "a.py").as_uri()
    open_doc(slow, uri, "x = BAD\n")
    assert len(await _published(slow, uri, 1)) == 1
    change(slow, uri, 2, "x = BAD\nSLOW = 60000\n")
    diags = await _published(slow, uri, 2)
    notes = [d for d in diags if d.severity == types.DiagnosticSeverity.Information]
    assert len(notes) == 1 and "analysisBudgetMs" in notes[0].message
    assert [d.message for d in diags if d.severity == types.DiagnosticSeverity.Error] == ["fake shape-mismatch"]
    await wait_until(slow, lambda: any("analysisBudgetMs" in m.message for m in slow.log_messages), GUARD)
    change(slow, uri, 3, "x = BAD\n")  # back under budget: the note goes
    assert [d.severity for d in await _published(slow, uri, 3)] == [types.DiagnosticSeverity.Error]


@pytest.mark.asyncio
async def test_files_over_max_file_bytes_are_analysed_up_to_it(slow: LanguageClient, tmp_path):
    await start(slow, "vscode", tmp_path, {**DEFAULTS, "maxFileBytes": 1000})
    uri = (tmp_path / "long.py").as_uri()
    text = "".join(f"v{i:03} = abc\n" for i in range(300))  # 3,300 bytes
    open_doc(slow, uri, text)
    diags = await _published(slow, uri, 1)
    assert len(diags) == 1 and "maxFileBytes" in diags[0].message
    assert hover_first_line(await _hover(slow, uri, 5)) == "v005: Tensor[3]"
    assert await _hover(slow, uri, 250) is None


# -- the real engine ----------------------------------------------------------------------

def _huge_module(target_bytes: int) -> str:
    block = (
        "class Block{n}(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(32, 16)\n\n"
        "    def forward(self, x):\n"
        "        return torch.relu(self.fc(x))\n\n\n"
    )
    parts, size, n = ["import torch\nimport torch.nn as nn\n\n\n"], 0, 0
    while size < target_bytes:
        part = block.format(n=n)
        parts.append(part)
        size += len(part)
        n += 1
    return "".join(parts)


SMALL = "import torch\nimport torch.nn as nn\n\nx = torch.randn(4, 32)\ny = nn.Linear(32, 8)(x)\n"


@pytest.mark.asyncio
async def test_huge_files_do_not_starve_a_small_one(real_server: LanguageClient, tmp_path):
    await start(real_server, "vscode", tmp_path, DEFAULTS)
    small, other = (tmp_path / "small.py").as_uri(), (tmp_path / "other.py").as_uri()
    open_doc(real_server, small, SMALL)
    await _published(real_server, small, 1)
    open_doc(real_server, (tmp_path / "huge.py").as_uri(), _huge_module(20_000_000))
    open_doc(real_server, (tmp_path / "line.py").as_uri(), "x = [" + ", ".join(["1"] * 330_000) + "]\n")
    for _ in range(5):
        assert hover_first_line(await _hover(real_server, small, 4)) == "y: Tensor[4, 8]"
    # a file never analysed before goes ahead of the big ones: asked for...
    open_doc(real_server, other, SMALL.replace("8)", "6)"))
    assert hover_first_line(await _hover(real_server, other, 4)) == "y: Tensor[4, 6]"
    # ...or not (its diagnostics come while the big files are still being parsed)
    third = (tmp_path / "third.py").as_uri()
    open_doc(real_server, third, SMALL + "z = y.view(5, -1)\n")
    assert [d.code for d in await _published(real_server, third, 1)] != []


@pytest.mark.asyncio
async def test_inlay_hints_are_those_of_the_range(real_server: LanguageClient, tmp_path):
    await start(real_server, "vscode", tmp_path, DEFAULTS)
    text = (HERE / "data" / "mnist_cnn.py").read_text()
    uri = (tmp_path / "m.py").as_uri()
    open_doc(real_server, uri, text)
    await _published(real_server, uri, 1)
    lines = text.count("\n") + 1
    everything = await _inlay(real_server, uri, 0, lines)
    assert everything
    for lo in range(0, lines, 7):
        part = await _inlay(real_server, uri, lo, lo + 7)
        expected = [h for h in everything if lo <= h.position.line < lo + 7 or
                    (h.position.line == lo + 7 and h.position.character == 0)]
        assert [(h.position, h.label) for h in part] == [(h.position, h.label) for h in expected]


# -- units ----------------------------------------------------------------------------------

def test_line_map_keeps_only_identical_lines():
    """Every old line the map places lands on an identical new line, and every new line
    is either placed or inside `changed` (random edits over line-break-heavy texts)."""
    rng = random.Random(7)
    pieces = ["a", "b", "\n", "\r\n", "\r", "x = 1\n"]
    for _ in range(5000):
        old = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        i = rng.randint(0, len(old))
        j = rng.randint(i, min(len(old), i + 3))
        new = old[:i] + rng.choice(["", "q", "\n", "\r", "z\n", "a\nb"]) + old[j:]
        o, n = LineIndex(old), LineIndex(new)
        m = LineMap.between(o, n)
        placed = {}
        for line in range(o.line_count):
            target = m.line(line)
            if target is not None:
                assert o.line(line) == n.line(target), (old, new, line)
                placed[target] = line
        lo, hi = m.changed
        assert all(t in placed or lo <= t < hi for t in range(n.line_count)), (old, new)


def test_fit_cuts_before_a_top_level_statement():
    text = "@dec\ndef f():\n    return 1\n\nclass A:\n    x = 1\nelse_ = 2\nif x:\n    pass\nelse:\n    pass\n" * 50
    for limit in range(20, 800, 13):
        kept, cut = fit(text, limit)
        assert cut is not None and len(kept) <= limit and text.startswith(kept)
        nxt = text[cut:].split("\n", 1)[0]
        assert not nxt.startswith((" ", "else:")), nxt
        assert not kept.rstrip("\n").rsplit("\n", 1)[-1].startswith("@")
        compile(kept, "prefix", "exec")  # whole statements only
    assert fit(text, 10 ** 6) == (text, None)
    assert fit("é" * 100, 150)[1] is not None  # bytes, not characters


def test_solver_budget_per_analysis_leaves_queries_undecided_and_uncached():
    """Past an analysis's solver budget a query that needs Z3 is "unknown" (no diagnostic
    can come from it) and is not cached: the next analysis with time left decides it."""
    from shapesense.analysis import shapes as S
    from shapesense.analysis import solver

    n, m = S.sym("budget_n"), S.sym("budget_m")
    assumptions = [(S.eq(n, m * 2), "n = 2m")]
    even = S.eq(n % 2, 0)
    with solver.analysis_budget(0) as budget:
        assert solver.check(assumptions, even)[0] == "unknown"
        assert budget.skipped == 1
    assert solver.check(assumptions, even)[0] == "valid"
    with solver.analysis_budget(60_000) as budget:  # time left: answered (from the cache now)
        assert solver.check(assumptions, even)[0] == "valid" and budget.skipped == 0
