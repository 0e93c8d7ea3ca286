"""A tiny stand-in for AnalysisHost, for protocol-level tests only.

Deterministic and obviously fake: `NAME = RHS` gives NAME the shape Tensor[len(RHS)],
every `BAD` is an error with a fix replacing it by `GOOD`, every `MAYBE` a conditional
warning, and `CRASH` makes analyze raise. Columns follow LSP's line rules, in code points.
"""
from __future__ import annotations

import re
import sys

from shapesense.analysis.results import Diagnostic, FileAnalysis, Fix, Related, ShapeFact, Span, TextEdit

_ASSIGN = re.compile(r"^(\s*)([A-Za-z_]\w*) = (.+?)\s*$")


class FakeHost:
    def __init__(self, settings=None, workspace_root=None):
        self.settings = settings
        self.workspace_root = workspace_root
        self.texts: dict[str, str] = {}
        self.query_log: list[str] = []

    def set_file(self, path, text):
        self.texts[path] = text

    def remove_file(self, path):
        self.texts.pop(path, None)

    def verified_fixes(self, path, diagnostic):
        return diagnostic.fixes

    def analyze(self, path):
        self.query_log.append(f"infer:{path}")
        text = self.texts[path]
        if "CRASH" in text:
            raise RuntimeError("fake engine crash")
        out = FileAnalysis(path, annotations=[])
        for n, line in enumerate(re.split(r"\r\n|\r|\n", text)):
            m = _ASSIGN.match(line)
            if m:
                name, rhs = m.group(2), m.group(3)
                start, end = (n, m.start(2)), (n, m.end(2))
                shape = f"Tensor[{len(rhs)}]"
                out.facts.append(ShapeFact(Span(start, end), name, shape, "fake: length of the right-hand side", True))
                out.facts.append(ShapeFact(Span((n, m.start(3)), (n, m.end(3))), rhs, shape, "fake rhs"))
                out.annotations.append(Fix(f"Annotate {name}", (TextEdit(Span(end, end), f": T{len(rhs)}"),), "refactor.rewrite"))
            for word, severity, code in (("BAD", "error", "shape-mismatch"), ("MAYBE", "warning", "illegal-value")):
                for w in re.finditer(word, line):
                    span = Span((n, w.start()), (n, w.end()))
                    fixes = ()
                    if word == "BAD":
                        fixes = (Fix("Replace BAD with GOOD", (TextEdit(span, "GOOD"),), preferred=True),)
                    out.diagnostics.append(
                        Diagnostic(span, severity, code, f"fake {code}", (Related(Span((0, 0), (0, 1)), "first line"),), fixes)
                    )
        return out


if __name__ == "__main__":  # run the real server on the fake engine
    from shapesense.server.app import build_server

    sys.exit(build_server(host_factory=FakeHost).start_io())
