"""Model code with no example call, over real LSP: symbolic hovers and the contract."""
from __future__ import annotations

import asyncio
import pathlib

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import TIMEOUT, diagnostics, encoding, find_position, hover_first_line, hover_until, open_doc

pytestmark = pytest.mark.asyncio

SAMPLES = pathlib.Path(__file__).parent.parent.parent / "samples"


def _open_sample(client, name: str) -> tuple:
    """Copy a sample into the client's workspace and open it: (uri, text)."""
    path = client.root / name
    text = (SAMPLES / name).read_text()
    path.write_text(text)
    uri = path.as_uri()
    open_doc(client, uri, text)
    return uri, text


async def _hover(client, uri, pos):
    return await asyncio.wait_for(client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)), TIMEOUT)


async def test_symbolic_hover_and_contract_without_a_driver(real: LanguageClient):
    enc = encoding(real)
    uri, text = _open_sample(real, "resnet_nodriver.py")
    out_line = find_position(text, "out = self.conv1(x)", enc)
    h = await hover_until(real, uri, out_line, "out: Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]")
    assert hover_first_line(h) == "out: Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]"
    stem = text.index("class Stem")
    header = find_position(text[stem:], "def forward", enc, delta=len("def "))
    at = types.Position(header.line + text[:stem].count("\n"), header.character)
    contract = await _hover(real, uri, at)
    assert hover_first_line(contract) == "forward: (x: Tensor[N, 3, H, W]) -> Tensor[N, num_classes]"
    # no squiggle on a correct model with no caller
    await asyncio.sleep(0.5)
    assert not [d for d in real.published if d.uri == uri and d.diagnostics]


async def test_routed_keywords_and_a_loop_built_stem_over_lsp(real: LanguageClient):
    # Keywords routed to the layers of a stack of unknown depth, a stem a loop of unknown
    # count builds, and the samples below, hovered as a user would: shapes, no squiggle.
    enc = encoding(real)
    for name, needle, expected in (
            ("routed_keywords_nodriver.py", "x = x + g(x, **g_args)", "x: Tensor[b, n, dim]"),
            ("merged_layers_nodriver.py", "x = self.proj(x)", "x: Tensor[n, hidden_dim, ?, ?]"),
            # an input ranked by the einsum after it; a part given by an annotated parameter
            ("ranked_by_later_op_nodriver.py", "k = self.k(key)", "k: Tensor[key_B, batch, heads, dim//heads]"),
            ("annotated_parts_nodriver.py", "first = self.norm", "first: Tensor[N, d_model]"),
            # a Sequential of a dict filled by way; a ResNet given its block class; a helper
            # probed for an unknown count (its probe's writes undone: no false error)
            ("sequential_dict_nodriver.py", "logits = self.head(first)", "logits: Tensor[b, num_classes]"),
            ("block_parameter_nodriver.py", "x = self.layer2(x)",
             "x: Tensor[N, ?, (H + 7)//8, (W + 7)//8]"),
            ("unknown_count_helper_nodriver.py", "y = self.layer1(x)", "y: Tensor[N, 32, H, W]"),
            # a settings object's attributes as symbols; a Linear and a table lookup after a
            # rank nothing decides; an optional input unpacked as a tuple (its dims unknown)
            ("config_object_nodriver.py", "q = q.view(B, T, self.n_head",
             "q: Tensor[B, config.n_head, T, config.n_embd//config.n_head]"),
            ("rank_helper_linear_nodriver.py", "h = torch.relu", "h: Tensor[..., units]"),
            ("table_lookup_nodriver.py", "low = self.embedding", "low: Tensor[..., 128]"),
            ("optional_memories_nodriver.py", "mem = default(mem", "mem: Tensor[?, ?, ?]"),
            # stop 32: the sequence convention for an input read by position, a two-way module
            # whose other way would fail (no squiggle), the means of an input joined by cat, a
            # list of floats of unknown count
            ("sequence_convention_nodriver.py", "scores = q @ k.transpose",
             "scores: Tensor[x_B, num_heads, x_T, x_T]"),
            ("optional_norm_nodriver.py", "x = einsum(", "x: Tensor[B, T, ?, dim]"),
            ("pooled_axes_nodriver.py", "pooled = torch.cat", "pooled: Tensor[N, C, H + W]"),
            ("float_lists_nodriver.py", "slopes = torch.Tensor", "slopes: Tensor[heads]")):
        uri, text = _open_sample(real, name)
        h = await hover_until(real, uri, find_position(text, needle, enc), expected)
        assert hover_first_line(h) == expected
        await asyncio.sleep(0.5)
        assert not [d for d in real.published if d.uri == uri and d.diagnostics]


async def test_a_model_failing_with_its_defaults_gets_a_warning_over_lsp(real: LanguageClient):
    # With no caller, a head split that fails for every input once the model is built with
    # its defaults is a warning naming them; the first round of a loop built apart grounds an
    # error for every input (loop_first_block_nodriver.py's Stem).
    for name, line, severity, words in (
            ("defaults_fail_nodriver.py", "return q.view(b, n, self.heads + 1, -1)", types.DiagnosticSeverity.Warning,
             "built with its defaults (dim_head=64, heads=8)"),
            ("loop_first_block_nodriver.py", "return self.blocks(y)", types.DiagnosticSeverity.Error,
             "to have width + 1 channels")):
        uri, text = _open_sample(real, name)
        want = text[:text.index(line)].count("\n")
        found = await diagnostics(real, uri, 1)
        assert [(d.range.start.line, d.severity) for d in found] == [(want, severity)], found
        assert words in found[0].message
