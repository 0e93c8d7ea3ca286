"""The real-world corpus recipe (tools/realworld_corpus.py) and the eval's corpus mode,
checked on one tiny package. The package comes from PyPI: without a network (or without
torch for the truth) the end-to-end test is skipped; the rule tests need neither."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


corpus = _load("realworld_corpus")
evaluation = _load("realworld_eval")


def test_relative_imports_become_absolute_on_the_same_line():
    src = "from .attend import Attend\nfrom ..common.conv import conv1x1  # x\nfrom . import utils\nimport torch\n"
    out = corpus.absolute_imports(src, "pkg/models/resnet.py")
    assert out.splitlines() == ["from pkg.models.attend import Attend", "from pkg.common.conv import conv1x1  # x",
                                "from pkg.models import utils", "import torch"]


def test_the_files_own_main_block_is_renamed_not_removed():
    assert corpus._OWN_MAIN.sub(r"\1__shipped_main__\2", 'x = 1\nif __name__ == "__main__":\n    _test()\n') == \
        'x = 1\nif __name__ == "__shipped_main__":\n    _test()\n'


def test_mutant_rules_make_one_edit_each():
    src = ("class M(nn.Module):\n"
           "    def __init__(self):\n"
           "        self.fc = nn.Linear(dim * 2, 10)\n"
           "    def forward(self, x, y):\n"
           "        z = torch.cat([x, y], dim=-1)\n"
           "        q = rearrange(x, 'b n (h d) -> b h n d', h = self.heads)\n"
           "        s = torch.einsum('bij,bjk->bik', q, q)\n"
           "        a = q @ q.transpose(-1, -2)\n"
           "        return torch.flatten(a, 1)\n")
    got = {(line, rule): new.strip() for line, rule, new, _ in corpus.mutant_candidates(src, 99)}
    assert got[(2, "in_features")] == "self.fc = nn.Linear(dim * 2 + 1, 10)"
    assert got[(4, "dim")] == "z = torch.cat([x, y], dim=-2)"
    assert got[(5, "heads")] == "q = rearrange(x, 'b n (h d) -> b h n d', h = self.heads + 1)"
    assert got[(6, "einops_axis")] == "s = torch.einsum('bij,bjk->bia', q, q)"
    assert got[(7, "transpose")] == "a = q @ q.transpose(-1, -3)"
    assert got[(8, "flatten")] == "return a"
    assert corpus._rename_output_axis("b n (h d) -> b h n d") == "b n (h d) -> b h n dx"
    # the driver (lines from `upto` on) is never mutated
    assert not corpus.mutant_candidates(src, 2)


def test_no_driver_consistency_rule():
    class F:
        def __init__(self, shape):
            self.shape, self.variants = shape, ()

    shapes = {(2, 16, 32)}
    assert evaluation.classify_nodriver(F("Tensor[B, N, 32]"), shapes)[0] == "consistent"
    assert evaluation.classify_nodriver(F("Tensor[B, 32]"), shapes)[0] == "wrong"        # rank differs
    assert evaluation.classify_nodriver(F("Tensor[B, N, 1024]"), shapes)[0] == "wrong"   # a concrete dim differs
    assert evaluation.classify_nodriver(F("Tensor[...]"), shapes)[0] == "unknown"
    assert evaluation.classify_nodriver(None, shapes)[0] == "unknown"
    # a symbolic dim with commas inside is still one dim
    assert evaluation.classify_nodriver(F("Tensor[B, max(a, b), 32]"), shapes)[0] == "consistent"


TINY = {
    "extra": [],
    "package": [{
        "name": "rotary-embedding-torch", "version": "0.9.1", "author": "lucidrains",
        "model": [{"id": "rotary", "module": "rotary_embedding_torch/rotary_embedding_torch.py",
                   "driver": "rotary = RotaryEmbedding(dim=16)\nq = torch.randn(2, 4, 12, 32)\n"
                             "q_rot = rotary.rotate_queries_or_keys(q)\n"}],
    }],
}


def test_recipe_end_to_end_on_one_tiny_package(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "MAX_MUTANTS", 2)  # enough to check the machinery, and fast
    pytest.importorskip("torch")
    pytest.importorskip("einops")
    try:
        corpus.pip_target(corpus.requirements(TINY)[0], tmp_path / "site", timeout=300)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        pytest.skip("rotary-embedding-torch is not installable here (no network?)")
    manifest = corpus.build(tmp_path, recipe=TINY)
    entry = manifest["rotary"]
    drv = tmp_path / "corpus" / "driver" / entry["file"]
    nod = tmp_path / "corpus" / "nodriver" / entry["file"]
    # the no-driver file is the driver file without its driver: same lines, so the same line numbers
    shipped = nod.read_text().splitlines()
    assert len(shipped) <= entry["driver_start"] and drv.read_text().splitlines()[:len(shipped)] == shipped
    assert corpus.DRIVER_MARK in drv.read_text() and corpus.DRIVER_MARK not in nod.read_text()
    # every kept mutant is one edit away from the file and torch rejects it on a model line
    assert entry["mutants"], "no mutant of rotary-embedding-torch was rejected by torch"
    original = drv.read_text().splitlines()
    for mu in entry["mutants"]:
        lines = (tmp_path / "corpus" / "mutants" / mu["file"]).read_text().splitlines()
        assert [i for i, (a, b) in enumerate(zip(original, lines)) if a != b] == [mu["line"]]
        assert mu["torch_error_line"] < entry["driver_start"]
    # the eval's corpus mode runs over it and reports the package
    out = subprocess.run([sys.executable, str(TOOLS / "realworld_eval.py"), "--corpus", str(tmp_path),
                          "--json", str(tmp_path / "r.json")], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads((tmp_path / "r.json").read_text())["rotary"]
    traced = sum(r["driver"]["counts"].values())
    assert traced > 5 and r["driver"]["mutants"][1] == len(entry["mutants"])
    assert "| rotary-embedding-torch | 1 |" in (tmp_path / "corpus" / "report.md").read_text()
    # hovers over a real `shapesense serve --stdio` say what the eval read from AnalysisHost
    lsp = subprocess.run([sys.executable, str(TOOLS / "realworld_eval.py"), "--corpus", str(tmp_path), "--lsp-check", "rotary"],
                         capture_output=True, text=True, timeout=600)
    assert lsp.returncode == 0 and "LSP hover == AnalysisHost fact on" in lsp.stdout, lsp.stdout[-2000:] + lsp.stderr[-2000:]
