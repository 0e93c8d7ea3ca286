"""Files that are not files, in a folder the server opens: a named pipe called `x.py`
(opening it blocks), `y.py` linked to /dev/zero (reading it never ends), `z.py` linked to
a file outside the workspace, and (for the server) a file over the size cap. Indexing finishes, each is
skipped with a log line, a normal file is answered, and an import of the outside file
does not read it. The real server over stdio, and `shapesense check` on the same folder."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from raw_stdio import RawServer, notification, request  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")

NORMAL = "import torch\nx = torch.zeros(2, 3)\n"


@pytest.fixture
def hostile(tmp_path: pathlib.Path) -> pathlib.Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("import torch\nSECRET = torch.zeros(7, 7)\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text(NORMAL)
    (ws / "b.py").write_text("from z import SECRET\ns = SECRET\n")
    os.mkfifo(ws / "x.py")
    (ws / "y.py").symlink_to("/dev/zero")
    (ws / "z.py").symlink_to(outside / "secret.py")
    return ws


def _hover(msg_id: int, uri: str, line: int, character: int = 0) -> dict:
    return request(msg_id, "textDocument/hover",
                   {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})


def _open(uri: str, text: str) -> dict:
    return notification("textDocument/didOpen",
                        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})


def test_indexing_skips_what_is_not_a_regular_file_inside_the_workspace(hostile: pathlib.Path):
    (hostile / "big.py").write_text("n = 1\n" * 400_000)  # 2.4 MB: over the 2 MB cap
    srv = RawServer(cwd=str(hostile.parent))
    try:
        srv.initialize(hostile.as_uri())
        indexed = srv.notification("window/logMessage", lambda p: "ShapeSense: indexed" in p["message"], timeout=60)
        assert "indexed 2 Python files" in indexed["message"]  # a.py, b.py
        assert "skipped 2" in indexed["message"]  # x.py, big.py (the links out are not even listed)

        a = (hostile / "a.py").as_uri()
        srv.send(_open(a, NORMAL))
        srv.send(_hover(1, a, 1))
        hover = srv.response(1, timeout=60)["result"]
        assert hover is not None and "Tensor[2, 3]" in hover["contents"]["value"]

        # an import of the linked file does not read it either (the engine's own reads)
        b = (hostile / "b.py").as_uri()
        srv.send(_open(b, (hostile / "b.py").read_text()))
        srv.send(_hover(2, b, 1))
        hover = srv.response(2, timeout=60)["result"]
        assert hover is None or "7" not in hover["contents"]["value"]

        srv.send(request(3, "shutdown"))
        srv.response(3)
        srv.send(notification("exit"))
        assert srv.wait_exit(10) == 0
        log = srv.stderr.decode()
        for name, why in (("x.py", "a named pipe"), ("y.py", "a link to outside"), ("z.py", "a link to outside"),
                          ("big.py", "larger than")):
            assert any(name in line and why in line for line in log.splitlines()), (name, log)
    finally:
        srv.kill()


def test_check_walks_the_same_folder(hostile: pathlib.Path):
    out = subprocess.run([sys.executable, "-m", "shapesense", "check", str(hostile)],
                         capture_output=True, text=True, timeout=120, cwd=str(hostile.parent))
    assert "secret" not in out.stdout.lower()
    assert "not read" in out.stderr and "x.py" in out.stderr and "y.py" in out.stderr


# -- the reader itself (analysis/disk.py), on what the folder tests cannot reach ----------------
def test_devices_and_pipes_are_refused_without_blocking(tmp_path: pathlib.Path):
    from shapesense.analysis.disk import SkippedFile, read_source_bytes

    with pytest.raises(SkippedFile, match="a character device"):
        read_source_bytes("/dev/zero", 1000)  # named directly: no workspace to leave
    os.mkfifo(tmp_path / "p.py")
    with pytest.raises(SkippedFile, match="a named pipe"):
        read_source_bytes(str(tmp_path / "p.py"), 1000)


def test_the_size_cap_counts_the_bytes_read_not_the_size_claimed():
    from shapesense.analysis.disk import SkippedFile, read_source_bytes

    status = "/proc/self/status"  # a regular file whose stat size is 0
    if not os.path.exists(status) or os.stat(status).st_size != 0:
        pytest.skip("needs Linux /proc")
    with pytest.raises(SkippedFile, match="larger than 10 bytes"):
        read_source_bytes(status, 10)
    assert b"Name:" in read_source_bytes(status, 100_000)


def test_links_inside_the_workspace_are_read(tmp_path: pathlib.Path):
    from shapesense.analysis.disk import read_source_bytes

    (tmp_path / "real.py").write_text("x = 1\n")
    (tmp_path / "alias.py").symlink_to(tmp_path / "real.py")
    assert read_source_bytes(str(tmp_path / "alias.py"), 100, [str(tmp_path)]) == b"x = 1\n"


def test_a_pipe_swapped_in_after_the_check_does_not_block(tmp_path: pathlib.Path, monkeypatch):
    """The check before opening says "regular file" (as if the pipe replaced the file just
    after it); the non-blocking open and the check on the open file still refuse it."""
    import threading

    from shapesense.analysis import disk

    fifo = tmp_path / "swap.py"
    os.mkfifo(fifo)
    regular = os.stat(__file__)
    real_stat = os.stat
    monkeypatch.setattr(disk.os, "stat", lambda p, *a, **k: regular if str(p) == str(fifo) else real_stat(p, *a, **k))
    outcome = []

    def read():
        try:
            disk.read_source_bytes(str(fifo), 1000)
        except disk.SkippedFile as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    assert outcome and "a named pipe" in outcome[0]
