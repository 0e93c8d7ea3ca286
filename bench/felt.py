"""What a user feels, with the server's DEFAULT settings (no debounce override):

    python -m bench.felt                 # 3,000 lines; huge files; inlay hints at 3 sizes
    python -m bench.felt --smoke         # small inputs, a few seconds (CI)
    python -m bench.felt --only edits --variant annotated   # issue 12's driverless files (bench/gen.py)
    python -m bench.run --felt           # the same after the main benchmark

Figures (median / p95 / max in ms, perf_counter; nothing is asserted):
  * one-line edit -> diagnostics: each one-line trace step (typing, comment, signature,
    adding and fixing a bug, and their undos) sent as didChange, timed to the
    publishDiagnostics of that version, waiting for each before the next;
  * typing bursts: a line typed char by char every `--keystroke-ms` without waiting;
    the latency of the last keystroke's diagnostics, how many versions were published
    (analyses not superseded), and the server's CPU use (user+system time / wall time)
    from the first keystroke to those diagnostics;
  * hover on a small file while a 20 MB file and a 1 MB single line are analysed, and the
    first diagnostics of a small file opened meanwhile;
  * whole-file inlay hints at about 700 / 2,200 / 6,500 lines.
Results: bench/results/felt.json (smoke: bench/results/smoke/felt.json).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "bench"

from bench import gen  # noqa: E402
from bench.lsp import LspClient  # noqa: E402
from bench.stats import fmt_triplet, summarize  # noqa: E402
from bench.traces import TYPED_LINE, Doc, build_traces, insert  # noqa: E402

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SERVER = [sys.executable, "-m", "shapesense", "serve", "--stdio"]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    command = SERVER  # --server-cmd
    options: dict = {}  # --options (the default: none, i.e. the server's defaults)

    def __init__(self, root: Path, stderr_dir: Path, tag: str, timeout: float = 120):
        self.timeout = timeout
        self.client = LspClient.spawn(self.command, cwd=str(REPO), stderr_path=str(stderr_dir / f"{tag}.stderr"))
        self.client.initialize(root_uri=root.as_uri(), init_options=dict(self.options), timeout=timeout)
        self.client.wait_log("indexed", 20)
        self.published: list[tuple[str, int | None]] = []  # (uri, version) of every publish
        dispatch = self.client._dispatch

        def record(arrival):
            if arrival.msg.get("method") == "textDocument/publishDiagnostics":
                params = arrival.msg["params"]
                self.published.append((params["uri"], params.get("version")))
            dispatch(arrival)

        self.client._dispatch = record

    def open(self, path: Path, text: str) -> float:
        t0 = self.client.did_open(path.as_uri(), text, 1)
        return self.client.wait_diagnostics(path.as_uri(), 1, t0, self.timeout).t - t0

    def close(self) -> None:
        self.client.close()


def one_line_edits(srv: Server, path: Path, doc: Doc, meta: dict, max_steps: int) -> dict:
    uri, text = path.as_uri(), doc.text
    times = []
    for trace in build_traces(text, meta) * 100:
        if not trace.one_line:
            continue
        undo = []
        for change in trace.steps + [None]:
            steps = [change] if change is not None else list(reversed(undo))
            for ch in steps:
                inverse = doc.apply(ch)
                if change is not None:
                    undo.append(inverse)
                t0 = srv.client.did_change(uri, doc.version, [ch])
                times.append(srv.client.wait_diagnostics(uri, doc.version, t0, srv.timeout).t - t0)
        if len(times) >= max_steps:  # only between traces: the text is the original again
            break
    assert doc.text == text
    return summarize(times)


def typing_bursts(srv: Server, path: Path, doc: Doc, meta: dict, keystroke_s: float, bursts: int) -> dict:
    """Type TYPED_LINE on a new line of a forward char by char, then delete the line."""
    uri, text = path.as_uri(), doc.text
    anchors = meta.get("forward_anchors") or [{"line": _forward_body_line(text)}]
    ln = anchors[len(anchors) // 2]["line"]
    end = len(text.split("\n")[ln])
    changes = [insert(ln, end, "\n        ")] + [insert(ln + 1, 8 + i, ch) for i, ch in enumerate(TYPED_LINE)]
    last, published, cpu = [], [], []
    pid = srv.client.proc.pid
    for _ in range(bursts):
        first = doc.version + 1
        wall0, cpu0 = time.perf_counter(), _cpu_s(pid)
        t0 = 0.0
        for ch in changes:
            doc.apply(ch)
            t0 = srv.client.did_change(uri, doc.version, [ch])
            time.sleep(keystroke_s)
        arrival = srv.client.wait_diagnostics(uri, doc.version, t0, srv.timeout)
        last.append(arrival.t - t0)
        cpu.append((_cpu_s(pid) - cpu0) / (time.perf_counter() - wall0))
        published.append(len({v for u, v in srv.published if u == uri and v is not None and v >= first}))
        undo = {"range": {"start": {"line": ln, "character": end},
                          "end": {"line": ln + 1, "character": 8 + len(TYPED_LINE)}}, "text": ""}
        doc.apply(undo)
        t0 = srv.client.did_change(uri, doc.version, [undo])
        srv.client.wait_diagnostics(uri, doc.version, t0, srv.timeout)
        srv.client.drain_diagnostics(uri)
    return {"last_keystroke_to_diagnostics": summarize(last), "keystrokes_per_burst": len(changes),
            "published_per_burst": {"median": statistics.median(published), "max": max(published)},
            "cpu_share": {"median": statistics.median(cpu), "max": max(cpu)}, "keystroke_ms": keystroke_s * 1000}


def _forward_body_line(text: str) -> int:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip().startswith("def forward"):
            return i + 1
    return len(lines) - 1


def huge_files(root: Path, stderr_dir: Path, hovers: int, huge_bytes: int, line_bytes: int) -> dict:
    small_text = gen.generate(500).text
    small = root / "small.py"
    small.write_text(small_text)
    srv = Server(root, stderr_dir, "huge")
    try:
        srv.open(small, small_text)
        block = gen.generate(3000).text
        huge_text = block * max(1, huge_bytes // len(block))
        line_text = "x = [" + ", ".join(["1"] * max(1, line_bytes // 3)) + "]\n"
        srv.client.did_open((root / "huge.py").as_uri(), huge_text, 1)
        srv.client.did_open((root / "line.py").as_uri(), line_text, 1)
        names = [i for i, ln in enumerate(small_text.split("\n")) if ln.strip().startswith("x = ")] or [1]
        times = []
        for i in range(hovers):
            ln = names[i % len(names)]
            col = small_text.split("\n")[ln].index("x")
            _, dt = srv.client.request("textDocument/hover", {
                "textDocument": {"uri": small.as_uri()}, "position": {"line": ln, "character": col}}, timeout=srv.timeout)
            times.append(dt)
            time.sleep(0.02)
        other = root / "other.py"
        t_open = srv.open(other, small_text)
        return {"hover_small_while_huge": summarize(times), "open_small_while_huge_ms": t_open * 1000,
                "huge_bytes": len(huge_text), "line_bytes": len(line_text)}
    finally:
        srv.close()


def inlay_scaling(root: Path, stderr_dir: Path, sizes: list[int], reps: int) -> dict:
    out = {}
    srv = Server(root, stderr_dir, "inlay")
    try:
        for n in sizes:
            text = gen.generate(n).text
            path = root / f"inlay_{n}.py"
            srv.open(path, text)
            lines = text.count("\n") + 1
            times = []
            for _ in range(reps):
                _, dt = srv.client.request("textDocument/inlayHint", {
                    "textDocument": {"uri": path.as_uri()},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}},
                    timeout=srv.timeout)
                times.append(dt)
            out[str(text.count("\n"))] = summarize(times)
    finally:
        srv.close()
    return out


def run(smoke: bool = False, size: int = 3000, keystroke_ms: float = 50, out: Path | None = None,
        only: str | None = None, variant: str = "concrete") -> dict:
    root = Path(tempfile.mkdtemp(prefix="shapesense-felt-"))
    stderr_dir = root / "stderr"
    stderr_dir.mkdir()
    size = 500 if smoke else size
    res: dict = {"settings": json.dumps(Server.options) if Server.options else "defaults (no debounceMs override)",
                 "size": size, "variant": variant}
    gf = gen.generate_variant(size, variant)
    meta = dataclasses.asdict(gf.meta)
    path = root / f"model_{size}.py"
    path.write_text(gf.text)
    srv = Server(root, stderr_dir, "felt")
    try:
        res["cold_open_ms"] = srv.open(path, gf.text) * 1000
        doc = Doc(gf.text, 1)
        res["one_line_edit"] = one_line_edits(srv, path, doc, meta, 40 if smoke else 400)
        log(f"one-line edit -> diagnostics ({size} lines, {variant}, defaults): {fmt_triplet(res['one_line_edit'])}")
        res["typing"] = typing_bursts(srv, path, doc, meta, keystroke_ms / 1000, 2 if smoke else 10)
        t = res["typing"]
        log(f"typing bursts ({t['keystrokes_per_burst']} keys, {keystroke_ms:.0f} ms apart): last key -> diagnostics "
            f"{fmt_triplet(t['last_keystroke_to_diagnostics'])}; published per burst median "
            f"{t['published_per_burst']['median']:.0f} of {t['keystrokes_per_burst']}; server CPU median {t['cpu_share']['median']:.0%}")
    finally:
        srv.close()
    res["options"] = Server.options
    res["server_cmd"] = ["python" if c == sys.executable else c for c in Server.command]  # no local paths
    if only == "edits":
        return _save(res, smoke, out, f"felt_edits_{variant}.json")
    mb = 1_000_000
    res["huge"] = huge_files(root, stderr_dir, 20 if smoke else 200, 2 * mb if smoke else 20 * mb, mb // 10 if smoke else mb)
    h = res["huge"]
    log(f"hover on a small file beside {h['huge_bytes'] / mb:.0f} MB and a {h['line_bytes'] / mb:.1f} MB line: "
        f"{fmt_triplet(h['hover_small_while_huge'])}; a small file opened meanwhile: {h['open_small_while_huge_ms']:.0f} ms")
    res["inlay_whole_file"] = inlay_scaling(root, stderr_dir, [300, 700] if smoke else [700, 2200, 6500], 2 if smoke else 5)
    for n, s in res["inlay_whole_file"].items():
        log(f"whole-file inlay hints, {n} lines: {fmt_triplet(s)}")
    return _save(res, smoke, out, "felt.json" if variant == "concrete" else f"felt_{variant}.json")


def _save(res: dict, smoke: bool, out: Path | None, name: str) -> dict:
    out = out or (BENCH / "results" / ("smoke" if smoke else ""))
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(json.dumps(res, indent=1))
    log(f"results: {out / name}")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--size", type=int, default=3000)
    ap.add_argument("--keystroke-ms", type=float, default=50)
    ap.add_argument("--server-cmd", help="server command (default: python -m shapesense serve --stdio)")
    ap.add_argument("--options", help="initializationOptions as JSON (default: none: the server's defaults)")
    ap.add_argument("--only", choices=["edits"], help="only the one-line edits and typing bursts")
    ap.add_argument("--variant", choices=gen.VARIANTS, default="concrete",
                    help="the edited file: concrete (with a driver), annotated or symbolic (no driver; bench/gen.py)")
    a = ap.parse_args(argv)
    if a.server_cmd:
        Server.command = shlex.split(a.server_cmd)
    if a.options:
        Server.options = json.loads(a.options)
    run(a.smoke, a.size, a.keystroke_ms, only=a.only, variant=a.variant)
    return 0


if __name__ == "__main__":
    sys.exit(main())
