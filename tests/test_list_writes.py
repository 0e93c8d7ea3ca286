"""Writes into a Python list that later becomes a shape: a write the engine cannot place
must never leave the list as it was (that would be a wrong shape, not an unknown one).
samples/shape_lists.py has the writes it can place."""
import textwrap

from shapesense.analysis.db import AnalysisHost

def _analyse(tmp_path, code: str):
    """The analysis of `code` as a file, and the shape of each assigned name."""
    path = tmp_path / "m.py"
    path.write_text(code)
    host = AnalysisHost(workspace_root=str(tmp_path))
    host.set_file(str(path), path.read_text())
    result = host.analyze(str(path))
    return result, {f.text: f.shape for f in result.facts if f.is_target}


CODE = """
import torch
from somewhere import mystery

x = torch.randn(2, 4, 6)
shape = list(x.shape)
shape[mystery()] = 3
a = torch.zeros(shape)
shape2 = list(x.shape)
shape2[mystery():] = [24]
b = torch.zeros(shape2)
shape3 = list(x.shape)
shape3[0:2] = mystery()
c = torch.zeros(shape3)
shape4 = [1, 1, 1]
shape4[mystery()] = 1
d = torch.zeros(shape4)
"""


def test_a_write_at_a_position_not_known_is_not_ignored(tmp_path):
    result, shapes = _analyse(tmp_path, textwrap.dedent(CODE))
    assert shapes["a"] == "Tensor[?, ?, ?]"  # any one of the three may be 3 now
    assert shapes.get("b") in (None, "Tensor[...]")  # how many items are left is not known
    assert shapes.get("c") in (None, "Tensor[...]")
    assert shapes["d"] == "Tensor[1, 1, 1]"  # writing 1 over a 1 changes nothing
    assert result.diagnostics == []


COMPARE = """
import torch
from somewhere import mystery

x = torch.randn(2, 3)
items = []
for _ in range(mystery()):  # how many: not known
    items.append(1)
if items == [1]:  # items not known: either way
    y = x.sum(0)
else:
    y = x.sum(1)
a = y
if items == 1:  # a list never equals a number
    x = x.sum(0)
b = x
"""


def test_a_list_of_unknown_items_compared_stays_undecided(tmp_path):
    result, shapes = _analyse(tmp_path, textwrap.dedent(COMPARE))
    assert shapes["a"] == "Tensor[?]"  # Tensor[3] or Tensor[2]
    assert shapes["b"] == "Tensor[2, 3]"
    assert result.diagnostics == []


AFTER_LOOP = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers.append(nn.Linear(dim, dim))
        layers.append(nn.Linear(dim, 10))
        self.layers = nn.ModuleList(layers)
        stem = nn.Sequential()
        for i in range(depth):
            stem.add_module(f"block{i}", nn.Linear(dim, dim))
        stem.add_module("head", nn.Linear(dim, 7))
        self.stem = stem

    def forward(self, x):
        b, t, c = x.shape
        y = self.stem(x)
        feats = []
        for _ in range(t):
            feats.append(x[:, :2])
        feats.append(x[:, :1])
        z = torch.cat(feats, dim=1)
        for layer in self.layers:
            x = layer(x)
        out = x
        return out, y, z
"""


def test_an_item_added_after_a_loop_is_not_skipped(tmp_path):
    # A loop of unknown trip count fills the list, then one more item is added: iterating
    # the list must not run the loop's element only (the hover would claim the loop's
    # shape, and the last Linear makes it another).
    result, shapes = _analyse(tmp_path, AFTER_LOOP)
    assert shapes.get("out") in (None, "Tensor[?, ?, ?]", "Tensor[b, t, ?]")
    # A Sequential runs the layers added after the loop last: its head decides the width.
    assert shapes.get("y") in (None, "Tensor[?, ?, ?]", "Tensor[b, t, ?]", "Tensor[b, t, 7]")
    # tensors join: the cat keeps the dims they share (the Linear layers pin c to dim)
    assert shapes["z"] in ("Tensor[b, ?, c]", "Tensor[b, ?, dim]")
    assert result.diagnostics == []


DICT_CODE = """
import torch
from torch import nn
from somewhere import mystery


def conv(**kwargs):
    return nn.Conv2d(3, 8, **kwargs)


opts = {"kernel_size": 3}
spread = {**mystery(), "kernel_size": 3}
updated = {"kernel_size": 3}
updated.update(mystery())
x = torch.randn(1, 3, 16, 16)
a = conv(**opts)(x)
b = conv(**spread)(x)
c = conv(**updated)(x)
"""


def test_a_dict_with_keys_not_known_is_not_read_as_the_keys_it_shows(tmp_path):
    # `{**unknown, "k": v}` and `d.update(unknown)` may carry `stride=2`: the layer built
    # from them must not get the shape the visible keys alone give.
    result, shapes = _analyse(tmp_path, textwrap.dedent(DICT_CODE))
    assert shapes["a"] == "Tensor[1, 8, 14, 14]"
    assert shapes.get("b") != "Tensor[1, 8, 14, 14]"
    assert shapes.get("c") != "Tensor[1, 8, 14, 14]"
    assert result.diagnostics == []
