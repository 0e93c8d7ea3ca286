#!/usr/bin/env python3
"""Build the real-world corpus from its recipe (tools/realworld_corpus.toml).

    python3 tools/realworld_corpus.py [--root DIR] [--only ID,...] [--no-mutants]

Steps, all outside the repo (DIR defaults to $SHAPESENSE_CORPUS, else ~/.cache/shapesense-corpus):
  1. pip-install the recipe's packages with `--no-deps --target DIR/site` (torchvision into
     DIR/tvsrc: its sources are read, never imported);
  2. copy each model file to DIR/corpus/nodriver/<id>.py (relative imports made absolute on
     the same line) and the same file plus our driver to DIR/corpus/driver/<id>.py;
  3. make one-edit mutants by rules on the source (wrong dim, wrong in_features / channels,
     missing flatten, wrong einops axis, wrong heads), run each under torch with the driver and
     keep those torch rejects on a line of the model file: DIR/corpus/mutants/<id>__<k>.py
     (with the driver) and DIR/corpus/mutants_nd/<id>__<k>.py (without);
  4. write DIR/corpus/manifest.json, which tools/realworld_eval.py --corpus reads.
Runs under a python with torch (the truth); the packages are importable through PYTHONPATH=DIR/site.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve()
RECIPE = HERE.parent / "realworld_corpus.toml"
MAKE_TV = HERE.parent / "realworld_make_tv.py"
DRIVER_MARK = "# ---- driver (ShapeSense real-world corpus): our small call on random input ----"
MAX_TRIES = 40      # mutant candidates (on lines the driver runs) tried under torch per model
MAX_MUTANTS = 6     # mutants kept per model


def default_root() -> Path:
    return Path(os.environ.get("SHAPESENSE_CORPUS") or Path.home() / ".cache" / "shapesense-corpus")


def load_recipe(path: Path = RECIPE) -> dict:
    return tomllib.loads(path.read_text())


# ---------------------------------------------------------------- 1. install
def requirements(recipe: dict) -> tuple[list[str], list[str]]:
    """(packages for site/, packages for tvsrc/) as pip requirement strings."""
    site = list(recipe.get("extra", []))
    tv = []
    for pkg in recipe["package"]:
        req = f"{pkg['name']}=={pkg['version']}"
        (tv if pkg.get("source") == "torchvision" else site).append(req)
    return site, tv


def pip_target(reqs: list[str], target: Path, timeout: float | None = None) -> None:
    """Install reqs into target once (a stamp file remembers the set)."""
    if not reqs:
        return
    stamp = target / ".recipe-stamp"
    key = "\n".join(sorted(reqs))
    if stamp.exists() and stamp.read_text() == key:
        return
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                    "--upgrade", "--target", str(target), *reqs], check=True, timeout=timeout)
    stamp.write_text(key)


# ---------------------------------------------------------------- 2. copy files
_REL_IMPORT = re.compile(r"^(\s*from\s+)(\.+)([\w.]*)(\s+import\b)")


def absolute_imports(src: str, module_path: str) -> str:
    """`from .x import y` -> `from pkg.sub.x import y`, on the same line (line numbers hold)."""
    package = module_path[:-3].replace("/", ".").split(".")[:-1]  # the module's package
    out = []
    for line in src.splitlines(keepends=True):
        m = _REL_IMPORT.match(line)
        if m:
            dots, rest = len(m.group(2)), m.group(3)
            base = package[: len(package) - (dots - 1)]
            target = ".".join(base + ([rest] if rest else []))
            line = m.group(1) + target + m.group(4) + line[m.end():]
        out.append(line)
    return "".join(out)


def tv_outputs(tvsrc: Path, scratch: Path) -> dict[str, Path]:
    """torchvision stem -> single-file source made by realworld_make_tv.py (its driver cut off)."""
    models = ast.literal_eval(next(n.value for n in ast.parse(MAKE_TV.read_text()).body
                                   if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "MODELS"))
    scratch.mkdir(parents=True, exist_ok=True)
    if not any(scratch.glob("tv_*.py")):
        subprocess.run([sys.executable, str(MAKE_TV), str(tvsrc), str(scratch)], check=True,
                       stdout=subprocess.DEVNULL)
    out = {}
    for stem, name, _driver, _size in models:
        out.setdefault(stem, scratch / f"{name}.py")
    return out


def shipped_source(pkg: dict, model: dict, root: Path) -> str:
    if pkg.get("source") == "torchvision":
        made = tv_outputs(root / "tvsrc", root / "tvmade")[model["module"]].read_text()
        cut = made.rfind('\nif __name__ == "__main__":')
        return made[:cut + 1] if cut >= 0 else made
    src = absolute_imports((root / "site" / model["module"]).read_text(), model["module"])
    # The file's own self-test (pytorchcv builds every variant there) must not run with the
    # driver: the guard is renamed on its line, so nothing else moves.
    return _OWN_MAIN.sub(r"\1__shipped_main__\2", src)


_OWN_MAIN = re.compile(r"^(if __name__ == ['\"])__main__(['\"]:)", re.M)


def file_name(mid: str) -> str:
    """Corpus file names never shadow a package (a file `geffnet.py` would)."""
    return f"rw_{mid}.py"


def with_driver(shipped: str, driver: str) -> tuple[str, int]:
    """The file plus the driver; also the 0-based line where the driver begins."""
    body = shipped if shipped.endswith("\n") else shipped + "\n"
    head = body + "\n\n" + DRIVER_MARK + "\n"
    start = head.count("\n")
    return head + "import torch\n" + driver.strip("\n") + "\n", start


# ---------------------------------------------------------------- 3. mutants
def _args_span(line: str, open_paren: int) -> list[tuple[int, int]]:
    """Top-level argument spans [(start, end)) of the call whose '(' is at open_paren, on one line."""
    spans, depth, start, quote = [], 0, open_paren + 1, None
    for i in range(open_paren, len(line)):
        c = line[i]
        if quote:
            if c == quote:
                quote = None
            continue
        if c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                spans.append((start, i))
                return spans
        elif c == "," and depth == 1:
            spans.append((start, i))
            start = i + 1
    return spans if spans else []  # call continues on the next line: only whole args seen


_LAYER = re.compile(r"\b(?:nn\.)?(Linear|Conv1d|Conv2d|Conv3d|LayerNorm|BatchNorm1d|BatchNorm2d|Embedding)\(")
_DIM_CALL = re.compile(r"\b(cat|stack|softmax|log_softmax|concat|flatten|unbind|split|chunk|squeeze|unsqueeze|norm|mean|sum)\(")
_DIM_KW = re.compile(r"\bdim\s*=\s*(-?\d+)")
_TRANSPOSE = re.compile(r"\.transpose\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")
_FLATTEN_FN = re.compile(r"torch\.flatten\(\s*([\w.\[\]]+)\s*,\s*1\s*\)")
_FLATTEN_M = re.compile(r"(\b[\w.\[\]]+)\.flatten\(\s*1\s*\)")
_VIEW_FLAT = re.compile(r"(\b[\w.\[\]]+)\.(view|reshape)\(\s*[\w.\[\]]+\.size\(0\)\s*,\s*-1\s*\)")
_NN_FLATTEN = re.compile(r"\bnn\.Flatten\(\s*\)")
_EINOPS = re.compile(r"\b(rearrange|repeat|reduce|Rearrange|Reduce|einsum)\(")
_PATTERN = re.compile(r"(['\"])([^'\"]*->[^'\"]*)\1")
_HEADS_KW = re.compile(r"\bh\s*=\s*([\w.]+)")


def _rename_output_axis(pattern: str) -> str | None:
    """'b n (h d) -> b h n d' -> 'b n (h d) -> b h n dx' (einops); 'ij,jk->ik' -> 'ij,jk->ia' (torch.einsum)."""
    left, right = pattern.split("->", 1)
    einops_style = " " in pattern.strip()
    names = list(re.finditer(r"[A-Za-z]\w*" if einops_style else r"[A-Za-z]", right))
    if not names:
        return None
    last = names[-1]
    if einops_style:  # named axes
        new_right = right[:last.end()] + "x" + right[last.end():]
    else:  # torch.einsum: one letter per axis
        free = next((c for c in "abcdefghijklmnopqrstuvwxyz" if c not in pattern), None)
        if free is None:
            return None
        new_right = right[:last.start()] + free + right[last.end():]
    return left + "->" + new_right


def _other_dim(d: int) -> int:
    return d - 1 if d < 0 else d + 1


def mutant_candidates(src: str, upto: int) -> list[tuple[int, str, str, str]]:
    """One-edit mutants of the lines before `upto`: (0-based line, rule, new line, description)."""
    out = []
    lines = src.splitlines()
    for i, line in enumerate(lines[:upto]):
        code = line.split("#", 1)[0]
        if not code.strip() or code.lstrip().startswith(("def ", "class ", "@", "import ", "from ")):
            continue
        for m in _LAYER.finditer(code):
            args = _args_span(line, m.end() - 1)
            if len(args) >= 1 and "=" not in line[args[0][0]:args[0][1]] and line[args[0][0]:args[0][1]].strip():
                a, b = args[0]
                new = line[:a] + f"{line[a:b].strip()} + 1" + line[b:]
                out.append((i, "in_features", new, f"{m.group(1)}: first size + 1"))
        if _DIM_CALL.search(code):
            for m in _DIM_KW.finditer(code):
                d = int(m.group(1))
                new = line[:m.start(1)] + str(_other_dim(d)) + line[m.end(1):]
                out.append((i, "dim", new, f"dim={d} -> {_other_dim(d)}"))
        for m in _TRANSPOSE.finditer(code):
            b = int(m.group(2))
            new = line[:m.start(2)] + str(_other_dim(b)) + line[m.end(2):]
            out.append((i, "transpose", new, f"transpose second dim {b} -> {_other_dim(b)}"))
        for rx in (_FLATTEN_FN, _FLATTEN_M, _VIEW_FLAT):
            for m in rx.finditer(code):
                new = line[:m.start()] + m.group(1) + line[m.end():]
                out.append((i, "flatten", new, "flatten removed"))
        for m in _NN_FLATTEN.finditer(code):
            new = line[:m.start()] + "nn.Identity()" + line[m.end():]
            out.append((i, "flatten", new, "nn.Flatten() -> nn.Identity()"))
        if _EINOPS.search(code):
            for m in _PATTERN.finditer(code):
                new_pattern = _rename_output_axis(m.group(2))
                if new_pattern:
                    new = line[:m.start(2)] + new_pattern + line[m.end(2):]
                    out.append((i, "einops_axis", new, "an output axis renamed to one the input lacks"))
            for m in _HEADS_KW.finditer(code):
                new = line[:m.start(1)] + f"{m.group(1)} + 1" + line[m.end(1):]
                out.append((i, "heads", new, f"h={m.group(1)} -> +1"))
    return out


def choose(cands: list, seed: str) -> list:
    """A deterministic order that alternates rules (so one rule does not take every slot)."""
    rng = random.Random(seed)
    by_rule: dict[str, list] = {}
    for c in cands:
        by_rule.setdefault(c[1], []).append(c)
    for v in by_rule.values():
        rng.shuffle(v)
    order, rules = [], sorted(by_rule)
    while any(by_rule.values()):
        for r in rules:
            if by_rule[r]:
                order.append(by_rule[r].pop())
    return order


_RUNNER = r'''
import json, os, runpy, signal, sys, traceback
import torch
torch.manual_seed(0)
SHAPE_ERRORS = (RuntimeError, IndexError, ValueError, AssertionError)
def alarm(*_):
    raise TimeoutError("mutant ran too long")
signal.signal(signal.SIGALRM, alarm)
out = []
for path in json.loads(sys.argv[1]):
    line, kind, msg = None, None, None
    signal.alarm(60)
    try:
        with torch.no_grad():
            runpy.run_path(path, run_name="__main__")
    except BaseException as exc:
        kind, msg = type(exc).__name__, f"{type(exc).__name__}: {exc}"[:300]
        for fs in traceback.extract_tb(exc.__traceback__):
            if fs.filename == path:
                line = fs.lineno - 1
        if not isinstance(exc, SHAPE_ERRORS) or isinstance(exc, TimeoutError):
            kind = "other:" + kind
    finally:
        signal.alarm(0)
    out.append(dict(path=path, error_line=line, kind=kind, msg=msg))
print(json.dumps(out))
'''


_COVERAGE = r'''
import json, runpy, sys
import torch
torch.manual_seed(0)
path, hit = sys.argv[1], set()
def tracer(frame, event, arg):
    if frame.f_code.co_filename != path:
        return None
    def local(frame, event, arg):
        if event == "line":
            hit.add(frame.f_lineno - 1)
        return local
    return local(frame, event, arg)
sys.settrace(tracer)
try:
    with torch.no_grad():
        runpy.run_path(path, run_name="__main__")
finally:
    sys.settrace(None)
print(json.dumps(sorted(hit)))
'''


def _env_with(site: Path) -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))


def executed_lines(path: Path, site: Path) -> set[int]:
    """0-based lines of `path` that its driver run executes (mutants elsewhere cannot raise)."""
    r = subprocess.run([sys.executable, "-c", _COVERAGE, str(path)], env=_env_with(site), capture_output=True,
                       text=True, timeout=900, cwd=str(path.parent))
    lines = [l for l in r.stdout.splitlines() if l.startswith("[")]
    if not lines:
        raise RuntimeError(f"the driver does not run: {r.stderr[-2000:]}")
    return set(json.loads(lines[-1]))


def _whole_statements(src: str, ran: set[int]) -> set[int]:
    """The tracer reports a statement's first line: count its continuation lines as run too
    (the statement spans of the repo's tracer, tests/oracle.py)."""
    spec = importlib.util.spec_from_file_location("oracle", HERE.parent.parent / "tests" / "oracle.py")
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    spans = oracle.statement_spans(src)
    out = set(ran)
    for first in ran:
        out.update(range(first, spans.get(first, first) + 1))
    return out


def run_under_torch(paths: list[Path], site: Path) -> list[dict]:
    env = _env_with(site)
    r = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps([str(p) for p in paths])], env=env,
                       capture_output=True, text=True, timeout=60 * len(paths) + 120, cwd=str(paths[0].parent))
    lines = [l for l in r.stdout.splitlines() if l.startswith("[")]
    if not lines:
        raise RuntimeError(f"torch runner failed: {r.stderr[-2000:]}")
    return json.loads(lines[-1])


def make_mutants(mid: str, shipped: str, driver: str, corpus: Path, site: Path) -> list[dict]:
    full, start = with_driver(shipped, driver)
    lines = full.splitlines(keepends=True)
    tmp = corpus / "mutants_try"
    tmp.mkdir(exist_ok=True)
    original = tmp / f"rw_{mid}__original.py"
    original.write_text(full)
    ran = _whole_statements(full, executed_lines(original, site))
    cands = choose([c for c in mutant_candidates(full, start) if c[0] in ran], mid)[:MAX_TRIES]
    if not cands:
        return []
    paths = []
    for k, (i, rule, new, desc) in enumerate(cands):
        text = "".join(lines[:i]) + new + "\n" + "".join(lines[i + 1:])
        try:
            ast.parse(text)
        except SyntaxError:
            paths.append(None)
            continue
        p = tmp / f"rw_{mid}__try{k}.py"
        p.write_text(text)
        paths.append(p)
    results = {r["path"]: r for r in run_under_torch([p for p in paths if p], site)}
    kept = []
    for (i, rule, new, desc), p in zip(cands, paths):
        r = results.get(str(p)) if p else None
        if not r or not r["kind"] or r["kind"].startswith("other:") or r["error_line"] is None:
            continue
        if r["error_line"] >= start:  # raised in our driver, not in the model's code
            continue
        if len(kept) >= MAX_MUTANTS:
            break
        name = f"rw_{mid}__{len(kept)}_{rule}"
        text = p.read_text()
        (corpus / "mutants" / f"{name}.py").write_text(text)
        (corpus / "mutants_nd" / f"{name}.py").write_text("".join(text.splitlines(keepends=True)[:start]))
        kept.append(dict(file=f"{name}.py", rule=rule, line=i, description=desc, edit=new.strip()[:160],
                         torch_error_line=r["error_line"], torch_error=r["msg"]))
    shutil.rmtree(tmp, ignore_errors=True)
    return kept


# ---------------------------------------------------------------- driver
def build(root: Path, only: set[str] | None = None, mutants: bool = True, recipe: dict | None = None) -> dict:
    recipe = recipe or load_recipe()
    site_reqs, tv_reqs = requirements(recipe)
    pip_target(site_reqs, root / "site")
    pip_target(tv_reqs, root / "tvsrc")
    for rel in recipe.get("strip", []):
        # Compiled parts of a wheel built against another torch (torchaudio's CUDA-linked
        # libraries): without them the package imports as pure Python, which it supports.
        (root / "site" / rel).unlink(missing_ok=True)
    corpus = root / "corpus"
    for sub in ("driver", "nodriver", "mutants", "mutants_nd"):
        (corpus / sub).mkdir(parents=True, exist_ok=True)
    manifest_path = corpus / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    rules_hash = hashlib.sha256(HERE.read_bytes()).hexdigest()[:12]  # the mutant rules and the runner
    for pkg in recipe["package"]:
        for model in pkg["model"]:
            mid = model["id"]
            if only and mid not in only:
                continue
            shipped = shipped_source(pkg, model, root)
            full, start = with_driver(shipped, model["driver"])
            (corpus / "driver" / file_name(mid)).write_text(full)
            (corpus / "nodriver" / file_name(mid)).write_text(shipped)
            entry = dict(id=mid, file=file_name(mid), package=pkg["name"], version=pkg["version"], author=pkg.get("author", ""),
                         module=model["module"], driver_start=start)
            old = manifest.get(mid, {})
            # Mutants are remade when this model's file (driver included) or the rules change.
            key = rules_hash + _h(full)
            made = old.get("mutants_key") == key
            entry["mutants"] = old.get("mutants", []) if made else []
            entry["mutants_key"] = old.get("mutants_key") if made else None
            if mutants and not made:
                for f in list((corpus / "mutants").glob(f"rw_{mid}__*.py")) + list((corpus / "mutants_nd").glob(f"rw_{mid}__*.py")):
                    f.unlink()
                entry["mutants"] = make_mutants(mid, shipped, model["driver"], corpus, root / "site")
                entry["mutants_key"] = key
            manifest[mid] = entry
            print(f"{mid}: {len(full.splitlines())} lines, {len(entry['mutants'])} mutants", file=sys.stderr)
            manifest_path.write_text(json.dumps(manifest, indent=1))
    return manifest


def _h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=default_root())
    ap.add_argument("--only", default="", help="comma-separated model ids")
    ap.add_argument("--no-mutants", action="store_true")
    a = ap.parse_args(argv)
    only = set(filter(None, a.only.split(","))) or None
    build(a.root.expanduser().resolve(), only, not a.no_mutants)


if __name__ == "__main__":
    main(sys.argv[1:])
