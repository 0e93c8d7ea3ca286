"""Checks of the benchmark machinery itself (generator, documents, traces, LSP client).

    python -m pytest bench/test_harness.py -q      # or: python -m bench.test_harness

Uses bench/fake_server.py as the server, so it runs without the real engine and in a few
seconds. No timing is asserted.
"""
from __future__ import annotations

import ast
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "bench"

from bench import gen  # noqa: E402
from bench.lsp import LspClient, ServerError  # noqa: E402
from bench.traces import Doc, build_traces, diff_change, hover_positions, rss_cycle  # noqa: E402

FAKE = [sys.executable, "-m", "bench.fake_server"]
REPO = Path(__file__).resolve().parent.parent


def test_generator_sizes_deterministic_and_valid():
    for n in (40, 500, 3000, 10000):
        a, b = gen.generate(n, seed=0), gen.generate(n, seed=0)
        assert a.text == b.text
        ast.parse(a.text)
        lines = a.line_count()
        assert lines <= n * 1.35 + 15 and (n < 100 or lines >= n * 0.95), (n, lines)
        assert gen.generate(n, seed=1).text != a.text or n < 100


def test_generator_content_and_anchors():
    g = gen.generate(3000)
    L = g.text.split("\n")
    m = g.meta
    for word in ("nn.Conv2d", "nn.BatchNorm2d", "nn.MaxPool2d", ".view(", ".transpose(", "softmax", "matmul",
                 "nn.Linear", "torch.randn(8, 3, 32, 32)"):
        assert word in g.text, word
    assert {b.kind for b in m.bugs} == {"linear-in-features", "bad-view"}
    for b in m.bugs:
        assert b.wrong in L[b.line]
    for a in m.forward_anchors:
        line = L[a["line"]]
        assert line.startswith(" " * 8) and not line.startswith(" " * 9) and "return" not in line
    for s in m.linear_sites:
        assert f"nn.Linear({s['token']}" in L[s["line"]]
    for h in m.helper_defs:
        assert L[h["start"]].startswith("def " + h["name"]) and L[h["end"]] == "" and L[h["end"] - 1].startswith("    return")
    # every class has __init__ and forward
    tree = ast.parse(g.text)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
            assert {"__init__", "forward"} <= names, node.name


def test_doc_apply_inverse_roundtrip():
    rnd = random.Random(1)
    base = "a = 1\r\nb = 'é😀x'\n\nc = 3\rd\n"
    doc = Doc(base)
    undo = []
    for _ in range(200):
        n = doc.line_count()
        l1 = rnd.randrange(n)
        l2 = rnd.randrange(l1, n)
        ch = {"range": {"start": {"line": l1, "character": rnd.randrange(4)},
                        "end": {"line": l2, "character": rnd.randrange(4)}},
              "text": rnd.choice(["", "x", "\n", "😀", "ab\ncd"])}
        if doc.offset(ch["range"]["end"]) < doc.offset(ch["range"]["start"]):
            continue
        undo.append(doc.apply(ch))
    for inv in reversed(undo):
        doc.apply(inv)
    assert doc.text == base
    d2 = Doc("hello\nworld\n")
    c = diff_change(d2.text, "hello\nbig world\n", d2)
    d2.apply(c)
    assert d2.text == "hello\nbig world\n"


def test_traces_apply_cleanly_and_stay_parseable_where_expected():
    g = gen.generate(3000)
    meta = gen.asdict(g.meta)
    traces = build_traces(g.text, meta)
    assert {t.name for t in traces} == {"typing", "comment", "paste", "delete_def", "signature", "add_bug", "fix_bug"}
    for t in traces:
        doc = Doc(g.text)
        for ch in t.steps:
            doc.apply(ch)
        if t.name != "delete_def":
            ast.parse(doc.text)  # the end state of every trace is valid Python
        assert doc.text != g.text
    typing = next(t for t in traces if t.name == "typing")
    doc = Doc(g.text)
    for ch in typing.steps:
        doc.apply(ch)
    assert "        y = torch.cat([x, x], dim=1)\n" in doc.text
    doc = Doc(g.text)
    for ch in rss_cycle(g.text, meta, 3):
        doc.apply(ch)
    assert doc.text == g.text
    assert hover_positions(g.text, meta)


def _path():
    p = REPO / "bench" / "inputs" / "model_500.py"
    gen.write_inputs(str(p.parent), {"small": 500})
    return p


def test_client_against_fake_server():
    p = _path()
    text = p.read_text()
    uri = p.resolve().as_uri()
    with LspClient.spawn(FAKE, cwd=str(REPO)) as c:
        c.initialize(init_options={"debounceMs": 0}, timeout=10)
        assert c.sync_kind() == 2
        t0 = c.did_open(uri, text)
        a = c.wait_diagnostics(uri, 1, t0, 10)
        assert a.t >= t0 and a.msg["params"]["version"] == 1
        doc = Doc(text)
        for ch in build_traces(text, gen.asdict(gen.generate(500).meta), typing_chars=5)[0].steps:
            doc.apply(ch)
            t0 = c.did_change(uri, doc.version, [ch])
            a = c.wait_diagnostics(uri, doc.version, t0, 10)
            assert a.msg["params"]["version"] == doc.version
        res, dt = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 0}})
        assert res and dt >= 0
        assert (c.rss_kb() or 1) > 0


def _expect_fail(cmd, timeout, what):
    p = _path()
    t = time.perf_counter()
    c = LspClient.spawn(cmd, cwd=str(REPO))
    try:
        c.initialize(timeout=timeout)
        uri = p.resolve().as_uri()
        doc = Doc(p.read_text())
        t0 = c.did_open(uri, doc.text)
        c.wait_diagnostics(uri, 1, t0, timeout)
        for _ in range(10):
            doc.apply({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "#"})
            t0 = c.did_change(uri, doc.version, [{"range": {"start": {"line": 0, "character": 0},
                                                            "end": {"line": 0, "character": 0}}, "text": "#"}])
            c.wait_diagnostics(uri, doc.version, t0, timeout)
    except ServerError as e:
        assert what in str(e), str(e)
        assert time.perf_counter() - t < timeout * 3 + 5
        return
    finally:
        c.close(timeout=2)
    raise AssertionError("expected a ServerError")


def test_dead_server_fails_clearly():
    _expect_fail(FAKE + ["--die-after", "3"], 10, "exited with code 3")


def test_silent_server_times_out():
    _expect_fail(FAKE + ["--silent"], 1.0, "no answer to initialize")


def test_missing_diagnostics_time_out():
    _expect_fail(FAKE + ["--no-publish"], 1.0, "no publishDiagnostics")


def test_smoke_run_end_to_end_with_fake_server(tmp_path=None):
    import tempfile

    from bench import run

    out = Path(tmp_path or tempfile.mkdtemp()) / "res"
    rc = run.main(["--smoke", "--server-cmd", " ".join(FAKE), "--out", str(out), "--no-inprocess", "--rss-edits", "40"])
    assert rc == 0
    import json

    res = json.loads((out / "results.json").read_text())
    assert res["files"]["small"]["results"]["one_line_edits"]["edit_to_diagnostics"]["n"] > 0
    assert (out / "summary.md").read_text().startswith("# ShapeSense benchmark")


if __name__ == "__main__":
    import traceback

    passed = failed = 0
    for name, fn in list(globals().items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                passed += 1
                print(f"ok   {name}", flush=True)
            except Exception:  # noqa: BLE001
                failed += 1
                print(f"FAIL {name}\n{traceback.format_exc()}", flush=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
