"""`shapesense check`: the editor's engine over files on disk, for CI and scripts.

Text output is one `path:line:col: severity: message [code]` per diagnostic (1-based,
columns in characters), like compilers print. JSON output carries 0-based LSP-style
ranges (columns in code points) for diagnostics and for every shape fact, so accuracy
tools can compare the engine with real runs.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import TextIO

from shapesense.analysis.db import AnalysisHost, EngineSettings
from shapesense.analysis.results import FileAnalysis, Span

from .paths import python_files, read_text


@dataclass
class Report:
    analyses: list[FileAnalysis] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, traceback)

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for a in self.analyses for d in a.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity != "error" for a in self.analyses for d in a.diagnostics)

    def unknown_ops(self) -> Counter:
        total: Counter = Counter()
        for a in self.analyses:
            total.update(a.unknown_ops)
        return total


def collect(paths: list[str]) -> list[str]:
    files: list[str] = []
    for p in paths:
        for f in python_files(os.path.abspath(p)):
            if f not in files:
                files.append(f)
    return files


def run(paths: list[str], settings: EngineSettings | None = None) -> Report:
    files = collect(paths)
    dirs = [os.path.abspath(p) for p in paths if os.path.isdir(p)]
    root = os.path.commonpath(dirs) if dirs else os.getcwd()
    host = AnalysisHost(settings or EngineSettings(), root)
    report = Report()
    readable = []
    for path in files:  # all texts first, so imports between them resolve
        text = read_text(path)
        if text is None:
            report.failures.append((path, "cannot read file"))
        else:
            host.set_file(path, text)
            readable.append(path)
    for path in readable:
        try:
            report.analyses.append(host.analyze(path))
        except Exception:
            report.failures.append((path, traceback.format_exc()))
    return report


def _display(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _range(span: Span) -> dict:
    return {
        "start": {"line": span.start[0], "character": span.start[1]},
        "end": {"line": span.end[0], "character": span.end[1]},
    }


def to_json(report: Report, unknown_ops: bool) -> dict:
    out: dict = {"diagnostics": [], "facts": [], "errors": report.errors, "warnings": report.warnings}
    for a in report.analyses:
        path = _display(a.path)
        for d in a.diagnostics:
            out["diagnostics"].append({
                "path": path, "range": _range(d.span), "severity": d.severity, "code": d.code,
                "message": d.message,
                "related": [
                    {"path": _display(r.path) if r.path else path, "range": _range(r.span), "message": r.message}
                    for r in d.related
                ],
            })
        for f in a.facts:
            out["facts"].append({"path": path, "range": _range(f.span), "text": f.text, "shape": f.shape,
                                 "assigned": f.is_target, "variants": list(f.variants),
                                 "origin": f.origin})
    if unknown_ops:
        out["unknown_ops"] = dict(report.unknown_ops().most_common())
    if report.failures:
        out["failures"] = [{"path": _display(p), "error": e} for p, e in report.failures]
    return out


def write_text(report: Report, unknown_ops: bool, out: TextIO) -> None:
    for a in report.analyses:
        for d in sorted(a.diagnostics, key=lambda d: d.span.start):
            line, col = d.span.start
            out.write(f"{_display(a.path)}:{line + 1}:{col + 1}: {d.severity}: {d.message} [{d.code}]\n")
    for path, error in report.failures:
        out.write(f"{_display(path)}: analysis failed: {error.strip().splitlines()[-1]}\n")
    if unknown_ops:
        ops = report.unknown_ops()
        out.write(f"unmodelled APIs ({len(ops)}):\n")
        for name, count in ops.most_common():
            out.write(f"  {count:6d}  {name}\n")
    files = len(report.analyses)
    out.write(f"{report.errors} error(s), {report.warnings} warning(s) in {files} file(s)\n")


def main(paths: list[str], fmt: str, unknown_ops: bool, settings: EngineSettings, out: TextIO = sys.stdout) -> int:
    report = run(paths, settings)
    if fmt == "json":
        json.dump(to_json(report, unknown_ops), out, indent=2)
        out.write("\n")
    else:
        write_text(report, unknown_ops, out)
    for path, error in report.failures:
        sys.stderr.write(f"shapesense: {path}: {error}\n")
    if report.errors:
        return 1
    return 2 if report.failures else 0
