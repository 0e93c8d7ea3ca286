"""The analysis host: the files it knows, their parse trees, and memoized results.

The server (or the CLI) owns one host, feeds it file texts and asks for results:

    host = AnalysisHost()
    host.set_file("/abs/model.py", text)
    result = host.analyze("/abs/model.py")      # -> FileAnalysis
    host.query_log                                # what the last analyses recomputed

Not thread-safe: use it from one thread (parso trees mutate, z3 contexts are not shared).
"""
from __future__ import annotations

from dataclasses import dataclass

from .results import FileAnalysis


@dataclass(frozen=True)
class EngineSettings:
    solver_timeout_ms: int = 500
    annotation_style: str = "jaxtyping"  # "jaxtyping" | "comment" | "assert"


class AnalysisHost:
    def __init__(self, settings: EngineSettings | None = None, workspace_root: str | None = None):
        self.settings = settings or EngineSettings()
        self.workspace_root = workspace_root
        self.texts: dict[str, str] = {}
        self.query_log: list[str] = []

    def set_file(self, path: str, text: str) -> None:
        self.texts[path] = text

    def remove_file(self, path: str) -> None:
        self.texts.pop(path, None)

    def analyze(self, path: str) -> FileAnalysis:
        raise NotImplementedError("engine is being written")
