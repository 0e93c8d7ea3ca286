"""One module per LSP feature; each has `register(ls)` adding its handlers."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer


def register_all(ls: "ShapeLanguageServer") -> None:
    from . import code_actions, configuration, diagnostics, hover, inlay_hints, lifecycle, notebooks, sync, workspace
    from . import code_lens, summary  # the model summary (issue 14)

    for module in (lifecycle, configuration, sync, diagnostics, hover, inlay_hints, code_actions, workspace, notebooks,
                   code_lens, summary):
        module.register(ls)
