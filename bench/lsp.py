"""A small, timing-oriented LSP client over stdio (JSON-RPC framing done by hand).

Why not pygls's client: we want the arrival time of every message taken the moment its bytes
are read (before JSON decoding and before any event-loop hop), and hard timeouts on every wait
so a dead or silent server fails the run with a clear message instead of hanging it.

    with LspClient.spawn([sys.executable, "-m", "shapesense", "serve", "--stdio"]) as c:
        c.initialize(init_options={"debounceMs": 0})
        c.did_open(uri, text)
        msg, t = c.wait_diagnostics(uri, version=1, after=t0, timeout=30)
"""
from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any


class ServerError(RuntimeError):
    """The server died, answered with an error, or did not answer in time."""


class ResponseError(ServerError):
    """The server answered a request with a JSON-RPC error (it is alive)."""


@dataclass
class Arrival:
    t: float  # time.perf_counter() when the message's bytes were read
    msg: dict


CLIENT_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {"configuration": True, "workspaceFolders": True, "didChangeWatchedFiles": {"dynamicRegistration": True}},
    "window": {"workDoneProgress": True},
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True, "codeDescriptionSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "inlayHint": {"dynamicRegistration": False},
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["", "quickfix", "refactor", "refactor.rewrite", "source"]}
            },
            "isPreferredSupport": True,
            "resolveSupport": {"properties": ["edit"]},
        },
    },
}


class LspClient:
    def __init__(self, proc: subprocess.Popen, stderr_path: str | None = None):
        self.proc = proc
        self.stderr_path = stderr_path
        self._next_id = 0
        self._lock = threading.Condition()
        self._responses: dict[int, Arrival] = {}
        self._notifications: deque[Arrival] = deque()
        self.diagnostics: dict[str, list[Arrival]] = {}  # uri -> publishes, in arrival order
        self.log_messages: list[str] = []
        self._eof = False
        self._reader_error: BaseException | None = None
        self._write_lock = threading.Lock()
        self.server_capabilities: dict = {}
        self._reader = threading.Thread(target=self._read_loop, name="lsp-reader", daemon=True)
        self._reader.start()

    # ---- process ----------------------------------------------------------------------

    @classmethod
    def spawn(cls, cmd: list[str], cwd: str | None = None, env: dict | None = None,
              stderr_path: str | None = None) -> "LspClient":
        stderr = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                    cwd=cwd, env=env, bufsize=0)
        finally:
            if stderr_path:
                stderr.close()
        return cls(proc, stderr_path)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stderr_tail(self, n: int = 30) -> str:
        if not self.stderr_path or not os.path.exists(self.stderr_path):
            return "(stderr not captured)"
        with open(self.stderr_path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-n:]) or "(stderr empty)"

    def _dead_message(self, what: str) -> str:
        rc = self.proc.poll()
        if rc is None and self._eof:  # output closed: the process is probably exiting
            try:
                rc = self.proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                rc = None
        state = f"exited with code {rc}" if rc is not None else "still running"
        return (f"{what}; server process {self.proc.pid} {state}.\n"
                f"--- server stderr (tail) ---\n{self.stderr_tail()}")

    def close(self, timeout: float = 5.0) -> None:
        """shutdown + exit, then make sure the process is gone (this process only)."""
        if self.proc.poll() is None and not self._eof:
            try:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
            except (ServerError, OSError):
                pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=timeout)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def __enter__(self) -> "LspClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def rss_kb(self) -> int | None:
        """VmRSS of the server process (kB), from /proc; None if unavailable."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def cpu_seconds(self) -> float | None:
        """User + system CPU time the server process has used (s), from /proc (clock-tick
        resolution); None if unavailable. Over many edits it tells the server's work per
        edit apart from waiting for a core on a busy machine."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    # ---- wire -------------------------------------------------------------------------

    def _read_loop(self) -> None:
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        length = int(v.strip())
                if length is None:
                    continue
                body = b""
                while len(body) < length:
                    chunk = out.read(length - len(body))
                    if not chunk:
                        raise EOFError
                    body += chunk
                t = time.perf_counter()
                self._dispatch(Arrival(t, json.loads(body)))
        except EOFError:
            pass
        except BaseException as e:  # noqa: BLE001 - reported to waiters
            self._reader_error = e
        finally:
            with self._lock:
                self._eof = True
                self._lock.notify_all()

    def _dispatch(self, a: Arrival) -> None:
        msg = a.msg
        if "method" in msg and "id" in msg:  # a request from the server
            self._answer_server_request(msg)
            return
        with self._lock:
            if "id" in msg:
                self._responses[msg["id"]] = a
            elif msg.get("method") == "textDocument/publishDiagnostics":
                self.diagnostics.setdefault(msg["params"]["uri"], []).append(a)
            elif msg.get("method") in ("window/logMessage", "window/showMessage"):
                self.log_messages.append(msg["params"].get("message", ""))
            else:
                self._notifications.append(a)
            self._lock.notify_all()

    def _answer_server_request(self, msg: dict) -> None:
        method = msg["method"]
        result: Any = None
        if method == "workspace/configuration":
            result = [None for _ in msg.get("params", {}).get("items", [])]
        elif method == "workspace/workspaceFolders":
            result = []
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def _send(self, payload: dict) -> float:
        body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        with self._write_lock:
            if self.proc.poll() is not None or self._eof:
                raise ServerError(self._dead_message(f"cannot send {payload.get('method', 'response')}"))
            t = time.perf_counter()
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError) as e:
                raise ServerError(self._dead_message(f"write failed ({e})")) from e
        return t

    # ---- API --------------------------------------------------------------------------

    def notify(self, method: str, params: Any) -> float:
        """Send a notification; return the perf_counter time just before the write."""
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def send_request(self, method: str, params: Any) -> tuple[int, float]:
        self._next_id += 1
        rid = self._next_id
        t = self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid, t

    def wait_response(self, rid: int, timeout: float, what: str = "") -> Arrival:
        deadline = time.perf_counter() + timeout
        with self._lock:
            while rid not in self._responses:
                if self._eof:
                    raise ServerError(self._dead_message(f"server closed its output while waiting for {what or rid}"))
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise ServerError(self._dead_message(f"no answer to {what or rid} within {timeout:.1f} s"))
                self._lock.wait(min(left, 0.5))
            a = self._responses.pop(rid)
        if "error" in a.msg:
            raise ResponseError(f"{what or rid} failed: {a.msg['error']}")
        return a

    def request(self, method: str, params: Any, timeout: float = 30.0) -> tuple[Any, float]:
        """Send a request and wait; return (result, seconds from write to arrival)."""
        rid, t0 = self.send_request(method, params)
        a = self.wait_response(rid, timeout, method)
        return a.msg.get("result"), a.t - t0

    def wait_log(self, needle: str, timeout: float) -> bool:
        """Wait for a window/logMessage (or showMessage) containing `needle`; False if none
        came within `timeout` seconds."""
        deadline = time.perf_counter() + timeout
        with self._lock:
            while not any(needle in m for m in self.log_messages):
                if self._eof:
                    raise ServerError(self._dead_message(f"server closed its output while waiting for {needle!r}"))
                left = deadline - time.perf_counter()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.5))
        return True

    def wait_diagnostics(self, uri: str, version: int | None, after: float, timeout: float) -> Arrival:
        """The first publishDiagnostics for `uri` that arrived after `after` with `version`.

        If the server omits the version, the first publish after `after` is taken.
        Older publishes of the same uri are discarded.
        """
        deadline = time.perf_counter() + timeout
        with self._lock:
            while True:
                lst = self.diagnostics.get(uri, [])
                for i, a in enumerate(lst):
                    if a.t < after:
                        continue
                    v = a.msg["params"].get("version")
                    if version is None or v is None or v == version:
                        del lst[: i + 1]
                        return a
                    if v > version:  # our version was skipped (superseded)
                        raise ServerError(f"diagnostics for version {version} were skipped: got {v}")
                if self._eof:
                    raise ServerError(self._dead_message(f"server closed its output while waiting for diagnostics v{version}"))
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise ServerError(self._dead_message(
                        f"no publishDiagnostics for {uri} version {version} within {timeout:.1f} s"))
                self._lock.wait(min(left, 0.5))

    def drain_diagnostics(self, uri: str) -> None:
        with self._lock:
            self.diagnostics.pop(uri, None)

    def initialize(self, root_uri: str | None = None, init_options: dict | None = None,
                   capabilities: dict | None = None, timeout: float = 30.0) -> tuple[dict, float]:
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "shapesense-bench", "version": "0.1"},
            "rootUri": root_uri,
            "workspaceFolders": [{"uri": root_uri, "name": "bench"}] if root_uri else None,
            "capabilities": capabilities or CLIENT_CAPABILITIES,
            "initializationOptions": init_options or {},
        }
        result, dt = self.request("initialize", params, timeout=timeout)
        self.server_capabilities = (result or {}).get("capabilities", {})
        self.notify("initialized", {})
        return result, dt

    # ---- documents --------------------------------------------------------------------

    def did_open(self, uri: str, text: str, version: int = 1) -> float:
        return self.notify("textDocument/didOpen", {
            "textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}})

    def did_change(self, uri: str, version: int, changes: list[dict]) -> float:
        return self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": changes})

    def did_close(self, uri: str) -> float:
        return self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def sync_kind(self) -> int:
        """1 = full, 2 = incremental (from the server's capabilities)."""
        s = self.server_capabilities.get("textDocumentSync", 2)
        if isinstance(s, dict):
            return int(s.get("change", 2) or 0)
        return int(s)
