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
