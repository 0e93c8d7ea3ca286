"""Engine cost of symbolic code, quickly: the concrete, annotated and symbolic files of
bench/gen.py side by side, in this process, without the server.

    python -m bench.symbolic [--sizes 500,3000] [--edits 20] [--variants concrete,annotated,symbolic]

Per file: a cold analysis, then one-line edits inside a forward (a statement added and
removed) and comment edits (a comment line added and removed), each followed by an
incremental analysis; medians and p95 of CPU time in ms until the diagnostics are ready,
and the median of the work left for the first hover or inlay hints (the facts) (process time: steadier than wall
time on a machine whose cores are shared), and what the edits recomputed (the query log's
`infer:` and `solve:` entries). The collector is paused during each analysis, as the server
does. `python -m bench.run` measures the same files through the server; this is the
engine's share, in a minute.
"""
from __future__ import annotations

import argparse
import gc
import os
import time

from bench.gen import VARIANTS, generate_variant
from bench.stats import summarize
from shapesense.analysis.db import AnalysisHost, warm_up


def _timed(host, path, text, facts: list | None = None) -> float:
    """CPU seconds of an analysis (its diagnostics); the facts it leaves for later (made
    when a hover or inlay hints first read them, then placed in lines as they read them)
    are timed next, into `facts`."""
    host.set_file(path, text)
    gc.disable()
    try:
        t0 = time.process_time()
        host.analyze(path)
        t1 = time.process_time()
        host.settle()  # what the analysis left for later (not placing the facts in lines)
        if facts is not None:
            facts.append(time.process_time() - t1)
        return t1 - t0
    finally:
        gc.enable()


def measure(text: str, anchors: list, edits: int) -> dict:
    path = os.path.join(os.sep, "bench-symbolic", "model.py")
    host = AnalysisHost()
    cold = _timed(host, path, text)
    lines = text.split("\n")
    times: dict = {"code": [], "comment": [], "code facts": [], "comment facts": []}
    recomputed: dict = {"code": [], "comment": []}
    for i in range(edits):
        at = anchors[(i * 7) % len(anchors)]
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        for kind, added in (("code", f"{indent}_probe_{i} = x"), ("comment", f"{indent}# note {i}")):
            edited = "\n".join(lines[: at + 1] + [added] + lines[at + 1:])
            for new in (edited, text):
                times[kind].append(_timed(host, path, new, times[kind + " facts"]))
                recomputed[kind].append(sum(q.startswith(("infer:", "solve:")) for q in host.query_log))
        gc.collect()
    return {"cold": cold, "times": times, "recomputed": recomputed}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="500,3000")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    a = ap.parse_args(argv)
    warm_up()  # the solver and engine modules, as a server loads them before any file
    print("| lines | variant | cold (CPU ms) | one-line edit median / p95 | comment edit median / p95 "
          "| then the facts, median (one-line / comment) | recomputed per one-line / comment edit |")
    print("|---:|---|---:|---|---|---|---|")
    for size in (int(s) for s in a.sizes.split(",")):
        for variant in a.variants.split(","):
            g = generate_variant(size, variant)
            r = measure(g.text, [f["line"] for f in g.meta.forward_anchors], a.edits)
            code, comment = summarize(r["times"]["code"]), summarize(r["times"]["comment"])
            per = {k: max(v) for k, v in r["recomputed"].items()}
            print(f"| {g.meta.lines} | {variant} | {r['cold'] * 1000:.0f} | {code['median']:.1f} / {code['p95']:.1f} "
                  f"| {comment['median']:.1f} / {comment['p95']:.1f} "
                  f"| {summarize(r['times']['code facts'])['median']:.1f} / "
                  f"{summarize(r['times']['comment facts'])['median']:.1f} "
                  f"| {per['code']} / {per['comment']} |", flush=True)
            gc.collect()


if __name__ == "__main__":
    main()
