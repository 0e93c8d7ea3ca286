"""Real PyTorch as the oracle: run a sample and record the shape of every tensor assigned.

A line tracer (sys.settrace) watches the sample's own frames; after a line that assigns a
name, the next event of that frame outside the assigning statement sees the assigned value
(a statement over several lines has line events for its continuation lines, and an inlined
comprehension for its own line again, before the assignment happens). The shapes seen per (line, name) are compared with the engine's facts
for those assignment targets.
"""
from __future__ import annotations

import ast
import runpy
import sys
import traceback


def run_and_record(path: str, targets: dict) -> tuple[dict, int | None]:
    """targets: {line (0-based): {names}}. Returns ({(line, name): {shape tuples}}, error line)."""
    seen, error_line, _ = run_and_record_with_error(path, targets)
    return seen, error_line


def run_and_record_with_error(path: str, targets: dict):
    """Like run_and_record, plus the text of the exception torch raised (or None)."""
    import torch

    seen: dict = {}
    last_line: dict = {}
    ends = _statement_ends(path)  # first line -> last line of each simple statement
    bodies = _loop_bodies(path)  # `for` header line -> (first, last) line of its body

    def note(frame, line):
        prev = last_line.get(id(frame))
        if prev is None:
            return
        body = bodies.get(prev)
        if body is not None and not body[0] <= line <= body[1]:
            return  # the loop ended: its target still holds the last pass's (rebound) value
        for name in targets.get(prev, ()):
            if name in frame.f_code.co_freevars:
                continue  # a comprehension's frame reading the name, not the def assigning it
            v = frame.f_locals.get(name)
            if isinstance(v, torch.Tensor):
                seen.setdefault((prev, name), set()).add(tuple(v.shape))

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != path:
            return None

        def local(frame, event, arg):
            if event in ("line", "return"):
                line = frame.f_lineno - 1
                prev = last_line.get(id(frame))
                if event == "line" and prev is not None and prev <= line <= ends.get(prev, prev):
                    return local  # the statement still runs (a continuation line, a comprehension)
                note(frame, line)
                last_line[id(frame)] = line if event == "line" else None
            return local

        return local(frame, event, arg)

    error_line, error_msg = None, None
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        runpy.run_path(path, run_name="__main__")
    except Exception as exc:  # noqa: BLE001 - a shape bug in the sample: where did torch raise?
        error_msg = f"{type(exc).__name__}: {exc}"
        for fs in traceback.extract_tb(sys.exc_info()[2]):
            if fs.filename == path:
                error_line = fs.lineno - 1
    finally:
        sys.settrace(old)
    return seen, error_line, error_msg


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
             ast.With, ast.AsyncWith, ast.Try)


def statement_spans(text: str) -> dict:
    """First line -> last line (0-based) of each simple statement of a source (the tracer
    reports a statement's first line; tools/realworld_corpus.py counts the rest as run too)."""
    out: dict = {}
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.stmt) and not isinstance(n, _COMPOUND):
            out[n.lineno - 1] = max(out.get(n.lineno - 1, 0), n.end_lineno - 1)
    return out


def _loop_bodies(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    return {n.lineno - 1: (n.body[0].lineno - 1, n.body[-1].end_lineno - 1)
            for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor))}


def _statement_ends(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return statement_spans(f.read())
    except (OSError, SyntaxError, ValueError):
        return {}
