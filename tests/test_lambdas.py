"""Lambdas are functions (lowered like a def, their body `return <expr>`): the einops idiom
`map(lambda t: rearrange(t, ...), qkv)` gives shapes, and edits inside a lambda re-analyse
to exactly what a fresh analysis gives."""
from pathlib import Path

from shapesense.analysis.db import AnalysisHost

SAMPLE = Path(__file__).parent.parent / "samples" / "einops_attention.py"
PATH = str(SAMPLE)
SPLIT = 'lambda t: rearrange(t, "b n (h d) -> b h n d", h=self.heads)'


def _analyze(text, host=None):
    host = host or AnalysisHost()
    host.set_file(PATH, text)
    return host.analyze(PATH)


def _snapshot(result):
    return ([(f.span, f.text, f.shape, f.variants) for f in result.facts],
            [(d.span, d.severity, d.code, d.message) for d in result.diagnostics])


def _shapes(result, names):
    return {f.text: f.shape for f in result.facts if f.is_target and f.text in names}


def test_map_of_a_lambda_over_chunks_gives_each_shape():
    text = SAMPLE.read_text()
    assert SPLIT in text
    shapes = _shapes(_analyze(text), {"q", "k", "v"})
    assert shapes == {"q": "Tensor[2, 4, 17, 16]", "k": "Tensor[2, 4, 17, 16]", "v": "Tensor[2, 4, 17, 16]"}


def test_an_edit_inside_a_lambda_equals_a_fresh_analysis():
    text = SAMPLE.read_text()
    host = AnalysisHost()
    _analyze(text, host)
    edited = text.replace(SPLIT, SPLIT.replace("-> b h n d", "-> b n h d"))
    after = _analyze(edited, host)
    assert _snapshot(after) == _snapshot(_analyze(edited))
    assert _shapes(after, {"q"}) == {"q": "Tensor[2, 17, 4, 16]"}
    # The heads now sit where the tokens were: to_out's Linear gets 4 * 17 * 16 features.
    assert any("272" in d.message for d in after.diagnostics)
    back = _analyze(text, host)
    assert _snapshot(back) == _snapshot(_analyze(text))


def test_lambda_forms(tmp_path):
    path = tmp_path / "forms.py"
    path.write_text(
        "import torch\n"
        "act = lambda x: x * torch.sigmoid(x)\n"
        "compose = lambda f, g: (lambda x: f(g(x)))\n"
        "first = lambda *ts, **kw: ts[0]\n"
        "scaled = lambda x, k=2: x.repeat(1, k)\n"
        "x = torch.randn(2, 3)\n"
        "a = compose(act, act)(x)\n"
        "b = first(x, torch.randn(5))\n"
        "c = scaled(x)\n")
    host = AnalysisHost()
    host.set_file(str(path), path.read_text())
    shapes = {f.text: f.shape for f in host.analyze(str(path)).facts if f.is_target}
    assert shapes["a"] == "Tensor[2, 3]" and shapes["b"] == "Tensor[2, 3]" and shapes["c"] == "Tensor[2, 6]"
