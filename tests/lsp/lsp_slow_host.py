"""The fake engine of lsp_fake_host.py, made slow on purpose, for scheduling tests.

A line `SLOW = N` makes an analysis of that file burn N ms of CPU (holding the GIL, as
the real engine does) before answering, polling `cancel` the way the real engine's step
counter does and raising `Cancelled` when it says so. `STATS = x` gets the shape
`Tensor[finished, cancelled]`: the analyses of that file that finished and that were
cancelled so far, so a test can see over LSP what the scheduler ran.
"""
from __future__ import annotations

import pathlib
import re
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from lsp_fake_host import FakeHost  # noqa: E402


_SLOW = re.compile(r"^SLOW = (\d+)\s*$", re.MULTILINE)


class Cancelled(Exception):
    """Same name as the engine's (analysis.frames.Cancelled): the server matches it."""


class SlowHost(FakeHost):
    def __init__(self, settings=None, workspace_root=None):
        super().__init__(settings, workspace_root)
        self.finished: dict[str, int] = {}
        self.cancelled: dict[str, int] = {}

    def analyze(self, path, cancel=None):
        m = _SLOW.search(self.texts.get(path, ""))
        end = time.perf_counter() + (int(m.group(1)) / 1000 if m else 0)
        while time.perf_counter() < end:
            if cancel is not None and cancel():
                self.cancelled[path] = self.cancelled.get(path, 0) + 1
                raise Cancelled()
            for _ in range(2000):  # busy, like the engine: no sleeping, the GIL is held
                pass
        out = super().analyze(path)
        self.finished[path] = self.finished.get(path, 0) + 1
        stats = f"Tensor[{self.finished[path]}, {self.cancelled.get(path, 0)}]"
        out.facts = [f._replace(shape=stats) if f.is_target and f.text == "STATS" else f for f in out.facts]
        return out


if __name__ == "__main__":  # run the real server on the slow fake engine
    from shapesense.server.app import build_server

    sys.exit(build_server(host_factory=SlowHost).start_io())
