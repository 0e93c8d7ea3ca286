"""The real server over stdio writes its parsed files to the disk cache when it shuts down,
and a second server reads them back and publishes the same diagnostics."""
from __future__ import annotations

import os
import pathlib
import shutil
import sys

from bench.lsp import LspClient

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SERVER = [sys.executable, "-m", "shapesense", "serve", "--stdio"]


def _open(path: pathlib.Path, cache: pathlib.Path) -> list:
    env = dict(os.environ, SHAPESENSE_CACHE_DIR=str(cache))
    client = LspClient.spawn(SERVER, cwd=str(path.parent), env=env)
    try:
        client.initialize(root_uri=path.parent.as_uri(), timeout=60)
        client.wait_log("indexed", 60)
        t0 = client.did_open(path.as_uri(), path.read_text(), 1)
        return client.wait_diagnostics(path.as_uri(), 1, t0, 120).msg["params"]["diagnostics"]
    finally:
        client.close()  # shutdown: the server writes its entries first


def test_a_second_server_reads_the_entries_the_first_wrote(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    model = ws / "model.py"
    shutil.copy(ROOT / "samples" / "lenet_wrong_linear.py", model)
    cache = tmp_path / "cache"
    first = _open(model, cache)
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 1 and first  # the model's entry; the sample has its planted error
    os.utime(entries[0], (1_000_000, 1_000_000))
    second = _open(model, cache)
    assert second == first
    assert entries[0].stat().st_mtime > 1_000_000  # read back (a hit marks the entry as used)
