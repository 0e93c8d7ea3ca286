"""The server's `interpreter` setting decides where installed libraries are read from, and
an untrusted folder's pyproject.toml names no interpreter the server would run."""
from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import textwrap

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
import pytest_lsp

from lsp_helpers import REAL_SERVER, TIMEOUT, make_client, open_doc, start

pytestmark = pytest.mark.asyncio

USER = "import torch\nfrom blocklib import Block\n\ny = Block(8, 16)(torch.randn(4, 9))\n"


def _library(root):
    site = root / "site"
    (site / "blocklib").mkdir(parents=True)
    (site / "blocklib" / "__init__.py").write_text(textwrap.dedent("""
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, dim, hidden):
                super().__init__()
                self.fc = nn.Linear(dim, hidden)

            def forward(self, x):
                return self.fc(x)
    """))
    return site


def _interpreter_with(root, site):
    """A stand-in interpreter: a script that runs this Python with `site` on its path and
    leaves a marker each time it is run."""
    script = root / "python-with-lib"
    marker = root / "ran"
    script.write_text(f"#!/bin/sh\necho run >> {marker}\nPYTHONPATH= exec {sys.executable} -c "
                      f"'import sys; sys.path.append(\"{site}\"); exec(sys.argv[-1])' \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, marker


async def _errors(client, uri):
    for _ in range(200):
        for p in reversed(client.published):
            if p.uri == uri:
                return [d.message for d in p.diagnostics]
        await asyncio.sleep(0.05)
    return None


@pytest_lsp.fixture(config=ClientServerConfig(server_command=REAL_SERVER, client_factory=make_client))
async def client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_interpreter_setting_finds_the_library(client: LanguageClient, tmp_path):
    site = _library(tmp_path)
    python, marker = _interpreter_with(tmp_path, site)
    ws = tmp_path / "ws"
    ws.mkdir()
    await start(client, "vscode", ws, {"interpreter": str(python)})
    uri = (ws / "model.py").as_uri()
    open_doc(client, uri, USER)
    errors = await _errors(client, uri)
    assert errors == ["mat1 and mat2 shapes cannot be multiplied (4x9 and 8x16)"]
    assert marker.exists()


async def test_untrusted_folder_runs_no_interpreter_it_names(client: LanguageClient, tmp_path):
    site = _library(tmp_path)
    python, marker = _interpreter_with(tmp_path, site)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "pyproject.toml").write_text(f'[tool.shapesense]\npython = "{python}"\n')
    await start(client, "vscode", ws, {"workspaceTrusted": False})
    uri = (ws / "model.py").as_uri()
    open_doc(client, uri, USER)
    assert await _errors(client, uri) == []
    assert not marker.exists()
