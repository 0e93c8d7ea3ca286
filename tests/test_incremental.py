"""Incremental analysis recomputes only what an edit touched, and equals a fresh analysis."""
import random
from pathlib import Path

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapesense.analysis.db import AnalysisHost

SAMPLE = Path(__file__).parent.parent / "samples" / "resnet_block.py"
PATH = str(SAMPLE)


def _snapshot(result):
    return ([(f.span, f.text, f.shape, f.variants) for f in result.facts],
            [(d.span, d.severity, d.code, d.message) for d in result.diagnostics])


def _fresh(text):
    host = AnalysisHost()
    host.set_file(PATH, text)
    return host.analyze(PATH)


def _edit(host, text):
    host.clear_log()
    host.set_file(PATH, text)
    result = host.analyze(PATH)
    assert _snapshot(result) == _snapshot(_fresh(text))
    return [q for q in host.query_log if q.startswith(("infer:", "solve:"))]


def _host():
    host = AnalysisHost()
    host.set_file(PATH, SAMPLE.read_text())
    host.analyze(PATH)
    return host


def test_body_edit_recomputes_only_that_function():
    host = _host()
    text = SAMPLE.read_text().replace("        out = self.bn2(out)\n", "        out = self.bn2(out) * 1\n")
    recomputed = _edit(host, text)
    assert recomputed and set(recomputed) == {"infer:BasicBlock.forward"}


def test_comment_edit_recomputes_nothing():
    host = _host()
    text = "# a comment above everything\n" + SAMPLE.read_text().replace("        identity = x\n", "        identity = x  # kept\n")
    assert _edit(host, text) == []


def test_signature_change_rechecks_callers():
    host = _host()
    text = SAMPLE.read_text().replace("def conv3x3(in_planes, out_planes, stride=1):",
                                      "def conv3x3(in_planes, out_planes, stride=1, groups=1):")
    recomputed = _edit(host, text)
    assert "infer:conv3x3" in recomputed and "infer:BasicBlock.__init__" in recomputed


def test_introducing_and_removing_a_bug():
    host = _host()
    buggy = SAMPLE.read_text().replace("nn.Linear(64 * block.expansion", "nn.Linear(60 * block.expansion")
    _edit(host, buggy)
    assert [d.code for d in host.analyze(PATH).diagnostics] == ["shape-mismatch"]
    _edit(host, SAMPLE.read_text())
    assert host.analyze(PATH).diagnostics == []


def test_a_callee_warning_that_reads_its_callers_defaults_survives_revalidation():
    # The attention block's warning holds "as the model is built by default", and those
    # defaults are the caller's (Block's generic instance). After the edit, the caller's
    # entry is validated by re-asking the changed callee without the caller on the stack:
    # such a verdict must make the caller re-run in its own context, as a fresh run does.
    path = str(SAMPLE.parent / "attention.py")
    text = (SAMPLE.parent / "attention.py").read_text()
    host = AnalysisHost()
    host.set_file(path, text)
    host.analyze(path)
    for old, new in [("self.transformer.h:", "self.txransformer.h:"),
                     ("q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)", "q = q")]:
        assert old in text
        text = text.replace(old, new, 1)
        host.set_file(path, text)
        got = _snapshot(host.analyze(path))
        fresh = AnalysisHost()
        fresh.set_file(path, text)
        assert got == _snapshot(fresh.analyze(path))
    assert any("batch2" in d.message for d in host.analyze(path).diagnostics)


_PIECES = ["x", " ", "\n", "(", ")", ":", "=", "    ", "# c\n", "𝔘", "é", "\r\n", "def f(:\n", "1",
           "torch.randn(2, 3)", "return", "'", '"""', "\t", "class", "self.fc(x)"]


# Derandomized: the same 25 sequences on every run, so CI's verdict does not change from run
# to run; a sequence a random run found failing is kept below as its own test.
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.sampled_from(["resnet_block.py", "lenet_wrong_linear.py", "attention.py"]),
       st.lists(st.tuples(st.floats(0, 1), st.integers(0, 12), st.sampled_from(_PIECES)), min_size=1, max_size=4))
def test_random_edit_sequences_equal_fresh_analysis(name, edits):
    text = (SAMPLE.parent / name).read_text()
    host = AnalysisHost()
    host.set_file(PATH, text)
    host.analyze(PATH)
    for where, delete, piece in edits:
        at = int(where * len(text))
        text = text[:at] + piece + text[at + delete:]
        host.set_file(PATH, text)
        assert _snapshot(host.analyze(PATH)) == _snapshot(_fresh(text))


def test_editing_an_imported_file_updates_its_importer(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    blocks = tmp_path / "pkg" / "blocks.py"
    blocks_text = ("from torch import nn\n\n\nclass Head(nn.Module):\n    def __init__(self):\n"
                   "        super().__init__()\n        self.fc = nn.Linear(128, 10)\n\n"
                   "    def forward(self, x):\n        return self.fc(x)\n")
    main = tmp_path / "main.py"
    main_text = "import torch\nfrom pkg.blocks import Head\n\nhead = Head()\ny = head(torch.randn(8, 128))\n"
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(main), main_text)
    host.set_file(str(blocks), blocks_text)
    shapes = lambda r: {f.text: f.shape for f in r.facts}  # noqa: E731
    assert shapes(host.analyze(str(main)))["y"] == "Tensor[8, 10]"
    host.set_file(str(blocks), blocks_text.replace("128, 10", "128, 20"))
    assert shapes(host.analyze(str(main)))["y"] == "Tensor[8, 20]"


def test_imports_from_a_src_layout_are_resolved_with_jedi(tmp_path):
    pkg = tmp_path / "src" / "mypkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "blocks.py").write_text("from torch import nn\n\n\nclass Head(nn.Module):\n"
                                   "    def __init__(self):\n        super().__init__()\n"
                                   "        self.fc = nn.Linear(128, 10)\n\n"
                                   "    def forward(self, x):\n        return self.fc(x)\n")
    main = tmp_path / "main.py"
    main.write_text("import torch\nfrom mypkg.blocks import Head\n\ny = Head()(torch.randn(8, 128))\n")
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(main), main.read_text())
    assert {f.text: f.shape for f in host.analyze(str(main)).facts}["y"] == "Tensor[8, 10]"


# Seeded random edits over every sample, including the seeds that once found differences:
# a class whose base turned Unknown (an import broken mid-edit) still had its old instance
# memoized (unet.py, 24); a call re-asked with a list appended to after the call
# (blocks_and_helpers.py, 39); a generic run's call re-asked as a plain call
# (transformer_lm.py, 175); a fact showing a list as later appends left it
# (blocks_and_helpers.py, 113).
# A sequence hypothesis once found: the first edit leaves the attention block with no example
# caller; the second breaks one of its lines (a syntax error now makes `q` Unknown).
def test_found_edit_sequence_equals_fresh_analysis():
    text = (SAMPLE.parent / "attention.py").read_text()
    host = AnalysisHost()
    host.set_file(PATH, text)
    host.analyze(PATH)
    for where, piece in [(0.84375, "x"), (0.3125, " ")]:
        at = int(where * len(text))
        text = text[:at] + piece + text[at:]
        host.set_file(PATH, text)
        assert _snapshot(host.analyze(PATH)) == _snapshot(_fresh(text))


_PIECES = ["x", "(", ")", "\n", "    ", "# c", "1", ", 2", ".view(-1)", "nn.Linear(3, 4)", "self.",
           "def f(x):\n    return x\n", "\n\n", "=", "[", "]", '"', "é"]
_SEEDED = [(name, seed) for name in sorted(p.name for p in SAMPLE.parent.glob("*.py")) for seed in (0, 1)]
_SEEDED += [("unet.py", 24), ("blocks_and_helpers.py", 39), ("blocks_and_helpers.py", 43),
            ("transformer_lm.py", 175), ("blocks_and_helpers.py", 113)]


@pytest.mark.parametrize("name,seed", _SEEDED)
def test_seeded_random_edits_equal_fresh_analysis(name, seed):
    rnd = random.Random(seed)
    path = str(SAMPLE.parent / name)
    text = (SAMPLE.parent / name).read_text()
    host = AnalysisHost()
    host.set_file(path, text)
    host.analyze(path)
    for _ in range(8):
        a = rnd.randrange(len(text) + 1)
        if rnd.random() < 0.5:
            text = text[:a] + rnd.choice(_PIECES) + text[a:]
        else:
            text = text[:a] + text[min(len(text), a + rnd.randint(1, 30)):]
        host.set_file(path, text)
        host.analyze(path)
    fresh = AnalysisHost()
    fresh.set_file(path, text)
    assert _snapshot(host.analyze(path)) == _snapshot(fresh.analyze(path))


def test_a_lambda_moved_twice_keeps_its_place(tmp_path):
    # An edit that moves a method down a line and changes its code after its lambda: the
    # method is lowered again and its lambda's unit reused, moved down. An edit to the class
    # header then lowers the class again and reuses the method's units: the lambda must
    # keep that move (it was one line lower than where it was first lowered).
    base = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n\n    def forward(self, x):\n        g = lambda t: t * 2\n"
            "        y = g(x)\n        return y\n\n\nM()(torch.randn(2, 3))\n")
    in_method = base.replace("return y\n", "return y + 1\n").replace("    def forward", "\n    def forward")
    in_header = in_method.replace("class M(nn.Module):", "class M(nn.Module):  # edited")
    path = str(tmp_path / "m.py")
    host = AnalysisHost()
    for text in (base, in_method, in_header):
        host.set_file(path, text)
        host.analyze(path)
    fresh = AnalysisHost()
    fresh.set_file(path, in_header)
    incremental, expected = _snapshot(host.analyze(path)), _snapshot(fresh.analyze(path))
    assert any(fact[1] == "t * 2" for fact in expected[0])
    assert incremental == expected


def test_modules_built_by_an_older_version_of_a_def_are_not_reused(tmp_path):
    # Deleting `super().` renumbers the nodes of __init__: the Linear that a diagnostic
    # points back to ("Linear defined here") must be the one the new code built.
    base = (Path(__file__).parent / "lsp" / "data" / "mnist_cnn.py").read_text()
    start = base.index("super().__init__()")
    edited = base[:start] + base[start + len("super()."):]
    path = str(tmp_path / "mnist_cnn.py")
    host = AnalysisHost()
    host.set_file(path, base)
    host.analyze(path)
    host.set_file(path, edited)
    fresh = AnalysisHost()
    fresh.set_file(path, edited)
    incremental, expected = host.analyze(path), fresh.analyze(path)
    assert incremental.diagnostics and incremental.diagnostics == expected.diagnostics


# Code with no driver (every def a symbolic generic context): a comment edit recomputes
# nothing (the last run is reused and its results placed on the new lines), an edit in one
# forward re-infers only that forward, and both equal a fresh analysis.
_NO_DRIVER = '''import torch.nn as nn
import torch.nn.functional as F


class LeNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(1)
        return self.fc2(F.relu(self.fc1(x)))


class Mlp(nn.Module):
    def __init__(self, dim=64, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        return x + self.fc2(h)
'''


def test_no_driver_edits_recompute_only_what_changed(tmp_path):
    path = str(tmp_path / "models.py")
    host = AnalysisHost()
    host.set_file(path, _NO_DRIVER)
    host.analyze(path)

    def edit(text):
        host.set_file(path, text)
        result = host.analyze(path)
        fresh = AnalysisHost()
        fresh.set_file(path, text)
        assert _snapshot(result) == _snapshot(fresh.analyze(path))
        return [q for q in host.query_log if q.startswith(("infer:", "solve:"))]

    run = host.engines[path]
    commented = _NO_DRIVER.replace("        h = F.gelu", "        # the hidden layer\n        h = F.gelu")
    assert edit(commented) == []
    assert edit("# a header comment\n" + commented) == []
    assert host.engines[path] is run  # no unit changed: the run itself was reused
    body = commented.replace("        x = x.flatten(1)\n", "        x = x.flatten(1)\n        x = x * 2\n")
    assert set(edit(body)) == {"infer:LeNet.forward"}
    assert edit(_NO_DRIVER) == []  # back to the first text: its runs are still memoized


def test_adding_a_subclass_reruns_the_base_class_methods():
    """A base class with no __init__ runs its forward on its subclasses' instances: a new
    subclass changes no unit that run reached, and must still be one of its contexts."""
    text = (SAMPLE.parent / "base_forward_nodriver.py").read_text()
    without = text[:text.index("class NarrowBottleneck")]
    host = AnalysisHost()
    host.set_file(PATH, without)
    host.analyze(PATH)
    for version in (text, without, text):
        _edit(host, version)


_LINES = ["        # a note\n", "\n", "x0 = 1\n", "    y = 2\n", "# top\n", "        z = x\n"]


@pytest.mark.parametrize("name", ["resnet_block.py", "transformer_lm.py", "blocks_and_helpers.py",
                                  "optional_part_nodriver.py", "unet.py", "symbolic.py"])
def test_facts_read_after_later_edits_equal_fresh_analysis(name):
    """An analysis leaves its facts to be made when first read (ide.build_file_analysis):
    read after later edits moved and re-parsed the lines (as a hover answered from an older
    result), they are still that text's facts."""
    rnd = random.Random(name)
    path = str(SAMPLE.parent / name)
    text = (SAMPLE.parent / name).read_text()
    host = AnalysisHost()
    kept = []
    for _ in range(5):
        host.set_file(path, text)
        kept.append((text, host.analyze(path)))
        lines = text.splitlines(keepends=True)
        at = rnd.randrange(len(lines))
        if rnd.random() < 0.6:
            lines[at:at] = [rnd.choice(_LINES)]
        else:
            del lines[at]
        text = "".join(lines)
    for old_text, result in reversed(kept):
        assert _snapshot(result) == _snapshot(_fresh_at(path, old_text))


def _fresh_at(path, text):
    host = AnalysisHost()
    host.set_file(path, text)
    return host.analyze(path)
