"""Notes under a symbolic hover: "with the defaults: ..." and "assuming a batch dim".

The defaults line is checked against real torch: the model built with its defaults and run
on one input must give, for every noted line, the shape the note claims (input symbols are
bound from the runtime shape like the symbolic oracle does).
"""
from __future__ import annotations

import textwrap

import pytest

from shapesense.analysis.db import AnalysisHost
from shapesense.analysis.ide import CONTRACT_ORIGIN

from .oracle import run_and_record
from .symbolic_oracle import check_def, dims_of, enclosing_defs

DEFAULTS = "with the defaults: "

# Blocks with defaults, nested the way model code is: Attention's own default for
# num_heads (8) is not the one the model builds it with (Tiny's 4).
MODEL = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    class Attention(nn.Module):
        def __init__(self, dim, num_heads=8):
            super().__init__()
            self.num_heads = num_heads
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            B, N, C = x.shape
            qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
            out = (attn @ v).transpose(1, 2).reshape(B, N, C)
            out = self.proj(out)
            return out


    class Tiny(nn.Module):
        def __init__(self, in_chans=3, dim=48, patch=4, num_heads=4, num_classes=10):
            super().__init__()
            self.embed = nn.Conv2d(in_chans, dim, kernel_size=patch, stride=patch)
            self.attn = Attention(dim, num_heads=num_heads)
            self.head = nn.Linear(dim, num_classes)

        def forward(self, x):
            x = self.embed(x)
            x = x.flatten(2).transpose(1, 2)
            x = x + self.attn(x)
            pooled = x.mean(dim=1)
            logits = self.head(pooled)
            return logits
    ''')
# What a training script would do with the defaults (appended only for the torch run).
DRIVER = "Tiny()(torch.randn(2, 3, 16, 12))\n"


def _analyze(path, text):
    host = AnalysisHost()
    host.set_file(str(path), text)
    return host.analyze(str(path))


def _defaults_shape(fact):
    notes = [n[len(DEFAULTS):] for n in fact.notes if n.startswith(DEFAULTS)]
    return notes[0] if notes else None


def test_defaults_line_agrees_with_torch_built_with_the_defaults(tmp_path):
    pytest.importorskip("torch")
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    result = _analyze(path, MODEL)
    noted = {}
    for f in result.facts:
        shape = _defaults_shape(f)
        if f.is_target and f.text.isidentifier() and shape is not None and shape.startswith("Tensor["):
            noted[(f.span.start[0], f.text)] = (f, shape)
    targets: dict = {}
    for line, name in noted:
        targets.setdefault(line, set()).add(name)
    run = tmp_path / "run.py"
    run.write_text(MODEL + "\n" + DRIVER)
    seen, error_line = run_and_record(str(run), targets)
    assert error_line is None
    defs = enclosing_defs(MODEL)
    by_def: dict = {}
    for key, shapes in seen.items():
        fact, shape = noted[key]
        assert len(shapes) == 1
        by_def.setdefault(defs.get(key[0], ""), []).append(
            (f"line {key[0] + 1} {key[1]} {shape}", dims_of(shape), next(iter(shapes))))
    problems = [p for group in by_def.values() for p in check_def(group)]
    assert not problems, "\n".join(problems)
    # Not vacuous: both defs' lines were noted and checked, Attention's in Tiny's context.
    assert len(seen) >= 8 and {d.split("@")[0] for d in by_def} == {"forward"} and len(by_def) == 2


def test_symbols_with_defaults_are_filled_in_by_context(tmp_path):
    path = tmp_path / "model.py"
    result = _analyze(path, MODEL)
    by_line = {(f.span.start[0] + 1, f.text): f for f in result.facts}
    lines = MODEL.splitlines()
    qkv_line = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith("qkv = "))
    qkv = by_line[(qkv_line, "qkv")]
    # The first line stays symbolic; the note has Tiny's defaults (num_heads=4, dim=48).
    assert qkv.shape.startswith("Tensor[3, N, num_heads, ") and qkv.shape.endswith(", dim//num_heads]")
    assert _defaults_shape(qkv).startswith("Tensor[3, N, 4, ") and _defaults_shape(qkv).endswith(", 12]")
    logits_line = next(i for i, ln in enumerate(lines, 1) if "logits = " in ln)
    assert by_line[(logits_line, "logits")].shape == "Tensor[N, num_classes]"
    assert _defaults_shape(by_line[(logits_line, "logits")]) == "Tensor[N, 10]"
    # The contract on `def forward` gets the same variant.
    contracts = {f.span.start[0] + 1: f for f in result.facts if f.origin == CONTRACT_ORIGIN}
    tiny_forward = max(contracts)
    assert contracts[tiny_forward].shape == "(x: Tensor[N, in_chans, H, W]) -> Tensor[N, num_classes]"
    assert _defaults_shape(contracts[tiny_forward]) == "(x: Tensor[N, 3, H, W]) -> Tensor[N, 10]"


def test_the_class_name_shows_the_contract_of_forward(tmp_path):
    result = _analyze(tmp_path / "model.py", MODEL)
    lines = MODEL.splitlines()
    row = lines.index("class Tiny(nn.Module):")
    on_name = result.fact_at((row, len("class Ti")))
    assert on_name is not None and on_name.text == "Tiny"
    assert on_name.shape == "(x: Tensor[N, in_chans, H, W]) -> Tensor[N, num_classes]"
    assert _defaults_shape(on_name) == "(x: Tensor[N, 3, H, W]) -> Tensor[N, 10]"
    assert result.fact_at((row, len("class Tiny(nn.Mo"))) is None  # the name only
    # No jaxtyping fix is offered on a class header.
    assert not [f for f in result.annotation_fixes() if any(e.span.start[0] == row for e in f.edits)]


def test_no_note_without_a_defaulted_symbol_or_with_a_driver(tmp_path):
    text = MODEL.replace("def __init__(self, in_chans=3, dim=48, patch=4, num_heads=4, num_classes=10)",
                         "def __init__(self, in_chans, dim, patch, num_heads, num_classes)")
    result = _analyze(tmp_path / "nodefaults.py", text)
    assert any(f.shape.startswith("Tensor[") and "num_classes" in f.shape for f in result.facts)
    assert not [f for f in result.facts if _defaults_shape(f)]
    driven = _analyze(tmp_path / "driven.py", MODEL + "\n" + DRIVER)
    assert any(f.shape == "Tensor[2, 10]" for f in driven.facts)  # concrete: nothing to note
    assert not [f for f in driven.facts if f.notes]


BATCH = textwrap.dedent('''\
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    def smooth(img):
        out = F.avg_pool2d(img, 2)
        return out


    def named(img):
        B, C, H, W = img.shape
        out = F.avg_pool2d(img, 2)
        return out


    class Features(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.pool = nn.MaxPool2d(2)

        def forward(self, img):
            out = self.pool(F.relu(self.conv(img)))
            return out


    class Normed(nn.Module):
        def __init__(self):
            super().__init__()
            self.pool = nn.AvgPool2d(2)
            self.bn = nn.BatchNorm2d(8)

        def forward(self, img):
            out = self.bn(self.pool(img))
            return out
    ''')


def _batch_notes(result):
    out = {}
    for f in result.facts:
        if f.is_target and f.text == "out":
            out[f.span.start[0] + 1] = [n for n in f.notes if n.startswith("assuming a batch dim")]
    return out


def test_batch_dim_note_only_where_the_unbatched_form_is_also_legal(tmp_path):
    result = _analyze(tmp_path / "batch.py", BATCH)
    lines = BATCH.splitlines()
    notes = _batch_notes(result)
    smooth_out = lines.index("def smooth(img):") + 2
    named_out = lines.index("def named(img):") + 3
    features_out = lines.index("    def forward(self, img):") + 2
    normed_out = lines.index("    def forward(self, img):", features_out) + 2
    assert notes[smooth_out] == ["assuming a batch dim: N"]
    contract = next(f for f in result.facts if f.origin == CONTRACT_ORIGIN and f.text == "smooth")
    assert contract.shape == "(img: Tensor[N, C, H, W]) -> Tensor[N, C, H//2, W//2]"
    assert any(n.startswith("assuming a batch dim") for n in contract.notes)
    assert notes[named_out] == []  # the code named four dims itself
    assert notes[features_out] == ["assuming a batch dim: N"]  # conv, relu, pool: all take (C, H, W)
    assert notes[normed_out] == []  # BatchNorm2d needs the batch dim


TWO = textwrap.dedent('''\
    import torch.nn as nn


    class Small(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.fc = nn.Linear(dim, dim)

        def forward(self, x):
            B, D = x.shape
            y = self.fc(x)
            return y


    class Large(nn.Module):
        def __init__(self, dim=16):
            super().__init__()
            self.fc = nn.Linear(dim, dim)

        def forward(self, x):
            B, D = x.shape
            y = self.fc(x)
            return y
    ''')


def test_each_class_shows_its_own_defaults_for_a_shared_parameter_name(tmp_path):
    result = _analyze(tmp_path / "two.py", TWO)
    ys = sorted((f.span.start[0], f) for f in result.facts if f.is_target and f.text == "y")
    assert [f.shape for _, f in ys] == ["Tensor[B, dim]", "Tensor[B, dim]"]
    assert [_defaults_shape(f) for _, f in ys] == ["Tensor[B, 8]", "Tensor[B, 16]"]


def test_notes_follow_edits(tmp_path):
    """An edit elsewhere keeps the notes; a changed default changes them (fact caches)."""
    path = str(tmp_path / "model.py")
    host = AnalysisHost()
    host.set_file(path, MODEL)

    def logits_note():
        result = host.analyze(path)
        return [_defaults_shape(f) for f in result.facts if f.is_target and f.text == "logits"]

    assert logits_note() == ["Tensor[N, 10]"]
    host.set_file(path, "# a comment\n" + MODEL)
    assert logits_note() == ["Tensor[N, 10]"]
    host.set_file(path, "# a comment\n" + MODEL.replace("num_classes=10", "num_classes=7"))
    assert logits_note() == ["Tensor[N, 7]"]
    no_default = MODEL.replace("(self, in_chans=3, dim=48, patch=4, num_heads=4, num_classes=10)",
                               "(self, num_classes, in_chans=3, dim=48, patch=4, num_heads=4)")
    assert no_default != MODEL
    host.set_file(path, "# a comment\n" + no_default)
    result = host.analyze(path)
    logits = [f for f in result.facts if f.is_target and f.text == "logits"]
    assert [(f.shape, _defaults_shape(f)) for f in logits] == [("Tensor[N, num_classes]", None)]  # nothing to fill


def test_the_cli_json_carries_the_notes(tmp_path):
    import json
    import subprocess
    import sys

    path = tmp_path / "model.py"
    path.write_text(MODEL)
    out = subprocess.run([sys.executable, "-m", "shapesense", "check", "--format", "json", str(path)],
                         capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    facts = json.loads(out.stdout)["facts"]
    logits = [f for f in facts if f["text"] == "logits" and f["assigned"]]
    assert logits and logits[0]["shape"] == "Tensor[N, num_classes]"
    assert "with the defaults: Tensor[N, 10]" in logits[0]["notes"]


NONE_DEFAULT = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    class Head(nn.Module):
        def __init__(self, dim=64, num_classes=None):
            super().__init__()
            if num_classes is None:
                num_classes = 17
            self.fc = nn.Linear(dim, num_classes)

        def forward(self, x):
            B, D = x.shape
            y = self.fc(x)
            return y
    ''')


def test_a_none_default_filled_in_by_init_is_a_default_too(tmp_path):
    torch = pytest.importorskip("torch")
    result = _analyze(tmp_path / "head.py", NONE_DEFAULT)
    y = [f for f in result.facts if f.is_target and f.text == "y"][0]
    assert y.shape == "Tensor[B, num_classes]"
    assert _defaults_shape(y) == "Tensor[B, 17]"
    ns: dict = {}
    exec(compile(NONE_DEFAULT, "head.py", "exec"), ns)  # noqa: S102 - our own test source
    assert tuple(ns["Head"]()(torch.randn(2, 64)).shape) == (2, 17)  # what the note says, with B = 2


def test_the_shapes_of_several_contexts_are_labelled_with_where_they_come_from():
    # Two factories nobody calls build the model with different blocks: the hover lists
    # each shape with the factory whose model gives it.
    from pathlib import Path

    from shapesense.server.features.hover import markdown

    path = Path(__file__).parent.parent / "samples" / "plain_factory_nodriver.py"
    host = AnalysisHost(workspace_root=str(path.parent))
    host.set_file(str(path), path.read_text())
    lines = path.read_text().splitlines()
    line = next(i for i, text in enumerate(lines) if text.strip() == "x = self.layer1(x)")
    fact = next(f for f in host.analyze(str(path)).facts if f.is_target and f.span.start[0] == line)
    assert fact.shape == "Tensor[N, ?, H, W]"
    assert dict(zip(fact.variants, fact.variant_sources)) == {
        "Tensor[N, 16, H, W]": "the model net_basic() builds", "Tensor[N, 64, H, W]": "the model net_wide() builds"}
    assert "- `Tensor[N, 64, H, W]` (the model net_wide() builds)" in markdown(fact)


def test_contexts_that_agree_on_where_a_shape_comes_from_get_no_labels():
    # One context that runs a line twice (a loop) lists its shapes without labels.
    code = textwrap.dedent('''\
        import torch
        for n in (2, 3):
            x = torch.zeros(n, 4)
        ''')
    host = AnalysisHost()
    host.set_file("/loop.py", code)
    fact = next(f for f in host.analyze("/loop.py").facts if f.is_target and f.text == "x")
    assert fact.variants == ("Tensor[2, 4]", "Tensor[3, 4]") and fact.variant_sources == ()
