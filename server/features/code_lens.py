"""CodeLens above each nn.Module class the engine analysed:
`61,706 params · Tensor[64, 1, 28, 28] -> Tensor[64, 10]` (symbolic where the only run
known is symbolic), with the client command that opens the summary
(`shapesense.showModelSummary`, arguments [uri, class name]).

Read from the analysis the server holds, on the analysis thread (analysis.summary)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types

from shapesense.analysis import summary as model_summary

from ..guard import feature

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer

SHOW_COMMAND = "shapesense.showModelSummary"  # the client's (the VS Code extension registers it)


def _class_lines(text: str) -> dict:
    """Class name -> 0-based line of its `class` statement (the first one)."""
    out: dict = {}
    for m in re.finditer(r"^[ \t]*class[ \t]+([A-Za-z_]\w*)", text, re.MULTILINE):
        out.setdefault(m.group(1), text.count("\n", 0, m.start()))
    return out


def lenses(host, path: str) -> list:
    """(line, class name, title) for each nn.Module class of the file."""
    found = model_summary.summaries(host, path)
    if not found:
        return []
    lines = _class_lines(host.text(path) or "")
    out = []
    for s in found:
        name = s.model
        line = lines.get(name)
        if line is not None:
            out.append((line, s.cls.qualname if s.cls is not None else name, s.lens_text()))
    return out


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False), default=[])
    async def code_lens(ls: "ShapeLanguageServer", params: types.CodeLensParams):
        if not ls.settings.enable:
            return []
        uri = params.text_document.uri
        outcome = await ls.scheduler.current(uri)
        if outcome is None or outcome.analysis is None:
            return []
        path = outcome.snapshot.path
        found = await ls.worker.run(lambda host: lenses(host, path)) or []
        out, index, enc = [], outcome.snapshot.index, ls.encoding
        for line, name, title in found:
            client_line, _ = index.to_client(line, 0, enc)
            if index.from_client(client_line, 0, enc)[0] != line:
                continue  # a line of another document (a notebook cell's view: another cell)
            at = types.Range(types.Position(client_line, 0), types.Position(client_line, 0))
            out.append(types.CodeLens(range=at, command=types.Command(title=title, command=SHOW_COMMAND,
                                                                      arguments=[uri, name])))
        return out
