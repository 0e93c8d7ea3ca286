"""The model summary over LSP: the custom request `shapesense/modelSummary` and the
command `shapesense.modelSummary` (for clients without custom requests, e.g. Neovim's
`vim.lsp.buf.execute_command`), both answering `shapesense summary --format json`'s object,
plus `text` (the table as the CLI prints it) and `svg` (the picture, or null without dot).

Params: `{"uri": ..., "model": "Net" (optional: the file's outermost model), "inputs":
[[1, 3, 224, 224]] (optional: run the forward on tensors of these shapes, as `--input`)}`.
Without inputs the summary is read from the analysis the server already holds for that
text (the host keeps each file's last engine run): no second analysis. Runs on the analysis thread, which owns
the engine's objects.
"""
from __future__ import annotations

import asyncio
import traceback
from typing import TYPE_CHECKING, Any

from shapesense.analysis import summary as model_summary

from .. import summary_svg
from ..guard import feature

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer

REQUEST = "shapesense/modelSummary"
COMMAND = "shapesense.modelSummary"


def _get(params: Any, name: str):
    if isinstance(params, dict):
        return params.get(name)
    return getattr(params, name, None)


MAX_INPUTS, MAX_RANK, MAX_DIM = 8, 8, 1 << 40


def _inputs(value: Any):
    """`[[1, 3, 224, 224], ...]` as tuples, None when absent; False when malformed."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not 0 < len(value) <= MAX_INPUTS:
        return False
    out = []
    for shape in value:
        if not isinstance(shape, (list, tuple)) or len(shape) > MAX_RANK or not all(
                type(d) is int and 0 <= d <= MAX_DIM for d in shape):
            return False
        out.append(tuple(shape))
    return out


async def answer(ls: "ShapeLanguageServer", uri: Any, model: Any = None, inputs: Any = None) -> dict | None:
    """The summary's JSON object, or None (no such file or model, or a bad request)."""
    shapes = _inputs(inputs)
    if not isinstance(uri, str) or (model is not None and not isinstance(model, str)) or shapes is False:
        return None
    outcome = await ls.scheduler.current(uri)
    if outcome is None or outcome.analysis is None:
        return None
    path = outcome.snapshot.path

    def compute(host):
        s = model_summary.summarize(host, path, model or None, shapes)
        if s is None:
            return None
        return {**s.to_json(), "uri": uri, "text": model_summary.render_text(s)}, summary_svg.dot_source(s)

    done = await ls.worker.run(compute)
    if done is None:
        return None
    result, dot = done
    # The picture (SVG) when Graphviz's dot is installed; laid out off the analysis thread.
    result["svg"] = await asyncio.to_thread(_layout, dot)
    return result


def _layout(dot: str) -> str | None:
    try:
        return summary_svg.layout(dot)
    except summary_svg.LayoutUnavailable:
        return None


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, REQUEST)
    async def model_summary_request(ls: "ShapeLanguageServer", params: Any):
        return await answer(ls, _get(params, "uri"), _get(params, "model"), _get(params, "inputs"))

    @ls.command(COMMAND)
    async def model_summary_command(*args):
        # pygls hands the command's arguments one by one: [uri, model] or [{"uri", "model"}].
        try:
            first = args[0] if args else None
            if first is not None and not isinstance(first, str):
                return await answer(ls, _get(first, "uri"), _get(first, "model"), _get(first, "inputs"))
            return await answer(ls, first, args[1] if len(args) > 1 else None)
        except Exception:
            ls.log_error(f"ShapeSense: {COMMAND} failed\n{traceback.format_exc()}")
            return None
