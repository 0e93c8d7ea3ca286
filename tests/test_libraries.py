"""Installed libraries analysed from source: resolution through a library path, lazy
packages (only the submodule that defines a name runs), and libraries that do not depend
on torch kept opaque. The library folder is made here (nothing is installed)."""
import textwrap

from shapesense.analysis.db import AnalysisHost, EngineSettings
from shapesense.analysis.libraries import _torch_dependents


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _dist(site, name, top, requires):
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: %s\n" % name + "".join(f"Requires-Dist: {r}\n" for r in requires))
    (info / "RECORD").write_text(f"{top}/__init__.py,,\n{info.name}/METADATA,,\n")


def _site(tmp_path):
    site = tmp_path / "site"
    _write(site, "blocklib/__init__.py", """
        from .blocks import Block
        from .heavy import Unused
    """)
    _write(site, "blocklib/blocks.py", """
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, dim, hidden):
                super().__init__()
                self.fc = nn.Linear(dim, hidden)

            def forward(self, x):
                return self.fc(x).relu()
    """)
    _write(site, "blocklib/heavy.py", "import torch\nclass Unused:\n    pass\n")
    _write(site, "quietlib/__init__.py", "def make(n):\n    return n\n")
    # helpers over einops (einops-exts' style): about tensors, though torch is not required
    _write(site, "manylib/__init__.py", """
        from einops import rearrange

        def _many(fn):
            def inner(tensors, pattern, **kwargs):
                return (fn(t, pattern, **kwargs) for t in tensors)
            return inner

        rearrange_many = _many(rearrange)
    """)
    _dist(site, "blocklib", "blocklib", ["torch>=2.0", "numpy"])
    _dist(site, "quietlib", "quietlib", ["pyyaml", "tqdm; extra == 'torch'"])
    _dist(site, "manylib", "manylib", ["einops (>=0.4)"])
    return site


USER = """
import torch
from blocklib import Block
from quietlib import make
from manylib import rearrange_many

b = Block(8, 16)
y = b(torch.randn(4, 8))
n = make(3)
q, k = rearrange_many((torch.randn(2, 5, 32), torch.randn(2, 7, 32)), 'b n (h d) -> b h n d', h=4)
"""


def test_a_library_block_gives_shapes_and_only_its_module_runs(tmp_path):
    site = _site(tmp_path)
    user = tmp_path / "ws" / "model.py"
    user.parent.mkdir()
    user.write_text(USER)
    host = AnalysisHost(EngineSettings(library_paths=(str(site),)), workspace_root=str(user.parent))
    host.set_file(str(user), USER)
    result = host.analyze(str(user))
    shapes = {f.text: f.shape for f in result.facts if f.is_target}
    assert shapes["y"] == "Tensor[4, 16]"
    assert (shapes["q"], shapes["k"]) == ("Tensor[2, 4, 5, 8]", "Tensor[2, 4, 7, 8]")  # read: it needs einops
    loaded = {p.rsplit("site/", 1)[-1] for p in host.files if "site" in p}
    assert "blocklib/blocks.py" in loaded
    assert "blocklib/heavy.py" not in loaded  # lazy: nothing asked for it
    assert not any(p.startswith("quietlib") for p in loaded)  # no torch dependency: opaque
    assert result.diagnostics == []


def test_a_library_that_imports_torch_without_declaring_it_is_read(tmp_path):
    # research packages often leave torch out of their metadata (it is "already installed")
    site = tmp_path / "site"
    _write(site, "protlib/__init__.py", "from .data import Vocab\n")
    _write(site, "protlib/constants.py", "TOKS = {'toks': ['A', 'C', 'D', 'E']}\n")
    _write(site, "protlib/data.py", """
        from protlib.constants import TOKS

        class Vocab:
            def __init__(self, extra=("<pad>", "<eos>")):
                self.all_toks = list(extra) + TOKS["toks"]
                self.index = {t: i for i, t in enumerate(self.all_toks)}
                self.eos_idx = self.index["<eos>"]
    """)
    _write(site, "protlib/model.py", "import torch\n")
    _dist(site, "protlib", "protlib", ["biopython ; extra == 'fold'"])
    text = "import torch\nfrom protlib import Vocab\nv = Vocab()\nz = torch.zeros(len(v.all_toks), v.eos_idx)\n"
    assert _target_shapes(tmp_path, site, text)["z"] == "Tensor[6, 1]"


def _target_shapes(tmp_path, site, text) -> dict:
    """{target: shape} of a workspace file `text` analysed with the library folder `site`."""
    user = tmp_path / "ws" / "model.py"
    user.parent.mkdir(exist_ok=True)
    host = AnalysisHost(EngineSettings(library_paths=(str(site),)), workspace_root=str(user.parent))
    host.set_file(str(user), text)
    return {f.text: f.shape for f in host.analyze(str(user)).facts if f.is_target}


def test_a_torch_import_in_a_private_folder_or_a_function_keeps_a_library_opaque(tmp_path):
    # scipy vendors a torch compatibility layer under `_lib/` and tries `import torch` in its
    # conftest: still a library about arrays, and its `pad_len` stays opaque (not read)
    site = tmp_path / "site"
    _write(site, "arrlib/__init__.py", "def pad_len(n):\n    return n + 1\n")
    _write(site, "arrlib/_compat/torch_shim.py", "import torch\n")
    _write(site, "arrlib/conftest.py", "def backends():\n    import torch\n")
    _dist(site, "arrlib", "arrlib", ["numpy"])
    text = "import torch\nfrom arrlib import pad_len\nz = torch.zeros(pad_len(3))\n"
    assert "z" not in _target_shapes(tmp_path, site, text)  # torch.zeros of a number not known
    _write(site, "arrlib/ops.py", "import torch\n")  # a public module importing torch: read
    assert _target_shapes(tmp_path, site, text)["z"] == "Tensor[4]"


def test_no_library_path_means_no_library(tmp_path):
    site = _site(tmp_path)
    user = tmp_path / "model.py"
    host = AnalysisHost(EngineSettings(library_paths=()))
    host.set_file(str(user), USER)
    shapes = {f.text: f.shape for f in host.analyze(str(user)).facts if f.is_target}
    assert "y" not in shapes
    assert _torch_dependents(str(site)) == {"blocklib": True, "quietlib": False, "manylib": True}


BUGGY = """
import torch
from blocklib import Block

y = Block(8, 16)(torch.randn(4, 9))
"""


def test_cli_finds_libraries_through_the_given_interpreter(tmp_path):
    """`shapesense check --python PY`: PY's sys.path (here a venv whose .pth adds the
    library folder) decides which libraries are read; the bug is inside the library call."""
    import subprocess
    import sys
    import venv

    site = _site(tmp_path)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "venv" / purelib.split(str(env_dir) + "/", 1)[1] / "blocklib.pth").write_text(str(site) + "\n")
    user = tmp_path / "ws" / "model.py"
    user.parent.mkdir()
    user.write_text(BUGGY)
    run = [sys.executable, "-m", "shapesense", "check", str(user)]
    found = subprocess.run(run + ["--python", str(py)], capture_output=True, text=True, cwd=tmp_path)
    assert found.returncode == 1, found.stdout + found.stderr
    assert "mat1 and mat2 shapes cannot be multiplied (4x9 and 8x16)" in found.stdout
    plain = subprocess.run(run + ["--python", sys.executable], capture_output=True, text=True, cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    missing = subprocess.run(run + ["--python", str(tmp_path / "no-such-python")], capture_output=True,
                             text=True, cwd=tmp_path)
    assert missing.returncode == 2 and "cannot run" in missing.stderr


def test_transformers_is_read_from_source_like_any_library(tmp_path):
    # Hugging Face model files build on transformers' own layers (GPT-2's Conv1D): a package
    # of that name is no special case, its source is read.
    site = tmp_path / "site"
    _write(site, "transformers/__init__.py", "")
    _write(site, "transformers/pytorch_utils.py", """
        import torch
        from torch import nn

        class Conv1D(nn.Module):
            def __init__(self, nf, nx):
                super().__init__()
                self.nf = nf
                self.weight = nn.Parameter(torch.empty(nx, nf))
                self.bias = nn.Parameter(torch.zeros(nf))

            def forward(self, x):
                size_out = x.size()[:-1] + (self.nf,)
                x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
                return x.view(size_out)
    """)
    _dist(site, "transformers", "transformers", ["torch>=2.0"])
    text = "import torch\nfrom transformers.pytorch_utils import Conv1D\ny = Conv1D(12, 8)(torch.randn(2, 5, 8))\n"
    assert _target_shapes(tmp_path, site, text)["y"] == "Tensor[2, 5, 12]"


def test_a_library_import_on_an_undecided_way_is_not_followed(tmp_path):
    # Optional integrations (`if is_transformers_available(): from transformers import ...`,
    # `if TYPE_CHECKING or SLOW_IMPORT: from .models import ...`) made one diffusers file
    # read 1,100 modules; what the model's code uses comes from the unconditional imports.
    site = tmp_path / "site"
    _write(site, "difflib2/__init__.py", "")
    _write(site, "difflib2/extras.py", "import torch\nclass Integration:\n    pass\n")
    _write(site, "difflib2/blocks.py", """
        import importlib.util
        import torch.nn as nn

        import torch

        if importlib.util.find_spec("accelerate") is not None:
            from difflib2.extras import Integration
        if int(torch.__version__.split(".")[0]) >= 2:
            import torch.fft  # a name the engine models: bound as anywhere else, torch stays torch

        class Mixer(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.proj = nn.Linear(width, 2 * width)

            def forward(self, x):
                return torch.tanh(self.proj(x))
    """)
    _dist(site, "difflib2", "difflib2", ["torch>=2.0"])
    user = tmp_path / "ws" / "model.py"
    user.parent.mkdir()
    text = "import torch\nfrom difflib2.blocks import Mixer\ny = Mixer(8)(torch.randn(4, 8))\n"
    host = AnalysisHost(EngineSettings(library_paths=(str(site),)), workspace_root=str(user.parent))
    host.set_file(str(user), text)
    shapes = {f.text: f.shape for f in host.analyze(str(user)).facts if f.is_target}
    assert shapes["y"] == "Tensor[4, 16]"
    loaded = {p.rsplit("site/", 1)[-1] for p in host.files if "site" in p}
    assert "difflib2/blocks.py" in loaded and "difflib2/extras.py" not in loaded


def test_torch_behind_an_extra_named_for_it_reads_only_that_subpackage(tmp_path):
    # gluonts[torch]: the models live in gluonts.torch; its config layer (pydantic validators
    # wrapping __init__) stays opaque, as for a library without torch
    site = tmp_path / "site"
    _write(site, "fclib/__init__.py", "")
    _write(site, "fclib/core.py", "def width(n):\n    return n + 1\n")
    _write(site, "fclib/torch/__init__.py", "")
    _write(site, "fclib/torch/blocks.py", """
        import torch.nn as nn

        class Head(nn.Module):
            def __init__(self, dim, out):
                super().__init__()
                self.fc = nn.Linear(dim, out)

            def forward(self, x):
                return self.fc(x)
    """)
    _dist(site, "fclib", "fclib", ["pandas", "torch<3,>=2.0; extra == 'torch'"])
    text = ("import torch\nfrom fclib.core import width\nfrom fclib.torch.blocks import Head\n"
            "y = Head(8, 3)(torch.randn(2, 8))\nz = torch.zeros(width(3))\n")
    shapes = _target_shapes(tmp_path, site, text)
    assert shapes["y"] == "Tensor[2, 3]"
    assert "z" not in shapes  # fclib.core: not read
