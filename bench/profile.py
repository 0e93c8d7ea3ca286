"""Where the edit budget goes: profiles of the server and the engine on the benchmark edits.

    python -m bench.profile                      # all modes on the ~3,000-line file
    python -m bench.profile --mode server --size 10000 --edits 300
    python -m bench.profile --mode engine        # in-process AnalysisHost, pyinstrument
    python -m bench.profile --mode scratch       # from-scratch analysis, pyinstrument
    python -m bench.profile --mode parse         # parso DiffParser alone, pyinstrument

server: the real server over stdio (debounceMs 0), typing a line char by char and
backspacing it away in several forward methods, while `py-spy record --pid` samples every
thread of the server process (the analysis thread included). engine/scratch/parse: the same
edits in this process under pyinstrument.

Prints the top functions by self time and by inclusive time (ours, parso, pygls... all
frames), and writes the raw profiles to bench/results/profile/. Needs `pip install py-spy
pyinstrument` (the `bench` extra).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "bench"

from bench import gen  # noqa: E402
from bench.traces import Doc, rss_cycle  # noqa: E402

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "results" / "profile"


def edits_for(text: str, meta: dict, n: int) -> list[dict]:
    out, k = [], 0
    while len(out) < n:
        out += rss_cycle(text, meta, k)  # each cycle returns to the original text
        k += 1
    # cut at a cycle boundary so the document ends where it started
    cyc = len(rss_cycle(text, meta, 0))
    return out[: max(cyc, (n // cyc) * cyc)]


VARIANT = "concrete"  # --variant: which of gen.VARIANTS is profiled


def load(size: int):
    inputs = BENCH / "inputs"
    paths = gen.write_inputs(str(inputs), {"p": size}, variants=(VARIANT,))
    p = Path(paths[gen.variant_label(VARIANT, "p")])
    return p, p.read_text(), json.loads(p.with_suffix(".meta.json").read_text())


# ---- collapsed stacks (py-spy raw) -> top tables ---------------------------------------

def _frame_key(frame: str) -> str:
    # py-spy raw frames look like "function (path/to/file.py:123)"
    name, _, loc = frame.partition(" (")
    loc = loc.rstrip(")")
    path, _, _line = loc.rpartition(":")
    return f"{name} ({_short(path)})"


def _short(path: str) -> str:
    repo = str(Path(__file__).resolve().parent.parent) + "/"
    for marker in ("site-packages/", repo, "lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def top_from_collapsed(lines: list[str], k: int = 25) -> str:
    selfc: collections.Counter = collections.Counter()
    incl: collections.Counter = collections.Counter()
    total = 0
    for line in lines:
        line = line.strip()
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        try:
            c = int(count)
        except ValueError:
            continue
        frames = [f for f in stack.split(";") if f]
        if frames and frames[0].startswith("thread"):
            frames = frames[1:]
        if not frames:
            continue
        total += c
        keys = [_frame_key(f) for f in frames]
        selfc[keys[-1]] += c
        for key in set(keys):
            incl[key] += c
    return _tables(selfc, incl, total, k, "samples")


def _tables(selfc, incl, total, k, unit) -> str:
    out = [f"total: {total} {unit}", "", f"top {k} by self time:"]
    for key, c in selfc.most_common(k):
        out.append(f"  {100 * c / max(1, total):5.1f}%  {key}")
    out += ["", f"top {k} by inclusive time:"]
    for key, c in incl.most_common(k):
        out.append(f"  {100 * c / max(1, total):5.1f}%  {key}")
    return "\n".join(out)


def top_from_pyinstrument(session, k: int = 25) -> str:
    root = session.root_frame()
    selfc: collections.Counter = collections.Counter()
    incl: collections.Counter = collections.Counter()

    def key(fr):
        return f"{fr.function} ({_short(fr.file_path or '?')}:{fr.line_no})"

    def walk(fr, on_stack, parent_key=None):
        if fr.function in ("[self]", "[await]") or getattr(fr, "is_synthetic", False):
            return  # already in the parent's total_self_time
        kk = key(fr)
        selfc[kk] += fr.total_self_time
        if kk not in on_stack:
            incl[kk] += fr.time
        on_stack = on_stack | {kk}
        for ch in fr.children:
            walk(ch, on_stack, kk)

    if root is None:
        return "(no samples)"
    walk(root, frozenset())
    scale = 1000.0  # seconds -> ms
    selfc = collections.Counter({a: b * scale for a, b in selfc.items()})
    incl = collections.Counter({a: b * scale for a, b in incl.items()})
    return _tables(selfc, incl, root.time * scale, k, "ms")


# ---- modes ---------------------------------------------------------------------------

def mode_server(size: int, n: int, rate: int, server_cmd: list[str]) -> str:
    from bench.lsp import LspClient

    if not shutil.which("py-spy"):
        return "py-spy not installed (pip install py-spy): server profile skipped"
    path, text, meta = load(size)
    uri = path.resolve().as_uri()
    stderr = tempfile.NamedTemporaryFile(prefix="shapesense-prof-", suffix=".stderr", delete=False).name
    c = LspClient.spawn(server_cmd, cwd=str(BENCH.parent), stderr_path=stderr)
    raw = OUT / f"server_{size}.collapsed.txt"
    spy = None
    try:
        c.initialize(root_uri=path.parent.resolve().as_uri(), init_options={"debounceMs": 0})
        doc = Doc(text)
        t0 = c.did_open(uri, text, 1)
        c.wait_diagnostics(uri, 1, t0, 300)
        spy = subprocess.Popen(["py-spy", "record", "--pid", str(c.pid), "--rate", str(rate), "--format", "raw",
                                "--output", str(raw), "--threads"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(1.0)  # let py-spy attach
        times = []
        for ch in edits_for(text, meta, n):
            doc.apply(ch)
            t0 = c.did_change(uri, doc.version, [ch])
            a = c.wait_diagnostics(uri, doc.version, t0, 120)
            times.append(a.t - t0)
        time.sleep(0.3)
    finally:
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            try:
                spy.wait(timeout=30)
            except subprocess.TimeoutExpired:
                spy.kill()
        c.close()
    times.sort()
    head = (f"server, {path.name} ({text.count(chr(10))} lines), {len(times)} edits under py-spy "
            f"(rate {rate}/s; latencies are inflated by sampling): median {1000 * times[len(times) // 2]:.1f} ms\n"
            f"raw: {raw}")
    if not raw.exists():
        err = spy.stderr.read().decode() if spy and spy.stderr else ""
        return head + f"\npy-spy wrote nothing: {err[-2000:]}"
    lines = raw.read_text().splitlines()
    # per-thread split: which thread did the work
    per_thread: collections.Counter = collections.Counter()
    for line in lines:
        stack, _, cnt = line.rpartition(" ")
        if stack.startswith("thread"):
            per_thread[stack.split(";", 1)[0]] += int(cnt)
    th = "\n".join(f"  {t}: {c_} samples" for t, c_ in per_thread.most_common())
    return head + "\n\nsamples per thread:\n" + th + "\n\n" + top_from_collapsed(lines)


def _pyinstrument(fn, label: str, fname: str) -> str:
    try:
        from pyinstrument import Profiler
    except ImportError:
        return "pyinstrument not installed (pip install pyinstrument): skipped"
    p = Profiler(interval=0.0005)
    p.start()
    try:
        info = fn()
    finally:
        p.stop()
    (OUT / f"{fname}.txt").write_text(p.output_text(unicode=False, color=False, show_all=False))
    (OUT / f"{fname}.html").write_text(p.output_html())
    return f"{label}: {info}\ntree: {OUT / (fname + '.txt')}\n\n" + top_from_pyinstrument(p.last_session)


ENGINE_SETTINGS: dict = {}


def make_host():
    from shapesense.analysis.db import AnalysisHost, EngineSettings

    return AnalysisHost(EngineSettings(**ENGINE_SETTINGS)) if ENGINE_SETTINGS else AnalysisHost()


def mode_engine(size: int, n: int) -> str:
    path, text, meta = load(size)
    p = str(path.resolve())
    host = make_host()
    host.set_file(p, text)
    host.analyze(p)
    edits = edits_for(text, meta, n)
    doc = Doc(text)
    texts = []
    for ch in edits:
        doc.apply(ch)
        texts.append(doc.text)

    def go():
        t = time.perf_counter()
        for new_text in texts:
            host.set_file(p, new_text)
            host.analyze(p)
        return f"{len(edits)} edits, {1000 * (time.perf_counter() - t) / len(edits):.2f} ms/edit (profiled)"

    return _pyinstrument(go, f"engine incremental, {path.name}", f"engine_{size}")


def mode_scratch(size: int, reps: int = 3) -> str:
    path, text, meta = load(size)
    p = str(path.resolve())

    def go():
        t = time.perf_counter()
        for _ in range(reps):
            h = make_host()
            h.set_file(p, text)
            h.analyze(p)
        return f"{reps} from-scratch analyses, {1000 * (time.perf_counter() - t) / reps:.1f} ms each (profiled)"

    return _pyinstrument(go, f"from scratch, {path.name}", f"scratch_{size}")


def mode_parse(size: int, n: int) -> str:
    import parso
    from parso.python.diff import DiffParser
    from parso.utils import split_lines

    path, text, meta = load(size)
    g = parso.load_grammar()
    edits = edits_for(text, meta, n)

    doc = Doc(text)
    seq = [split_lines(text, keepends=True)]
    for ch in edits:
        doc.apply(ch)
        seq.append(split_lines(doc.text, keepends=True))

    def go():
        tree = g.parse(text)
        t = time.perf_counter()
        for old, new in zip(seq, seq[1:]):
            tree = DiffParser(g._pgen_grammar, g._tokenizer, tree).update(old, new)
        return f"{len(edits)} DiffParser updates, {1000 * (time.perf_counter() - t) / len(edits):.2f} ms each (profiled, incl. one full parse)"

    return _pyinstrument(go, f"parso DiffParser, {path.name}", f"parse_{size}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="profile the edit path (py-spy on the server, pyinstrument in-process)")
    ap.add_argument("--mode", choices=["all", "server", "engine", "scratch", "parse"], default="all")
    ap.add_argument("--size", type=int, default=3000)
    ap.add_argument("--variant", choices=gen.VARIANTS, default="concrete",
                    help="the file: concrete (a driver), annotated or symbolic (no driver)")
    ap.add_argument("--edits", type=int, default=240)
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--server-cmd", default=None)
    ap.add_argument("--engine-setting", action="append", default=[], metavar="KEY=VALUE",
                    help="EngineSettings field for the in-process modes, e.g. verify_fixes=false")
    a = ap.parse_args(argv)
    global VARIANT
    VARIANT = a.variant
    for kv in a.engine_setting:
        k, _, v = kv.partition("=")
        ENGINE_SETTINGS[k] = {"true": True, "false": False}.get(v.lower(), int(v) if v.isdigit() else v)
    OUT.mkdir(parents=True, exist_ok=True)
    cmd = a.server_cmd.split() if a.server_cmd else [sys.executable, "-m", "shapesense", "serve", "--stdio"]
    modes = ["parse", "engine", "scratch", "server"] if a.mode == "all" else [a.mode]
    report = []
    for m in modes:
        print(f"== {m}", flush=True)
        try:
            if m == "server":
                r = mode_server(a.size, a.edits, a.rate, cmd)
            elif m == "engine":
                r = mode_engine(a.size, a.edits)
            elif m == "scratch":
                r = mode_scratch(a.size)
            else:
                r = mode_parse(a.size, a.edits)
        except Exception as e:  # noqa: BLE001 - report and go on with the other modes
            import traceback

            r = f"{m} failed: {e!r}\n" + traceback.format_exc(limit=5)
        print(r, flush=True)
        report.append(f"## {m}\n\n```\n{r}\n```\n")
    name = f"profile_{a.size}.md" if a.variant == "concrete" else f"profile_{a.variant}_{a.size}.md"
    (OUT / name).write_text("\n".join(report))
    print(f"written: {OUT / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
