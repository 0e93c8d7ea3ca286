"""End-to-end: the model summary in real VS Code (code-server, headless Chromium): the
CodeLens above an nn.Module class, a click on it, and the webview beside the editor with
the layer table and the shape-flow picture. The screenshot goes to a temporary folder (or
SHAPESENSE_SCREENSHOTS)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_vscode_e2e import e2e_env  # noqa: F401  (the shared setup fixture)
from test_vscode_notebook import _start_code_server, _stop

pytestmark = pytest.mark.editor

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parents[1] / "samples" / "lenet_wrong_linear.py"


@pytest.fixture(scope="module")
def summary_run(e2e_env, tmp_path_factory) -> dict:  # noqa: F811
    tmp = tmp_path_factory.mktemp("vscode-summary")
    folder = tmp / "workspace"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / SAMPLE.name)
    shots = Path(os.environ.get("SHAPESENSE_SCREENSHOTS", tmp))
    shots.mkdir(parents=True, exist_ok=True)
    node_bin = Path(e2e_env["SHAPESENSE_NODE_DIR"]) / "bin"
    env = dict(os.environ, PATH=f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("CONFIG", "DATA", "CACHE", "STATE"):
        env[f"XDG_{name}_HOME"] = str(tmp / "xdg" / name.lower())
    server, url = _start_code_server(e2e_env, tmp, folder, env)
    try:
        cfg = {"url": url, "folder": str(folder), "file": SAMPLE.name, "lens": "params ·",
               "tab": "Summary: LeNet", "shot": str(shots / "summary_webview.png"), "fail_shots": str(tmp)}
        cfg_path = tmp / "driver.json"
        cfg_path.write_text(json.dumps(cfg))
        drv = subprocess.run([str(node_bin / "node"), str(HERE / "summary_driver.js"), str(cfg_path)],
                             env=dict(env, NODE_PATH=e2e_env["SHAPESENSE_PW_NODE_PATH"]),
                             capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        line = next((l for l in drv.stdout.splitlines() if l.startswith("RESULT ")), None)
        assert line, f"summary_driver.js failed ({drv.returncode}):\n{drv.stdout[-3000:]}\n{drv.stderr[-5000:]}"
        result = json.loads(line[len("RESULT "):])
        logs = sorted((tmp / "user-data" / "logs").glob("**/ShapeSense.log"))
        result["output_log"] = logs[-1].read_text() if logs else ""
        result["shot"] = cfg["shot"]
        print("\n".join(result["log"]))
        return result
    finally:
        _stop(server)


def _step(run: dict, name: str) -> dict:
    s = run["steps"].get(name)
    context = "\n".join(run["log"]) + "\n--- ShapeSense output ---\n" + run.get("output_log", "")[-4000:]
    assert s is not None, f"driver never reached step {name!r}:\n{context}"
    assert s["ok"], f"step {name!r} failed: {s.get('error')}\n{context}"
    return s


def test_code_lens_above_the_model(summary_run):
    assert _step(summary_run, "code_lens")["text"] == "61,706 params · Tensor[8, 1, 28, 28] -> ?"


def test_lens_opens_table_and_picture_beside_the_editor(summary_run):
    opened = _step(summary_run, "open_summary")
    assert "Total params: 61,706" in opened["summary"], opened
    assert "mat1 and mat2 shapes cannot be multiplied (8x256 and 400x120)" in opened["summary"], opened
    if shutil.which("dot"):
        assert opened["svg_edges"] == 6, opened  # input -> conv1 -> conv2 -> fc1 -> fc2 -> fc3 -> output
    assert Path(summary_run["shot"]).stat().st_size > 10_000
