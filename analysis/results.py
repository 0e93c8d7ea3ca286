"""Plain result objects handed to the server and the CLI.

Positions are 0-based (line, column) with columns counted in Python `str` indices (code
points) over lines split by LSP's rules (`\\n`, `\\r\\n`, `\\r`). The server converts columns
to the negotiated position encoding.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Position = tuple[int, int]


@dataclass(frozen=True)
class Span:
    start: Position
    end: Position

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end


@dataclass(frozen=True)
class ShapeFact:
    """The shape of one tensor-valued expression (or name) in the source."""

    span: Span
    text: str  # what the user typed there, e.g. "x" or "self.conv1(x)"
    shape: str  # "Tensor[B, 16, 14, 14]", "(Tensor[2], Tensor[3])", "Tensor[...]"
    origin: str = ""  # where the shape came from, one line of plain text
    is_target: bool = False  # an assignment target (gets an inlay hint)
    variants: tuple[str, ...] = ()  # distinct shapes seen over several call contexts


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


@dataclass
class FileAnalysis:
    path: str
    facts: list[ShapeFact] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    annotations: list[Fix] = field(default_factory=list)  # "annotate" code actions, by span
    unknown_ops: dict[str, int] = field(default_factory=dict)  # unmodelled API -> call count

    def fact_at(self, pos: Position) -> ShapeFact | None:
        """The innermost fact whose span contains `pos`."""
        best = None
        for fact in self.facts:
            if fact.span.contains(pos):
                if best is None or (fact.span.start >= best.span.start and fact.span.end <= best.span.end):
                    best = fact
        return best
