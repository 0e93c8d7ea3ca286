"""Checking symbolic shapes against real runs.

A sample with no example call carries its runs in comments: `# oracle: CODE` lines are
appended (uncommented) when the oracle runs it, so nothing changes for the analysis, and
every line keeps its number. `# oracle: skip` says it cannot run here (and why).

A symbolic hover is confirmed when one assignment of its symbols makes every fact of the
same def equal to what torch computed: symbols standing alone as a dim are read off the
runtime shape; a symbol that only appears inside an expression (`(H - 1)//stride + 1`) is
found by trying small values; what neither binds takes the size the oracle call passes by
keyword (`DenseNet(growth_rate=4, block_config=(2, 2))` for `block_config[0]*growth_rate`).
A concrete dim must equal torch's, the rank too.
"""
from __future__ import annotations

import ast
import re

from shapesense.analysis.ide import split_top

_ORACLE = re.compile(r"^#\s*oracle:\s?(.*)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_DOTTED = re.compile(r"(?<=[A-Za-z_0-9])\.(?=[A-Za-z_])")


def oracle_code(text: str) -> list[str] | None:
    """The oracle lines of a sample ([] when it has none), or None for `# oracle: skip`."""
    out = []
    for line in text.splitlines():
        m = _ORACLE.match(line.strip())
        if m:
            if m.group(1).startswith("skip"):
                return None
            out.append(m.group(1))
    return out


def given_sizes(code: list[str]) -> dict:
    """Sizes the oracle calls pass by keyword to a class or function named plainly
    (`Net(dim=8, depths=(2, 2), width=0.5)`): name -> int, float or tuple of ints."""
    out: dict = {}
    for line in code:
        try:
            tree = ast.parse(line)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                for kw in node.keywords:
                    try:
                        value = ast.literal_eval(kw.value)
                    except ValueError:
                        continue
                    if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
                        out[kw.arg] = tuple(value)
                        # each item is a size of its own in a class nobody builds: `in_channels_1`
                        out.update({f"{kw.arg}_{i}": v for i, v in enumerate(value)})
                    elif type(value) in (int, float):  # (a float: a width multiplier)
                        out[kw.arg] = value
    return out


def enclosing_defs(text: str) -> dict:
    """0-based line -> name of the innermost def around it ("" at module level)."""
    out: dict = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for line in range(node.lineno - 1, node.end_lineno):
                prev = out.get(line)
                if prev is None or prev[0] < node.lineno:
                    out[line] = (node.lineno, f"{node.name}@{node.lineno}")
    return {k: v[1] for k, v in out.items()}


def dims_of(shape_text: str):
    return split_top(shape_text[len("Tensor["):-1])


def check_def(facts: list, given: dict | None = None) -> list[str]:
    """facts: [(description, [dim texts], runtime shape)] of one def; given: sizes the oracle
    call passed (given_sizes). Problems, if any."""
    problems, binding = [], {}
    given = given or {}
    # (a settings object's attribute, `config.n_embd`, is one symbol: `config__n_embd` here)
    facts = [(desc, [_DOTTED.sub("__", d) for d in dims], shape) for desc, dims, shape in facts]
    facts = [_last_dims(desc, dims, shape) for desc, dims, shape in facts]
    for desc, dims, shape in facts:
        if len(dims) != len(shape):
            problems.append(f"{desc}: rank {len(dims)}, torch {list(shape)}")
            continue
        for d, n in zip(dims, shape):
            if d.isdigit() and int(d) != n:
                problems.append(f"{desc}: dim {d}, torch {list(shape)}")
            elif _NAME.match(d) and d != "?":
                if binding.setdefault(d, n) != n:
                    problems.append(f"{desc}: {d} is {binding[d]} elsewhere, torch says {n}")
    pending = [(desc, d, n) for desc, dims, shape in facts if len(dims) == len(shape)
               for d, n in zip(dims, shape) if not d.isdigit() and not _NAME.match(d) and "?" not in d]
    for size in (1, 1, 2, 1, 3, 1, 2, 1):  # bind symbols that only appear inside expressions
        for desc, d, n in pending:
            free = sorted(s for s in set(_IDENT.findall(d)) if s not in binding and s != "max")
            if len(free) == size:
                # the sizes a call passes first (`in_channels_1*width` is 8 with 16 and 0.5,
                # not with 1 and 8), then small values
                passed = {s: given[s] for s in free if s in given}
                found = passed if len(passed) == len(free) and _value(d, {**binding, **passed}) == n \
                    else _search(d, n, free, binding)
                if found:
                    binding.update(found)
    for desc, d, n in pending:
        got = _value(d, binding)
        if got is None and given:  # symbols nothing else binds: the sizes the call passed
            got = _value(d, {**given, **binding})
        if got is None:
            problems.append(f"{desc}: cannot bind the symbols of {d}")
        elif got != n:
            problems.append(f"{desc}: {d} = {got} with {binding}, torch says {n}")
    return problems


def _last_dims(desc, dims, shape):
    """Tensor[..., dim] claims its last dims only, after any number of others."""
    if dims and dims[0] == "..." and len(dims) - 1 <= len(shape):
        return desc, dims[1:], tuple(shape)[len(shape) - len(dims) + 1:]
    return desc, dims, shape


def _search(expr, n, free, binding):
    """Values of up to three free symbols (small ones first) that make expr equal n."""
    import itertools

    top = {1: 512, 2: 128, 3: 48}[len(free)]
    for values in itertools.product(range(1, top + 1), repeat=len(free)):
        trial = dict(zip(free, values))
        if _value(expr, {**binding, **trial}) == n:
            return trial
    return None


def _value(expr: str, binding: dict):
    try:
        return eval(expr, {"__builtins__": {}, "max": max}, dict(binding))  # noqa: S307 - our own dim texts
    except Exception:  # noqa: BLE001 - an unbound symbol
        return None
