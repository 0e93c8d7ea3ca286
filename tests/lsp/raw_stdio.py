"""A bare JSON-RPC client over a server subprocess's stdio, for tests that must send
bytes no LSP library would (broken framing) or watch the process itself (exit status,
signals). Reading happens on a thread, so a silent server fails a test by timeout
instead of hanging it."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any

REAL_SERVER = [sys.executable, "-m", "shapesense", "serve", "--stdio"]
WAIT = 30  # seconds: longer than any answer takes, short enough to fail a hung test


def frame(payload: Any) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: int, method: str, params: Any = None) -> dict:
    msg = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: Any = None) -> dict:
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


class RawServer:
    def __init__(self, command: list[str] | None = None, cwd: str | None = None, env: dict | None = None):
        self.proc = subprocess.Popen(
            command or REAL_SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        self.messages: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.responses: dict[Any, dict] = {}  # arrived while waiting for something else
        self.stderr = b""
        self.corrupt: bytes | None = None  # a line on stdout that is not a header
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- io --------------------------------------------------------------------------
    def _read_stdout(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, sep, value = line.partition(b":")
                if not sep:  # not a header: the server wrote something else to stdout
                    self.corrupt = line
                    self.messages.put(None)
                    return
                if name.lower() == b"content-length":
                    length = int(value)
            body = out.read(length)
            self.messages.put(json.loads(body))

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr += line

    def send_bytes(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, payload: Any) -> None:
        self.send_bytes(frame(payload))

    def close_stdin(self) -> None:
        self.proc.stdin.close()

    # -- waiting -----------------------------------------------------------------------
    def _next(self, deadline: float, what: str) -> dict:
        """The next message; requests from the server are answered with null."""
        while True:
            try:
                msg = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {what} in time") from None
            if msg is None:
                raise AssertionError(f"server closed its output before {what} (not a header: {self.corrupt!r})")
            if "method" in msg and "id" in msg:
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                continue
            if "method" in msg:
                self.notifications.append(msg)
            return msg

    def response(self, msg_id: Any, timeout: float = WAIT) -> dict:
        """The response to request `msg_id` (AssertionError if none comes in time)."""
        if msg_id in self.responses:
            return self.responses.pop(msg_id)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._next(deadline, f"response to {msg_id!r}")
            if "method" not in msg:
                if msg.get("id") == msg_id:
                    return msg
                self.responses[msg.get("id")] = msg

    def notification(self, method: str, predicate=lambda params: True, timeout: float = WAIT) -> dict:
        """The params of the first notification `method` whose params satisfy `predicate`."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for msg in self.notifications[seen:]:
                if msg["method"] == method and predicate(msg.get("params")):
                    return msg.get("params")
            seen = len(self.notifications)
            msg = self._next(deadline, f"{method} notification")
            if "method" not in msg:
                self.responses[msg.get("id")] = msg

    def initialize(self, root_uri: str | None = None) -> dict:
        self.send(request(0, "initialize", {"processId": None, "rootUri": root_uri, "capabilities": {}}))
        reply = self.response(0)
        self.send(notification("initialized", {}))
        return reply

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status, or None if still running after `timeout` seconds."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
