"""Notes under a symbolic hover over real LSP: the shape with the defaults filled in, and an
assumed batch dim, below the fenced `NAME: SHAPE` line (which stays as it was)."""
from __future__ import annotations

import asyncio
import textwrap

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import TIMEOUT, encoding, find_position, hover_first_line, open_doc

pytestmark = pytest.mark.asyncio

SOURCE = textwrap.dedent('''\
    import torch.nn as nn
    import torch.nn.functional as F


    class Head(nn.Module):
        def __init__(self, dim=64, num_classes=17):
            super().__init__()
            self.fc = nn.Linear(dim, num_classes)

        def forward(self, x):
            B, D = x.shape
            logits = self.fc(x)
            return logits


    def smooth(img):
        out = F.avg_pool2d(img, 2)
        return out
    ''')


async def _hover(client, uri, pos):
    return await asyncio.wait_for(client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)), TIMEOUT)


async def _hover_until(client, uri, pos, want):
    """Hover until the analysis of the just-opened file answers (bounded)."""
    h = None
    for _ in range(100):
        h = await _hover(client, uri, pos)
        if h is not None and hover_first_line(h) == want:
            return h
        await asyncio.sleep(0.1)
    return h


def _below_fence(hover) -> list[str]:
    """The hover's lines after its fenced block, blank lines dropped."""
    value = hover.contents.value
    assert value.startswith("```python\n")
    rest = value.split("```", 2)[2]
    return [ln for ln in rest.splitlines() if ln.strip()]


async def test_defaults_and_batch_notes_below_the_symbolic_shape(real: LanguageClient):
    enc = encoding(real)
    path = real.root / "head_nodriver.py"
    path.write_text(SOURCE)
    uri = path.as_uri()
    open_doc(real, uri, SOURCE)

    logits = find_position(SOURCE, "logits = ", enc)
    h = await _hover_until(real, uri, logits, "logits: Tensor[B, num_classes]")
    assert hover_first_line(h) == "logits: Tensor[B, num_classes]"  # the contract line stays
    assert _below_fence(h)[0] == "with the defaults: Tensor[B, 17]"  # right under the shape
    header = find_position(SOURCE, "def forward", enc, delta=len("def "))
    contract = await _hover(real, uri, header)
    assert hover_first_line(contract) == "forward: (x: Tensor[B, dim]) -> Tensor[B, num_classes]"
    assert _below_fence(contract)[0] == "with the defaults: (x: Tensor[B, 64]) -> Tensor[B, 17]"
    # The class name shows the same contract and variant.
    on_class = await _hover(real, uri, find_position(SOURCE, "class Head", enc, delta=len("class ")))
    assert hover_first_line(on_class) == "Head: (x: Tensor[B, dim]) -> Tensor[B, num_classes]"
    assert _below_fence(on_class)[0] == "with the defaults: (x: Tensor[B, 64]) -> Tensor[B, 17]"

    out = find_position(SOURCE, "out = F.avg_pool2d", enc)
    h = await _hover_until(real, uri, out, "out: Tensor[N, C, H//2, W//2]")
    assert hover_first_line(h) == "out: Tensor[N, C, H//2, W//2]"
    assert "assuming a batch dim: N" in _below_fence(h)
    assert not [n for n in _below_fence(h) if n.startswith("with the defaults")]  # no defaulted symbol
