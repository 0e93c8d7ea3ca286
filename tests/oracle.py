"""Real PyTorch as the oracle: run a sample and record the shape of every tensor assigned.

A line tracer (sys.settrace) watches the sample's own frames; after a line that assigns a
name, the next event of that frame sees the assigned value. The shapes seen per
(line, name) are compared with the engine's facts for those assignment targets.
"""
from __future__ import annotations

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

    def note(frame):
        prev = last_line.get(id(frame))
        if prev is None:
            return
        for name in targets.get(prev, ()):
            v = frame.f_locals.get(name)
            if isinstance(v, torch.Tensor):
                seen.setdefault((prev, name), set()).add(tuple(v.shape))

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != path:
            return None

        def local(frame, event, arg):
            if event in ("line", "return"):
                note(frame)
                last_line[id(frame)] = frame.f_lineno - 1 if event == "line" else None
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
