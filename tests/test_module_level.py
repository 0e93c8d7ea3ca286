"""A module's top level with `try`/`if` statements: what it defines under and after them
stays usable, in the file itself and for every module that imports from it (as a
workspace module and as an installed library). samples/module_level.py has the one-file
idioms; these need several files."""
import textwrap

from shapesense.analysis.db import AnalysisHost, EngineSettings


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


LIB = """
import torch
from torch import nn

try:
    from torch.nn.utils.parametrizations import weight_norm
except ImportError:
    from torch.nn.utils import weight_norm

try:
    from apex.normalization import FusedLayerNorm as LayerNorm
except ImportError:
    LayerNorm = nn.LayerNorm

if hasattr(nn, "SiLU"):
    Swish = nn.SiLU
else:
    class Swish(nn.Module):
        def forward(self, x):
            return x * torch.sigmoid(x)

if torch.__version__ >= "1.7":
    Act = nn.GELU
else:
    Act = nn.ReLU


class Block(nn.Module):
    def __init__(self, a, b, k):
        super().__init__()
        self.c = nn.Conv2d(a, b, k)
        self.act = Swish()
        self.act2 = Act()

    def forward(self, x):
        return self.act2(self.act(self.c(x)))


class Norm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = LayerNorm(dim)

    def forward(self, x):
        return self.norm(x)
"""

USE = """
import torch
from {module} import Block, Norm

y = Block(3, 8, 3)(torch.randn(2, 3, 16, 16))
z = Norm(8)(torch.randn(2, 5, 8))
"""


def _target_shapes(result):
    return {f.text: f.shape for f in result.facts if f.is_target}


def test_an_imported_workspace_module_with_top_level_try_and_if(tmp_path):
    lib = _write(tmp_path, "lib.py", LIB)
    user = _write(tmp_path, "use.py", USE.format(module="lib"))
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(lib), lib.read_text())
    host.set_file(str(user), user.read_text())
    result = host.analyze(str(user))
    shapes = _target_shapes(result)
    assert shapes["y"] == "Tensor[2, 8, 14, 14]"
    assert shapes["z"] == "Tensor[2, 5, 8]"
    assert result.diagnostics == []


def test_an_installed_library_with_top_level_try_and_if(tmp_path):
    site = tmp_path / "site"
    _write(site, "shimlib/__init__.py", "from .layers import Block, Norm\n")
    _write(site, "shimlib/layers.py", LIB)
    user = _write(tmp_path, "ws/use.py", USE.format(module="shimlib"))
    host = AnalysisHost(EngineSettings(library_paths=(str(site),)), workspace_root=str(user.parent))
    host.set_file(str(user), user.read_text())
    result = host.analyze(str(user))
    shapes = _target_shapes(result)
    assert shapes["y"] == "Tensor[2, 8, 14, 14]"
    assert shapes["z"] == "Tensor[2, 5, 8]"
    assert result.diagnostics == []


BRANCH = """
import os
import torch
from torch import nn

if os.environ.get("WIDE"):
    def width():
        return 16
    def make():
        return nn.Linear(8, width())
    inside = make()(torch.randn(2, 8))
else:
    def narrow():
        return 4
    def make_narrow():
        return nn.Linear(8, narrow())
    other = make_narrow()(torch.randn(3, 8))
"""


def test_functions_defined_in_an_undecided_top_level_branch_see_each_other(tmp_path):
    """`make` reads the global `width` that only its own branch has bound so far."""
    user = _write(tmp_path, "m.py", BRANCH)
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(user), user.read_text())
    result = host.analyze(str(user))
    shapes = _target_shapes(result)
    assert shapes["inside"] == "Tensor[2, 16]"
    assert shapes["other"] == "Tensor[3, 4]"
    assert result.diagnostics == []


SHADOWED = """
import os
import torch
from torch import nn

t = torch.randn(2, 3)

def f(x):
    return x.sum(0)

a = f(t)

def f(x):
    return x.sum(1)

b = f(t)

if os.environ.get("WIDE"):
    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.l = nn.Linear(dim, dim * 2)

        def forward(self, x):
            return self.l(x)
else:
    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.l = nn.Linear(dim, dim * 3)

        def forward(self, x):
            return self.l(x)

y = Block(8)(torch.randn(2, 8))
"""


def test_a_def_shadowed_by_another_of_the_same_name_never_runs_its_body(tmp_path):
    """Two defs with one qualified name: the first must not run the second's body (it
    showed `a` as Tensor[2], and Block(8) as Tensor[2, 16] whichever branch runs)."""
    user = _write(tmp_path, "m.py", SHADOWED)
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(user), user.read_text())
    result = host.analyze(str(user))
    shapes = _target_shapes(result)
    assert "a" not in shapes
    assert shapes["b"] == "Tensor[2]"
    # (one class is analysed, the other is not: known one way only, its rank is shown)
    assert shapes.get("y") in (None, "Tensor[2, ?]", "Tensor[?, ?]")
    assert result.diagnostics == []


UNDECIDED_SHAPES = """
import os
import torch
from torch import nn

if os.environ.get("BIG"):
    Layer = nn.Linear(8, 32)
else:
    Layer = nn.Linear(8, 16)

out = Layer(torch.randn(2, 8))
bad = nn.Linear(20, 4)(out)
"""


def test_a_value_the_branches_disagree_on_is_never_a_shape_or_a_diagnostic(tmp_path):
    user = _write(tmp_path, "m.py", UNDECIDED_SHAPES)
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(user), user.read_text())
    result = host.analyze(str(user))
    shapes = _target_shapes(result)
    assert shapes.get("out") in (None, "Tensor[2, ?]")
    assert result.diagnostics == []


HANDLERS = """
import torch
from torch import nn

try:
    from apex.normalization import FusedLayerNorm as Norm1
except:
    Norm1 = nn.LayerNorm

try:
    from apex.normalization import FusedLayerNorm as Norm2
except (KeyError, ModuleNotFoundError):
    Norm2 = nn.LayerNorm

try:
    from apex.normalization import FusedLayerNorm as Norm3
except KeyError:  # an ImportError is not caught: the module would stop here at runtime
    Norm3 = nn.LayerNorm

a = Norm1(8)(torch.randn(2, 8))
b = Norm2(8)(torch.randn(2, 8))
c = Norm3(8)(torch.randn(2, 8))
d = nn.Linear(8, 4)(torch.randn(2, 8))
"""


def test_which_handlers_take_over_from_an_import_that_fails(tmp_path):
    """A bare except and one naming ModuleNotFoundError catch the failed import: their
    fallback is the value. One that catches something else does not: the import is
    analysed as written (Unknown, the library is not there), and the module goes on."""
    user = _write(tmp_path, "m.py", HANDLERS)
    host = AnalysisHost(EngineSettings(library_paths=()), workspace_root=str(tmp_path))
    host.set_file(str(user), user.read_text())
    result = host.analyze(str(user))
    shapes = _target_shapes(result)
    assert shapes["a"] == "Tensor[2, 8]"
    assert shapes["b"] == "Tensor[2, 8]"
    assert "c" not in shapes
    assert shapes["d"] == "Tensor[2, 4]"
    assert result.diagnostics == []
