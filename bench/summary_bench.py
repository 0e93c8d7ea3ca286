"""The model summary is read from the analysis the host already holds: on a generated
3,000-line model file, time the first analysis, then the summary of every nn.Module class
(what the CodeLens asks for) and of the file's model, with the query log showing that no
def ran again (no second analysis). Prints one line per measure; writes nothing.

    python -m bench.summary_bench [--lines 3000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from shapesense.analysis import summary
from shapesense.analysis.db import AnalysisHost

from .gen import generate


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=3000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    text = generate(args.lines, seed=0).text
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "zoo.py")
        with open(path, "w") as f:
            f.write(text)
        host = AnalysisHost(workspace_root=root)
        host.set_file(path, text)
        t0 = time.perf_counter()
        host.analyze(path)
        analysis_ms = (time.perf_counter() - t0) * 1000
        runs_all, runs_one, reran = [], [], []
        for _ in range(args.repeat):
            host.clear_log()
            t0 = time.perf_counter()
            all_models = summary.summaries(host, path)
            runs_all.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            one = summary.summarize(host, path)
            runs_one.append((time.perf_counter() - t0) * 1000)
            reran.append(sum(1 for q in host.query_log if q.startswith("infer:")))
        rows = sum(len(s.rows) for s in all_models)
        print(f"file: {text.count(chr(10)) + 1} lines, {len(all_models)} nn.Module classes, {rows} summary rows")
        print(f"analysis (once): {analysis_ms:.0f} ms")
        print(f"summaries of every class (CodeLens): median {statistics.median(runs_all):.1f} ms, "
              f"max {max(runs_all):.1f} ms over {args.repeat} runs")
        print(f"summary of the file's model ({one.model if one else None}, {len(one.rows) if one else 0} rows): "
              f"median {statistics.median(runs_one):.1f} ms")
        print(f"defs re-run by the summaries (infer: lines in the query log): {max(reran)}")


if __name__ == "__main__":
    main()
