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


async def _open_model(client, tmp_path, options, pyproject=None):
    """A workspace with model.py (a bug inside a library call), opened; (errors, whether
    the stand-in interpreter ran)."""
    python, marker = _interpreter_with(tmp_path, _library(tmp_path))
    ws = tmp_path / "ws"
    ws.mkdir()
    if pyproject:
        (ws / "pyproject.toml").write_text(pyproject.format(python=python))
    await start(client, "vscode", ws, {k: v.format(python=python) if isinstance(v, str) else v
                                       for k, v in options.items()})
    uri = (ws / "model.py").as_uri()
    open_doc(client, uri, USER)
    return await _errors(client, uri), marker.exists()


async def test_interpreter_setting_finds_the_library(client: LanguageClient, tmp_path):
    errors, ran = await _open_model(client, tmp_path, {"interpreter": "{python}"})
    assert errors == ["mat1 and mat2 shapes cannot be multiplied (4x9 and 8x16)"]
    assert ran


@pytest.mark.parametrize("options", [{"workspaceTrusted": False}, {}], ids=["untrusted", "client-says-nothing"])
async def test_folder_names_no_interpreter_unless_trusted(client: LanguageClient, tmp_path, options):
    errors, ran = await _open_model(client, tmp_path, options, '[tool.shapesense]\npython = "{python}"\n')
    assert errors == []
    assert not ran


async def test_trusted_folder_may_name_its_interpreter(client: LanguageClient, tmp_path):
    errors, ran = await _open_model(client, tmp_path, {"workspaceTrusted": True},
                                    '[tool.shapesense]\npython = "{python}"\n')
    assert errors == ["mat1 and mat2 shapes cannot be multiplied (4x9 and 8x16)"]
    assert ran
