"""A def's inferred contract: shown on its name, and inserted as jaxtyping annotations that
read back to the same contract (checked on every sample that has one)."""
from pathlib import Path

import pytest

from shapesense.analysis.db import AnalysisHost
from shapesense.analysis.ide import CONTRACT_ORIGIN, apply_edits

SAMPLES = sorted((Path(__file__).parent.parent / "samples").glob("*.py"))


def _contracts(path, text):
    host = AnalysisHost()
    host.set_file(path, text)
    result = host.analyze(path)
    return result, {(f.text, f.shape) for f in result.facts if f.origin == CONTRACT_ORIGIN}


def test_contract_of_a_block_no_call_reaches():
    path = str(Path(__file__).parent.parent / "samples" / "resnet_nodriver.py")
    _, contracts = _contracts(path, Path(path).read_text())
    assert ("forward", "(x: Tensor[N, 3, H, W]) -> Tensor[N, num_classes]") in contracts
    assert ("forward", "(x: Tensor[N, inplanes, H, W]) -> "
                       "Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]") in contracts


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_inserted_annotations_read_back_to_the_same_contract(path):
    text = path.read_text()
    result, before = _contracts(str(path), text)
    fixes = [f for f in result.annotation_fixes() if "inferred shapes" in f.title]
    if not fixes:
        pytest.skip("no contract with jaxtyping-spellable dims")
    for fix in fixes:
        edited = apply_edits(text, fix.edits)
        after_result, after = _contracts(str(path), edited)
        assert after == before, fix.title
        assert len(after_result.diagnostics) == len(result.diagnostics)


def test_an_assignment_is_annotated_only_with_dims_that_read_back(tmp_path):
    # `H - 2` is written as jaxtyping's single token `H-2`; `max(N, y_N)` has no spelling
    # (it was written as "maxN y_N", two made-up dims)
    path = tmp_path / "two_inputs.py"
    path.write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Two(nn.Module):\n"
        "    def __init__(self, d):\n"
        "        super().__init__()\n"
        "        self.a = nn.Conv2d(d, d, 3)\n"
        "        self.b = nn.Conv2d(d, d, 3)\n\n"
        "    def forward(self, x, y):\n"
        "        h = self.a(x)\n"
        "        s = h + self.b(y)\n"
        "        return s\n")
    result, _ = _contracts(str(path), path.read_text())
    titles = [f.title for f in result.annotation_fixes()]
    assert 'Annotate h as Float[Tensor, "N d H-2 W-2"]' in titles
    assert not [t for t in titles if t.startswith("Annotate s ")]
    edited = apply_edits(path.read_text(), next(f for f in result.annotation_fixes()
                                                 if f.title.startswith("Annotate h ")).edits)
    after, _ = _contracts(str(path), edited)
    assert next(f.shape for f in after.facts if f.text == "h") == "Tensor[N, d, H - 2, W - 2]"
    assert not after.diagnostics
