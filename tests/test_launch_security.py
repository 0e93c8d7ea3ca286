"""Opening a folder never runs code from it.

A workspace is filled with modules named like everything the server imports (`json.py`,
`z3.py`, `jedi.py`, `parso.py`, `hashlib.py`, `bisect.py`, `shapesense.py`, ... each writes a
marker file when imported). Then:

- the VS Code extension's exact command lines (the pre-start check and the server), taken
  from its own code (`vscode-extension/src/launch.ts`, built by `scripts/vscode-e2e-setup.sh
  --extension-only`) and run from the packaged .vsix's files, answer a hover in that workspace;
- the same with the workspace as the working directory (as if the extension got that wrong):
  the isolated launch alone keeps the workspace off sys.path;
- `python -m shapesense check .` run inside the workspace;

and no marker appears. A control run shows the markers do appear when a plain `python -c`
imports from that folder, so the test can fail.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SETUP = REPO / "scripts" / "vscode-e2e-setup.sh"

# What the server imports that a folder could shadow, named by the issue, plus the server's own
# dependencies; `_server_imports()` adds every module the server actually loads.
NAMED = ["json", "jedi", "z3", "parso", "hashlib", "bisect", "shapesense", "pygls", "lsprotocol",
         "attrs", "cattrs", "typing_extensions", "argparse", "logging", "asyncio", "sitecustomize",
         "usercustomize"]

MODEL = """\
import json
import z3
import torch
import helpers_nowhere  # not in the workspace: the server asks jedi, which starts a subprocess

x = torch.randn(2, 3)
y = x.t()
"""


# ---------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def built() -> dict:
    """Node 24, the built extension and its .vsix (with the bundled Python libraries)."""
    proc = subprocess.run(["bash", str(SETUP), "--extension-only"], capture_output=True, text=True,
                          timeout=1500, stdin=subprocess.DEVNULL)
    if proc.returncode == 3:
        pytest.skip(f"could not download what the extension build needs:\n{proc.stderr[-2000:]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    home = Path(os.environ.get("SHAPESENSE_E2E_HOME", Path.home() / ".cache" / "shapesense-e2e"))
    env = {}
    for line in (home / "env.sh").read_text().splitlines():
        k, _, v = line.removeprefix("export ").partition("=")
        env[k] = v.strip('"')
    return env


@pytest.fixture(scope="module")
def extension_root(built, tmp_path_factory) -> Path:
    """The extension as VS Code installs it: the .vsix's `extension/` folder."""
    out = tmp_path_factory.mktemp("installed")
    with zipfile.ZipFile(built["SHAPESENSE_VSIX"]) as z:
        z.extractall(out)
    root = out / "extension"
    assert (root / "bundled" / "libs" / "shapesense").is_dir(), "the .vsix ships no bundled/libs"
    return root


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> str:
    """A Python the user might have: a fresh venv with nothing installed (no shapesense)."""
    venv = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = str(venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))
    probe = subprocess.run([py, "-I", "-c", "import shapesense"], capture_output=True, cwd=venv)
    assert probe.returncode != 0, "the fresh venv must not see shapesense"
    return py


def launch_specs(built: dict, python: str, root: Path, strategy: str) -> dict:
    """The extension's own command lines (launch.ts), computed by node from the built code."""
    node = Path(built["SHAPESENSE_NODE_DIR"]) / "bin" / "node"
    launch_js = Path(built["SHAPESENSE_EXT_BUILD"]) / "out" / "launch.js"
    script = (
        "const l = require(process.argv[1]);"
        "const [py, root, strategy] = process.argv.slice(2);"
        "const bundled = l.usesBundled(strategy, root);"
        "console.log(JSON.stringify({bundled, stdio: l.STDIO_ARG,"
        " check: l.checkLaunch([py], root, bundled), serve: l.serverLaunch([py], root, bundled)}));"
    )
    out = subprocess.run([str(node), "-e", script, str(launch_js), python, str(root), strategy],
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def _server_imports() -> set[str]:
    """Top-level modules the server loads that a folder on sys.path could provide (not built in
    or frozen: those never come from a path)."""
    code = (
        "import sys, json\n"
        "import shapesense.server.cli, shapesense.server.app, shapesense.analysis.db, jedi, z3\n"
        "names = {m.split('.')[0] for m in sys.modules}\n"
        "skip = set(sys.builtin_module_names)\n"
        "skip |= {n for n in names if getattr(sys.modules.get(n), '__spec__', None) is not None\n"
        "         and sys.modules[n].__spec__.origin in ('frozen', 'built-in')}\n"
        "print(json.dumps(sorted(n for n in names - skip if not n.startswith('_') and n != '__main__')))\n"
    )
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=REPO / "tests", check=True)
    return set(json.loads(out.stdout))


@pytest.fixture(scope="module")
def shadow_names() -> list[str]:
    return sorted(set(NAMED) | _server_imports())


def make_workspace(path: Path, names: list[str]) -> Path:
    """A folder whose every `<name>.py` leaves `_markers/<name>` behind when imported."""
    path.mkdir(parents=True)
    markers = path / "_markers"
    markers.mkdir()
    for name in names:
        (path / f"{name}.py").write_text(
            f"open({str(markers / name)!r}, 'w').close()\n"
            "raise SystemExit('workspace code ran')\n"
        )
    (path / "model.py").write_text(MODEL)
    return path


def markers(ws: Path) -> list[str]:
    return sorted(p.name for p in (ws / "_markers").iterdir())


# ---------------------------------------------------------------------------------- a client


class Lsp:
    """Just enough LSP over a subprocess's stdio: requests, their answers, server requests
    answered with null; a reader thread so a silent server fails by timeout."""

    def __init__(self, argv: list[str], cwd: str, env: dict):
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put(json.loads(out.read(length)))

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict | None, timeout: float = 60) -> dict:
        self.next_id += 1
        my_id = self.next_id
        self.send({"id": my_id, "method": method, **({"params": params} if params is not None else {})})
        deadline = time.monotonic() + timeout
        while True:
            try:
                msg = self.inbox.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no answer to {method}: {b''.join(self.stderr)[-2000:]!r}") from None
            assert msg is not None, f"server exited: {b''.join(self.stderr)[-3000:]!r}"
            if "method" in msg and "id" in msg:
                self.send({"id": msg["id"], "result": None})
            elif msg.get("id") == my_id:
                return msg

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=20)
            self.send({"method": "exit"})
            self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def hover_in(ws: Path, argv: list[str], cwd: str, env: dict) -> str:
    """Start the server with this exact command, open model.py, return the hover on `y`
    (or what went wrong: the caller checks the markers first, they say more)."""
    try:
        return _hover(ws, argv, cwd, env)
    except AssertionError as e:
        return f"no hover: {e}"


def _hover(ws: Path, argv: list[str], cwd: str, env: dict) -> str:
    lsp = Lsp(argv, cwd, env)
    try:
        uri = ws.as_uri()
        init = lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri,
                                          "workspaceFolders": [{"uri": uri, "name": "ws"}],
                                          "capabilities": {}})
        assert "capabilities" in init.get("result", {}), init
        lsp.send({"method": "initialized", "params": {}})
        doc = (ws / "model.py").as_uri()
        lsp.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": doc, "languageId": "python", "version": 1, "text": MODEL}}})
        line = MODEL.splitlines().index("y = x.t()")
        deadline = time.monotonic() + 60
        while True:
            reply = lsp.request("textDocument/hover", {"textDocument": {"uri": doc},
                                                       "position": {"line": line, "character": 0}})
            contents = (reply.get("result") or {}).get("contents")
            text = contents.get("value", "") if isinstance(contents, dict) else json.dumps(contents)
            if "Tensor[" in text or time.monotonic() > deadline:
                return text
            time.sleep(0.3)
    finally:
        lsp.close()


# ---------------------------------------------------------------------------------- tests


def test_control_the_shadow_modules_do_run_when_imported_from_the_folder(tmp_path, shadow_names):
    ws = make_workspace(tmp_path / "ws", shadow_names)
    subprocess.run([sys.executable, "-c", "import json"], cwd=ws, capture_output=True, timeout=60)
    assert markers(ws) == ["json"]
    assert {"json", "z3", "jedi", "parso", "hashlib", "bisect", "pygls"} <= set(shadow_names)


@pytest.mark.parametrize("cwd_is_workspace", [False, True], ids=["extension-cwd", "workspace-cwd"])
def test_extension_launch_with_bundled_server_runs_nothing_from_the_folder(
    tmp_path, built, extension_root, bare_python, shadow_names, cwd_is_workspace
):
    ws = make_workspace(tmp_path / "ws", shadow_names)
    specs = launch_specs(built, bare_python, extension_root, "useBundled")
    assert specs["bundled"], specs
    check, serve = specs["check"], specs["serve"]
    assert Path(serve["cwd"]) == extension_root and not Path(serve["cwd"]).is_relative_to(ws)
    cwd = str(ws) if cwd_is_workspace else serve["cwd"]

    out = subprocess.run([check["command"], *check["args"]], cwd=str(ws) if cwd_is_workspace else check["cwd"],
                         env=check["env"], capture_output=True, text=True, timeout=120)
    line = next(l for l in out.stdout.splitlines() if l.startswith("SHAPESENSE_CHECK "))
    info = json.loads(line.split(" ", 1)[1])
    assert info["missing"] == {} and info["bundled"], info
    assert Path(info["location"]).is_relative_to(extension_root), info  # not the venv, not the repo

    text = hover_in(ws, [serve["command"], *serve["args"], specs["stdio"]], cwd, serve["env"])
    assert markers(ws) == [], f"workspace modules ran: {markers(ws)}"
    assert "Tensor[3, 2]" in text, text


def test_extension_launch_from_the_environment_runs_nothing_from_the_folder(
    tmp_path, built, extension_root, shadow_names
):
    """importStrategy fromEnvironment: the interpreter's own shapesense (this repo's install)."""
    ws = make_workspace(tmp_path / "ws", shadow_names)
    specs = launch_specs(built, sys.executable, extension_root, "fromEnvironment")
    assert not specs["bundled"] and "--bundled" not in specs["serve"]["args"], specs
    serve = specs["serve"]
    text = hover_in(ws, [serve["command"], *serve["args"], specs["stdio"]], str(ws), serve["env"])
    assert markers(ws) == [], f"workspace modules ran: {markers(ws)}"
    assert "Tensor[3, 2]" in text, text


def test_python_m_shapesense_check_runs_nothing_from_the_folder(tmp_path, shadow_names):
    # `shapesense.py` itself is found by Python before shapesense/__main__.py can act (README:
    # Security); every module the CLI imports afterwards is covered
    names = [n for n in shadow_names if n != "shapesense"]
    ws = make_workspace(tmp_path / "ws", names)
    (ws / "bad.py").write_text("import torch\nx = torch.randn(2, 3) @ torch.randn(4, 5)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    out = subprocess.run([sys.executable, "-m", "shapesense", "check", "."], cwd=ws, env=env,
                         capture_output=True, text=True, timeout=300)
    assert markers(ws) == [], f"workspace modules ran: {markers(ws)}\n{out.stderr[-2000:]}"
    assert out.returncode == 1, out.stdout + out.stderr
    assert "bad.py:2:" in out.stdout and "shape-mismatch" in out.stdout, out.stdout
