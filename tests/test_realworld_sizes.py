"""The real-world eval's split of mutants by "fails for every input size" (tools/realworld_eval.py):
other input sizes are found on the correct file (literals the model fixes stay), and a mutant
fails for every size only when torch raises on it with each of them."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"
spec = importlib.util.spec_from_file_location("realworld_eval", TOOLS / "realworld_eval.py")
evaluation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(evaluation)

DRIVER = '''\
import torch
model = Net()
model.eval()
x = torch.randn(2, 3, 8, 8)
tokens = torch.randint(0, 100, (2, 5))
out = model(x)
'''


def test_size_literals_of_the_driver_inputs_only():
    src = "w = torch.randn(7, 7)\n" + DRIVER.replace("model = Net()", "model = Net(torch.eye(4))")
    slots = evaluation.size_slots(src, start=1)
    assert [v for *_, v in slots] == [2, 3, 8, 8, 2, 5]  # not randint's range, not eye, not line 0
    moved = evaluation.with_sizes(src, slots, [3, 3, 12, 12, 3, 5])
    assert "x = torch.randn(3, 3, 12, 12)" in moved and "torch.randint(0, 100, (3, 5))" in moved
    assert moved.startswith("w = torch.randn(7, 7)\n") and "torch.eye(4)" in moved


MODEL = '''\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 8 * 8, 10)  # the model fixes 8 x 8 images

    def forward(self, x):
        y = self.conv(x)
        y = y.flatten(1)
        return self.fc(y)


'''
START = MODEL.count("\n")


def test_a_bug_failing_for_every_size_and_one_failing_for_some(tmp_path):
    pytest.importorskip("torch")
    cache = tmp_path / "cache"
    cache.mkdir()
    drv = tmp_path / "driver" / "net.py"
    drv.parent.mkdir()
    drv.write_text(MODEL + DRIVER)
    env = {"PATH": "", "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    sizes = evaluation.other_sizes(drv, START, sys.executable, cache, env)
    # The batch size (2, shared by both inputs) moves together and the unused tokens' length
    # moves; channels and 8 x 8 are fixed.
    assert sorted(sizes) == [[1, 3, 8, 8, 1, 2], [3, 3, 8, 8, 3, 7]]
    mutants = tmp_path / "mutants"
    mutants.mkdir()
    every = mutants / "every.py"  # a wrong in_features: fails whatever the batch
    every.write_text((MODEL + DRIVER).replace("nn.Linear(4 * 8 * 8, 10)", "nn.Linear(4 * 8 * 9, 10)"))
    some = mutants / "some.py"  # a hard-coded batch of 3: fails with 2 and 1, runs with 3
    some.write_text((MODEL + DRIVER).replace("y = y.flatten(1)", "y = y.reshape(3, -1)"))
    got = evaluation.fails_for_every_size([every, some], START, sizes, sys.executable, cache, env)
    assert got == {"every.py": True, "some.py": False}
    # No other size to try: undetermined, not counted either way.
    assert evaluation.fails_for_every_size([every], START, [], sys.executable, cache, env) == {"every.py": None}
