"""Parse trees, owned here: one parso tree per file, updated by our own DiffParser.

parso's DiffParser edits the old tree in place, so nothing outside this module keeps parso
nodes across edits (lowering copies what it needs into the IR). We never use parso's
global cache (jedi shares it). Any failure of the diff parser, or a tree that does not
cover the new text, falls back to a full parse. Trees with syntax errors are kept as the
diff parser made them: tests/test_incremental.py checks that results still equal a fresh
analysis on random edit sequences that break and mend the syntax.
"""
from __future__ import annotations

import parso
from parso.python.diff import DiffParser
from parso.utils import split_lines

_GRAMMAR = parso.load_grammar()


class SyntaxTree:
    def __init__(self):
        self.module = None
        self.lines: list[str] | None = None
        self.text: str | None = None
        self.has_errors = False

    def update(self, text: str, log: list | None = None):
        """Bring the tree to `text`; returns the parso module."""
        if text == self.text and self.module is not None:
            return self.module
        new_lines = split_lines(text, keepends=True)
        errors = None
        if self.module is not None and self.lines is not None:
            try:
                parser = DiffParser(_GRAMMAR._pgen_grammar, _GRAMMAR._tokenizer, self.module)
                self.module = parser.update(old_lines=self.lines, new_lines=new_lines)
                if self.module.end_pos != _end_pos(new_lines):
                    raise ValueError("diff parse does not cover the new text")
                errors = _has_errors(self.module)
                if log is not None:
                    log.append("diffparse")
            except Exception:  # noqa: BLE001 - any DiffParser failure: parse from scratch
                self.module = None
                errors = None
        if self.module is None:
            self.module = _GRAMMAR.parse(text, error_recovery=True)
            if log is not None:
                log.append("parse")
        self.lines = new_lines
        self.text = text
        self.has_errors = _has_errors(self.module) if errors is None else errors
        return self.module


# parso's error recovery puts error nodes among the statements of a block, so only
# statement containers need to be searched, not expressions.
_BLOCKS = {"file_input", "suite", "funcdef", "classdef", "async_funcdef", "decorated",
           "async_stmt", "if_stmt", "for_stmt", "while_stmt", "try_stmt", "with_stmt",
           "error_node"}


def _has_errors(node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        for c in n.children:
            t = c.type
            if t == "error_node" or t == "error_leaf":
                return True
            if t in _BLOCKS:
                stack.append(c)
    return False


def _end_pos(lines) -> tuple:
    """Where a parso module of these (keepends) lines ends: (last line number, its length)."""
    if not lines:
        return (1, 0)
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return (len(lines) + 1, 0)
    return (len(lines), len(last))
