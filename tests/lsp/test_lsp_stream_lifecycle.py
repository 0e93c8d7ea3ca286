"""The stream and the process, over raw stdio: broken framing resynchronises or ends the
server with a non-zero status (never a silent hang), the LSP lifecycle (exit codes,
requests after shutdown), prompt exit in the middle of a long analysis (exit, closed
stdin, SIGINT, SIGTERM), and a reopened document answered from its new text.

Run as a script, this file is the server on a slow stand-in engine: a text containing
`SLOW<seconds>` keeps the analysis thread busy (in Python, holding the GIL as the real
engine does) after writing `<path>.started`, so a test knows an analysis is running; with
`TAG<word>` every fact's origin says `tag <word>`; `PRINT` prints to stdout (Python and fd 1);
`HOLDGIL` makes one C call of about a minute that keeps the GIL (after the marker)."""
from __future__ import annotations

import os
import pathlib
import signal
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from raw_stdio import RawServer, frame, notification, request  # noqa: E402

from shapesense.server.transport import STALL_S  # noqa: E402

SLOW_SERVER = [sys.executable, str(pathlib.Path(__file__).resolve())]
PROMPT_S = 5  # "ended promptly": far below the analysis it interrupts (120 s)
INVALID_REQUEST = -32600
PARSE_ERROR = -32700


def _hover(msg_id: int, uri: str = "file:///nowhere/none.py", line: int = 0) -> dict:
    return request(msg_id, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}})


def _open(uri: str, text: str, version: int = 1) -> dict:
    return notification(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}}
    )


@pytest.fixture
def server():
    srv = RawServer()
    srv.initialize()
    yield srv
    srv.kill()


def _body(msg_id: int) -> bytes:
    return frame(_hover(msg_id)).split(b"\r\n\r\n", 1)[1]


# -- framing -------------------------------------------------------------------------------
BROKEN_FRAMES = {
    "non-numeric length": b"Content-Length: twelve\r\n\r\n" + _body(1),
    "negative length": b"Content-Length: -%d\r\n\r\n" % len(_body(1)) + _body(1),
    "missing length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + _body(1),
    "length too small": b"Content-Length: %d\r\n\r\n" % (len(_body(1)) - 7) + _body(1),
    "length too large": b"Content-Length: %d\r\n\r\n" % (len(_body(1)) + 9) + _body(1),
    "header without body": b"Content-Length: 300\r\n\r\n",
    "header line without end": b"Content-Length: 3" + b"0" * 20_000,
    "garbage before a header": b"hello\r\n\r\n\r\n{}\r\n",
}


@pytest.mark.parametrize("name", list(BROKEN_FRAMES))
def test_framing_error_resynchronises_on_the_next_header(server: RawServer, name: str):
    server.send_bytes(BROKEN_FRAMES[name])
    server.send(_hover(2))
    assert server.response(2)["result"] is None
    server.send(_hover(3))  # and it keeps serving
    assert server.response(3)["result"] is None
    assert server.proc.poll() is None


@pytest.mark.parametrize("body", [b"not json", b"{", b"\xff\xfe", b"null", b"[]", b'{"jsonrpc": "2.0"}'])
def test_a_well_framed_body_that_is_no_message_gets_an_error_response(server: RawServer, body: bytes):
    server.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if body != b'{"jsonrpc": "2.0"}':  # (that one is a message of no known kind: logged, ignored)
        assert server.response(None)["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST)
    server.send(_hover(2))
    assert server.response(2)["result"] is None


def test_a_well_framed_bad_body_then_silence_keeps_the_server(server: RawServer):
    """Only a broken stream ends the server: a bad message followed by a pause does not."""
    server.send_bytes(b"Content-Length: 8\r\n\r\nnot json")
    server.response(None)
    time.sleep(STALL_S + 1)
    server.send(_hover(2))
    assert server.response(2)["result"] is None


def test_a_message_written_a_byte_at_a_time_is_read_whole(server: RawServer):
    for byte in frame(_hover(2)):
        server.send_bytes(bytes([byte]))
    assert server.response(2)["result"] is None


def test_length_too_large_answers_the_message_it_framed(server: RawServer):
    server.send_bytes(BROKEN_FRAMES["length too large"])
    server.send(_hover(2))
    assert server.response(1)["result"] is None
    assert server.response(2)["result"] is None


def test_stalled_message_ends_the_server_with_an_error_status(server: RawServer):
    """A body shorter than its Content-Length, then silence: the client is waiting for
    an answer that cannot come; the server says why and exits so the client restarts it."""
    server.send_bytes(b"Content-Length: %d\r\n\r\n" % (len(_body(1)) + 50) + _body(1))
    status = server.wait_exit(30)
    assert status not in (None, 0)
    assert b"stalled" in server.stderr


@pytest.mark.parametrize("length", [4 * 10**9, 10**12, 64 * 2**20 + 1])
def test_oversized_content_length_exits_without_allocating(server: RawServer, length: int):
    server.send_bytes(b"Content-Length: %d\r\n\r\n{" % length)
    status = server.wait_exit(PROMPT_S)
    assert status not in (None, 0)
    assert b"Content-Length" in server.stderr


def test_eof_in_the_middle_of_a_body_is_an_error_exit(server: RawServer):
    body = _body(1)
    server.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
    server.close_stdin()
    status = server.wait_exit(PROMPT_S)
    assert status not in (None, 0)


def test_what_the_engine_prints_does_not_reach_the_stream(tmp_path: pathlib.Path):
    srv = RawServer(SLOW_SERVER)
    try:
        srv.initialize(tmp_path.as_uri())
        uri = (tmp_path / "p.py").as_uri()
        srv.send(_open(uri, "x = 123  # PRINT\n"))
        srv.send(_hover(1, uri))
        assert "x: Tensor[" in srv.response(1)["result"]["contents"]["value"]
        srv.send(request(2, "shutdown"))
        srv.response(2)
        srv.send(notification("exit"))
        assert srv.wait_exit(PROMPT_S) == 0
        assert b"printed by the engine" in srv.stderr and b"written to fd 1" in srv.stderr
    finally:
        srv.kill()


# -- lifecycle -------------------------------------------------------------------------------
def test_exit_without_shutdown_is_status_1(server: RawServer):
    server.send(notification("exit"))
    assert server.wait_exit(PROMPT_S) == 1


def test_shutdown_then_exit_is_status_0(server: RawServer):
    server.send(request(1, "shutdown"))
    assert server.response(1)["result"] is None
    server.send(notification("exit"))
    assert server.wait_exit(PROMPT_S) == 0


def test_requests_after_shutdown_get_invalid_request(server: RawServer):
    server.send(request(1, "shutdown"))
    server.response(1)
    server.send(_hover(2))
    assert server.response(2)["error"]["code"] == INVALID_REQUEST
    server.send(request(3, "shutdown"))
    assert server.response(3)["error"]["code"] == INVALID_REQUEST
    server.send(notification("exit"))
    assert server.wait_exit(PROMPT_S) == 0


def test_closed_stdin_after_shutdown_is_status_0(server: RawServer):
    server.send(request(1, "shutdown"))
    server.response(1)
    server.close_stdin()
    assert server.wait_exit(PROMPT_S) == 0


@pytest.fixture
def busy(tmp_path: pathlib.Path):
    """A server in the middle of a 120 s analysis."""
    srv = RawServer(SLOW_SERVER)
    try:
        srv.initialize(tmp_path.as_uri())
        doc = tmp_path / "slow.py"
        srv.send(_open(doc.as_uri(), "x = 1  # SLOW120\n"))
        marker = pathlib.Path(f"{doc}.started")
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline, "the analysis never started"
            assert srv.proc.poll() is None, srv.stderr.decode()
            time.sleep(0.02)
        yield srv
    finally:
        srv.kill()


def _time_to_exit(srv: RawServer) -> tuple[int | None, float]:
    start = time.monotonic()
    status = srv.wait_exit(PROMPT_S)
    return status, time.monotonic() - start


def test_exit_during_a_long_analysis_is_prompt(busy: RawServer):
    busy.send(request(1, "shutdown"))
    assert busy.response(1)["result"] is None  # shutdown itself does not wait for the analysis
    busy.send(notification("exit"))
    status, _ = _time_to_exit(busy)
    assert status == 0


def test_closed_stdin_during_a_long_analysis_is_prompt(busy: RawServer):
    busy.close_stdin()
    status, _ = _time_to_exit(busy)
    assert status == 1  # the client went away without shutdown


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_a_long_analysis_is_prompt(busy: RawServer, sig: int):
    busy.proc.send_signal(sig)
    status, _ = _time_to_exit(busy)
    assert status == -sig  # ended by that signal, as the parent expects


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_a_long_call_that_holds_the_gil_is_prompt(tmp_path: pathlib.Path, sig: int):
    """A C call of the analysis that never lets Python run (a huge integer power here)
    cannot delay a signal: no Python-level handler has to run."""
    srv = RawServer(SLOW_SERVER)
    try:
        srv.initialize(tmp_path.as_uri())
        doc = tmp_path / "gil.py"
        srv.send(_open(doc.as_uri(), "x = 1  # HOLDGIL\n"))
        marker = pathlib.Path(f"{doc}.started")
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline, "the analysis never started"
            time.sleep(0.02)
        time.sleep(0.2)  # well inside the call
        srv.proc.send_signal(sig)
        status, _ = _time_to_exit(srv)
        assert status == -sig
    finally:
        srv.kill()


# -- reopen ----------------------------------------------------------------------------------
def test_reopen_with_the_same_version_answers_from_the_new_text(tmp_path: pathlib.Path):
    """Clients restart version numbers on reopen: close + open with new text, same version,
    while the old text is still being analysed. Every answer describes the new text, on
    the changed line and on the unchanged one too (`TAG` makes every fact depend on the
    whole file, as a shape does on the code above it)."""
    srv = RawServer(SLOW_SERVER)
    try:
        srv.initialize(tmp_path.as_uri())
        doc = tmp_path / "re.py"
        uri = doc.as_uri()
        srv.send(_open(uri, "x = 1  # SLOW2 TAGold\ny = 22\n"))
        marker = pathlib.Path(f"{doc}.started")
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline, "the analysis never started"
            time.sleep(0.02)
        srv.send(notification("textDocument/didClose", {"textDocument": {"uri": uri}}))
        srv.send(_open(uri, "x = BAD  # TAGnew\ny = 22\n"))
        # the new text is analysed and published without anyone asking
        published = srv.notification("textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p["diagnostics"])
        assert [d["code"] for d in published["diagnostics"]] == ["shape-mismatch"]
        srv.send(_hover(1, uri, line=1))
        srv.send(_hover(2, uri, line=0))
        for msg_id in (1, 2):
            hover = srv.response(msg_id)["result"]
            assert hover is not None and "tag new" in hover["contents"]["value"], hover
    finally:
        srv.kill()


if __name__ == "__main__":  # the server on the slow stand-in engine (see the docstring)
    import re

    from lsp_fake_host import FakeHost

    from shapesense.server.app import build_server

    class SlowHost(FakeHost):
        def analyze(self, path):
            if "HOLDGIL" in self.texts.get(path, ""):
                with open(f"{path}.started", "w"):
                    pass
                7 ** 20_000_000  # about a minute in one C call that keeps the GIL
            slow = re.search(r"SLOW(\d+)", self.texts.get(path, ""))
            if slow:
                with open(f"{path}.started", "w"):
                    pass
                end = time.monotonic() + int(slow.group(1))
                while time.monotonic() < end:
                    sum(range(1000))
            if "PRINT" in self.texts.get(path, ""):
                print("printed by the engine")
                os.write(1, b"written to fd 1 by C code\n")
            result = super().analyze(path)
            tag = re.search(r"TAG(\w+)", self.texts.get(path, ""))
            if tag:
                result.facts[:] = [f._replace(origin=f"tag {tag.group(1)}") for f in result.facts]
            return result

    sys.exit(build_server(host_factory=SlowHost).start_io())
