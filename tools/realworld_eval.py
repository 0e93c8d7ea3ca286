#!/usr/bin/env python3
"""Real-world accuracy evaluation of ShapeSense against PyTorch.

    python3 eval.py [DIR] [--torch-python PY] [-v] [--only SUBSTR] [--json OUT]

For each model file in DIR (ex_*.py correct examples, tv_*.py torchvision models, bug_*.py
variants with one real shape bug):
  1. run it under PY (a python with torch and torchvision; default $TORCH_PY, else this python) with a sys.settrace
     line tracer recording the shapes of every tensor assigned to a plain name, per
     (line, name), and the line where torch raised (deepest frame in the file). Cached in
     DIR/.eval/ keyed by the file's content hash.
  2. run ShapeSense (AnalysisHost) on the same file in this python.
  3. compare: exact / partial (right rank, not all dims known, nothing contradicts torch) /
     unknown (no fact or unknown rank) / wrong (rank or a concrete dim differs, or a
     non-tensor type) per executed (line, name); diagnostics on correct files; and on bug
     files whether an error is on the raising line.
Details of every non-exact line go to DIR/.eval/details.txt (and to stdout with -v).
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()


# ---------------------------------------------------------------- record mode (torch python)
def assigned_names(tree) -> dict[int, set[str]]:
    """0-based line -> names bound there by assignment / for / with / walrus."""
    out: dict[int, set[str]] = {}

    def bind(t):
        if isinstance(t, ast.Name):
            out.setdefault(t.lineno - 1, set()).add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                bind(e)
        elif isinstance(t, ast.Starred):
            bind(t.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                bind(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            bind(node.target)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            bind(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind(node.optional_vars)
        elif isinstance(node, ast.NamedExpr):
            bind(node.target)
    return out


def record(path: str, out_json: str) -> None:
    import importlib.util

    import torch

    # The line tracer is the one the repo's oracle test uses (tests/oracle.py).
    spec = importlib.util.spec_from_file_location("oracle", HERE.parent.parent / "tests" / "oracle.py")
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    torch.manual_seed(0)
    targets = assigned_names(ast.parse(Path(path).read_text()))
    sys.argv = [path]
    with torch.no_grad():
        seen, error_line, error_msg = oracle.run_and_record_with_error(path, targets)
    data = {"seen": [[l, n, sorted(map(list, s))] for (l, n), s in sorted(seen.items())],
            "error_line": error_line, "error_msg": error_msg}
    Path(out_json).write_text(json.dumps(data))


# ---------------------------------------------------------------- compare mode (shapesense python)
_DIMS = re.compile(r"^Tensor\[(.*)\]$")


def parse(shape: str):
    """-> tuple of dims (int or str), or None for unknown rank, or 'nontensor'."""
    m = _DIMS.match(shape.strip())
    if not m:
        return None if shape.strip() in ("?", "", "Tensor", "Unknown") else "nontensor"
    inner = m.group(1).strip()
    if inner in ("...",) or "..." in inner:
        return None
    if not inner:
        return ()
    return tuple(int(d) if re.fullmatch(r"-?\d+", d.strip()) else d.strip() for d in inner.split(","))


def compatible(ours, torch_shape) -> bool:
    return len(ours) == len(torch_shape) and all(not isinstance(a, int) or a == b for a, b in zip(ours, torch_shape))


def classify(fact, shapes):
    if fact is None:
        return "unknown", "no fact"
    ours = parse(fact.shape)
    if ours == "nontensor":
        return "wrong", f"non-tensor {fact.shape}"
    if ours is None:
        return "unknown", fact.shape
    bad = [s for s in shapes if not compatible(ours, s)]
    if bad:
        return "wrong", fact.shape
    if fact.variants:
        vs = {parse(v) for v in fact.variants}
        if vs == shapes:
            return "exact", fact.shape
        wrongv = [v for v in vs if isinstance(v, tuple) and all(isinstance(d, int) for d in v) and v not in shapes]
        if wrongv:
            return "wrong", f"extra variants (not run by torch) {list(fact.variants)}"
        return "partial", f"variants {list(fact.variants)}"
    if all(isinstance(d, int) for d in ours) and shapes == {ours}:
        return "exact", fact.shape
    return "partial", fact.shape


def torch_record(path: Path, torch_py: str, cache: Path) -> dict:
    h = hashlib.sha256(path.read_bytes() + HERE.read_bytes()).hexdigest()[:16]
    out = cache / f"{path.stem}.{h}.json"
    if not out.exists():
        subprocess.run([torch_py, str(HERE), "--record", str(path), str(out)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900, cwd=str(path.parent))
    return json.loads(out.read_text())


def analyse(path: Path):
    from shapesense.analysis.db import AnalysisHost

    host = AnalysisHost(workspace_root=str(path.parent))
    host.set_file(str(path), path.read_text())
    t0 = time.time()
    r = host.analyze(str(path))
    return r, time.time() - t0


def main(argv):
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=str(HERE.parent))
    ap.add_argument("--torch-python", default=os.environ.get("TORCH_PY", sys.executable))
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    d = Path(a.dir).resolve()
    cache = d / ".eval"
    cache.mkdir(exist_ok=True)
    files = sorted(p for p in d.glob("*.py") if p.name.startswith(("ex_", "tv_", "bug_")) and a.only in p.name)
    rows, details, report = [], [], {}
    tot = dict(executed=0, exact=0, partial=0, unknown=0, wrong=0, fp=0, bugs=0, caught=0)
    for p in files:
        rec = torch_record(p, a.torch_python, cache)
        res, secs = analyse(p)
        lines = p.read_text().splitlines()
        facts = {}
        for f in res.facts:
            if f.is_target and f.text.isidentifier():
                facts[(f.span.start[0], f.text)] = f
        counts = dict(exact=0, partial=0, unknown=0, wrong=0)
        per = []
        for line, name, shapes in rec["seen"]:
            if name == "_":
                continue  # throwaway name: the tracer sees stale values
            shapes = {tuple(s) for s in shapes}
            kind, ours = classify(facts.get((line, name)), shapes)
            counts[kind] += 1
            if kind != "exact":
                ts = " | ".join(str(list(s)) for s in sorted(shapes))
                per.append(f"  {kind:8s} L{line + 1:<4d} {name:14s} ours={ours:28s} torch={ts}    # {lines[line].strip()[:90]}")
        is_bug = p.name.startswith("bug_")
        diags = [dg for dg in res.diagnostics]
        errs = sorted({dg.span.start[0] for dg in diags if dg.severity == "error"})
        fp = [] if is_bug else diags
        caught = None
        if is_bug:
            el = rec["error_line"]
            caught = el is not None and el in errs
        elif rec["error_line"] is not None:
            per.append(f"  !! torch raised on a correct file: L{rec['error_line'] + 1} {rec['error_msg']}")
        n = sum(counts.values())
        rows.append((p.stem, n, counts, len(fp), caught, rec, errs, secs))
        for k in counts:
            tot[k] += counts[k]
        tot["executed"] += n
        tot["fp"] += len(fp)
        if is_bug:
            tot["bugs"] += 1
            tot["caught"] += bool(caught)
        head = f"== {p.name}: {n} assignments, {counts}, analysed in {secs:.1f}s"
        details.append(head)
        details.extend(per)
        for dg in diags:
            details.append(f"  diag {dg.severity} {dg.code} L{dg.span.start[0] + 1}: {dg.message[:160]}    # {lines[dg.span.start[0]].strip()[:80]}")
        if is_bug:
            details.append(f"  torch raised L{(rec['error_line'] or -1) + 1}: {(rec['error_msg'] or '')[:160]}; our error lines {[e + 1 for e in errs]}")
        report[p.stem] = dict(executed=n, **counts, false_diags=len(fp), caught=caught, torch_error_line=rec["error_line"],
                              our_error_lines=errs, seconds=round(secs, 2))
        print(f"... {p.stem} done ({secs:.1f}s)", file=sys.stderr)

    print(f"{'file':26s} {'exec':>5s} {'exact%':>7s} {'exact':>5s} {'part':>5s} {'unk':>5s} {'WRONG':>5s} {'fdiag':>5s} {'bug':>8s} {'secs':>5s}")
    for stem, n, c, fp, caught, rec, errs, secs in rows:
        pct = 100.0 * c["exact"] / n if n else 0.0
        bug = "-" if caught is None else ("caught" if caught else f"MISS@{(rec['error_line'] or -1) + 1}")
        print(f"{stem:26s} {n:5d} {pct:6.1f}% {c['exact']:5d} {c['partial']:5d} {c['unknown']:5d} {c['wrong']:5d} {fp:5d} {bug:>8s} {secs:5.1f}")
    n = tot["executed"]
    print(f"{'TOTAL':26s} {n:5d} {100.0 * tot['exact'] / max(n, 1):6.1f}% {tot['exact']:5d} {tot['partial']:5d} {tot['unknown']:5d} "
          f"{tot['wrong']:5d} {tot['fp']:5d} {tot['caught']}/{tot['bugs']}")
    (cache / "details.txt").write_text("\n".join(details) + "\n")
    print(f"details: {cache / 'details.txt'}")
    if a.v:
        print("\n".join(details))
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--record":
        record(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1:])
