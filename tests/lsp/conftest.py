"""pytest-lsp fixtures: the real server (or the server on a fake engine) over stdio,
driven with VS Code's and Neovim's recorded client capabilities."""
from __future__ import annotations

import pathlib
import shutil
import sys

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

# The helpers sit beside this file; make them importable under any pytest import mode.
sys.path.insert(0, str(pathlib.Path(__file__).parent))

from lsp_helpers import CLIENTS, DATA, FAKE_SERVER, REAL_SERVER, make_client, start  # noqa: E402


@pytest.fixture
def workspace(tmp_path: pathlib.Path) -> pathlib.Path:
    """A fresh copy of tests/lsp/data as the workspace folder."""
    root = tmp_path / "ws"
    shutil.copytree(DATA, root)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=FAKE_SERVER, client_factory=make_client), params=list(CLIENTS))
async def fake(request, lsp_client: LanguageClient, workspace):
    """The server on the fake engine (protocol behaviour only)."""
    await start(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=REAL_SERVER, client_factory=make_client), params=list(CLIENTS))
async def real(request, lsp_client: LanguageClient, workspace):
    """The real server on the real engine."""
    await start(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=REAL_SERVER, client_factory=make_client), params=["vscode", "neovim-push"])
async def real_push(request, lsp_client: LanguageClient, workspace):
    """The real server with clients that take pushed diagnostics (both encodings)."""
    await start(lsp_client, request.param, workspace)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=REAL_SERVER, client_factory=make_client))
async def real_bare(lsp_client: LanguageClient):
    """The real server, started but not initialised: the test chooses the options."""
    yield
    await lsp_client.shutdown_session()
