#!/usr/bin/env python3
"""Real-world accuracy evaluation of ShapeSense against PyTorch.

    python3 eval.py [DIR] [--torch-python PY] [-v] [--only SUBSTR] [--json OUT]
    python3 eval.py --corpus [ROOT] [--only SUBSTR] [--report OUT.md] [--no-mutants] [--no-sizes]

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

Corpus mode also runs each mutant under torch with up to two other input sizes of the same
rank that the correct file accepts (see other_sizes), to split the no-driver mutant figures
by whether the injected bug fails for every input size (those a static check must flag).
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


def run_all(out_json: str, paths: list[str]) -> None:
    """Run each file (torch python); record whether it raised, and what."""
    import runpy

    import torch

    results = {}
    for path in paths:
        torch.manual_seed(0)
        sys.argv = [path]
        try:
            with torch.no_grad():
                runpy.run_path(path, run_name="__main__")
            results[path] = None
        except Exception as exc:  # noqa: BLE001 - whether it raises is what is measured
            results[path] = f"{type(exc).__name__}: {exc}"[:300]
        except SystemExit:
            results[path] = None
    Path(out_json).write_text(json.dumps(results))


# ---------------------------------------------------------------- input sizes (does a bug fail for every size?)
# A mutant "fails for every input size" when torch raises on it with the driver's input and
# with other input sizes of the same rank that the correct file runs with: the bugs a static
# check must flag (the others fail only for some sizes). The other sizes move the int
# literals giving the driver's input shapes (`x = torch.randn(2, 3, 64, 64)`) up or down;
# a literal the model fixes (3 channels, a sequence length it was built for) is left alone.
_SIZE_CALLS = {"randn", "rand", "zeros", "ones", "empty", "randint"}
SIZES_VERSION = "1"  # part of the cache key of size runs: bump when the scheme changes


def size_slots(src: str, start: int) -> list[tuple[int, int, int, int]]:
    """(0-based line, column, end column, value) of each int literal giving the size of an
    input the driver makes (`x = torch.randn(1, 3, 224, 224)`, `torch.randint(0, 100, (2, 64))`),
    in source order."""
    out = []
    for node in ast.walk(ast.parse(src)):
        if not (isinstance(node, ast.Assign) and node.lineno - 1 >= start and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        f = call.func
        if not (isinstance(f, ast.Attribute) and f.attr in _SIZE_CALLS and isinstance(f.value, ast.Name)
                and f.value.id == "torch"):
            continue
        args = call.args[2:3] if f.attr == "randint" else call.args
        args = list(args) + [k.value for k in call.keywords if k.arg == "size"]
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = args[0].elts
        for a in args:
            if isinstance(a, ast.Constant) and type(a.value) is int and a.lineno == a.end_lineno:
                out.append((a.lineno - 1, a.col_offset, a.end_col_offset, a.value))
    return sorted(out)


def with_sizes(src: str, slots, values) -> str:
    lines = src.splitlines(keepends=True)
    for (line, col, end, _), v in sorted(zip(slots, values), reverse=True):
        lines[line] = lines[line][:col] + str(v) + lines[line][end:]
    return "".join(lines)


def _moved(v: int, direction: str) -> int:
    return v + max(1, v // 2) if direction == "up" else max(1, v // 2)


def run_sizes(sources: dict, torch_py: str, cache: Path, env: dict, cwd: Path) -> dict:
    """{name: source} -> {name: error text or None}, each run under torch (cached)."""
    out, todo = {}, {}
    for name, src in sources.items():
        h = hashlib.sha256((SIZES_VERSION + src).encode()).hexdigest()[:20]
        hit = cache / f"size.{h}.json"
        if hit.exists():
            out[name] = json.loads(hit.read_text())["error"]
        else:
            todo[name] = (h, hit, src)
    if todo:
        import tempfile

        # A directory of its own: two evals at once must not run or delete each other's files.
        with tempfile.TemporaryDirectory(dir=cache, prefix="sizes.") as work:
            paths: dict = {}  # one file per distinct source
            for name, (h, _, src) in todo.items():
                p = Path(work) / f"v{h}.py"
                p.write_text(src)
                paths.setdefault(str(p), []).append(name)
            got = Path(work) / "run.json"
            try:
                subprocess.run([torch_py, str(HERE), "--run-all", str(got), *paths], check=True, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800, cwd=str(cwd))
                results = json.loads(got.read_text())
            except (subprocess.SubprocessError, OSError, ValueError):
                results = {}  # none of them known: their callers count them as undetermined
        for p, names in paths.items():
            if p in results:
                for name in names:
                    out[name] = results[p]
                todo[names[0]][1].write_text(json.dumps({"error": results[p]}))
    return out


def other_sizes(drv: Path, start: int, torch_py: str, cache: Path, env: dict) -> list[list[int]]:
    """Up to two other input sizes (values for size_slots) of the same rank the correct file
    runs with: per direction (up, down), every literal moved, else every group of equal
    literals (a batch size two inputs share moves together) the file accepts moved alone
    and all such groups together. Both directions share each torch run (one per phase)."""
    src = drv.read_text()
    slots = size_slots(src, start)
    base = [v for *_, v in slots]

    def moved(direction, keep=lambda v: True):
        return [_moved(v, direction) if keep(v) else v for v in base]

    def run(variants: dict) -> dict:
        return run_sizes({k: with_sizes(src, slots, v) for k, v in variants.items()}, torch_py, cache, env,
                         drv.parent)

    directions = [d for d in ("up", "down") if slots and moved(d) != base]
    every = {d: moved(d) for d in directions}
    ran = run(every)
    found = {d: every[d] for d in directions if d in ran and ran[d] is None}
    groups = {d: sorted({v for v in base if _moved(v, d) != v}) for d in directions if d not in found}
    trials = {(d, g): moved(d, lambda v, g=g: v == g) for d, gs in groups.items() for g in gs}
    ran = run(trials)
    free = {d: [g for g in gs if ran.get((d, g), "?") is None] for d, gs in groups.items()}
    joints = {d: moved(d, lambda v, f=tuple(f): v in f) for d, f in free.items() if len(f) > 1}
    ran = run(joints)
    for d, f in free.items():
        if len(f) == 1 or (f and ran.get(d, "?") is None):
            found[d] = moved(d, lambda v, f=tuple(f): v in f)
        elif f:
            found[d] = trials[(d, f[0])]
    return [found[d] for d in directions if d in found]


def fails_for_every_size(mutants: list[Path], start: int, sizes: list, torch_py: str, cache: Path,
                         env: dict) -> dict:
    """{mutant file name: True when torch raises on it with each of the other sizes too (it
    raised with the driver's own), False when one runs, None when there is nothing to try}."""
    out: dict = {m.name: None for m in mutants}
    if not sizes or not mutants:
        return out
    sources = {}
    for m in mutants:
        src = m.read_text()
        slots = size_slots(src, start)
        if len(slots) == len(sizes[0]):
            sources.update({(m.name, i): with_sizes(src, slots, v) for i, v in enumerate(sizes)})
    runs = run_sizes(sources, torch_py, cache, env, mutants[0].parent)
    for m in mutants:
        got = [runs.get((m.name, i), "?") for i in range(len(sizes))]
        if (m.name, 0) in sources and "?" not in got:
            out[m.name] = all(err is not None for err in got)
    return out


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
    return tuple(int(d) if re.fullmatch(r"-?\d+", d.strip()) else d.strip() for d in split_dims(inner))


def split_dims(inner: str) -> list[str]:
    """Top-level commas only: `N, max(a, b), 3` has three dims."""
    out, depth, cur = [], 0, ""
    for c in inner:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    return out + [cur]


def open_rank_tail(shape: str):
    """`Tensor[..., a, 2]` -> ("a", 2): the last dims a hover of open rank claims, else None."""
    m = _DIMS.match(shape.strip())
    if not m:
        return None
    dims = [d.strip() for d in split_dims(m.group(1))]
    if len(dims) < 2 or dims[0] != "..." or "..." in dims[1:]:
        return None
    return tuple(int(d) if re.fullmatch(r"-?\d+", d) else d for d in dims[1:])


def tail_contradicts(shape: str, shapes) -> bool:
    """An open-rank hover counts as unknown, but its last dims must still hold: wrong if a
    concrete one differs from the runtime's (or the runtime rank is too small for them)."""
    tail = open_rank_tail(shape)
    return tail is not None and any(len(s) < len(tail) or not compatible(tail, tuple(s)[len(s) - len(tail):])
                                    for s in shapes)


def compatible(ours, torch_shape) -> bool:
    return len(ours) == len(torch_shape) and all(not isinstance(a, int) or a == b for a, b in zip(ours, torch_shape))


def classify(fact, shapes):
    if fact is None:
        return "unknown", "no fact"
    ours = parse(fact.shape)
    if ours == "nontensor":
        return "wrong", f"non-tensor {fact.shape}"
    if ours is None:
        if tail_contradicts(fact.shape, shapes):
            return "wrong", fact.shape
        if fact.variants and {parse(v) for v in fact.variants} == shapes:
            return "exact", fact.shape  # one of a few ranks, each option listed as torch ran it
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


def torch_record(path: Path, torch_py: str, cache: Path, env: dict | None = None) -> dict:
    tracer = HERE.parent.parent / "tests" / "oracle.py"  # (a change to the tracer records anew)
    h = hashlib.sha256(path.read_bytes() + HERE.read_bytes() + tracer.read_bytes()).hexdigest()[:16]
    out = cache / f"{path.stem}.{h}.json"
    if not out.exists():
        subprocess.run([torch_py, str(HERE), "--record", str(path), str(out)], check=True, env=env,
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



# ---------------------------------------------------------------- corpus mode (realworld_corpus.py)
ANALYSIS_TIMEOUT = 300  # seconds per analysed file; past it the file counts as all-unknown


def classify_nodriver(fact, shapes):
    """No-driver mode: consistent when the hover's rank equals the runtime's and every concrete
    dim it shows equals the runtime's (symbols are fine); wrong when either differs."""
    if fact is None:
        return "unknown", "no fact"
    ours = parse(fact.shape)
    if ours == "nontensor":
        return "wrong", f"non-tensor {fact.shape}"
    if ours is None:
        return ("wrong" if tail_contradicts(fact.shape, shapes) else "unknown"), fact.shape
    if any(not compatible(ours, s) for s in shapes):
        return "wrong", fact.shape
    return "consistent", fact.shape


class _Timeout(Exception):
    pass


def analyse_bounded(path: Path):
    """(FileAnalysis or None, seconds, error text)."""
    import signal

    def alarm(*_):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(ANALYSIS_TIMEOUT)
    t0 = time.time()
    try:
        res, secs = analyse(path)
        return res, secs, ""
    except _Timeout:
        return None, time.time() - t0, f"timeout after {ANALYSIS_TIMEOUT}s"
    except Exception as exc:  # noqa: BLE001 - an engine crash is a finding, not the end of the run
        return None, time.time() - t0, f"engine raised {type(exc).__name__}: {exc}"[:300]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def target_facts(res) -> dict:
    facts = {}
    if res is not None:
        for f in res.facts:
            if f.is_target and f.text.isidentifier():
                facts[(f.span.start[0], f.text)] = f
    return facts


def _shape_text(shapes) -> str:
    return " | ".join("[" + ", ".join(map(str, s)) + "]" for s in sorted(shapes))


def _with_site(root: Path) -> dict:
    site = str(root / "site")
    env = dict(os.environ)
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if site not in parts:
        env["PYTHONPATH"] = os.pathsep.join([site] + parts)
    return env


def corpus_main(argv):
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", nargs="?", const="", default="")
    ap.add_argument("--only", default="", help="comma-separated substrings of model ids")
    ap.add_argument("--report", default="", help="markdown report (default ROOT/corpus/report.md)")
    ap.add_argument("--details", default="", help="details file (default ROOT/corpus/details.md)")
    ap.add_argument("--unknown", default="", help="every unknown or partial line (default ROOT/corpus/unknown.txt)")
    ap.add_argument("--json", default="")
    ap.add_argument("--no-mutants", action="store_true")
    ap.add_argument("--no-sizes", action="store_true", help="skip running mutants with other input sizes")
    ap.add_argument("--lsp-check", default="", help="comma-separated model ids: hover them over LSP and compare")
    a = ap.parse_args(argv)
    root = Path(a.corpus or os.environ.get("SHAPESENSE_CORPUS") or Path.home() / ".cache" / "shapesense-corpus").expanduser().resolve()
    env = _with_site(root)
    # The analysed files import the corpus packages: the engine finds them through the
    # sys.path of the interpreter that runs it, so this process must have site/ on it too.
    if os.environ.get("PYTHONPATH") != env["PYTHONPATH"]:
        os.execve(sys.executable, [sys.executable, str(HERE), *argv], env)
    corpus = root / "corpus"
    manifest = json.loads((corpus / "manifest.json").read_text())
    if a.lsp_check:
        paths = [corpus / mode / manifest[m]["file"] for m in a.lsp_check.split(",") for mode in ("driver", "nodriver")]
        agree, total, diffs = lsp_spot_check(paths, env)
        print("\n".join(diffs))
        print(f"LSP hover == AnalysisHost fact on {agree}/{total} assignment targets of {len(paths)} files")
        sys.exit(0 if agree == total else 1)
    cache = corpus / ".eval"
    cache.mkdir(exist_ok=True)
    only = [o for o in a.only.split(",") if o]
    ids = [m for m in manifest if not only or any(o in m for o in only)]
    results = {}
    wrong_lines, fdiag_lines, missed_lines, unknown_lines, notes = [], [], [], [], []
    missed_every: list = []  # no-driver mutants failing for every input size, not flagged
    for mid in ids:
        entry = manifest[mid]
        fname = entry.get("file", f"{mid}.py")
        drv, nod = corpus / "driver" / fname, corpus / "nodriver" / fname
        rec = torch_record(drv, sys.executable, cache, env)
        src = drv.read_text().splitlines()
        start = entry["driver_start"]
        r = dict(id=mid, package=entry["package"], lines=len(src[:start]))
        if rec["error_line"] is not None:
            notes.append(f"{mid}: torch raised on the correct file at L{rec['error_line'] + 1}: {rec['error_msg']}")
        seen = [(l, n, {tuple(x) for x in sh}) for l, n, sh in rec["seen"] if n != "_"]
        for mode, path in (("driver", drv), ("nodriver", nod)):
            res, secs, err = analyse_bounded(path)
            if err:
                notes.append(f"{mid} ({mode}): {err}")
            facts = target_facts(res)
            counts: dict[str, int] = {}
            single = dict(n=0, exact=0)
            for line, name, shapes in seen:
                if mode == "nodriver" and line >= start:
                    continue  # the driver's own lines do not exist there
                fact = facts.get((line, name))
                kind, ours = classify(fact, shapes) if mode == "driver" else classify_nodriver(fact, shapes)
                counts[kind] = counts.get(kind, 0) + 1
                if len(shapes) == 1:  # the issues' figures are over single-shape lines
                    single["n"] += 1
                    single["exact"] += kind in ("exact", "consistent")
                where = f"{fname}:{line + 1}"
                row = f"{where} `{name}` ours `{ours}` torch `{_shape_text(shapes)}`  — `{src[line].strip()[:100]}`"
                if kind == "wrong":
                    wrong_lines.append(f"- [{mode}] {row}")
                elif kind in ("unknown", "partial"):
                    unknown_lines.append(f"[{mode}] {kind} {mid}:{line + 1} {name} ({ours}) torch={_shape_text(shapes)}    # {src[line].strip()[:110]}")
            diags = list(res.diagnostics) if res is not None else []
            for dg in diags:
                l0 = dg.span.start[0]
                fdiag_lines.append(f"- [{mode}] {fname}:{l0 + 1} {dg.severity} {dg.code}: {dg.message[:200]}  — `{src[l0].strip()[:100] if l0 < len(src) else ''}`")
            r[mode] = dict(counts=counts, single=single, diags=len(diags), seconds=round(secs, 2), error=err)
        every: dict = {}  # mutant file -> fails for every input size (None: undetermined)
        if not a.no_mutants and not a.no_sizes and entry.get("mutants"):
            sizes = other_sizes(drv, start, sys.executable, cache, env)
            every = fails_for_every_size([corpus / "mutants" / mu["file"] for mu in entry["mutants"]],
                                         start, sizes, sys.executable, cache, env)
            r["other_sizes"] = sizes
        for mode, sub in (("driver", "mutants"), ("nodriver", "mutants_nd")):
            caught = total = warned = 0
            split = {"every": [0, 0], "some": [0, 0], "undetermined": 0}  # [flagged, total]
            if not a.no_mutants:
                for mu in entry.get("mutants", []):
                    total += 1
                    res, secs, err = analyse_bounded(corpus / sub / mu["file"])
                    errs = sorted({dg.span.start[0] for dg in (res.diagnostics if res else []) if dg.severity == "error"})
                    ok = mu["torch_error_line"] in errs
                    caught += ok
                    # a warning there instead (it fails for some hyperparameters: the defaults)
                    warned += not ok and any(dg.span.start[0] == mu["torch_error_line"] and dg.severity == "warning"
                                             for dg in (res.diagnostics if res else []))
                    kind = {True: "every", False: "some"}.get(every.get(mu["file"]))
                    if kind is None:
                        split["undetermined"] += 1
                    else:
                        split[kind][0] += ok
                        split[kind][1] += 1
                    if kind == "every" and not ok and mode == "nodriver":
                        missed_every.append(f"- {mu['file']}:{mu['torch_error_line'] + 1} ({mu['description']}) "
                                            f"torch: {mu['torch_error'][:160]}; our error lines {[e + 1 for e in errs]}")
                    by_rule = r.setdefault("rules", {}).setdefault(mu["rule"], {"driver": 0, "nodriver": 0, "total": 0})
                    by_rule[mode] += ok
                    by_rule["total"] += mode == "driver"
                    if not ok:
                        el = mu["torch_error_line"]
                        missed_lines.append(f"- [{mode}] {mu['file']}:{el + 1} ({mu['description']}; edit at L{mu['line'] + 1}: `{mu['edit'][:90]}`) torch: {mu['torch_error'][:160]}; our error lines {[e + 1 for e in errs]}{' ' + err if err else ''}")
            r[mode]["mutants"] = (caught, total)
            r[mode]["mutants_warned"] = warned
            r[mode]["mutants_by_size"] = split
        results[mid] = r
        print(f"... {mid}: driver {r['driver']['counts']} nodriver {r['nodriver']['counts']} "
              f"mutants {r['driver']['mutants']} / {r['nodriver']['mutants']} "
              f"(no driver, every size: {_every_text(*_every_size([r]))})", file=sys.stderr)
    report = corpus_report(results, manifest, notes)
    out_report = Path(a.report) if a.report else corpus / "report.md"
    out_details = Path(a.details) if a.details else corpus / "details.md"
    out_report.write_text(report)
    details = ["# Real-world corpus: details", "", "## Wrong hovers", *(sorted(wrong_lines) or ["(none)"]), "",
               "## Diagnostics on correct files", *(fdiag_lines or ["(none)"]), "",
               "## Mutants not flagged on the raising line", *(missed_lines or ["(none)"]), "",
               "## No driver: mutants failing for every input size, not flagged", *(missed_every or ["(none)"]), "",
               "## Notes", *([f"- {n}" for n in notes] or ["(none)"]), ""]
    out_details.write_text("\n".join(details))
    out_unknown = Path(a.unknown) if a.unknown else corpus / "unknown.txt"
    out_unknown.write_text("\n".join(unknown_lines) + "\n")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    print(report)
    print(f"report: {out_report}\ndetails: {out_details}\nunknown lines: {out_unknown}")


def _every_size(rs) -> tuple[int, int, int]:
    """(flagged, total) of the no-driver mutants that fail for every input size, and how
    many mutants could not be run with another size (undetermined)."""
    splits = [r["nodriver"].get("mutants_by_size") or {"every": [0, 0], "undetermined": 0} for r in rs]
    return (sum(sp["every"][0] for sp in splits), sum(sp["every"][1] for sp in splits),
            sum(sp["undetermined"] for sp in splits))


def _every_text(flagged, total, undetermined) -> str:
    return f"{flagged}/{total}" + (f" (+{undetermined} undetermined)" if undetermined else "")


def _pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def corpus_report(results: dict, manifest: dict, notes: list) -> str:
    by_pkg: dict[str, list] = {}
    for mid, r in results.items():
        by_pkg.setdefault(r["package"], []).append(r)
    head = ("| package | files | tensor lines | exact | partial | unknown | WRONG | exact (single-shape) "
            "| no-driver consistent | no-driver consistent (single-shape) | no-driver WRONG | no-driver unknown | diags (drv/no-drv) "
            "| mutants flagged (drv) | mutants flagged (no-drv) | no-drv flagged, fails for every size |")
    rows = [head, "|" + "---|" * 16]
    tot = {}

    def add(key, v):
        tot[key] = tot.get(key, 0) + v

    for pkg, rs in by_pkg.items():
        d = {k: sum(r["driver"]["counts"].get(k, 0) for r in rs) for k in ("exact", "partial", "unknown", "wrong")}
        nd = {k: sum(r["nodriver"]["counts"].get(k, 0) for r in rs) for k in ("consistent", "unknown", "wrong")}
        n, nn = sum(d.values()), sum(nd.values())
        sn = sum(r["driver"]["single"]["n"] for r in rs)
        se = sum(r["driver"]["single"]["exact"] for r in rs)
        nsn = sum(r["nodriver"]["single"]["n"] for r in rs)
        nse = sum(r["nodriver"]["single"]["exact"] for r in rs)
        dg, ndg = sum(r["driver"]["diags"] for r in rs), sum(r["nodriver"]["diags"] for r in rs)
        mc, mt = sum(r["driver"]["mutants"][0] for r in rs), sum(r["driver"]["mutants"][1] for r in rs)
        nc, nt = sum(r["nodriver"]["mutants"][0] for r in rs), sum(r["nodriver"]["mutants"][1] for r in rs)
        ec, et, eu = _every_size(rs)
        for k, v in (("n", n), ("nn", nn), ("sn", sn), ("se", se), ("nsn", nsn), ("nse", nse), ("dg", dg), ("ndg", ndg), ("mc", mc), ("mt", mt), ("nc", nc), ("nt", nt),
                     ("ec", ec), ("et", et), ("eu", eu)):
            add(k, v)
        for k, v in d.items():
            add("d_" + k, v)
        for k, v in nd.items():
            add("nd_" + k, v)
        rows.append(f"| {pkg} | {len(rs)} | {n} | {d['exact']} ({_pct(d['exact'], n)}) | {d['partial']} | {d['unknown']} | {d['wrong']} "
                    f"| {_pct(se, sn)} of {sn} | {nd['consistent']} ({_pct(nd['consistent'], nn)}) | {_pct(nse, nsn)} of {nsn} | {nd['wrong']} | {nd['unknown']} "
                    f"| {dg} / {ndg} | {mc}/{mt} | {nc}/{nt} | {_every_text(ec, et, eu)} |")
    t = tot
    rows.append(f"| **total** | {len(results)} | {t.get('n', 0)} | {t.get('d_exact', 0)} ({_pct(t.get('d_exact', 0), t.get('n', 0))}) "
                f"| {t.get('d_partial', 0)} | {t.get('d_unknown', 0)} | {t.get('d_wrong', 0)} | {_pct(t.get('se', 0), t.get('sn', 0))} of {t.get('sn', 0)} "
                f"| {t.get('nd_consistent', 0)} ({_pct(t.get('nd_consistent', 0), t.get('nn', 0))}) | {_pct(t.get('nse', 0), t.get('nsn', 0))} of {t.get('nsn', 0)} | {t.get('nd_wrong', 0)} | {t.get('nd_unknown', 0)} "
                f"| {t.get('dg', 0)} / {t.get('ndg', 0)} | {t.get('mc', 0)}/{t.get('mt', 0)} ({_pct(t.get('mc', 0), t.get('mt', 0))}) "
                f"| {t.get('nc', 0)}/{t.get('nt', 0)} ({_pct(t.get('nc', 0), t.get('nt', 0))}) "
                f"| {_every_text(t.get('ec', 0), t.get('et', 0), t.get('eu', 0))} ({_pct(t.get('ec', 0), t.get('et', 0))}) |")
    files = ["", "| file | package | lines | exact | partial | unknown | WRONG | nd consistent | nd WRONG | nd unknown | diags | mutants drv | mutants nd | mutants nd, every size | secs drv / nd |",
             "|" + "---|" * 15]
    for mid, r in results.items():
        c, nc = r["driver"]["counts"], r["nodriver"]["counts"]
        files.append(f"| {mid} | {r['package']} | {r['lines']} | {c.get('exact', 0)} | {c.get('partial', 0)} | {c.get('unknown', 0)} | {c.get('wrong', 0)} "
                     f"| {nc.get('consistent', 0)} | {nc.get('wrong', 0)} | {nc.get('unknown', 0)} | {r['driver']['diags']} / {r['nodriver']['diags']} "
                     f"| {r['driver']['mutants'][0]}/{r['driver']['mutants'][1]} | {r['nodriver']['mutants'][0]}/{r['nodriver']['mutants'][1]} "
                     f"| {_every_text(*_every_size([r]))} "
                     f"| {r['driver']['seconds']} / {r['nodriver']['seconds']}{' ' + r['driver']['error'] if r['driver']['error'] else ''} |")
    rules: dict = {}
    for r in results.values():
        for rule, c in r.get("rules", {}).items():
            t = rules.setdefault(rule, {"driver": 0, "nodriver": 0, "total": 0})
            for k in t:
                t[k] += c[k]
    warned = {m: sum(r[m].get("mutants_warned", 0) for r in results.values()) for m in ("driver", "nodriver")}
    rows += ["", f"Mutants not counted above (only errors are) that get a warning on the raising line: "
                 f"{warned['driver']} with the driver, {warned['nodriver']} with no driver (failing as built "
                 f"with the defaults, or for some input sizes)."]
    if rules:
        rows += ["", "Mutants by rule (flagged on the raising line):", "",
                 "| rule | mutants | flagged (driver) | flagged (no driver) |", "|---|---|---|---|"]
        rows += [f"| {rule} | {c['total']} | {c['driver']} | {c['nodriver']} |" for rule, c in sorted(rules.items())]
    return "\n".join([f"Engine: {_engine_version()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
                      "## Per package", "", *rows, "", "## Per file", *files, ""]) + "\n"


def _engine_version() -> str:
    """The commit the engine was at, and whether its tree had uncommitted edits."""
    try:
        root = HERE.parent.parent
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "analysis", "server"], cwd=root,
                               capture_output=True, text=True).stdout.strip()
        return f"main {rev}" + (" + uncommitted edits in analysis/ or server/" if dirty else "")
    except OSError:
        return "unknown"



# ---------------------------------------------------------------- LSP spot-check
class _LspClient:
    """The smallest LSP client that can hover: JSON-RPC over a real `shapesense serve --stdio`."""

    def __init__(self, env: dict, cwd: str):
        import threading

        self.proc = subprocess.Popen([sys.executable, "-m", "shapesense", "serve", "--stdio"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.next_id = 0
        self.responses: dict = {}
        self.diagnostics: dict = {}
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(out.read(length))
            if "id" in msg and "method" in msg:  # a request from the server: answer it plainly
                self._send({"jsonrpc": "2.0", "id": msg["id"],
                            "result": [None] * len(msg.get("params", {}).get("items", [])) if msg["method"] == "workspace/configuration" else None})
                continue
            with self.cv:
                if "id" in msg:
                    self.responses[msg["id"]] = msg
                elif msg.get("method") == "textDocument/publishDiagnostics":
                    self.diagnostics[msg["params"]["uri"]] = msg["params"]["diagnostics"]
                self.cv.notify_all()

    def request(self, method: str, params: dict, timeout: float = 300):
        self.next_id += 1
        rid = self.next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.cv:
            self.cv.wait_for(lambda: rid in self.responses, timeout)
            return self.responses.pop(rid, {}).get("result")

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri: str, timeout: float = 300) -> list:
        with self.cv:
            self.cv.wait_for(lambda: uri in self.diagnostics, timeout)
            return self.diagnostics.get(uri, [])

    def close(self) -> None:
        try:
            self.request("shutdown", {}, timeout=10)
            self.notify("exit", {})
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - a server that will not stop is killed
            self.proc.kill()


def target_columns(src: str) -> dict:
    """(0-based line, name) -> column of the assignment target."""
    cols = {}

    def bind(t):
        if isinstance(t, ast.Name):
            cols.setdefault((t.lineno - 1, t.id), t.col_offset)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                bind(e)
        elif isinstance(t, ast.Starred):
            bind(t.value)

    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                bind(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
            bind(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind(node.optional_vars)
    return cols


def hover_first_line(result) -> str | None:
    """The shape on the hover's first fenced code line, `NAME: Tensor[...]` -> `Tensor[...]`."""
    if not result:
        return None
    contents = result.get("contents")
    text = contents.get("value", "") if isinstance(contents, dict) else str(contents)
    m = re.search(r"```[a-z]*\n([^\n]*)\n", text)
    line = m.group(1) if m else text.splitlines()[0] if text else ""
    return line.split(": ", 1)[1].strip() if ": " in line else None


def lsp_spot_check(paths: list[Path], env: dict) -> tuple[int, int, list[str]]:
    """Hover every assignment target of each file over LSP and compare with AnalysisHost's facts:
    (agreeing, total, disagreements)."""
    agree = total = 0
    diffs = []
    for path in paths:
        src = path.read_text()
        res, _, _ = analyse_bounded(path)
        facts = target_facts(res)
        client = _LspClient(env, str(path.parent))
        try:
            client.request("initialize", {"processId": os.getpid(), "rootUri": path.parent.as_uri(),
                                          "capabilities": {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}})
            client.notify("initialized", {})
            uri = path.as_uri()
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": src}})
            client.wait_diagnostics(uri)
            for (line, name), col in sorted(target_columns(src).items()):
                ours = facts.get((line, name))
                got = hover_first_line(client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                                              "position": {"line": line, "character": col}}))
                want = ours.shape if ours else None
                total += 1
                if got == want or (parse(got or "?") is None and parse(want or "?") is None):  # both unknown
                    agree += 1
                else:
                    diffs.append(f"{path.name}:{line + 1} {name}: LSP {got!r} vs AnalysisHost {want!r}")
        finally:
            client.close()
    return agree, total, diffs


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--record":
        record(sys.argv[2], sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "--run-all":
        run_all(sys.argv[2], sys.argv[3:])
    elif "--corpus" in sys.argv[1:]:
        corpus_main(sys.argv[1:])
    else:
        main(sys.argv[1:])
