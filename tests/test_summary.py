"""The model summary (analysis/summary.py) and `shapesense summary`, without torch:
symbolic parameter counts, parameters vs plain tensors and buffers, inputs given on the
command line, a class built with its defaults, and errors."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from shapesense.analysis import summary
from shapesense.analysis.db import AnalysisHost

ROOT = Path(__file__).parent.parent


def _summary(tmp_path, code: str, target=None, inputs=None):
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(code))
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(path), path.read_text())
    return summary.summarize(host, str(path), target, inputs)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "shapesense", "summary", *args],
                          capture_output=True, text=True, timeout=120)


def test_symbolic_counts_for_a_class_no_call_builds(tmp_path):
    s = _summary(tmp_path, """
        import torch.nn as nn

        class Head(nn.Module):
            def __init__(self, dim, num_classes):
                super().__init__()
                self.norm = nn.LayerNorm(dim)
                self.fc = nn.Linear(dim, num_classes)

            def forward(self, x):
                B, T, C = x.shape
                return self.fc(self.norm(x))
        """)
    assert s.context == "symbolic"
    rows = [(r.name, r.type, r.depth, summary.dim_json(r.params)) for r in s.rows]
    assert rows == [("Head", "Head", 0, "2*dim + dim*num_classes + num_classes"),
                    ("norm", "LayerNorm", 1, "2*dim"),
                    ("fc", "Linear", 1, "dim*num_classes + num_classes")]
    assert s.lens_text().startswith("2*dim + dim*num_classes + num_classes params · Tensor[")
    assert s.lens_text().endswith(" -> Tensor[B, T, num_classes]"), s.lens_text()


def test_parameters_are_what_nn_parameter_wraps(tmp_path):
    s = _summary(tmp_path, """
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(4))
                self.frozen = nn.Parameter(torch.zeros(2, 3), requires_grad=False)
                self.table = torch.zeros(100)  # a plain tensor: not a parameter
                self.register_buffer("mean", torch.zeros(50))  # a buffer: not a parameter
                self.bn = nn.BatchNorm1d(4)  # weight + bias; running stats are buffers

            def forward(self, x):
                return self.bn(x * self.scale)

        m = M()
        y = m(torch.randn(8, 4))
        """, "M")
    assert (s.total_params, s.trainable_params) == (4 + 6 + 8, 4 + 8)
    assert s.param_bytes == 4 * 18
    assert [(r.name, r.output_shape, r.params) for r in s.rows] == [("M", (8, 4), 18), ("bn", (8, 4), 8)]


def test_a_parameter_of_another_class_or_behind_bool_of_a_flag(tmp_path):
    # `weight` is an nn.Parameter of Norm, not of Head (there a plain tensor passed in), and
    # `bool(affine)` keeps the flag: Norm has its 2 * 32 parameters
    s = _summary(tmp_path, """
        import torch
        import torch.nn as nn

        class Norm(nn.Module):
            def __init__(self, dim, affine=True):
                super().__init__()
                self.affine = bool(affine)
                if self.affine:
                    self.weight = nn.Parameter(torch.ones(dim))
                    self.bias = nn.Parameter(torch.zeros(dim))
                else:
                    self.weight, self.bias = None, None

            def forward(self, x):
                return x * self.weight + self.bias if self.affine else x

        class Head(nn.Module):
            def __init__(self, dim, vocab, weight):
                super().__init__()
                self.norm = Norm(dim)
                self.weight = weight
                self.bias = nn.Parameter(torch.zeros(vocab))

            def forward(self, x):
                return self.norm(x) @ self.weight.t() + self.bias

        head = Head(32, 25, torch.randn(25, 32))
        y = head(torch.randn(2, 32))
        """, "Head")
    assert [(r.name, r.params) for r in s.rows] == [("Head", 64 + 25), ("norm", 64)]


def test_module_level_variable_and_default_model(tmp_path):
    code = """
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, padding=1)

            def forward(self, x):
                return self.conv(x)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Block(4) for _ in range(3)])

            def forward(self, x):
                for b in self.blocks:
                    x = b(x)
                return x

        net = Net()
        out = net(torch.randn(2, 4, 8, 8))
        """
    default = _summary(tmp_path, code)
    by_name = _summary(tmp_path, code, "net")
    assert default.model == "Net" and by_name.model == "Net"
    # three Block(4): one value to the engine (a memoized constructor), three modules to torch
    rows = [(r.name, r.type, r.depth, r.output_shape, r.params) for r in default.rows]
    assert rows == [("Net", "Net", 0, (2, 4, 8, 8), 3 * 148),
                    ("blocks", "ModuleList", 1, None, 3 * 148),
                    ("0", "Block", 2, (2, 4, 8, 8), 148), ("conv", "Conv2d", 3, (2, 4, 8, 8), 148),
                    ("1", "Block", 2, (2, 4, 8, 8), 148), ("conv", "Conv2d", 3, (2, 4, 8, 8), 148),
                    ("2", "Block", 2, (2, 4, 8, 8), 148), ("conv", "Conv2d", 3, (2, 4, 8, 8), 148)]
    assert [(r.name, r.params) for r in by_name.rows] == [(r[0], r[4]) for r in rows]


def test_cli_inputs_json_and_text():
    sample = str(ROOT / "samples" / "mnist_cnn.py")
    out = _cli(f"{sample}:Net", "--input", "2,1,28,28", "--format", "json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["model"] == "Net" and got["context"] == "input"
    assert got["inputs"] == [[2, 1, 28, 28]] and got["output_shape"] == [2, 10]
    assert (got["total_params"], got["trainable_params"]) == (1199882, 1199882)
    assert [r["output_shape"] for r in got["rows"]] == [[2, 10], [2, 32, 26, 26], [2, 64, 24, 24],
                                                        [2, 64, 12, 12], [2, 128], [2, 128], [2, 10]]
    text = _cli(sample)
    assert text.returncode == 0
    assert "Total params: 1,199,882" in text.stdout
    assert "Forward (a call in the code): Tensor[64, 1, 28, 28] -> Tensor[64, 10]" in text.stdout


def test_cli_builds_a_class_with_its_defaults(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent("""
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self, c=8):
                super().__init__()
                self.conv = nn.Conv2d(3, c, 3)

            def forward(self, x):
                return self.conv(x)
        """))
    out = _cli(f"{path}:M", "--input", "1,3,10,10", "--format", "json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["total_params"] == 3 * 8 * 9 + 8
    assert [r["output_shape"] for r in got["rows"]] == [[1, 8, 8, 8], [1, 8, 8, 8]]


def test_cli_errors(tmp_path):
    sample = str(ROOT / "samples" / "mnist_cnn.py")
    missing = _cli(str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    unknown = _cli(f"{sample}:Nope")
    assert unknown.returncode == 2 and "no nn.Module named Nope (models: Net)" in unknown.stderr
    bad = _cli(sample, "--input", "1,x")
    assert bad.returncode == 2 and "expected comma-separated" in bad.stderr
    (tmp_path / "plain.py").write_text("x = 1\n")
    none = _cli(str(tmp_path / "plain.py"))
    assert none.returncode == 2 and "no nn.Module class" in none.stderr


def test_a_module_known_as_one_of_a_few(tmp_path):
    """A version check picks the layer: the row is one call of either, with the shape and
    count they share, and no count where they differ."""
    s = _summary(tmp_path, """
        import torch
        import torch.nn as nn

        if torch.__version__ >= "1.7":
            Act, Proj = nn.GELU, nn.Linear
        else:
            Act, Proj = nn.ReLU, nn.Bilinear

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = Act()
                self.proj = nn.Linear(4, 4) if torch.__version__ >= "2" else nn.Identity()

            def forward(self, x):
                return self.proj(self.act(x))

        y = M()(torch.randn(2, 4))
        """)
    rows = [(r.name, r.type, summary.dim_json(r.params), [summary.dim_json(d) for d in r.output_shape or ()])
            for r in s.rows]
    assert rows == [("M", "M", "?", [2, 4]), ("act", "GELU or ReLU", 0, [2, 4]),
                    ("proj", "Linear or Identity", "?", [2, 4])], rows
    assert summary.dim_json(s.total_params) == "?"


def test_tied_and_frozen_parameters(tmp_path):
    s = _summary(tmp_path, """
        import torch
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10, 4)
                self.out = nn.Linear(4, 10, bias=False)
                self.out.weight = self.emb.weight
                self.emb.requires_grad_(False)

            def forward(self, x):
                return self.out(self.emb(x))

        y = M()(torch.zeros(2, 3, dtype=torch.long))
        """)
    assert (s.total_params, s.trainable_params) == (40, 0)
    assert [(r.name, r.params, r.trainable) for r in s.rows] == [("M", 40, 0), ("emb", 40, 0), ("out", 40, 0)]


def test_a_module_a_sequential_subclass_did_not_take_still_counts(tmp_path):
    """torch registers every module attribute; one the engine's container did not take (one
    of a few) still holds parameters: the count says what it knows, never a smaller number."""
    s = _summary(tmp_path, """
        import torch
        import torch.nn as nn

        Norm = nn.BatchNorm2d if torch.__version__ >= "2" else nn.InstanceNorm2d

        class ConvNorm(nn.Sequential):
            def __init__(self, c):
                super().__init__()
                self.add_module("conv", nn.Conv2d(c, c, 1))
                self.add_module("norm", Norm(c))

        y = ConvNorm(4)(torch.randn(1, 4, 8, 8))
        """)
    assert s.rows[0].type == "ConvNorm"
    assert summary.dim_json(s.total_params) == "?", s.total_params  # BatchNorm 28 or InstanceNorm 20


def test_a_parametrization_that_may_not_run_leaves_the_count_unknown(tmp_path):
    """weight_norm on one way of an `if` the analysis cannot decide: the parameters are
    weight_g and weight_v on that way, weight on the other, so the count is not claimed;
    the same call on the way that runs is counted as torch counts it."""
    s = _summary(tmp_path, """
        import torch
        from torch import nn
        from torch.nn.utils.parametrizations import weight_norm

        class M(nn.Module):
            def __init__(self, gate):
                super().__init__()
                if gate.sum() > 0:
                    self.d = weight_norm(nn.Linear(4, 4))
                else:
                    self.d = nn.Linear(4, 4)
                self.e = weight_norm(nn.Linear(4, 4))

            def forward(self, x):
                return self.e(self.d(x))

        y = M(torch.randn(3))(torch.randn(2, 4))
        """, "M")
    counts = {r.name: summary.dim_json(r.params) for r in s.rows if r.depth == 1}
    assert counts == {"d": "?", "e": 24}, counts
    assert summary.dim_json(s.total_params) == "?"


def test_a_module_of_two_alike_ways_counts_its_parameters(tmp_path):
    """`self.d = nn.Linear(4, 4)` on both ways of an undecided `if`: one of two modules of
    20 parameters has 20 (its row said 0: the module it may be was taken as listed already)."""
    s = _summary(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self, gate):
                super().__init__()
                if gate.sum() > 0:
                    self.d = nn.Linear(4, 4)
                else:
                    self.d = nn.Linear(4, 4, bias=True)

            def forward(self, x):
                return self.d(x)

        y = M(torch.randn(3))(torch.randn(2, 4))
        """, "M")
    assert [(r.name, summary.dim_json(r.params)) for r in s.rows] == [("M", 20), ("d", 20)]
