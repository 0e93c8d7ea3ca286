"""The engine's shapes and error lines agree with real PyTorch on every sample."""
import re
from pathlib import Path

import pytest

from shapesense.analysis.db import AnalysisHost

from .oracle import run_and_record
from .symbolic_oracle import check_def, dims_of, enclosing_defs, given_sizes, oracle_code

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

SAMPLES = sorted((Path(__file__).parent.parent / "samples").rglob("*.py"))
_DIMS = re.compile(r"^Tensor\[(.*)\]$")


def _parse(shape_text):
    m = _DIMS.match(shape_text)
    if not m:
        return None
    inner = m.group(1)
    if inner.strip() == "..." or inner.strip().startswith("...,"):
        return None  # Tensor[...], Tensor[..., dim]: the rank is not claimed (checked symbolically)
    return tuple(int(d) if d.strip().isdigit() else d.strip() for d in inner.split(",")) if inner else ()


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_shapes_match_torch(path, tmp_path):
    text = path.read_text()
    code = oracle_code(text)
    if code is None:
        pytest.skip("the sample says it cannot run here (# oracle: skip)")
    host = AnalysisHost()
    host.set_file(str(path), text)
    result = host.analyze(str(path))
    targets, facts = {}, {}
    for f in result.facts:
        if f.is_target and f.text.isidentifier():
            targets.setdefault(f.span.start[0], set()).add(f.text)
            facts[(f.span.start[0], f.text)] = f
    run = path
    if code:  # a sample with no example call: its `# oracle:` lines are the calls
        run = tmp_path / path.name
        run.write_text(text + "\n" + "\n".join(code) + "\n")
    seen, error_line = run_and_record(str(run), targets)
    if code:
        _check_symbolic(text, facts, seen, given_sizes(code))
    wrong, exact = [], 0
    for (line, name), shapes in seen.items():
        fact = facts[(line, name)]
        ours = _parse(fact.shape)
        if fact.shape.startswith("("):
            wrong.append(f"line {line + 1} {name}: ours a tuple {fact.shape}, torch a tensor {sorted(shapes)}")
            continue
        if ours is None:
            if fact.variants and {_parse(v) for v in fact.variants} == shapes:
                exact += 1  # one of a few ranks (Tensor[..., 16, 8]): each option shown, as torch ran them
            elif code and len(shapes) == 1 and fact.shape.startswith("Tensor[...,"):
                exact += 1  # Tensor[..., dim]: its last dims were checked symbolically above
            continue  # unknown rank: no claim made
        if code and len(shapes) == 1:
            exact += 1  # checked symbolically above
            continue
        for shape in shapes:
            same_rank = len(ours) == len(shape)
            if not same_rank or any(isinstance(a, int) and a != b for a, b in zip(ours, shape)):
                wrong.append(f"line {line + 1} {name}: ours {fact.shape}, torch {list(shape)}")
        variants = {_parse(v) for v in fact.variants} if fact.variants else {ours}
        if variants == shapes:
            exact += 1
    assert not wrong, "\n".join(wrong)
    errors = {d.span.start[0] for d in result.diagnostics if d.severity == "error"}
    if error_line is not None:
        assert error_line in errors, f"torch raised on line {error_line + 1}, we flagged {sorted(e + 1 for e in errors)}"
    # Most executed tensor assignments must get their exact concrete shape (except in a
    # sample about hovers that rightly claim less: `# exactness: open`).
    floor = 0.0 if "\n# exactness: open\n" in text else 0.9
    assert exact >= floor * len(seen) or len(seen) < 3, f"exact on {exact} of {len(seen)} lines"


def _check_symbolic(text, facts, seen, given):
    """Every symbolic fact agrees with torch under one binding of its def's symbols."""
    defs = enclosing_defs(text)
    by_def: dict = {}
    for (line, name), shapes in seen.items():
        fact = facts.get((line, name))
        if fact is None or not fact.shape.startswith("Tensor[") or fact.shape == "Tensor[...]":
            continue
        assert len(shapes) == 1, f"line {line + 1} {name}: the oracle calls gave {shapes}; call each def once"
        by_def.setdefault(defs.get(line, ""), []).append(
            (f"line {line + 1} {name} {fact.shape}", dims_of(fact.shape), next(iter(shapes))))
    problems = [p for group in by_def.values() for p in check_def(group, given)]
    assert not problems, "\n".join(problems)


def test_the_oracle_sees_a_statement_over_several_lines_after_it_assigns(tmp_path):
    # The tracer reports the continuation lines of `x = layer(\n x,\n)` before the
    # assignment: the value seen there is the old `x`, which is not what the line assigns.
    run = tmp_path / "several_lines.py"
    run.write_text("import torch\nlayers = [torch.nn.Linear(4, 8), torch.nn.Linear(8, 8)]\n"
                   "x = torch.randn(2, 4)\nfor layer in layers:\n    x = layer(\n        x,\n    )\n"
                   "y = (x +\n     1)\n")
    seen, error_line = run_and_record(str(run), {4: {"x"}, 7: {"y"}})
    assert seen == {(4, "x"): {(2, 8)}, (7, "y"): {(2, 8)}} and error_line is None
