"""Engine cost of symbolic code: the bench's generated model files with their driver (every
forward concrete) and without it (every forward a symbolic generic context), side by side.

    python -m bench.symbolic [--sizes 500,3000] [--edits 20]

Per file: a cold analysis, then one-line edits inside a forward (a statement added and
removed) and comment edits, each followed by an incremental analysis; medians and p95 in ms.
Engine only (AnalysisHost), one process: the server-level felt latency is bench/felt.py.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import time

from bench.gen import generate
from shapesense.analysis.db import AnalysisHost


def _p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def measure(text: str, anchors: list, edits: int) -> dict:
    path = os.path.join(os.sep, "bench-symbolic", "model.py")
    host = AnalysisHost()
    host.set_file(path, text)
    t0 = time.perf_counter()
    host.analyze(path)
    cold = (time.perf_counter() - t0) * 1000
    lines = text.split("\n")
    code, comment = [], []
    for i in range(edits):
        at = anchors[i % len(anchors)]
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        for kind, added in (("code", f"{indent}_probe_{i} = x"), ("comment", f"{indent}# note {i}")):
            edited = "\n".join(lines[: at + 1] + [added] + lines[at + 1:])
            for new in (edited, text):
                host.set_file(path, new)
                t0 = time.perf_counter()
                host.analyze(path)
                (code if kind == "code" else comment).append((time.perf_counter() - t0) * 1000)
    return {"cold": cold, "code": code, "comment": comment}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="500,3000")
    ap.add_argument("--edits", type=int, default=20)
    a = ap.parse_args(argv)
    gc.disable()
    print("| lines | variant | cold | one-line edit median / p95 | comment edit median / p95 |")
    print("|---:|---|---:|---|---|")
    for size in (int(s) for s in a.sizes.split(",")):
        g = generate(size)
        anchors = [f["line"] for f in g.meta.forward_anchors]
        full = g.text
        driverless = "\n".join(full.split("\n")[: g.meta.driver_start]) + "\n"
        for label, text in (("with driver", full), ("no driver (symbolic)", driverless)):
            r = measure(text, anchors, a.edits)
            print(f"| {size} | {label} | {r['cold']:.0f} | {statistics.median(r['code']):.1f} / {_p95(r['code']):.1f} "
                  f"| {statistics.median(r['comment']):.1f} / {_p95(r['comment']):.1f} |", flush=True)
            gc.collect()


if __name__ == "__main__":
    main()
