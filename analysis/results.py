"""Plain result objects handed to the server and the CLI.

Positions are 0-based (line, column) with columns counted in Python `str` indices (code
points) over lines split by LSP's rules (`\\n`, `\\r\\n`, `\\r`). The server converts columns
to the negotiated position encoding.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, NamedTuple

Position = tuple[int, int]


# Spans and facts are named tuples: a 3,000-line file has thousands of them, remade whenever
# the lines above them move, and a tuple is several times cheaper to build than a frozen
# dataclass.
class Span(NamedTuple):
    start: Position
    end: Position

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end


class ShapeFact(NamedTuple):
    """The shape of one tensor-valued expression (or name) in the source."""

    span: Span
    text: str  # what the user typed there, e.g. "x" or "self.conv1(x)"
    shape: str  # "Tensor[B, 16, 14, 14]", "(Tensor[2], Tensor[3])", "Tensor[...]"
    origin: str = ""  # where the shape came from, one line of plain text
    is_target: bool = False  # an assignment target (gets an inlay hint)
    variants: tuple[str, ...] = ()  # distinct shapes seen over several call contexts
    # Lines about a symbolic shape: "with the defaults: Tensor[N, 1024]", an assumed batch dim.
    notes: tuple[str, ...] = ()
    # Per variant, the contexts it comes from ("se_resnet50()", "no caller"), "" if unknown.
    variant_sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Related:
    span: Span
    message: str
    path: str | None = None  # None: the same file


@dataclass(frozen=True)
class TextEdit:
    span: Span
    new_text: str


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[TextEdit, ...]
    kind: str = "quickfix"  # "quickfix" | "refactor.rewrite"
    preferred: bool = False


@dataclass(frozen=True)
class Diagnostic:
    span: Span
    severity: str  # "error" | "warning"
    code: str  # shape-mismatch | illegal-shape | illegal-value | improper-value | dtype-mismatch
    message: str
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()


class _Facts:
    """`FileAnalysis.facts`: given, or made by `make_facts` when first read (the engine
    places facts in file lines only when a hover or inlay hints need them)."""

    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return None  # the dataclass default: not given
        facts = obj.__dict__.get(self.slot)
        if facts is None:
            maker = obj.__dict__.get("make_facts")
            facts = obj.__dict__[self.slot] = maker() if maker is not None else []
        return facts

    def __set__(self, obj, value):
        obj.__dict__[self.slot] = value


@dataclass
class FileAnalysis:
    path: str
    facts: list[ShapeFact] = _Facts()
    diagnostics: list[Diagnostic] = field(default_factory=list)
    annotations: list[Fix] | None = None  # "annotate" code actions, by span (see annotation_fixes)
    unknown_ops: dict[str, int] = field(default_factory=dict)  # unmodelled API -> call count
    make_annotations: Callable[[], list[Fix]] | None = field(default=None, repr=False, compare=False)
    make_facts: Callable[[], list[ShapeFact]] | None = field(default=None, repr=False, compare=False)

    def annotation_fixes(self) -> list[Fix]:
        """The "annotate" code actions. Made on first use, not on every edit: only code
        actions and inlay hints need them. Thread-safe: the maker reads only data frozen
        when the analysis finished."""
        if self.annotations is None:
            self.annotations = self.make_annotations() if self.make_annotations else []
        return self.annotations

    def fact_at(self, pos: Position) -> ShapeFact | None:
        """The innermost fact whose span contains `pos`."""
        best = None
        for fact in self.facts:
            if fact.span.contains(pos):
                if best is None or (fact.span.start >= best.span.start and fact.span.end <= best.span.end):
                    best = fact
        return best
