"""Fuzz and soak run of the real server over stdio.

    python -m tests.soak.soak                    # the long run: 20,000 edits over three 500-line files
    python -m tests.soak.soak --edits 500 --lines 150 --seconds 60     # what CI runs (tests/soak/test_soak.py)

Phases, each bounded in count and time:
  1. fuzz: random LSP messages, valid and malformed (bodies that are not JSON, wrong
     params, unknown methods, requests on documents never opened, stale versions,
     positions out of range); the server must answer every request (result or error)
     and keep running;
  2. soak: random one-character edits (insertions and deletions) across three files,
     `--pace-ms` apart, a hover every `--hover-every` edits (its latency recorded), the
     server's RSS sampled as it goes;
  3. check: the final diagnostics of each file must equal those of a fresh server that
     opens the final texts.
A crash (the process exits) or a hang (any answer missing for `--timeout` s) fails the run.
The report (JSON on stdout, `--out` to write it) has the hover latency, the RSS at the
start, where it settled (after the first tenth of the edits) and at the end, and whether
the final diagnostics matched.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import gen  # noqa: E402
from bench.lsp import LspClient, ResponseError, ServerError  # noqa: E402
from bench.stats import summarize  # noqa: E402
from bench.traces import Doc  # noqa: E402

SERVER = [sys.executable, "-m", "shapesense", "serve", "--stdio"]
EDIT_CHARS = "abcxyz0123456789 ()[],.:=+-*_\n"
UNDO_SHARE = 0.55  # above one half: the edit stack of a file stays shallow


class SoakFailure(AssertionError):
    pass


def _client(root: Path, stderr: Path, timeout: float) -> LspClient:
    client = LspClient.spawn(SERVER, cwd=str(root), stderr_path=str(stderr))
    client.initialize(root_uri=root.as_uri(), init_options={}, timeout=timeout)  # default settings
    client.wait_log("indexed", min(20.0, timeout))
    return client


def _raw(client: LspClient, body: bytes) -> None:
    """A framed message whose body is whatever we say (malformed on purpose)."""
    data = b"Content-Length: %d\r\n\r\n" % len(body) + body
    with client._write_lock:
        client.proc.stdin.write(data)
        client.proc.stdin.flush()


def _alive(client: LspClient, what: str) -> None:
    if client.proc.poll() is not None:
        raise SoakFailure(f"server exited ({client.proc.returncode}) after {what}\n{client.stderr_tail()}")


def _answer(client: LspClient, method: str, params, timeout: float):
    """Request and wait: a result or an error is fine, silence is a hang."""
    try:
        return client.request(method, params, timeout=timeout)
    except ResponseError:
        return None, 0.0
    except ServerError as exc:
        raise SoakFailure(f"no answer to {method} {json.dumps(params)[:200]}: {exc}") from exc


def fuzz(client: LspClient, rng: random.Random, docs: dict[str, Doc], count: int, deadline: float, timeout: float) -> int:
    """Random messages, many malformed; every request must be answered."""
    uris = list(docs)
    ghost = uris[0].replace(".py", "_never_opened.py")
    sent = 0
    junk_values = [None, 0, -1, 2 ** 40, "x", [], {}, {"line": "a"}, [1, 2], 1.5, True]
    for _ in range(count):
        if time.monotonic() > deadline:
            break
        uri = rng.choice(uris + [ghost])
        kind = rng.randrange(9)
        if kind == 0:
            _raw(client, rng.choice([b"{", b"not json", b"[]", b"{\"jsonrpc\": \"2.0\"}", b"\xff\xfe", b"null",
                                     b"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":5}"]))
        elif kind == 1:
            _answer(client, rng.choice(["textDocument/hover", "textDocument/inlayHint", "textDocument/codeAction",
                                        "textDocument/diagnostic"]), rng.choice(junk_values), timeout)
        elif kind == 2:
            _answer(client, f"shapesense/unknown{rng.randrange(3)}", rng.choice(junk_values), timeout)
        elif kind == 3:
            line, col = rng.choice([(-1, 0), (0, -5), (10 ** 6, 0), (0, 10 ** 6), (rng.randrange(50), rng.randrange(80))])
            _answer(client, "textDocument/hover",
                    {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}, timeout)
        elif kind == 4:
            end = rng.randrange(10 ** 6)
            _answer(client, "textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {
                "start": {"line": 0, "character": 0}, "end": {"line": end, "character": 0}}}, timeout)
        elif kind == 5:  # a change for a document that is not open, or with a version from the past
            client.did_change(ghost if rng.random() < 0.5 else uri, rng.choice([0, -3, 1]),
                              [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                                "text": ""}])
        elif kind == 6:
            client.notify(rng.choice(["textDocument/didChange", "textDocument/didOpen", "textDocument/didClose",
                                      "workspace/didChangeConfiguration", "$/cancelRequest"]),
                          rng.choice(junk_values))
        elif kind == 7:
            _answer(client, "textDocument/codeAction", {
                "textDocument": {"uri": uri}, "range": {"start": {"line": 3, "character": 0}, "end": {"line": 1, "character": 0}},
                "context": {"diagnostics": [], "only": rng.choice([None, ["quickfix"], ["nonsense"]])}}, timeout)
        else:
            _answer(client, "textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout)
        sent += 1
        _alive(client, f"fuzz message {sent}")
    return sent


def _edit(rng: random.Random, doc: Doc, undo: list) -> tuple[dict, bool]:
    """A random one-character edit, or (a bit more often) the undo of this file's last
    one: the text wanders but keeps coming back near the original, so the final texts
    still have code (and diagnostics) to compare. Returns (change, is an undo)."""
    if undo and rng.random() < UNDO_SHARE:
        return undo.pop(), True
    return _random_edit(rng, doc), False


def _random_edit(rng: random.Random, doc: Doc) -> dict:
    text = doc.text
    if text and rng.random() < 0.5:  # delete one character
        at = rng.randrange(len(text))
        start, end = doc.position(at), doc.position(at + 1)
        return {"range": {"start": start, "end": end}, "text": ""}
    at = rng.randrange(len(text) + 1)
    pos = doc.position(at)
    return {"range": {"start": pos, "end": pos}, "text": rng.choice(EDIT_CHARS)}


def _hover_position(rng: random.Random, doc: Doc) -> dict:
    lines = doc.text.split("\n")
    names = [(i, ln.index("=") - 2) for i, ln in enumerate(lines) if " = " in ln and ln.index("=") >= 2]
    line, col = rng.choice(names) if names else (0, 0)
    return {"line": line, "character": max(0, col)}


def _final_diagnostics(client: LspClient, docs: dict[str, Doc], after: float, timeout: float) -> dict:
    out = {}
    for uri, doc in docs.items():
        arrival = client.wait_diagnostics(uri, doc.version, after, timeout)
        out[uri] = sorted(json.dumps(d, sort_keys=True) for d in arrival.msg["params"]["diagnostics"])
    return out


def soak(edits: int = 20_000, lines: int = 500, seed: int = 0, pace_ms: float = 2.0, hover_every: int = 50,
         fuzz_messages: int = 300, seconds: float = 3_600, timeout: float = 60) -> dict:
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    root = Path(tempfile.mkdtemp(prefix="shapesense-soak-"))
    texts = {f"model_{i}.py": gen.generate(lines, seed=seed + i).text for i in range(3)}
    for name, text in texts.items():
        (root / name).write_text(text)
    docs = {(root / name).as_uri(): Doc(text, 1) for name, text in texts.items()}
    report: dict = {"edits_planned": edits, "lines": lines, "seed": seed, "pace_ms": pace_ms}
    client = _client(root, root / "server.stderr", timeout)
    try:
        t0 = 0.0
        for uri, doc in docs.items():
            t0 = client.did_open(uri, doc.text, doc.version)
        for uri, doc in docs.items():
            client.wait_diagnostics(uri, 1, 0.0, timeout)
        report["fuzz_messages"] = fuzz(client, rng, docs, fuzz_messages, deadline, timeout)
        _answer(client, "textDocument/hover", {"textDocument": {"uri": next(iter(docs))},
                                               "position": {"line": 0, "character": 0}}, timeout)
        rss = [client.rss_kb()]
        hovers: list[float] = []
        done = 0
        settle_at = max(1, edits // 10)
        sample_every = max(1, edits // 100)
        uris = list(docs)
        undo: dict[str, list] = {}
        for done in range(1, edits + 1):
            if time.monotonic() > deadline:
                break
            uri = rng.choice(uris)
            doc = docs[uri]
            stack = undo.setdefault(uri, [])
            change, undoing = _edit(rng, doc, stack)
            inverse = doc.apply(change)
            if not undoing:
                stack.append(inverse)
            client.did_change(uri, doc.version, [change])
            if done % hover_every == 0:
                target = rng.choice(uris)
                _, dt = _answer(client, "textDocument/hover", {"textDocument": {"uri": target},
                                                               "position": _hover_position(rng, docs[target])}, timeout)
                hovers.append(dt)
            if done % sample_every == 0:
                _alive(client, f"edit {done}")
                rss.append(client.rss_kb())
                if done == settle_at or (done > settle_at and "rss_settled_kb" not in report):
                    report["rss_settled_kb"] = rss[-1]
                with client._lock:  # keep the client's own memory flat: the newest publish only
                    for lst in client.diagnostics.values():
                        del lst[:-1]
            if pace_ms:
                time.sleep(pace_ms / 1000)
        report["edits"] = done
        t_last = time.perf_counter()
        try:
            final = _final_diagnostics(client, docs, 0.0, timeout)
        except ServerError as exc:
            raise SoakFailure(f"final diagnostics: {exc}") from exc
        report["settle_after_last_edit_ms"] = (time.perf_counter() - t_last) * 1000
        rss.append(client.rss_kb())
        report["hover"] = summarize(hovers)
        report["rss_start_kb"], report["rss_end_kb"], report["rss_max_kb"] = rss[0], rss[-1], max(r or 0 for r in rss)
        report["rss_samples_kb"] = rss  # one every hundredth of the edits: the shape of the curve
        settled = report.get("rss_settled_kb") or rss[0]
        report["rss_end_vs_settled"] = (rss[-1] / settled - 1) if settled else None
    finally:
        client.close()
    fresh = _client(root, root / "fresh.stderr", timeout)
    try:
        for uri, doc in docs.items():
            fresh.did_open(uri, doc.text, doc.version)
        expected = _final_diagnostics(fresh, docs, 0.0, timeout)
    finally:
        fresh.close()
    report["final_equal_fresh"] = final == expected
    report["final_diagnostics"] = {uri.rsplit("/", 1)[-1]: len(v) for uri, v in final.items()}
    if final != expected:
        report["difference"] = {uri.rsplit("/", 1)[-1]: {"soak": final[uri], "fresh": expected[uri]}
                                for uri in final if final[uri] != expected[uri]}
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="fuzz and soak run of the ShapeSense server")
    ap.add_argument("--edits", type=int, default=20_000)
    ap.add_argument("--lines", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pace-ms", type=float, default=2.0)
    ap.add_argument("--hover-every", type=int, default=50)
    ap.add_argument("--fuzz", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=3_600)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    try:
        report = soak(a.edits, a.lines, a.seed, a.pace_ms, a.hover_every, a.fuzz, a.seconds, a.timeout)
    except SoakFailure as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    text = json.dumps(report, indent=1)
    if a.out:
        Path(a.out).write_text(text)
    print(text)
    return 0 if report["final_equal_fresh"] else 1


if __name__ == "__main__":
    sys.exit(main())
