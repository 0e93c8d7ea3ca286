"""The command line: `shapesense check` (on the real engine) and `shapesense serve --tcp`."""
from __future__ import annotations

import json
import pathlib
import shutil
import socket
import subprocess
import sys

import pytest

DATA = pathlib.Path(__file__).parent / "data"
CLEAN = '''import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc(x)


h = Head()(torch.randn(8, 256))
'''


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "shapesense", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_help_lists_both_commands():
    out = run("--help")
    assert out.returncode == 0 and "serve" in out.stdout and "check" in out.stdout


def test_check_json_reports_diagnostics_and_facts(tmp_path):
    shutil.copy(DATA / "mnist_cnn.py", tmp_path / "mnist_cnn.py")
    out = run("check", "mnist_cnn.py", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    [err] = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert err["path"] == "mnist_cnn.py" and err["code"] == "shape-mismatch"
    assert set(err["range"]) == {"start", "end"} and "256" in err["message"]
    shapes = {(f["text"], f["shape"]) for f in report["facts"]}
    assert ("x", "Tensor[B, 256]") in shapes


def test_check_text_and_exit_codes(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "head.py").write_text(CLEAN)
    clean = run("check", "pkg", cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "0 error(s)" in clean.stdout
    shutil.copy(DATA / "mnist_cnn.py", tmp_path / "pkg" / "mnist_cnn.py")
    broken = run("check", "pkg", cwd=tmp_path)
    assert broken.returncode == 1
    line = next(ln for ln in broken.stdout.splitlines() if "[shape-mismatch]" in ln)
    assert line.startswith("pkg/mnist_cnn.py:") and ": error: " in line


def test_check_lists_unknown_ops(tmp_path):
    (tmp_path / "odd.py").write_text(
        "import torch\n\nx = torch.randn(3, 4)\ny = torch.shapesense_never_heard_of(x)\nz = torch.shapesense_never_heard_of(y)\n"
    )
    out = run("check", "odd.py", "--unknown-ops", "--format", "json", cwd=tmp_path)
    report = json.loads(out.stdout)
    assert any("shapesense_never_heard_of" in name and n == 2 for name, n in report["unknown_ops"].items())
    text = run("check", "odd.py", "--unknown-ops", cwd=tmp_path)
    assert "shapesense_never_heard_of" in text.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _frame(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def _read_frame(sock: socket.socket) -> dict:
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[1])
    while len(rest) < length:
        rest += sock.recv(4096)
    return json.loads(rest[:length])


def test_serve_over_tcp(tmp_path):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "shapesense", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        for _ in range(200):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except ConnectionRefusedError:
                if proc.poll() is not None:
                    pytest.fail(proc.stderr.read().decode())
                try:
                    proc.wait(timeout=0.05)  # give the server time to bind
                except subprocess.TimeoutExpired:
                    pass
        else:
            pytest.fail("server never listened")
        with sock:
            sock.sendall(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
            msg = _read_frame(sock)
            while msg.get("id") != 1:
                msg = _read_frame(sock)
            caps = msg["result"]["capabilities"]
            assert caps["hoverProvider"] and caps["inlayHintProvider"] and caps["codeActionProvider"]
            assert caps["textDocumentSync"]["change"] == 2  # incremental
            sock.sendall(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            sock.sendall(_frame({"jsonrpc": "2.0", "method": "exit"}))
    finally:
        proc.kill()
        proc.wait()
