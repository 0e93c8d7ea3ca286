"""LSP over stdio: framing that survives a broken stream, and a process that ends on time.

pygls's reader trusts every header: after a wrong, missing or non-numeric Content-Length
it waits for bytes that never come, and it allocates whatever length it is told. Here:

- A framing error (bad or missing Content-Length, a header with no body, a body that is
  not JSON where the framing looks wrong) is logged and the reader resynchronises on the
  next `Content-Length:` header, wherever it starts. A body that is JSON but framed too
  long is answered, then the rest is resynchronised the same way. A correctly framed body
  that is not a JSON object gets an error response (ParseError / InvalidRequest).
- The stream ending in the middle of a message, a Content-Length over MAX_CONTENT_LENGTH,
  or a message (or a resynchronisation) that stalls for STALL_S with the client silent
  (it is waiting for an answer that cannot come) ends the server with status 1, so the
  client restarts it. Nothing hangs silently.
- The process ends with `os._exit` once the outcome is decided (after `exit`, when stdin
  closes): a running analysis, a blocked file read or the stdin thread must not keep it
  alive. Status per the protocol: 0 after `shutdown`, else 1. SIGINT and SIGTERM end it
  by their default action.

Only the protocol writes to stdout (anything else printed goes to stderr). Reading happens
on a daemon thread; messages are handled on the event loop in order, each
given one loop turn before the next (as pygls does), so a handler's first step (didClose)
runs before the following message (didOpen).
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import select
import signal
import sys
import threading
from typing import Any, BinaryIO

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdoutWriter

log = logging.getLogger(__name__)

MAX_CONTENT_LENGTH = 64 * 2**20  # bytes: a 20 MB file opened in the editor still fits
MAX_HEADER_LINE = 8192
MAX_HEADER_LINES = 32
STALL_S = 5.0  # a message (or a resynchronisation) with no new byte for this long ends the server
EXIT_WATCHDOG_S = 2.0  # the reader thread ends the process itself if the loop cannot

_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_NEXT_HEADER = re.compile(rb"[ \t\r\n]*content-length[ \t]*:", re.IGNORECASE)
_LEADING_SPACE = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()


class FramingError(Exception):
    """The bytes here are not a message: skip to the next header."""


class StreamBroken(Exception):
    """The stream cannot be trusted any more: end the server with an error status."""


class StreamClosed(Exception):
    """The client closed the stream between two messages."""


class Unparsable:
    """A correctly framed body that is not JSON (answered with a ParseError)."""

    def __init__(self, reason: str):
        self.reason = reason


class FrameReader:
    """Messages from a file descriptor, as parsed JSON values (or Unparsable)."""

    def __init__(self, fd: int, stall_s: float = STALL_S):
        self._fd = fd
        self._stall_s = stall_s
        self._buf = bytearray()
        self._hunting = False
        self._hunt_from = 0
        self._poll = None
        if hasattr(select, "poll"):  # no stall detection where there is none (Windows)
            self._poll = select.poll()
            self._poll.register(fd, select.POLLIN)

    # -- bytes ---------------------------------------------------------------------------
    def _fill(self, where: str | None) -> None:
        """Append what is available. `where` (None: between messages) names what is cut
        short if the stream ends or stalls here."""
        if where is not None and self._poll is not None and not self._poll.poll(int(self._stall_s * 1000)):
            raise StreamBroken(f"no data for {self._stall_s:g} s {where}: the stream stalled")
        try:
            data = os.read(self._fd, 1 << 16)
        except OSError as exc:
            raise StreamBroken(f"cannot read the stream: {exc}") from exc
        if not data:
            if where is None:
                raise StreamClosed()
            raise StreamBroken(f"the stream ended {where}")
        self._buf += data

    # -- framing -------------------------------------------------------------------------
    def _hunt(self) -> None:
        """Drop bytes up to the next `Content-Length:` header (from `_hunt_from` on)."""
        start, skipped = self._hunt_from, 0
        while True:
            found = _HEADER_START.search(self._buf, start)
            if found is not None:
                skipped += found.start()
                del self._buf[: found.start()]
                break
            keep_from = max(start, len(self._buf) - 64)  # a header may be cut in two
            skipped += keep_from
            del self._buf[:keep_from]
            start = 0
            self._fill("while skipping to the next header")
        self._hunting = False
        log.warning("LSP stream: skipped %d bytes to the next header", skipped)

    def _headers(self) -> int:
        """Parse one header block at the start of the buffer; its Content-Length."""
        pos, length, count = 0, None, 0
        while True:
            nl = self._buf.find(b"\n", pos)
            if nl < 0:
                if len(self._buf) - pos > MAX_HEADER_LINE:
                    raise FramingError("a header line longer than %d bytes" % MAX_HEADER_LINE)
                self._fill(None if not self._buf else "in the middle of a header")
                continue
            line = bytes(self._buf[pos:nl]).rstrip(b"\r")
            pos = nl + 1
            if not line.strip():
                if count == 0:  # a stray line break between messages
                    del self._buf[:pos]
                    pos = 0
                    continue
                if length is None:
                    raise FramingError("a header without Content-Length")
                del self._buf[:pos]
                return length
            count += 1
            if count > MAX_HEADER_LINES:
                raise FramingError("more than %d header lines" % MAX_HEADER_LINES)
            name, sep, value = line.partition(b":")
            if not sep:
                raise FramingError(f"not a header line: {line[:60]!r}")
            if name.strip().lower() != b"content-length":
                continue  # Content-Type and anything else: ignored
            value = value.strip()
            if length is not None:
                raise FramingError("a second Content-Length (a header without its body?)")
            if not value.isdigit() or len(value) > 20:
                raise FramingError(f"an invalid Content-Length: {value[:40]!r}")
            length = int(value)
            if length > MAX_CONTENT_LENGTH:
                raise StreamBroken(f"a Content-Length of {length} bytes, over the limit of {MAX_CONTENT_LENGTH}")
            if length == 0:
                raise FramingError("a Content-Length of 0")

    def _body(self, length: int) -> bytes:
        while True:
            if _NEXT_HEADER.match(self._buf, 0, min(length, 64)):
                raise FramingError("a header where a body should start (a header without its body?)")
            if len(self._buf) >= length:
                break
            self._fill("in the middle of a message body")
        body = bytes(self._buf[:length])
        del self._buf[:length]
        return body

    def read_body(self) -> bytes:
        while True:
            if self._hunting:
                self._hunt()
            try:
                length = self._headers()
            except FramingError as exc:
                self._skip(exc, 1)  # past the start of this header
                continue
            try:
                return self._body(length)
            except FramingError as exc:
                self._skip(exc, 0)  # the header is consumed: search from the body on

    def _skip(self, why: Any, start: int) -> None:
        log.warning("LSP stream: %s; resynchronising on the next header", why)
        self._hunting, self._hunt_from = True, start

    # -- messages ------------------------------------------------------------------------
    def next_message(self) -> Any:
        """The next JSON value (or Unparsable). Raises StreamClosed or StreamBroken."""
        while True:
            body = self.read_body()
            try:
                text = body.decode("utf-8")
                value, end = _DECODER.raw_decode(text, _LEADING_SPACE.match(text).end())
            except ValueError as exc:  # UnicodeDecodeError included
                if _HEADER_START.search(body) or (self._buf and not _NEXT_HEADER.match(self._buf)):
                    # framed too short (the rest follows) or too long (the next header is
                    # inside): drop it and find the next message
                    self._buf[:0] = body
                    self._skip(f"a body that is not JSON ({exc}) with the framing off", 0)
                    continue
                return Unparsable(str(exc))
            rest = text[end:]
            if rest.strip():  # framed too long: this message, then resynchronise on the rest
                self._buf[:0] = rest.encode("utf-8")
                self._skip(f"{len(rest)} characters after a JSON body (Content-Length too large?)", 0)
            return value


# -- the process -----------------------------------------------------------------------------
def end_process(status: int) -> None:
    """Flush what was written and end the process now, whatever threads still run."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    logging.shutdown()
    os._exit(status)


def install_signal_handlers() -> None:
    """SIGINT and SIGTERM end the server at once, even mid-analysis, by their default
    action: the kernel ends the process without waiting for the GIL, which a long C call
    of the analysis may hold. (Python's own SIGINT handler raises KeyboardInterrupt in the
    event loop, and the worker threads outlived it.)"""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def serve_stdio(server: Any, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Run `server` (a pygls LanguageServer) over stdio until the stream or the client
    ends it; never returns."""
    fd = (stdin or sys.stdin.buffer).fileno()
    server._stop_event = threading.Event()  # pygls checks it exists
    server.protocol.set_writer(StdoutWriter(stdout or _private_stdout()))
    install_signal_handlers()
    asyncio.run(_dispatch(server, FrameReader(fd)))


def _private_stdout() -> BinaryIO:
    """The protocol's own handle on stdout; file descriptor 1 and `sys.stdout` then point
    at stderr, so a stray print (ours, a library's, C code's) cannot corrupt the stream."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


async def _dispatch(server: Any, reader: FrameReader) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    threading.Thread(target=_read, args=(reader, loop, queue, server), name="shapesense-stdin", daemon=True).start()
    protocol = server.protocol
    while True:
        kind, value = await queue.get()
        if kind == "closed":
            end_process(0 if protocol._shutdown else 1)
        if kind == "broken":
            log.error("LSP stream: %s; ending the server (the client restarts it)", value)
            end_process(1)
        try:
            if isinstance(value, Unparsable):
                log.warning("LSP stream: a message that is not JSON: %s", value.reason)
                _send_error(protocol, None, JsonRpcParseError(f"Parse error: {value.reason}"))
            elif not isinstance(value, dict):
                _send_error(protocol, None, JsonRpcInvalidRequest("a JSON-RPC message is a JSON object"))
            else:
                protocol.handle_message(protocol.structure_message(value))
        except Exception as exc:  # as pygls's own loop: log, tell the client, keep serving
            log.exception("Unable to handle message")
            server._report_server_error(exc, JsonRpcException)
        await asyncio.sleep(0)  # the handler's first step runs before the next message


def _send_error(protocol: Any, msg_id: Any, error: JsonRpcException) -> None:
    err = {"code": error.code, "message": error.message}
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": err})


def _read(reader: FrameReader, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue, server: Any) -> None:
    """The stdin thread: parse messages, hand them to the loop in order."""
    try:
        while True:
            loop.call_soon_threadsafe(queue.put_nowait, ("message", reader.next_message()))
    except StreamClosed:
        end = ("closed", None)
    except StreamBroken as exc:
        end = ("broken", str(exc))
    except BaseException as exc:  # a bug here must not leave a server that never reads
        end = ("broken", f"the reader failed: {exc!r}")
    status = 0 if end[0] == "closed" and server.protocol._shutdown else 1
    try:
        loop.call_soon_threadsafe(queue.put_nowait, end)
    except RuntimeError:  # the loop is gone
        end_process(status)
    # The loop ends the process after the messages before this point; if it is stuck in
    # a handler, end it from here.
    threading.Event().wait(EXIT_WATCHDOG_S)
    if end[0] == "broken":
        log.error("LSP stream: %s; ending the server", end[1])
    end_process(status)
