"""What the analysis thread rebuilds after the watchdog stopped a run from outside
(server/worker.py, server/interrupt.py), with the real engine.

The watchdog raises `Interrupted` only while the run is inside AnalysisHost.units (parsing
and lowering, where the engine never polls its cancel check). Wherever below units() it
lands (the disk cache's lowered_units, syntax, lower, parso), only that file's parse is
dropped; the engine and its memo stay. (It used to restart the whole engine when the
exception landed under analysis/diskcache.py: a cold re-analysis of every file, and under
a stream of edits a restart every few hundred keystrokes.)
"""
from __future__ import annotations

import pytest

from shapesense.analysis import lower, syntax
from shapesense.server.interrupt import Interrupted
from shapesense.server.worker import AnalysisWorker, _parsing_path

TEXT = "import torch\nx = torch.zeros(2, 3)\ny = x.sum(0)\n"


def _stop(*args, **kwargs):
    raise Interrupted()


@pytest.mark.parametrize("where", ["lower", "syntax"])
def test_an_interrupt_below_units_names_the_file_being_parsed(tmp_path, monkeypatch, where):
    worker = AnalysisWorker({}, str(tmp_path), lambda message: None)
    path = str(tmp_path / "model.py")
    worker.set_file(path, TEXT)
    worker._drain()  # the real host, with the text
    host = worker._host
    memo_before = host.analyze(path) and len(host.memo)
    worker.set_file(path, TEXT + "z = y + 1\n")
    worker._drain()
    if where == "lower":
        monkeypatch.setattr(lower, "lower_module", _stop)
    else:
        monkeypatch.setattr(syntax.SyntaxTree, "update", _stop)
    with pytest.raises(Interrupted) as info:
        host.units(path)
    assert _parsing_path(info.value.__traceback__) == path
    monkeypatch.undo()

    said = worker._recover(host, info.value)
    assert said.startswith("parsing ") and path in said
    assert worker._host is host and len(host.memo) == memo_before  # the engine was kept
    facts = {f.text: f.shape for f in host.analyze(path).facts}
    assert facts.get("z") == "Tensor[3]"  # and analyses the new text


def test_an_interrupt_in_the_engine_is_not_taken_for_parsing(tmp_path):
    def engine_step():
        raise Interrupted()

    with pytest.raises(Interrupted) as info:
        engine_step()
    assert _parsing_path(info.value.__traceback__) is None
