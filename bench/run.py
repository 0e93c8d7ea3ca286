"""ShapeSense benchmark: edit traces replayed through the real language server over stdio.

    python -m bench.run            # full run: 40 / 500 / 3,000 / 10,000-line files, 10,000-edit RSS run
    python -m bench.run --smoke    # CI: small inputs, few edits, < 60 s; prints figures, asserts no times
    python bench/run.py --sizes 3000 --rss-edits 0     # one size, no memory run

What it measures (each as median / p95 / max, from many repetitions; perf_counter):
  * edit -> publishDiagnostics for the edited version (debounceMs = 0), per trace: typing a
    line char by char in a forward, pasting a class, deleting a def, a comment-only edit, a
    signature change affecting callers, introducing and removing a shape bug (and each undo);
  * hover, inlay hints for a visible 60-line range, code actions (on bug lines and clean lines);
  * cold open: a fresh server per repetition, once it is ready (engine loaded, workspace
    indexed: its "indexed" log message), didOpen -> first publishDiagnostics;
  * RSS (VmRSS of the server process) over a long typing/backspacing run;
  * in this process, for the same edits: a from-scratch analysis (a fresh AnalysisHost on the
    edited text), the engine's own incremental analysis (one AnalysisHost fed every edit), and
    parso's DiffParser.update alone (the floor of any parso-based pipeline); the ratios.

Results: bench/results/ (smoke: bench/results/smoke/): results.json, summary.md,
latency_vs_size.png. No timing is ever asserted; the exit code is non-zero only when the
server could not be driven (died, answered with an error, or did not answer in time).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # `python bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    __package__ = "bench"

from bench import gen  # noqa: E402
from bench.lsp import LspClient, ResponseError, ServerError  # noqa: E402
from bench.stats import fmt_ms, fmt_ratio, fmt_triplet, ratio, summarize  # noqa: E402
from bench.traces import Doc, Trace, build_traces, comment_trace_for, diff_change, hover_positions, rss_cycle  # noqa: E402

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent


@dataclass
class Config:
    smoke: bool
    sizes: dict[str, int]
    server_cmd: list[str]
    out: Path
    timeout: float
    typing_chars: int | None
    reps_typing: int
    reps_single: int
    n_hover: int
    n_inlay: int
    n_action: int
    cold_reps: int
    rss_edits: int
    rss_label: str
    scratch_reps: int
    samples_limit: int
    phase_seconds: float = 600.0  # a phase starts no new repetition after this
    rss_seconds: float = 900.0  # the memory run stops after this, whatever its edit count
    inprocess: bool = True
    server: bool = True
    # gen.VARIANTS: the concrete files (a driver at the bottom) and issue 12's files with no
    # driver, annotated (jaxtyping) and not (symbolic generic contexts), at every size
    variants: tuple = gen.VARIANTS
    rss_labels: tuple = ()  # the files of the memory runs (one per variant, ~3,000 lines)


def make_config(a: argparse.Namespace) -> Config:
    cmd = shlex.split(a.server_cmd) if a.server_cmd else [sys.executable, "-m", "shapesense", "serve", "--stdio"]
    if a.smoke:
        sizes = {"tiny": 40, "small": 500}
        c = Config(True, sizes, cmd, BENCH / "results" / "smoke", a.timeout or 30.0, typing_chars=6,
                   reps_typing=1, reps_single=3, n_hover=20, n_inlay=10, n_action=10, cold_reps=1,
                   rss_edits=150, rss_label="small", scratch_reps=1, samples_limit=2,
                   phase_seconds=6.0, rss_seconds=5.0)
    else:
        sizes = dict(gen.SIZES)
        c = Config(False, sizes, cmd, BENCH / "results", a.timeout or 120.0, typing_chars=None,
                   reps_typing=3, reps_single=10, n_hover=200, n_inlay=50, n_action=50, cold_reps=5,
                   rss_edits=10000, rss_label="medium", scratch_reps=3, samples_limit=50)
    if a.sizes:
        c.sizes = {f"n{n}": int(n) for n in a.sizes.split(",")}
        c.rss_label = max(c.sizes, key=lambda k: -abs(c.sizes[k] - 3000))  # closest to 3,000 lines
    if a.rss_edits is not None:
        c.rss_edits = a.rss_edits
    if a.phase_seconds is not None:
        c.phase_seconds = a.phase_seconds
    if a.rss_seconds is not None:
        c.rss_seconds = a.rss_seconds
    if a.reps is not None:
        c.reps_typing = c.reps_single = a.reps
    if a.out:
        c.out = Path(a.out)
    c.inprocess = not a.no_inprocess
    c.server = not a.no_server
    if a.variants:
        c.variants = tuple(v for v in a.variants.split(",") if v)
        unknown = [v for v in c.variants if v not in gen.VARIANTS]
        if unknown:
            raise SystemExit(f"unknown variant(s) {', '.join(unknown)} (one of {', '.join(gen.VARIANTS)})")
    if c.smoke and not a.variants:
        c.variants = ("concrete", "symbolic")  # CI: the no-driver engine path too, briefly
    c.rss_labels = tuple(gen.variant_label(v, c.rss_label) for v in c.variants)
    if c.smoke:
        c.rss_labels = c.rss_labels[:1]
    return c


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


def log(msg: str) -> None:
    print(msg, flush=True)


# ---------------------------------------------------------------------------------------
# the server side


class Session:
    """One server process with one open document."""

    def __init__(self, cfg: Config, path: Path, text: str, stderr_dir: Path, tag: str):
        self.cfg = cfg
        self.uri = uri_of(path)
        self.stderr_path = str(stderr_dir / f"server-{tag}.stderr")
        # An empty disk cache of its own (analysis/diskcache.py): the cold open is a first
        # open (bench/coldopen.py times the warm one), and the user's cache is not touched.
        self.cache_dir = tempfile.mkdtemp(prefix="shapesense-bench-cache-")
        self.client = LspClient.spawn(cfg.server_cmd, cwd=str(REPO), stderr_path=self.stderr_path,
                                      env=dict(os.environ, SHAPESENSE_CACHE_DIR=self.cache_dir))
        self.doc = Doc(text, 1)
        self.last_publish: dict | None = None
        self.init_time: float | None = None
        self.open_time: float | None = None
        t0 = time.perf_counter()
        try:
            self.client.initialize(root_uri=uri_of(path.parent), init_options={"debounceMs": 0},
                                   timeout=cfg.timeout)
        except BaseException:
            self.client.close(timeout=2.0)
            raise
        self.init_time = time.perf_counter() - t0
        # ShapeSense loads its engine and indexes the workspace after `initialized` and then
        # logs "indexed N Python files". Opening a file only after that measures the
        # analysis of a new file, not the start of the process; the start is `ready_time`.
        # Servers that never say so (the fake, the pygls floor) are given 10 s at most.
        self.ready_time: float | None = None
        if self.client.wait_log("indexed", min(10.0, cfg.timeout)):
            self.ready_time = time.perf_counter() - t0

    def open(self) -> float:
        t0 = self.client.did_open(self.uri, self.doc.text, self.doc.version)
        a = self.client.wait_diagnostics(self.uri, self.doc.version, t0, self.cfg.timeout * 3)
        self.last_publish = a.msg
        self.open_time = a.t - t0
        return self.open_time

    def edit(self, change: dict) -> tuple[float, int, dict]:
        """Apply and send one change; wait for the diagnostics of the new version.

        Returns (seconds, number of diagnostics, inverse change)."""
        inverse = self.doc.apply(change)
        sent = change if self.client.sync_kind() != 1 else {"text": self.doc.text}
        t0 = self.client.did_change(self.uri, self.doc.version, [sent])
        a = self.client.wait_diagnostics(self.uri, self.doc.version, t0, self.cfg.timeout)
        self.last_publish = a.msg
        return a.t - t0, len(a.msg["params"].get("diagnostics") or []), inverse

    def request(self, method: str, params: dict) -> tuple[object, float]:
        params = {"textDocument": {"uri": self.uri}, **params}
        return self.client.request(method, params, timeout=self.cfg.timeout)

    def rss_kb(self) -> int | None:
        return self.client.rss_kb()

    def close(self) -> None:
        self.client.close()
        shutil.rmtree(self.cache_dir, ignore_errors=True)


@dataclass
class FileRun:
    label: str
    path: Path
    text: str
    meta: dict
    lines: int
    traces: list[Trace] = field(default_factory=list)
    # the exact change sequence sent to the server (for the in-process replays)
    changelog: list[dict] = field(default_factory=list)  # {"trace", "rep", "step", "undo", "change", "t"}
    results: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def replay_traces(cfg: Config, fr: FileRun, stderr_dir: Path) -> None:
    s = Session(cfg, fr.path, fr.text, stderr_dir, f"{fr.label}-traces")
    try:
        s.open()
        fr.results["open_warm_process"] = summarize([s.open_time])
        fr.results["initialize"] = summarize([s.init_time])
        fr.results["diagnostics_at_open"] = len(s.last_publish["params"].get("diagnostics") or [])
        requests_steady_state(cfg, fr, s)
        t_phase = time.perf_counter()
        for rep in range(max(cfg.reps_typing, cfg.reps_single)):
            if rep and time.perf_counter() - t_phase > cfg.phase_seconds:
                fr.results["traces_cut_after_reps"] = rep
                log(f"   traces: time budget ({cfg.phase_seconds:.0f} s) used after {rep} repetition(s)")
                break
            for tr in fr.traces:
                reps = cfg.reps_typing if len(tr.steps) > 1 else cfg.reps_single
                if rep >= reps:
                    continue
                base = s.doc.text
                cpu0, first = s.client.cpu_seconds(), len(fr.changelog)
                for i, ch in enumerate(tr.steps):
                    dt, nd, _ = s.edit(ch)
                    fr.changelog.append({"trace": tr.name, "rep": rep, "step": i, "undo": False,
                                         "change": ch, "t": dt, "ndiag": nd})
                _cpu_per_edit(fr.changelog[first:], cpu0, s.client.cpu_seconds())
                undo = diff_change(s.doc.text, base, s.doc)
                cpu0 = s.client.cpu_seconds()
                dt, nd, _ = s.edit(undo)
                fr.changelog.append({"trace": tr.name, "rep": rep, "step": len(tr.steps), "undo": True,
                                     "change": undo, "t": dt, "ndiag": nd})
                _cpu_per_edit(fr.changelog[-1:], cpu0, s.client.cpu_seconds())
                assert s.doc.text == base
    finally:
        s.close()


def _cpu_per_edit(entries: list, before, after) -> None:
    """The server's CPU time over these edits, shared out evenly (clock-tick resolution:
    read as a mean over many edits)."""
    if before is not None and after is not None and entries:
        for e in entries:
            e["cpu"] = (after - before) / len(entries)


def requests_steady_state(cfg: Config, fr: FileRun, s: Session) -> None:
    """hover / inlay hints / code actions; a kind the server rejects is recorded, not fatal."""
    text, meta = fr.text, fr.meta
    nlines = s.doc.line_count()
    anchors = [a["line"] for a in meta.get("forward_anchors", [])] or [0]
    pos = hover_positions(text, meta) or [{"line": 0, "character": 0}]

    def hover_params(i):
        return {"position": pos[i % len(pos)]}

    def inlay_params(i):
        lo = max(0, anchors[(i * 5) % len(anchors)] - 20)
        hi = min(nlines - 1, lo + 60)
        return {"range": {"start": {"line": lo, "character": 0}, "end": {"line": hi, "character": 0}}}

    diags = (s.last_publish or {}).get("params", {}).get("diagnostics") or []
    targets = [(d["range"], [d]) for d in diags]
    for a in anchors[:: max(1, len(anchors) // 10)]:
        targets.append(({"start": {"line": a, "character": 8}, "end": {"line": a, "character": 9}}, []))

    def action_params(i):
        r, ds = targets[i % len(targets)]
        return {"range": r, "context": {"diagnostics": ds}}

    for key, method, n, params in (
        ("hover", "textDocument/hover", cfg.n_hover, hover_params),
        ("inlay_hints", "textDocument/inlayHint", cfg.n_inlay, inlay_params),
        ("code_actions", "textDocument/codeAction", cfg.n_action, action_params),
    ):
        times, items, nonnull = [], 0, 0
        try:
            for i in range(n):
                res, dt = s.request(method, params(i))
                times.append(dt)
                nonnull += res is not None
                items += len(res) if isinstance(res, list) else (res is not None)
        except ResponseError as e:
            fr.errors.append(f"{method}: {e}")
            log(f"   {method}: {e}")
            continue
        fr.results[key] = summarize(times) | {"non_null": nonnull, "items_per_request": items / max(1, n)}
    fr.results["code_actions_on_diagnostics"] = len(diags)


def cold_open(cfg: Config, fr: FileRun, stderr_dir: Path) -> None:
    opens, inits, readies = [], [], []
    t_phase = time.perf_counter()
    for rep in range(cfg.cold_reps):
        if rep and time.perf_counter() - t_phase > cfg.phase_seconds / 4:
            break
        s = Session(cfg, fr.path, fr.text, stderr_dir, f"{fr.label}-cold{rep}")
        try:
            inits.append(s.init_time)
            if s.ready_time is not None:
                readies.append(s.ready_time)
            opens.append(s.open())
        finally:
            s.close()
    fr.results["cold_open"] = summarize(opens)
    fr.results["initialize_cold"] = summarize(inits)
    if readies:
        fr.results["ready_cold"] = summarize(readies)


def rss_run(cfg: Config, fr: FileRun, stderr_dir: Path) -> dict:
    s = Session(cfg, fr.path, fr.text, stderr_dir, f"{fr.label}-rss")
    out: dict = {"file": fr.label, "lines": fr.lines, "edits": cfg.rss_edits}
    try:
        out["rss_kb_before_open"] = s.rss_kb()
        s.open()
        out["rss_kb_after_open"] = s.rss_kb()
        every = max(1, cfg.rss_edits // 100)
        samples = [(0, s.rss_kb())]
        times = []
        n, k = 0, 0
        t_start = time.perf_counter()
        cut = False
        while n < cfg.rss_edits and not cut:
            base = s.doc.text
            for ch in rss_cycle(base, fr.meta, k):
                dt, _, _ = s.edit(ch)
                times.append(dt)
                n += 1
                if n % every == 0:
                    samples.append((n, s.rss_kb()))
                if n >= cfg.rss_edits:
                    break
                if time.perf_counter() - t_start > cfg.rss_seconds:
                    cut = True
                    break
            if s.doc.text != base:  # cut mid-cycle: put the text back
                s.edit(diff_change(s.doc.text, base, s.doc))
            k += 1
        out["wall_s"] = time.perf_counter() - t_start
        if cut:
            out["cut_by_time_budget_s"] = cfg.rss_seconds
            samples.append((n, s.rss_kb()))
        out["edits"] = n
        out["samples"] = samples
        rss = [r for _, r in samples if r]
        if rss:
            ref = rss[min(len(rss) - 1, max(1, len(rss) // 10))]  # after ~10% of the run (warm)
            out |= {"rss_kb_start": rss[0], "rss_kb_warm": ref, "rss_kb_end": rss[-1], "rss_kb_max": max(rss),
                    "growth_from_open_pct": 100 * (rss[-1] - rss[0]) / rss[0],
                    "growth_from_warm_pct": 100 * (rss[-1] - ref) / ref}
        out["edit_to_diagnostics"] = summarize(times)
    finally:
        s.close()
    return out


def samples_run(cfg: Config, stderr_dir: Path) -> dict:
    files = sorted((REPO / "samples").rglob("*.py"))[: cfg.samples_limit]
    if not files:
        return {"files": 0}
    out: dict = {"files": len(files), "per_file": {}}
    opens, edits = [], []
    s = None
    try:
        for i, p in enumerate(files):
            text = p.read_text(encoding="utf-8")
            if s is None:
                s = Session(cfg, p, text, stderr_dir, "samples")
            s.uri, s.doc = uri_of(p), Doc(text, 1)
            ot = s.open()
            tr = comment_trace_for(text)
            et, nd, inv = s.edit(tr.steps[0])
            s.edit(inv)
            s.client.did_close(s.uri)
            opens.append(ot)
            edits.append(et)
            out["per_file"][str(p.relative_to(REPO))] = {"open_ms": ot * 1000, "comment_edit_ms": et * 1000,
                                                          "lines": text.count("\n")}
    finally:
        if s is not None:
            s.close()
    out["open"] = summarize(opens)
    out["comment_edit"] = summarize(edits)
    return out


# ---------------------------------------------------------------------------------------
# the in-process side: parse floor, engine incremental, from scratch


def parso_grammar():
    import parso

    return parso.load_grammar()


def parso_tools():
    from parso.python.diff import DiffParser
    from parso.utils import split_lines

    grammar = parso_grammar()

    def full_parse(text: str):
        return grammar.parse(text, error_recovery=True)

    def diff_parse(tree, old_lines, new_lines):
        return DiffParser(grammar._pgen_grammar, grammar._tokenizer, tree).update(old_lines, new_lines)

    return full_parse, diff_parse, split_lines


def engine_host():
    from shapesense.analysis.db import AnalysisHost

    return AnalysisHost


def inprocess(cfg: Config, fr: FileRun) -> None:
    full_parse, diff_parse, split_lines = parso_tools()
    path = str(fr.path.resolve())
    # full parse of the base text (context for the floor)
    fp = []
    for _ in range(3 if fr.lines > 5000 else 7):
        t = time.perf_counter()
        full_parse(fr.text)
        fp.append(time.perf_counter() - t)
    fr.results["full_parse"] = summarize(fp)

    # which changelog entries get a from-scratch sample: the last step of each trace's first
    # repetition, the middle of the typing trace, each undo of the first repetition
    want_scratch = set()
    n_steps = {t.name: len(t.steps) for t in fr.traces}
    for i, e in enumerate(fr.changelog):
        n = n_steps.get(e["trace"], 1)
        if e["rep"] == 0 and (e["undo"] or e["step"] in (n - 1, n // 2)):
            want_scratch.add(i)

    # parse floor: chained DiffParser updates over exactly the sequence the server saw
    doc = Doc(fr.text)
    tree = full_parse(fr.text)
    old_lines = split_lines(doc.text, keepends=True)
    scratch_texts: dict[int, str] = {}
    gc.disable()  # a floor is a floor: no collector pauses inside the timed calls
    for i, e in enumerate(fr.changelog):
        if i % 20 == 0:
            gc.collect()
        doc.apply(e["change"])
        new_lines = split_lines(doc.text, keepends=True)
        t = time.perf_counter()
        tree = diff_parse(tree, old_lines, new_lines)
        e["floor"] = time.perf_counter() - t
        old_lines = new_lines
        if i in want_scratch:
            scratch_texts[i] = doc.text
    del tree

    # reference floor: re-parse only the top-level statements each edit touches
    from bench.region import RegionReparser
    from bench.traces import change_lines

    rr = RegionReparser(parso_grammar(), fr.text, split_lines)
    doc = Doc(fr.text)
    for i, e in enumerate(fr.changelog):
        if i % 20 == 0:
            gc.collect()
        doc.apply(e["change"])
        new_lines = split_lines(doc.text, keepends=True)
        l1, l2o, l2n = change_lines(e["change"])
        t = time.perf_counter()
        rr.update(new_lines, l1, l2o, l2n)
        e["region"] = time.perf_counter() - t
    gc.enable()
    del rr

    # the engine: incremental (one host fed every edit) and from scratch (a fresh host),
    # timed with the cyclic collector paused as the server runs an analysis
    # (server/worker._gc_paused); it collects between samples, untimed
    gc.collect()
    gc.disable()
    try:
        AnalysisHost = engine_host()
        host = AnalysisHost()
        host.set_file(path, fr.text)
        t = time.perf_counter()
        host.analyze(path)
        fr.results["engine_cold_analyze"] = summarize([time.perf_counter() - t])
        doc = Doc(fr.text)
        t_phase = time.perf_counter()
        n_before = len(getattr(host, "query_log", []) or [])
        for i, e in enumerate(fr.changelog):
            if i % 25 == 0:
                gc.collect()
            doc.apply(e["change"])
            if time.perf_counter() - t_phase > cfg.phase_seconds:
                continue  # keep applying (texts stay right), stop timing
            t = time.perf_counter()
            host.set_file(path, doc.text)
            res = host.analyze(path)
            e["engine"] = time.perf_counter() - t
            e["engine_ndiag"] = len(getattr(res, "diagnostics", []) or [])
            n_after = len(getattr(host, "query_log", []) or [])
            e["recomputed"] = n_after - n_before if n_after >= n_before else n_after  # the log may be cumulative
            # what was run again, beside re-parsing and re-lowering: calls and solver queries
            e["rerun"] = sum(str(q).startswith(("infer:", "solve:")) for q in getattr(host, "query_log", []) or [])
            n_before = n_after
        del host
        gc.collect()
        # round-robin over traces so every trace gets a sample before the budget runs out
        by_trace: dict[str, list[int]] = {}
        for i in scratch_texts:
            by_trace.setdefault(fr.changelog[i]["trace"] + str(fr.changelog[i]["undo"]), []).append(i)
        order = [i for k in range(max((len(v) for v in by_trace.values()), default=0))
                 for v in by_trace.values() if k < len(v) for i in [v[k]]]
        t_phase = time.perf_counter()
        for i in order:
            if time.perf_counter() - t_phase > cfg.phase_seconds:
                fr.results["from_scratch_cut_by_budget"] = True
                break
            text = scratch_texts[i]
            e = fr.changelog[i]
            xs = []
            for _ in range(cfg.scratch_reps):
                gc.collect()
                t = time.perf_counter()
                h = AnalysisHost()
                h.set_file(path, text)
                h.analyze(path)
                xs.append(time.perf_counter() - t)
                del h
                if xs[-1] > 5.0:
                    break
            e["scratch"] = xs
    except NotImplementedError as ex:
        fr.errors.append(f"in-process engine: NotImplementedError: {ex}")
    except Exception:  # noqa: BLE001 - record, keep the other figures
        fr.errors.append("in-process engine failed:\n" + traceback.format_exc(limit=6))
    finally:
        gc.enable()


# ---------------------------------------------------------------------------------------
# aggregation


ONE_LINE = ("typing", "comment", "signature", "add_bug", "fix_bug")


def aggregate(fr: FileRun) -> None:
    per: dict = {}
    log_ = fr.changelog
    groups: dict[str, list[dict]] = {}
    for e in log_:
        groups.setdefault(e["trace"] + (":undo" if e["undo"] else ""), []).append(e)
    for name, es in groups.items():
        d = {
            "edits": len(es),
            "edit_to_diagnostics": summarize([e["t"] for e in es if "t" in e]),
            "parse_floor": summarize([e["floor"] for e in es if "floor" in e]),
            "region_reparse": summarize([e["region"] for e in es if "region" in e]),
            "engine_incremental": summarize([e["engine"] for e in es if "engine" in e]),
            "from_scratch": summarize([x for e in es for x in e.get("scratch", [])]),
            "recomputed_median": _median([e["recomputed"] for e in es if "recomputed" in e]),
            "rerun_max": max([e["rerun"] for e in es if "rerun" in e], default=None),
            "server_cpu_mean_ms": _mean_ms([e["cpu"] for e in es if "cpu" in e]),
            "diagnostics_last": es[-1].get("ndiag"),
        }
        tr = next((t for t in fr.traces if t.name == name.split(":")[0]), None)
        d["description"] = (tr.description if tr else name) + (" (undo)" if name.endswith(":undo") else "")
        _ratios(d)
        per[name] = d
    fr.results["traces"] = per
    one = [e for e in log_ if e["trace"] in ONE_LINE and not e["undo"]]
    d = {
        "edits": len(one),
        "edit_to_diagnostics": summarize([e["t"] for e in one if "t" in e]),
        "parse_floor": summarize([e["floor"] for e in one if "floor" in e]),
        "region_reparse": summarize([e["region"] for e in one if "region" in e]),
        "engine_incremental": summarize([e["engine"] for e in one if "engine" in e]),
        "from_scratch": summarize([x for e in one for x in e.get("scratch", [])]),
        "server_cpu_mean_ms": _mean_ms([e["cpu"] for e in one if "cpu" in e]),
    }
    _ratios(d)
    fr.results["one_line_edits"] = d
    fr.results["all_edits"] = {"edit_to_diagnostics": summarize([e["t"] for e in log_ if "t" in e])}


def _mean_ms(seconds):
    return 1000 * sum(seconds) / len(seconds) if seconds else None


def _median(xs):
    import statistics

    return statistics.median(xs) if xs else None


def _ratios(d: dict) -> None:
    inc, eng, sc, fl = d["edit_to_diagnostics"], d["engine_incremental"], d["from_scratch"], d["parse_floor"]
    d["ratio_server_vs_scratch"] = ratio(inc, sc)
    d["ratio_server_vs_floor"] = ratio(inc, fl)
    d["ratio_engine_vs_scratch"] = ratio(eng, sc)
    d["ratio_engine_vs_floor"] = ratio(eng, fl)


# ---------------------------------------------------------------------------------------
# reporting


def summary_markdown(cfg: Config, res: dict) -> str:
    files = res["files"]
    L = []
    L.append(f"# ShapeSense benchmark ({'smoke' if cfg.smoke else 'full'} run)\n")
    m = res["meta"]
    load = m.get("load_average")
    load_text = ""
    if load:
        load_text = f" Load average (1 / 5 / 15 min) at the start {' / '.join(f'{x:.2f}' for x in load)}"
        if m.get("load_average_end"):
            load_text += f", at the end {' / '.join(f'{x:.2f}' for x in m['load_average_end'])}"
        load_text += "."
    L.append(f"`{m['command']}` on {m['started']}, Python {m['python']}, {m['cpus']} CPUs, parso {m['parso']}, "
             f"server `{' '.join(m['server_cmd'][-4:])}`, code digest `{m.get('code_digest')}`, debounceMs=0. "
             f"Times in ms: median / p95 / max.{load_text}\n")
    L.append("## Scaling (one-line edits: typing, comment, signature, add/fix bug)\n")
    L.append("| file | lines | cold open | edit -> diagnostics | engine incremental | from scratch | parse floor (DiffParser) | region re-parse (ref.) | full parse | server/scratch | server/floor | engine/scratch | engine/floor |")
    L.append("|---|---:|---|---|---|---|---|---|---|---:|---:|---:|---:|")
    for label, f in files.items():
        r = f.get("results", {})
        o = r.get("one_line_edits", {})
        L.append(f"| {label} | {f['lines']} | {fmt_triplet(r.get('cold_open'))} | {fmt_triplet(o.get('edit_to_diagnostics'))} | "
                 f"{fmt_triplet(o.get('engine_incremental'))} | {fmt_triplet(o.get('from_scratch'))} | "
                 f"{fmt_triplet(o.get('parse_floor'))} | {fmt_triplet(o.get('region_reparse'))} | {fmt_triplet(r.get('full_parse'))} | "
                 f"{fmt_ratio(o.get('ratio_server_vs_scratch'))} | {fmt_ratio(o.get('ratio_server_vs_floor'))} | "
                 f"{fmt_ratio(o.get('ratio_engine_vs_scratch'))} | {fmt_ratio(o.get('ratio_engine_vs_floor'))} |")
    L.append("")
    L.extend(variants_table(files))
    L.append("## Requests (steady state, after open)\n")
    L.append("| file | lines | hover | inlay hints (60-line range) | code actions | initialize (cold) | start -> ready (engine loaded, workspace indexed) |")
    L.append("|---|---:|---|---|---|---|---|")
    for label, f in files.items():
        r = f.get("results", {})
        L.append(f"| {label} | {f['lines']} | {fmt_triplet(r.get('hover'))} | {fmt_triplet(r.get('inlay_hints'))} | "
                 f"{fmt_triplet(r.get('code_actions'))} | {fmt_triplet(r.get('initialize_cold'))} | "
                 f"{fmt_triplet(r.get('ready_cold'))} |")
    L.append("")
    L.append("## Edit -> diagnostics per trace\n")
    for label, f in files.items():
        tr = f.get("results", {}).get("traces", {})
        if not tr:
            continue
        L.append(f"### {label} ({f['lines']} lines)\n")
        L.append("| trace | edits | edit -> diagnostics | engine incr. | from scratch | parse floor | server/scratch | server/floor | recomputed | diags after |")
        L.append("|---|---:|---|---|---|---|---:|---:|---:|---:|")
        for name, d in tr.items():
            L.append(f"| {name} | {d['edits']} | {fmt_triplet(d['edit_to_diagnostics'])} | {fmt_triplet(d['engine_incremental'])} | "
                     f"{fmt_triplet(d['from_scratch'])} | {fmt_triplet(d['parse_floor'])} | {fmt_ratio(d['ratio_server_vs_scratch'])} | "
                     f"{fmt_ratio(d['ratio_server_vs_floor'])} | {d['recomputed_median'] if d['recomputed_median'] is not None else '-'} | "
                     f"{d['diagnostics_last'] if d['diagnostics_last'] is not None else '-'} |")
        L.append("")
    runs = [r for r in (res.get("rss_runs") or {"": res.get("rss")}).values() if r and r.get("rss_kb_start")]
    if runs:
        L.append("## Memory\n")
    for rss in runs:
        L.append(f"{rss['edits']} edits on {rss['file']} ({rss['lines']} lines) in {rss.get('wall_s', 0):.0f} s: "
                 f"RSS after open {rss['rss_kb_start'] / 1024:.0f} MB, warm {rss['rss_kb_warm'] / 1024:.0f} MB, "
                 f"end {rss['rss_kb_end'] / 1024:.0f} MB, max {rss['rss_kb_max'] / 1024:.0f} MB "
                 f"(growth {rss['growth_from_open_pct']:+.1f}% from open, {rss['growth_from_warm_pct']:+.1f}% from warm); "
                 f"edit -> diagnostics over the run {fmt_triplet(rss.get('edit_to_diagnostics'))}.\n")
    smp = res.get("samples")
    if smp and smp.get("files"):
        L.append(f"## samples/\n\n{smp['files']} files: open {fmt_triplet(smp.get('open'))}, "
                 f"comment edit {fmt_triplet(smp.get('comment_edit'))}.\n")
    L.append("## Targets (informational, never asserted)\n")
    L.extend(target_lines(res))
    errs = [(label, e) for label, f in files.items() for e in f.get("errors", [])] + [("-", e) for e in res.get("errors", [])]
    if errs:
        L.append("\n## Errors\n")
        for label, e in errs:
            first = e.strip().splitlines()[0] if e.strip() else e
            L.append(f"- {label}: {first}")
    return "\n".join(L) + "\n"


def _closest(files: dict, n: int):
    best = None
    for label, f in files.items():
        if best is None or abs(f["lines"] - n) < abs(files[best]["lines"] - n):
            best = label
    return best


def target_lines(res: dict) -> list[str]:
    files = res["files"]
    out = []

    def get(label, *keys):
        d = files.get(label, {}).get("results", {})
        for k in keys:
            d = (d or {}).get(k)
        return d

    concrete = {k: f for k, f in files.items() if f.get("variant", gen.variant_of(k)) == "concrete"}
    big = _closest(concrete, 3000)
    tiny = _closest(concrete, 40)
    rows = [
        (big, "edit -> diagnostics p95 (one-line edits)", get(big, "one_line_edits", "edit_to_diagnostics", "p95"), "<= 20 ms"),
        (tiny, "edit -> diagnostics p95 (one-line edits)", get(tiny, "one_line_edits", "edit_to_diagnostics", "p95"), "<= 3 ms"),
        (big, "incremental / from scratch (one-line edits, server)", get(big, "one_line_edits", "ratio_server_vs_scratch"), "<= 1/20"),
        (big, "incremental / parse floor (one-line edits, server)", get(big, "one_line_edits", "ratio_server_vs_floor"), "<= 3x"),
        (big, "hover p95", get(big, "hover", "p95"), "<= 5 ms"),
        (big, "cold open median", get(big, "cold_open", "median"), "<= 300 ms"),
    ]
    for variant in ("annotated", "symbolic"):  # issue 12, with debounce 0
        mine = {k: f for k, f in files.items() if f.get("variant", gen.variant_of(k)) == variant}
        mid, huge = _closest(mine, 3000), _closest(mine, 10000)
        rows += [
            (mid, "edit -> diagnostics p95 (one-line edits)", get(mid, "one_line_edits", "edit_to_diagnostics", "p95"), "<= 20 ms"),
            (mid, "comment edit -> diagnostics p95", get(mid, "traces", "comment", "edit_to_diagnostics", "p95"), "<= 5 ms"),
            (mid, "cold open median", get(mid, "cold_open", "median"), "<= 300 ms"),
        ]
        if huge is not None and huge != mid:
            rows.append((huge, "edit -> diagnostics p95 (one-line edits)",
                         get(huge, "one_line_edits", "edit_to_diagnostics", "p95"), "<= 60 ms"))
    for label, what, v, target in rows:
        if label is None:
            continue
        n = files[label]["lines"]
        what = what if label in concrete else f"{files[label].get('variant', gen.variant_of(label))}: {what}"
        if v is None:
            shown = "-"
        elif "/" in what:
            shown = fmt_ratio(v)
        else:
            shown = fmt_ms(v) + ("" if v >= 1000 else " ms")
        out.append(f"- {what}, {n} lines: **{shown}** (target {target})")
    for label, rss in (res.get("rss_runs") or {"": res.get("rss") or {}}).items():
        if rss.get("rss_kb_end"):
            out.append(f"- RSS after {rss['edits']} edits, {rss['file']} ({rss['lines']} lines): "
                       f"**{rss['rss_kb_end'] / 1024:.0f} MB**, growth {rss['growth_from_open_pct']:+.1f}% "
                       f"(target <= 250 MB, < 10% growth over 10,000 edits)")
    return out


def plot(res: dict, path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not installed (pip install matplotlib): plot skipped"
    every = [f for f in res["files"].values() if f.get("results")]
    files = [f for f in every if f.get("variant", "concrete") == "concrete"]
    files.sort(key=lambda f: f["lines"])
    xs = [f["lines"] for f in files]
    series = [
        ("edit -> diagnostics, median", lambda r: r.get("one_line_edits", {}).get("edit_to_diagnostics"), "median", "C0", "-o"),
        ("edit -> diagnostics, p95", lambda r: r.get("one_line_edits", {}).get("edit_to_diagnostics"), "p95", "C0", "--o"),
        ("engine incremental, median", lambda r: r.get("one_line_edits", {}).get("engine_incremental"), "median", "C2", "-s"),
        ("from scratch, median", lambda r: r.get("one_line_edits", {}).get("from_scratch"), "median", "C3", "-^"),
        ("parso DiffParser (floor), median", lambda r: r.get("one_line_edits", {}).get("parse_floor"), "median", "C7", "-v"),
        ("region re-parse (reference), median", lambda r: r.get("one_line_edits", {}).get("region_reparse"), "median", "C8", "-.v"),
        ("full parso parse, median", lambda r: r.get("full_parse"), "median", "C7", ":v"),
        ("cold open, median", lambda r: r.get("cold_open"), "median", "C1", "-D"),
        ("hover, p95", lambda r: r.get("hover"), "p95", "C4", "-x"),
    ]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for name, get, key, color, style in series:
        pts = [(x, (get(f["results"]) or {}).get(key)) for x, f in zip(xs, files)]
        pts = [(x, y) for x, y in pts if y]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, label=name)
    for variant, color in (("annotated", "C5"), ("symbolic", "C6")):  # issue 12's files, no driver
        fs = sorted((f for f in every if f.get("variant") == variant), key=lambda f: f["lines"])
        pts = [(f["lines"], (f["results"].get("one_line_edits", {}).get("edit_to_diagnostics") or {}).get("p95"))
               for f in fs]
        pts = [(x, y) for x, y in pts if y]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "--d", color=color,
                    label=f"{variant} (no driver): edit -> diagnostics, p95")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("file size (lines)")
    ax.set_ylabel("time (ms)")
    ax.set_title("ShapeSense: latency vs file size (one-line edits)")
    ax.axhline(20, color="C0", lw=0.6, alpha=0.5)
    ax.annotate("20 ms (p95 target, 3,000 lines)", (xs[0] if xs else 40, 21), fontsize=7, color="C0", alpha=0.8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


# ---------------------------------------------------------------------------------------


def run(cfg: Config, command: str) -> int:
    t_all = time.perf_counter()
    cfg.out.mkdir(parents=True, exist_ok=True)
    inputs = BENCH / "inputs"
    paths = gen.write_inputs(str(inputs), cfg.sizes, variants=cfg.variants)
    import parso

    res: dict = {"meta": {
        "command": command, "started": time.strftime("%Y-%m-%d %H:%M:%S"), "python": platform.python_version(),
        "platform": platform.platform(), "cpus": os.cpu_count(), "parso": parso.__version__,
        "server_cmd": cfg.server_cmd, "smoke": cfg.smoke, "code_digest": code_digest(),
        "load_average": _load_average(), "variants": list(cfg.variants),
    }, "files": {}, "errors": []}
    stderr_dir = Path(tempfile.mkdtemp(prefix="shapesense-bench-"))
    failed = False
    runs: dict[str, FileRun] = {}
    for label, p in paths.items():
        path = Path(p)
        text = path.read_text(encoding="utf-8")
        meta = json.loads(path.with_suffix(".meta.json").read_text())
        fr = FileRun(label, path, text, meta, text.count("\n"))
        fr.traces = build_traces(text, meta, cfg.typing_chars)
        runs[label] = fr
        log(f"== {label}: {path.name}, {fr.lines} lines, traces: {', '.join(t.name for t in fr.traces)}")
        if cfg.server:
            for phase, fn in (("traces", replay_traces), ("cold open", cold_open)):
                t = time.perf_counter()
                try:
                    fn(cfg, fr, stderr_dir)
                    log(f"   {phase}: {time.perf_counter() - t:.1f} s")
                except (ServerError, AssertionError, OSError) as e:
                    failed = True
                    fr.errors.append(f"server {phase}: {e}")
                    log(f"   {phase}: FAILED after {time.perf_counter() - t:.1f} s:\n{e}")
                    break
        if cfg.inprocess:
            if not fr.changelog:  # no server run: replay the traces' own edits once
                fr.changelog = synthetic_changelog(fr, cfg)
            t = time.perf_counter()
            inprocess(cfg, fr)
            log(f"   in-process (floor, engine, scratch): {time.perf_counter() - t:.1f} s")
            for e in fr.errors:
                if e.startswith("in-process"):
                    log("   " + e.splitlines()[0])
        aggregate(fr)
        res["files"][label] = {"path": str(path.relative_to(REPO)), "lines": fr.lines,
                               "variant": gen.variant_of(label),
                               "traces": {t.name: t.description for t in fr.traces},
                               "results": fr.results, "errors": fr.errors,
                               "samples": {k: [round(e[k] * 1000, 4) for e in fr.changelog if k in e]
                                           for k in ("t", "floor", "region", "engine")}}
        print_file_summary(fr)
    for rss_label in cfg.rss_labels:
        if not (cfg.server and cfg.rss_edits and rss_label in runs and not failed):
            continue
        t = time.perf_counter()
        try:
            r = rss_run(cfg, runs[rss_label], stderr_dir)
            res.setdefault("rss_runs", {})[rss_label] = r
            res.setdefault("rss", r)  # the first (concrete) run, as results.json always had it
            log(f"== RSS: {r['edits']} edits on {r['file']} in {time.perf_counter() - t:.1f} s: "
                f"{r.get('rss_kb_start', 0) / 1024:.0f} MB -> {r.get('rss_kb_end', 0) / 1024:.0f} MB "
                f"(max {r.get('rss_kb_max', 0) / 1024:.0f} MB); edit->diag {fmt_triplet(r['edit_to_diagnostics'])}")
        except (ServerError, OSError) as e:
            failed = True
            res["errors"].append(f"rss run ({rss_label}): {e}")
            log(f"== RSS run FAILED:\n{e}")
    if cfg.server and not failed:
        try:
            res["samples"] = samples_run(cfg, stderr_dir)
            if res["samples"].get("files"):
                log(f"== samples/: {res['samples']['files']} files, open {fmt_triplet(res['samples']['open'])}")
        except (ServerError, OSError) as e:
            failed = True
            res["errors"].append(f"samples: {e}")
            log(f"== samples FAILED:\n{e}")
    res["meta"]["wall_s"] = time.perf_counter() - t_all
    res["meta"]["load_average_end"] = _load_average()
    res["meta"]["code_digest_end"] = code_digest()
    if res["meta"]["code_digest_end"] != res["meta"]["code_digest"]:
        res["errors"].append("note: analysis/ or server/ changed during the run; figures mix code states")
    (cfg.out / "results.json").write_text(json.dumps(res, indent=1, default=str))
    md = summary_markdown(cfg, res)
    (cfg.out / "summary.md").write_text(md)
    note = plot(res, cfg.out / "latency_vs_size.png")
    print()
    print(md)
    if note:
        log(note)
    log(f"results: {cfg.out / 'results.json'}, {cfg.out / 'summary.md'}"
        + ("" if note else f", {cfg.out / 'latency_vs_size.png'}") + f"  ({res['meta']['wall_s']:.1f} s)")
    if failed:
        log(f"FAILED: the server could not be driven (see errors above; stderr logs in {stderr_dir})")
    return 1 if failed else 0


def _load_average():
    """The machine's load average (1, 5, 15 min): the benchmark shares its cores."""
    try:
        return list(os.getloadavg())
    except OSError:
        return None


def variants_table(files: dict) -> list[str]:
    """The files with no driver beside the concrete ones of the same size: one-line and
    comment edits (server, p95), the engine alone, from scratch, cold open."""
    by_size: dict = {}
    for label, f in files.items():
        size = label.split("-", 1)[1] if gen.variant_of(label) != "concrete" else label
        by_size.setdefault(size, []).append((f.get("variant", gen.variant_of(label)), f))
    if not any(len(v) > 1 for v in by_size.values()):
        return []
    L = ["## Concrete, annotated and symbolic files side by side\n",
         "concrete: a driver at the bottom calls every model; annotated: issue 12's models (LeNet, "
         "multi-head attention, MLP with a residual, a reshape helper) with jaxtyping inputs and no driver; "
         "symbolic: the same models with no annotations and no driver (generic contexts). "
         "Median / p95 in ms.\n",
         "| size | variant | lines | one-line edit -> diagnostics | comment edit -> diagnostics | server CPU per edit, one-line / comment (mean) "
         "| engine incremental (one-line) | calls and solver queries re-run by a comment edit (max) | from scratch | cold open |",
         "|---|---|---:|---|---|---|---|---:|---|---|"]

    def pair(d):
        return f"{fmt_ms(d['median'])} / {fmt_ms(d['p95'])}" if d and d.get("median") is not None else "-"

    for size, group in by_size.items():
        for variant, f in group:
            r = f.get("results", {})
            o = r.get("one_line_edits", {})
            c = r.get("traces", {}).get("comment", {})
            L.append(f"| {size} | {variant} | {f['lines']} | {pair(o.get('edit_to_diagnostics'))} | "
                     f"{pair(c.get('edit_to_diagnostics'))} | {fmt_ms(o.get('server_cpu_mean_ms'))} / "
                     f"{fmt_ms(c.get('server_cpu_mean_ms'))} | {pair(o.get('engine_incremental'))} | "
                     f"{c.get('rerun_max') if c.get('rerun_max') is not None else '-'} | "
                     f"{pair(o.get('from_scratch'))} | {pair(r.get('cold_open'))} |")
    L.append("")
    return L


def code_digest() -> str:
    """sha1 over the engine's and server's sources: which code state produced the figures."""
    import hashlib

    h = hashlib.sha1()
    for d in ("analysis", "server", "shapesense"):
        for f in sorted((REPO / d).rglob("*.py")):
            h.update(str(f.relative_to(REPO)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def synthetic_changelog(fr: FileRun, cfg: Config) -> list[dict]:
    doc = Doc(fr.text)
    out = []
    for tr in fr.traces:
        base = doc.text
        for i, ch in enumerate(tr.steps):
            doc.apply(ch)
            out.append({"trace": tr.name, "rep": 0, "step": i, "undo": False, "change": ch})
        undo = diff_change(doc.text, base, doc)
        doc.apply(undo)
        out.append({"trace": tr.name, "rep": 0, "step": len(tr.steps), "undo": True, "change": undo})
    return out


def print_file_summary(fr: FileRun) -> None:
    r = fr.results
    o = r.get("one_line_edits", {})
    log(f"   one-line edits ({o.get('edits', 0)}): edit->diag {fmt_triplet(o.get('edit_to_diagnostics'))} | "
        f"engine {fmt_triplet(o.get('engine_incremental'))} | scratch {fmt_triplet(o.get('from_scratch'))} | "
        f"floor {fmt_triplet(o.get('parse_floor'))} (ms unless marked s)")
    for k in ("cold_open", "hover", "inlay_hints", "code_actions"):
        if k in r:
            log(f"   {k}: {fmt_triplet(r[k])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="ShapeSense benchmark (edit latency, scaling, memory)")
    ap.add_argument("--smoke", action="store_true", help="small inputs, few edits (< 60 s); for CI")
    ap.add_argument("--sizes", help="comma-separated line counts, e.g. 500,3000")
    ap.add_argument("--server-cmd", help="server command (default: python -m shapesense serve --stdio)")
    ap.add_argument("--timeout", type=float, help="seconds to wait for any single answer (default 120; smoke 30)")
    ap.add_argument("--rss-edits", type=int, help="edits in the memory run (default 10000; smoke 150; 0 = skip)")
    ap.add_argument("--reps", type=int, help="repetitions of every trace")
    ap.add_argument("--variants", help="comma-separated: concrete (a driver), annotated (jaxtyping, no driver), "
                                       "symbolic (no annotations, no driver); default all (smoke: concrete,symbolic)")
    ap.add_argument("--out", help="results folder")
    ap.add_argument("--phase-seconds", type=float, help="no new repetitions after this many seconds per phase (default 600; smoke 6)")
    ap.add_argument("--rss-seconds", type=float, help="time budget of the memory run (default 900; smoke 5)")
    ap.add_argument("--no-inprocess", action="store_true", help="skip from-scratch / engine / parse-floor timing")
    ap.add_argument("--no-server", action="store_true", help="skip everything that needs the server")
    ap.add_argument("--felt", action="store_true",
                    help="then bench/felt.py: latency with DEFAULT settings, typing bursts and CPU, huge files")
    ap.add_argument("--summary-only", action="store_true",
                    help="rewrite summary.md and the plot from an existing results.json (in --out)")
    a = ap.parse_args(argv)
    cfg = make_config(a)
    if a.summary_only:
        res = json.loads((cfg.out / "results.json").read_text())
        cfg.smoke = bool(res["meta"].get("smoke"))
        md = summary_markdown(cfg, res)
        (cfg.out / "summary.md").write_text(md)
        note = plot(res, cfg.out / "latency_vs_size.png")
        print(md)
        if note:
            log(note)
        return 0
    command = "python -m bench.run " + " ".join(argv if argv is not None else sys.argv[1:])
    status = run(cfg, command.strip())
    if a.felt:
        from bench import felt

        felt.run(smoke=cfg.smoke, out=cfg.out)
    return status


if __name__ == "__main__":
    sys.exit(main())
