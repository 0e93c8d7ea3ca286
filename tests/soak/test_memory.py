"""Memory that must not grow with the number of edits (issue: RSS +80% over the soak).

Typing through a def's name gives the def a new key at each keystroke; the lowering cache
(analysis/lower.py) kept the lowering, and with it the parse, of every name the def ever
had. It keeps the file's defs and a few spare ones now, and what it drops is lowered again
when an undo brings the name back.
"""
from __future__ import annotations

from shapesense.analysis.db import AnalysisHost
from shapesense.analysis.lower import SPARE_LOWERINGS

TEXT = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)


def helper(x):
    return x.sum(0)


y = Net()(torch.zeros(2, 8))
z = helper(y)
'''


def _facts(host: AnalysisHost, path: str) -> dict:
    return {(f.span, f.text): f.shape for f in host.analyze(path).facts}


def test_renaming_defs_keeps_the_lowering_cache_bounded_and_results_exact(tmp_path):
    path = str(tmp_path / "model.py")
    host = AnalysisHost()
    host.set_file(path, TEXT)
    before = _facts(host, path)
    defs = len(host.files[path].lower_cache)
    for i in range(3 * SPARE_LOWERINGS):  # each keystroke in a name: a new def key
        host.set_file(path, TEXT.replace("def helper", f"def helper{i}").replace("Net", f"Net{i}"))
        host.analyze(path)
    cache = host.files[path].lower_cache
    assert len(cache) <= len(host.units(path)) + SPARE_LOWERINGS
    assert len(cache) < defs + 2 * SPARE_LOWERINGS  # not one entry per name ever typed

    host.set_file(path, TEXT)  # undo all the way: the first names again
    assert _facts(host, path) == before
    fresh = AnalysisHost()
    fresh.set_file(path, TEXT)
    assert _facts(fresh, path) == before
    assert before  # the comparison had facts to compare
