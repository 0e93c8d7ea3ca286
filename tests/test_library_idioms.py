"""Library idioms (samples/library_idioms.py has the shapes): what the engine must not claim
where torch would raise or where a value is not known."""
from shapesense.analysis.db import AnalysisHost


def _facts(text, path="/ws/idioms.py"):
    host = AnalysisHost()
    host.set_file(path, text)
    result = host.analyze(path)
    return {f.text: f.shape for f in result.facts if f.is_target}, result.diagnostics


def _facts_of_files(root, others, main):
    """The facts and diagnostics of `main` in a workspace of it and `others` (files on disk)."""
    host = AnalysisHost(workspace_root=str(root))
    for f in [*others, main]:
        host.set_file(str(f), f.read_text())
    result = host.analyze(str(main))
    return {f.text: f.shape for f in result.facts if f.is_target}, result.diagnostics


def test_a_layer_built_with_a_none_size_is_unknown_not_a_none_dim():
    # A branch of a def nobody calls builds nn.Linear(dim, None) from a None default;
    # torch raises a TypeError there, so the layer is Unknown, never Tensor[.., None].
    text = (
        "import torch\n"
        "from torch import nn\n"
        "class A(nn.Module):\n"
        "    def __init__(self, dim, dim_latent=None, use_latent=False):\n"
        "        super().__init__()\n"
        "        self.use_latent = use_latent\n"
        "        self.latent = nn.Linear(dim, dim_latent) if use_latent else None\n"
        "    def forward(self, x):\n"
        "        if self.use_latent:\n"
        "            x = self.latent(x)\n"
        "        return x\n"
        "y = nn.Linear(8, None)(torch.randn(2, 8))\n"
    )
    shapes, diagnostics = _facts(text)
    assert "y" not in shapes
    assert not any("None" in s for s in shapes.values()), shapes
    assert not diagnostics


def test_ceil_of_a_division_by_a_symbol_is_a_symbolic_size():
    text = (
        "import math\n"
        "import torch\n"
        "from torch import nn\n"
        "class Landmarks(nn.Module):\n"
        "    def __init__(self, num_landmarks=8):\n"
        "        super().__init__()\n"
        "        self.m = num_landmarks\n"
        "    def forward(self, x):\n"
        "        b, n, d = x.shape\n"
        "        groups = math.ceil(n / self.m)\n"
        "        scaled = x / groups\n"
        "        grid = torch.zeros(b, groups)\n"
        "        return scaled, grid\n"
    )
    shapes, diagnostics = _facts(text)
    assert shapes["scaled"] == "Tensor[b, n, d]"
    grid = shapes["grid"]
    assert grid.startswith("Tensor[b, ") and "num_landmarks" in grid and "?" not in grid, grid
    assert not diagnostics


def test_type_name_of_a_tensor_only_serves_to_cast_to_it():
    # t.type() is 'torch.FloatTensor' or 'torch.cuda.FloatTensor': the device is not
    # known, so comparing it with a string decides nothing.
    text = (
        "import torch\n"
        "x = torch.randn(2, 3)\n"
        "y = torch.zeros(3).type(x.type())\n"
        "if x.type() == 'torch.cuda.FloatTensor':\n"
        "    z = torch.zeros(1)\n"
        "else:\n"
        "    z = torch.zeros(2)\n"
    )
    host = AnalysisHost()
    host.set_file("/ws/idioms.py", text)
    result = host.analyze("/ws/idioms.py")
    assert {f.shape for f in result.facts if f.is_target and f.text == "y"} == {"Tensor[3]"}
    # both branches ran: the comparison was not decided
    assert {f.shape for f in result.facts if f.is_target and f.text == "z"} == {"Tensor[1]", "Tensor[2]"}
    assert not result.diagnostics


def test_layer_specs_have_torch_constructor_parameters():
    # inspect.signature(layer).parameters is answered from the specs (monai's has_option):
    # a layer spec must name every parameter torch's constructor has.
    import inspect

    torch = __import__("pytest").importorskip("torch")
    from shapesense.analysis.ops.spec import REGISTRY
    from shapesense.analysis.pybuiltins import VARARG_LAYERS

    checked, missing = 0, []
    for name, spec in REGISTRY.items():
        if spec.kind != "module" or not name.startswith("torch.nn."):
            continue
        obj = torch.nn
        for part in name.split(".")[2:]:
            obj = getattr(obj, part, None)
        if obj is None:
            continue
        theirs = set(inspect.signature(obj).parameters)
        if name in VARARG_LAYERS:
            assert theirs == {"args", "kwargs"}, name
        elif theirs - set(spec.signature.parameters):
            missing.append((name, sorted(theirs - set(spec.signature.parameters))))
        checked += 1
    assert checked > 100
    assert not missing, missing


def test_from_a_namespace_package_import_a_submodule(tmp_path):
    # pytorch-tabnet has no __init__.py: `from pytorch_tabnet import sparsemax` is its module
    pkg = tmp_path / "nspkg"
    pkg.mkdir()
    (pkg / "layers.py").write_text("from torch import nn\n\n\ndef head(n):\n    return nn.Linear(8, n)\n")
    main = tmp_path / "main.py"
    main.write_text("import torch\nfrom nspkg import layers\n\ny = layers.head(3)(torch.randn(2, 8))\n")
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(main), main.read_text())
    result = host.analyze(str(main))
    assert {f.text: f.shape for f in result.facts if f.is_target}["y"] == "Tensor[2, 3]"
    assert not result.diagnostics


def test_next_fast_len_agrees_with_scipy():
    # The model of scipy's FFT sizes (pybuiltins._next_fast_len), against scipy itself: both
    # spellings, the `real=` switch, and sizes up to the 2**20 past which it is not searched.
    import pytest
    scipy_fft = pytest.importorskip("scipy.fft")
    fftpack = pytest.importorskip("scipy.fftpack")
    from shapesense.analysis import pybuiltins
    from shapesense.analysis.values import SOME_INT

    call = pybuiltins.call_builtin
    targets = list(range(1, 400)) + [997, 1021, 4099, 65537, 900_001, 1 << 20]
    for n in targets:
        assert call(None, "scipy.fftpack.next_fast_len", [n], {}, None) == fftpack.next_fast_len(n), n
        assert call(None, "scipy.fft.next_fast_len", [n], {}, None) == scipy_fft.next_fast_len(n), n
        assert call(None, "scipy.fft.next_fast_len", [n], {"real": True}, None) == \
            scipy_fft.next_fast_len(n, real=True), n
    assert call(None, "scipy.fft.next_fast_len", [(1 << 20) + 1], {}, None) is SOME_INT


def test_a_layer_handed_to_code_not_known_shows_no_seen_call_as_the_only_one():
    # The model hands its Attention to a wrapper nothing is known of, which calls it in ways
    # not seen: the shapes of the one call seen (`a(torch.randn(3, 16))`) are not the only ones.
    text = (
        "import torch\n"
        "from torch import nn\n"
        "from not_installed import make_wrapper\n"
        "class Attention(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(dim, dim)\n"
        "    def forward(self, x):\n"
        "        y = self.proj(x)\n"
        "        return y\n"
        "class Model(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.block = make_wrapper(branch=Attention(dim))\n"
        "    def forward(self, x):\n"
        "        return self.block(x)\n"
        "out = Model(16)(torch.randn(2, 5, 16))\n"
        "z = Attention(16)(torch.randn(3, 16))\n"
    )
    shapes, diagnostics = _facts(text)
    assert shapes["z"] == "Tensor[3, 16]"
    assert shapes["y"] != "Tensor[3, 16]", shapes
    assert not diagnostics


def test_a_module_attribute_set_from_outside_is_the_modules_global(tmp_path):
    # litgpt's Config looks its MLP class up in litgpt.model; a script points that name at
    # its own class with setattr: the module's code then reads that class.
    (tmp_path / "registry.py").write_text(
        "from torch import nn\n"
        "MLP = nn.Identity\n"
        "def build(dim):\n"
        "    return MLP(dim)\n")
    main = tmp_path / "main.py"
    main.write_text(
        "import torch\n"
        "from torch import nn\n"
        "import registry\n"
        "class Wide(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(dim, 4 * dim)\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n"
        "setattr(registry, 'MLP', Wide)\n"
        "y = registry.build(8)(torch.randn(2, 8))\n")
    shapes, _ = _facts_of_files(tmp_path, [tmp_path / "registry.py"], main)
    assert shapes.get("y") == "Tensor[2, 32]", shapes


_GENERATE_LIKE = (
    "import torch\n"
    "from torch import nn\n"
    "from not_installed import GenerationMixin\n"
    "class Encoder(nn.Module):\n"
    "    def __init__(self, dim):\n"
    "        super().__init__()\n"
    "        self.emb = nn.Embedding(50, dim)\n"
    "        self.proj = nn.Linear(dim, dim)\n"
    "    def forward(self, ids):\n"
    "        h = self.proj(self.emb(ids))\n"
    "        return h\n"
    "class LM(nn.Module, GenerationMixin):\n"
    "    def __init__(self, dim):\n"
    "        super().__init__()\n"
    "        self.enc = Encoder(dim)\n"
    "        self.head = nn.Linear(dim, 50)\n"
    "    def forward(self, ids):\n"
    "        logits = self.head(self.enc(ids))\n"
    "        return logits\n"
    "m = LM(16)\n"
    "out = m(torch.randint(0, 50, (2, 7)))\n"
)


def test_a_model_method_not_known_may_call_its_forward_with_other_sizes():
    # `m.generate(ids, num_beams=2)` of a base class not read runs the model's forward with
    # batch x beams and one token at a time: the seen call's sizes are not the only ones,
    # down to the layers the forward calls; the sizes its weights fix still hold.
    shapes, diagnostics = _facts(_GENERATE_LIKE + "seq = m.generate(torch.randint(0, 50, (2, 7)), num_beams=2)\n")
    assert shapes["logits"] == "Tensor[?, ?, 50]", shapes
    assert shapes["h"] == "Tensor[?, ?, 16]", shapes
    assert not diagnostics
    # Without that call, the seen call is the only one.
    shapes, _ = _facts(_GENERATE_LIKE)
    assert shapes["logits"] == "Tensor[2, 7, 50]" and shapes["h"] == "Tensor[2, 7, 16]", shapes
    # A method of torch's own nn.Module calls no forward: nothing changes.
    shapes, _ = _facts(_GENERATE_LIKE + "sd = m.state_dict()\n")
    assert shapes["logits"] == "Tensor[2, 7, 50]", shapes
    # A model whose bases are all read has no method the analysis cannot find: an attribute
    # it cannot resolve is no code run with the model as self.
    plain = _GENERATE_LIKE.replace("class LM(nn.Module, GenerationMixin):", "class LM(nn.Module):")
    shapes, _ = _facts(plain + "seq = m.generate(torch.randint(0, 50, (2, 7)), num_beams=2)\n")
    assert shapes["logits"] == "Tensor[2, 7, 50]", shapes
    # After edits elsewhere (the encoder's calls reused from memo), the same as from scratch.
    host = AnalysisHost()
    text = _GENERATE_LIKE + "seq = m.generate(torch.randint(0, 50, (2, 7)), num_beams=2)\n"
    for edited in (text, text + "extra = torch.zeros(3)\n", text.replace("self.head(", "self.head(1 * ")):
        host.set_file("/ws/idioms.py", edited)
        got = {f.text: f.shape for f in host.analyze("/ws/idioms.py").facts if f.is_target}
        assert got == _facts(edited)[0], edited
        assert got["h"] == "Tensor[?, ?, 16]", got


def test_fastcore_store_attr_stores_the_callers_arguments(tmp_path):
    # fastai's modules call fastcore's store_attr(), which reads its caller's frame: the
    # method's arguments (all, or those named; but those in `but`) become attributes.
    pkg = tmp_path / "fastcore"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "basics.py").write_text(
        "import sys\n"
        "def store_attr(names=None, self=None, but='', cast=False, **attrs):\n"
        "    fr = sys._getframe(1)\n"
        "    raise NotImplementedError  # (the analysis never reads this body)\n")
    main = tmp_path / "main.py"
    main.write_text(
        "import torch\n"
        "from torch import nn\n"
        "from fastcore.basics import store_attr\n"
        "class Lin(nn.Module):\n"
        "    def __init__(self, ni, nf, extra=5):\n"
        "        super().__init__()\n"
        "        store_attr(but='extra')\n"
        "        self.fc = nn.Linear(self.ni, self.nf)\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n"
        "class Enc(nn.Module):\n"
        "    def __init__(self, module, pad_idx=1, unused=None):\n"
        "        super().__init__()\n"
        "        store_attr('module,pad_idx', scale=3)\n"
        "    def forward(self, ids):\n"
        "        mask = ids == self.pad_idx\n"
        "        return self.module(ids) * self.scale, mask\n"
        "y = Lin(3, 7)(torch.randn(2, 3))\n"
        "out, m = Enc(nn.Embedding(10, 6))(torch.randint(0, 10, (2, 5)))\n")
    shapes, diagnostics = _facts_of_files(tmp_path, [pkg / "basics.py"], main)
    assert shapes.get("y") == "Tensor[2, 7]", shapes
    assert shapes.get("out") == "Tensor[2, 5, 6]" and shapes.get("m") == "Tensor[2, 5]", shapes
    assert shapes.get("mask") == "Tensor[2, 5]", shapes
    assert not diagnostics
