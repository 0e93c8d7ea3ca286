"""End-to-end: a real `.ipynb` in real VS Code (code-server) with the packaged extension.

The workspace holds `samples/notebook_mnist.ipynb`; VS Code opens it in its notebook editor
(the built-in ipynb extension) and syncs the cells to the server as a notebook (LSP 3.17).
`notebook_driver.js` hovers `batch` in the last cell, which cell 1 defines, takes a
screenshot, looks for the squiggle in the model's cell and applies its quick fix. The screenshot goes to the
test's temporary folder (or SHAPESENSE_SCREENSHOTS when set), never into tracked files.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from test_vscode_e2e import USER_SETTINGS, _free_port, e2e_env  # noqa: F401  (e2e_env: the shared setup fixture)

pytestmark = pytest.mark.editor

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE.parents[1] / "samples" / "notebook_mnist.ipynb"


def _start_code_server(e2e_env: dict, tmp: Path, folder: Path, env: dict) -> tuple[subprocess.Popen, str]:
    cs = e2e_env["SHAPESENSE_CODE_SERVER"]
    ud, ext = tmp / "user-data", tmp / "extensions"
    (ud / "User").mkdir(parents=True)
    settings = dict(USER_SETTINGS, **{
        "shapesense.interpreter": sys.executable,
        "shapesense.trace.server": "messages",  # the LSP traffic in the output channel
        "workbench.editorAssociations": {"*.ipynb": "jupyter-notebook"},
    })
    (ud / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    config = tmp / "config.yaml"
    config.write_text("auth: none\ncert: false\n")
    common = ["--config", str(config), "--user-data-dir", str(ud), "--extensions-dir", str(ext)]
    inst = subprocess.run([cs, *common, "--install-extension", e2e_env["SHAPESENSE_VSIX"]],
                          env=env, capture_output=True, text=True, timeout=120)
    assert inst.returncode == 0 and "successfully installed" in inst.stdout, inst.stdout + inst.stderr
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    with open(tmp / "code-server.log", "w") as log:
        server = subprocess.Popen(
            [cs, *common, "--bind-addr", f"127.0.0.1:{port}", "--auth", "none", "--disable-telemetry",
             "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", str(folder)],
            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: extension hosts and the server stop with it
        )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=2).read()
            return server, url
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                _stop(server)
                raise AssertionError((tmp / "code-server.log").read_text()[-3000:])
            time.sleep(0.25)


def _stop(server: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(server.pid, sig)
            server.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def run_notebook_scenario(e2e_env: dict, tmp: Path) -> dict:
    """code-server on a workspace holding the sample notebook, driven by notebook_driver.js."""
    folder = tmp / "workspace"
    folder.mkdir()
    shutil.copy(NOTEBOOK, folder / NOTEBOOK.name)
    shots = Path(os.environ.get("SHAPESENSE_SCREENSHOTS", tmp))
    shots.mkdir(parents=True, exist_ok=True)
    node_bin = Path(e2e_env["SHAPESENSE_NODE_DIR"]) / "bin"
    env = dict(os.environ, PATH=f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("CONFIG", "DATA", "CACHE", "STATE"):
        env[f"XDG_{name}_HOME"] = str(tmp / "xdg" / name.lower())
    server, url = _start_code_server(e2e_env, tmp, folder, env)
    try:
        cfg = {
            "url": url, "folder": str(folder), "file": NOTEBOOK.name,
            "shot": str(shots / "notebook_hover.png"), "fail_shots": str(tmp),
            "hover": {"line": "model(batch)", "token": "batch", "want": r"batch: Tensor\[64, 1, 28, 28\]"},
            "squiggle": {"line": "F.relu(self.fc1(x))"},
            "quickfix": {"token": "fc1", "title": "Set in_features to 256", "fixed": "nn.Linear(256, 120)"},
            # 32x32 digits make LeNet's trunk leave 400 features again: the repaired cell is wrong now
            "edit": {"line": "torch.randn(64, 1, 28, 28)", "old": "28, 28)", "replacement": "32, 32)",
                     "hint_line": "torch.flatten(x, 1)", "hint": "Tensor[64, 400]"},
        }
        cfg_path = tmp / "driver.json"
        cfg_path.write_text(json.dumps(cfg))
        drv = subprocess.run(
            [str(node_bin / "node"), str(HERE / "notebook_driver.js"), str(cfg_path)],
            env=dict(env, NODE_PATH=e2e_env["SHAPESENSE_PW_NODE_PATH"]),
            capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        )
        line = next((l for l in drv.stdout.splitlines() if l.startswith("RESULT ")), None)
        assert line, f"notebook_driver.js failed ({drv.returncode}):\n{drv.stdout[-3000:]}\n{drv.stderr[-5000:]}"
        result = json.loads(line[len("RESULT "):])
        logs = sorted((tmp / "user-data" / "logs").glob("**/ShapeSense.log"))
        result["output_log"] = logs[-1].read_text() if logs else ""
        result["shot"] = cfg["shot"]
        print("\n".join(result["log"]))
        return result
    finally:
        _stop(server)


@pytest.fixture(scope="module")
def notebook_run(e2e_env, tmp_path_factory) -> dict:
    return run_notebook_scenario(e2e_env, tmp_path_factory.mktemp("vscode-notebook"))


def _step(run: dict, name: str) -> dict:
    s = run["steps"].get(name)
    context = "\n".join(run["log"]) + "\n--- ShapeSense output ---\n" + run.get("output_log", "")[-4000:]
    assert s is not None, f"driver never reached step {name!r}:\n{context}"
    assert s["ok"], f"step {name!r} failed: {s.get('error')}\n{context}"
    return s


def test_notebook_opens_in_the_notebook_editor(notebook_run):
    assert _step(notebook_run, "open_notebook")["cells"] >= 3


def test_hover_in_a_cell_shows_a_shape_from_another_cell(notebook_run):
    hover = _step(notebook_run, "hover")
    assert "batch: Tensor[64, 1, 28, 28]" in hover["text"], hover
    assert Path(notebook_run["shot"]).stat().st_size > 10_000


def test_squiggle_in_the_model_cell(notebook_run):
    sq = _step(notebook_run, "squiggle")
    assert any(l and "self.fc1(x)" in l for l in sq["lines"]), sq
    # the cells were synced as a notebook, not as loose files
    assert "notebookDocument/didOpen" in notebook_run["output_log"], notebook_run["output_log"][-3000:]


def test_quick_fix_in_a_cell(notebook_run):
    qf = _step(notebook_run, "quickfix")
    assert qf["remaining"] == 0, qf
    assert "nn.Linear(256, 120)" in (qf["fixed_line"] or ""), qf


def test_edit_in_one_cell_rechecks_another(notebook_run):
    edit = _step(notebook_run, "edit_other_cell")
    assert "torch.randn(64, 1, 32, 32)" in (edit["edited_line"] or ""), edit
    assert any(l and "self.fc1(x)" in l for l in edit["lines"]), edit
    assert "Tensor[64, 400]" in (edit["hinted_line"] or ""), edit
