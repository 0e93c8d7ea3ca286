"""`shapesense check`: the editor's engine over files on disk, for CI and scripts.

Text output is one `path:line:col: severity: message [code]` per diagnostic (1-based,
columns in characters), like compilers print. JSON output carries 0-based LSP-style
ranges (columns in code points) for diagnostics and for every shape fact, so accuracy
tools can compare the engine with real runs. `github` prints workflow annotations and
`sarif` a SARIF 2.1.0 log (server/formats.py).

Exit codes: 0 no error, 1 errors found, 2 usage or configuration error, or a file that
could not be analysed (`--exit-zero` turns 1 into 0, nothing else).
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TextIO

from shapesense.analysis import suppression
from shapesense.analysis.db import AnalysisHost, EngineSettings
from shapesense.analysis.frames import Cancelled
from shapesense.analysis.results import Diagnostic, FileAnalysis

from .config import ProjectConfig
from .formats import WRITERS
from .paths import python_files, read_text

EXIT_CLEAN, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
# One file's analysis in CI: a file that would take longer (a huge generated model, a hostile
# one) gets no diagnostics and a note, so one file cannot hold the whole check.
DEFAULT_BUDGET_MS = 60_000


@dataclass
class Report:
    analyses: list[FileAnalysis] = field(default_factory=list)  # diagnostics as shown
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, traceback)
    over_budget: list[tuple[str, int]] = field(default_factory=list)  # (path, ms spent): no diagnostics

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


def collect(paths: list[str], config: ProjectConfig | None = None) -> list[str]:
    files: list[str] = []
    for p in paths:
        for f in python_files(os.path.abspath(p)):
            if f not in files and (config is None or config.selects(f)):
                files.append(f)
    return files


def shown(text: str, diagnostics: list[Diagnostic], config: ProjectConfig, warn_unused_ignores: bool) -> list[Diagnostic]:
    """The diagnostics a user sees: ignore comments applied, then the project's
    `disable` and `severity` (which can also turn `unused-ignore` off or into an error)."""
    kept = suppression.apply(text, diagnostics, warn_unused_ignores)
    out = []
    for d in sorted(kept.kept + kept.unused, key=lambda d: d.span.start):
        severity = config.override(d.code) or d.severity
        if severity != "off":
            out.append(d if severity == d.severity else replace(d, severity=severity))
    return out


def run(paths: list[str], settings: EngineSettings | None = None, config: ProjectConfig | None = None,
        warn_unused_ignores: bool = False, budget_ms: int = DEFAULT_BUDGET_MS) -> Report:
    config = config or ProjectConfig()
    files = collect(paths, config)
    dirs = [os.path.abspath(p) for p in paths if os.path.isdir(p)]
    root = config.root or (os.path.commonpath(dirs) if dirs else os.getcwd())
    host = AnalysisHost(settings or EngineSettings(), root)
    report = Report()
    texts = {}
    for path in files:  # all texts first, so imports between them resolve
        text = read_text(path)
        if text is None:
            report.failures.append((path, "cannot read file"))
        else:
            host.set_file(path, text)
            texts[path] = text
    for path, text in texts.items():
        started = time.monotonic()
        deadline = started + budget_ms / 1000 if budget_ms else None
        try:
            analysis = host.analyze(path, cancel=(lambda: time.monotonic() > deadline) if deadline else None)
        except Cancelled:
            report.over_budget.append((path, round((time.monotonic() - started) * 1000)))
            continue
        except Exception:
            report.failures.append((path, traceback.format_exc()))
            continue
        report.analyses.append(replace(analysis, diagnostics=shown(text, analysis.diagnostics, config, warn_unused_ignores)))
    return report


def main(paths: list[str], fmt: str, unknown_ops: bool, settings: EngineSettings,
         config: ProjectConfig | None = None, warn_unused_ignores: bool = False, exit_zero: bool = False,
         out: TextIO = sys.stdout, budget_ms: int = DEFAULT_BUDGET_MS) -> int:
    report = run(paths, settings, config, warn_unused_ignores, budget_ms)
    try:
        WRITERS[fmt](report, unknown_ops, out)
        out.flush()
    except BrokenPipeError:  # `shapesense check ... | head`: the reader has what it wanted
        sys.stdout = None  # no second error when the interpreter flushes stdout at exit
    for path, error in report.failures:
        sys.stderr.write(f"shapesense: {path}: {error}\n")
    for path, spent in report.over_budget:
        sys.stderr.write(f"shapesense: {path}: analysis stopped after {spent:,} ms (over --budget-ms "
                         f"{budget_ms:,}); no diagnostics for this file\n")
    if report.failures:
        return EXIT_USAGE
    if report.errors and not exit_zero:
        return EXIT_ERRORS
    return EXIT_CLEAN
