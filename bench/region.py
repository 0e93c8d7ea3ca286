"""A reference floor, not the engine: re-parse only the top-level statements an edit touches.

parso's DiffParser diffs every line (difflib) and shifts the positions of every node after
the edit, so its cost grows with the file. A pipeline that keeps one parse per top-level
statement (class/def/driver line), with spans relative to the statement, re-parses only the
statement(s) a change touches and shifts one integer per statement after it. This measures
that cost so the two floors can be compared on the same edits.

Simplification (fine for a floor estimate, not for an engine): a region whose new text
leaves a bracket or string open is not extended to the statements after it.
"""
from __future__ import annotations

import bisect


class RegionReparser:
    def __init__(self, grammar, text: str, split_lines):
        self.g = grammar
        self.split_lines = split_lines
        module = grammar.parse(text, error_recovery=True)
        self.starts = self._starts(module, 0)
        if not self.starts or self.starts[0] != 0:
            self.starts.insert(0, 0)

    @staticmethod
    def _starts(module, offset: int) -> list[int]:
        return [c.start_pos[0] - 1 + offset for c in module.children if c.type != "endmarker"]

    def update(self, new_lines: list[str], l1: int, l2_old: int, l2_new: int):
        """Re-parse the region of statements touching old lines l1..l2_old (now l1..l2_new)."""
        starts = self.starts
        i = max(0, bisect.bisect_right(starts, l1) - 1)
        j = bisect.bisect_right(starts, l2_old)  # first statement starting after the edit
        delta = l2_new - l2_old
        a = starts[i]
        b = starts[j] + delta if j < len(starts) else len(new_lines)
        module = self.g.parse("".join(new_lines[a:b]), error_recovery=True)
        inner = self._starts(module, a) or [a]
        self.starts = starts[:i] + inner + [s + delta for s in starts[j:]]
        return module
