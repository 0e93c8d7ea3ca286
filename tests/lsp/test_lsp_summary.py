"""The model summary over real LSP: CodeLens above each nn.Module class, and the
`shapesense/modelSummary` request / `shapesense.modelSummary` command."""
from __future__ import annotations

import asyncio
import pathlib
import shutil

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import TIMEOUT, open_doc, raw_request

pytestmark = pytest.mark.asyncio

SAMPLES = pathlib.Path(__file__).parent.parent.parent / "samples"


def plain(v):
    """A JSON answer as plain dicts and lists (the client hands back named tuples)."""
    if hasattr(v, "_asdict"):
        return {k: plain(x) for k, x in v._asdict().items()}
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


async def _lenses(client, uri, want: int):
    """Code lenses once the analysis of the just-opened file has them (bounded)."""
    found = []
    for _ in range(100):
        found = await asyncio.wait_for(client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))), TIMEOUT) or []
        if len(found) >= want:
            return found
        await asyncio.sleep(0.1)
    return found


async def test_code_lens_and_summary_request(real: LanguageClient):
    path = real.root / "mnist_cnn.py"
    text = (SAMPLES / "mnist_cnn.py").read_text()
    path.write_text(text)
    uri = path.as_uri()
    open_doc(real, uri, text)
    lenses = await _lenses(real, uri, 1)
    assert len(lenses) == 1
    lens = lenses[0]
    assert lens.range.start.line == text[:text.index("class Net")].count("\n")
    # 1,199,882 = conv1 320 + conv2 18,496 + fc1 1,179,776 + fc2 1,290 (torch says the same)
    assert lens.command.title == "1,199,882 params · Tensor[64, 1, 28, 28] -> Tensor[64, 10]"
    assert lens.command.command == "shapesense.showModelSummary"
    assert list(lens.command.arguments) == [uri, "Net"]

    got = plain(await asyncio.wait_for(raw_request(real, "shapesense/modelSummary", {"uri": uri, "model": "Net"}), TIMEOUT))
    assert got["model"] == "Net" and got["total_params"] == 1199882
    assert [(r["name"], r["type"], r["depth"], r["output_shape"], r["params"]) for r in got["rows"]] == [
        ("Net", "Net", 0, [64, 10], 1199882),
        ("conv1", "Conv2d", 1, [64, 32, 26, 26], 320),
        ("conv2", "Conv2d", 1, [64, 64, 24, 24], 18496),
        ("dropout1", "Dropout", 1, [64, 64, 12, 12], 0),
        ("fc1", "Linear", 1, [64, 128], 1179776),
        ("dropout2", "Dropout", 1, [64, 128], 0),
        ("fc2", "Linear", 1, [64, 10], 1290),
    ]
    assert "Total params: 1,199,882" in got["text"]
    if shutil.which("dot"):  # the picture, laid out by Graphviz (tests/test_summary_svg.py)
        assert got["svg"].lstrip().startswith("<?xml") and "conv1: Conv2d" in got["svg"]
    else:
        assert got["svg"] is None
    # the same object through workspace/executeCommand (clients without custom requests)
    via_command = plain(await asyncio.wait_for(real.workspace_execute_command_async(types.ExecuteCommandParams(
        command="shapesense.modelSummary", arguments=[uri, "Net"])), TIMEOUT))
    assert via_command["rows"] == got["rows"] and via_command["svg"] == got["svg"]
    # inputs given: the forward runs on them (as `shapesense summary --input 2,1,28,28`)
    given = plain(await raw_request(real, "shapesense/modelSummary", {"uri": uri, "model": "Net", "inputs": [[2, 1, 28, 28]]}))
    assert given["context"] == "input" and given["output_shape"] == [2, 10]
    assert [r["output_shape"][0] for r in given["rows"]] == [2] * 7
    # the held analysis is unchanged by it: the lens still shows the file's own call
    again = await _lenses(real, uri, 1)
    assert again[0].command.title == lens.command.title
    assert await raw_request(real, "shapesense/modelSummary", {"uri": uri, "inputs": [["x"]]}) is None
    # an unknown model or document: null, and the server goes on
    assert await raw_request(real, "shapesense/modelSummary", {"uri": uri, "model": "Nope"}) is None
    assert await raw_request(real, "shapesense/modelSummary", {"uri": 42}) is None


async def test_code_lens_symbolic_without_a_driver(real: LanguageClient):
    path = real.root / "resnet_nodriver.py"
    text = (SAMPLES / "resnet_nodriver.py").read_text()
    path.write_text(text)
    uri = path.as_uri()
    open_doc(real, uri, text)
    lenses = await _lenses(real, uri, 3)
    titles = {lens.command.arguments[1]: lens.command.title for lens in lenses}
    # Stem: no call builds it, so its hyperparameters are symbols
    assert titles["Stem"].endswith("· Tensor[N, 3, H, W] -> Tensor[N, num_classes]"), titles
    assert "num_classes" in titles["Stem"].split(" params")[0], titles
