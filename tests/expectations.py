"""Expectations written in sample files, and the one function that checks them.

Syntax (comments in `samples/**/*.py`):

- `# ^ Tensor[64, 6, 24, 24]` on the line below an expression: the caret's column points
  into the expression; the innermost shape fact there must print exactly like this.
  `# ^ none`: no shape is claimed there at all (a hover that would mislead is left out).
- `# error: shape-mismatch` (or `# warning: CODE`) at the end of a line: a diagnostic with
  that severity and code starts on that line. Every diagnostic must be expected this way:
  an unexpected one fails the check (no false squiggles).
- `# error: shape-mismatch; fix: Set in_features to 256`: that diagnostic also offers a
  repair with this title, and the engine confirms it (the error is gone once applied).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from shapesense.analysis.results import FileAnalysis

_CARET = re.compile(r"^(\s*)#(\s*)\^\s*(.+?)\s*$")
_DIAG = re.compile(r"#.*\b(error|warning):\s*([a-z-]+)")
_FIX = re.compile(r";\s*fix:\s*(.+?)\s*$")


@dataclass
class Expected:
    shapes: list  # (line, col, text)
    diags: set  # (line, severity, code)
    fixes: dict  # line -> repair title


def parse_expectations(text: str) -> Expected:
    lines = text.split("\n")
    shapes, diags, fixes = [], set(), {}
    for i, line in enumerate(lines):
        m = _CARET.match(line)
        if m and i > 0:
            col = line.index("^")
            shapes.append((i - 1, col, m.group(3)))
            continue
        d = _DIAG.search(line)
        if d:
            diags.add((i, d.group(1), d.group(2)))
            f = _FIX.search(line)
            if f:
                fixes[i] = f.group(1)
    return Expected(shapes, diags, fixes)


def check(text: str, result: FileAnalysis, verified_fixes=None) -> list[str]:
    """All mismatches between a sample's expectations and an analysis result.

    `verified_fixes(diagnostic)` gives the repairs the engine confirms (AnalysisHost's)."""
    expected = parse_expectations(text)
    problems = []
    for line, col, want in expected.shapes:
        fact = result.fact_at((line, col))
        got = fact.shape if fact else None
        if got != (None if want == "none" else want):
            problems.append(f"line {line + 1} col {col + 1}: expected {want}, got {got}")
    got_diags = {(d.span.start[0], d.severity, d.code): d.message for d in result.diagnostics}
    for key in sorted(expected.diags - set(got_diags)):
        problems.append(f"line {key[0] + 1}: expected {key[1]} {key[2]}, got none")
    for key in sorted(set(got_diags) - expected.diags):
        problems.append(f"line {key[0] + 1}: unexpected {key[1]} {key[2]}: {got_diags[key]}")
    for line, title in sorted(expected.fixes.items()):
        diags = [d for d in result.diagnostics if d.span.start[0] == line]
        titles = [f.title for d in diags for f in (verified_fixes(d) if verified_fixes else d.fixes)]
        if title not in titles:
            problems.append(f"line {line + 1}: expected the repair {title!r}, got {titles}")
    return problems
