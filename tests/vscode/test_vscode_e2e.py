"""End-to-end: the packaged extension inside real VS Code (code-server) in headless Chromium.

`scripts/vscode-e2e-setup.sh` installs code-server, Node 24, playwright-core and Chromium into a
cache folder and packages the .vsix; each scenario starts its own code-server (own process group,
free loopback port, fresh user-data and extensions dirs) with the .vsix installed, opens a copy of
`tests/vscode/workspace/` and drives the workbench with `driver.js`. Screenshots go to the
untracked `build/screenshots/`, or to SHAPESENSE_SCREENSHOTS: `scripts/refresh-screenshots.sh`
points it at `docs/screenshots/` to refresh the README's pictures; a plain test run never
rewrites tracked files.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.editor

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SETUP = REPO / "scripts" / "vscode-e2e-setup.sh"
SAMPLE = "mnist_cnn.py"
SHOTS = Path(os.environ.get("SHAPESENSE_SCREENSHOTS") or REPO / "build" / "screenshots")

USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": "off",
    "update.mode": "none",
    "editor.hover.delay": 100,
    "editor.minimap.enabled": False,
    "window.commandCenter": False,
    "chat.disableAIFeatures": True,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "python.languageServer": "None",
}


# ---------------------------------------------------------------------------------- helpers


def _sample_lines() -> dict:
    lines = (HERE / "workspace" / SAMPLE).read_text().splitlines()

    def find(text: str) -> int:
        for i, line in enumerate(lines, 1):
            if line.strip().startswith(text):
                return i
        raise AssertionError(f"{text!r} not in {SAMPLE}")

    driver_x = find("x = torch.randn(64, 1, 28, 28)")
    return {
        "driver_x": driver_x,
        "driver_x_src": lines[driver_x - 1],
        "fc1_call": find("x = F.relu(self.fc1(x))"),
        "fc1_def": find("self.fc1 = nn.Linear("),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _read_env(path: Path) -> dict:
    env = {}
    for line in path.read_text().splitlines():
        if line.startswith("export ") and "=" in line:
            k, v = line[len("export ") :].split("=", 1)
            env[k] = v.strip('"')
    return env


@pytest.fixture(scope="session")
def e2e_env() -> dict:
    t0 = time.monotonic()
    proc = subprocess.run(
        ["bash", str(SETUP)], capture_output=True, text=True, timeout=1500, stdin=subprocess.DEVNULL
    )
    tail = (proc.stderr or "")[-3000:]
    if proc.returncode == 3:
        pytest.skip(f"VS Code e2e setup could not download what it needs (no network?):\n{tail}")
    assert proc.returncode == 0, f"scripts/vscode-e2e-setup.sh failed ({proc.returncode}):\n{tail}"
    home = Path(os.environ.get("SHAPESENSE_E2E_HOME", Path.home() / ".cache" / "shapesense-e2e"))
    env = _read_env(home / "env.sh")
    env["setup_seconds"] = f"{time.monotonic() - t0:.1f}"
    print(f"vscode e2e setup took {env['setup_seconds']} s")
    return env


def _run_scenario(
    e2e_env: dict, tmp: Path, scenario: str, interpreter: str | None, shot: str = "", toast: str = "",
    trust: bool = False, prepare=None, extra: dict | None = None,
) -> dict:
    """Start code-server with the .vsix, run driver.js, always stop the process group.

    interpreter None: no `shapesense.interpreter` setting (the extension finds python3);
    trust: Workspace Trust on, and the folder opens untrusted (Restricted Mode);
    prepare(folder): adds files to the workspace copy; extra: more driver.js config."""
    node_bin = Path(e2e_env["SHAPESENSE_NODE_DIR"]) / "bin"
    cs = e2e_env["SHAPESENSE_CODE_SERVER"]
    env = dict(os.environ)
    env["PATH"] = f"{node_bin}{os.pathsep}{env.get('PATH', '')}"
    for name in ("CONFIG", "DATA", "CACHE", "STATE"):
        env[f"XDG_{name}_HOME"] = str(tmp / "xdg" / name.lower())
    ud, ext = tmp / "user-data", tmp / "extensions"
    (ud / "User").mkdir(parents=True)
    settings = dict(USER_SETTINGS, **{"shapesense.trace.server": os.environ.get("SHAPESENSE_E2E_TRACE", "messages")})
    if interpreter is not None:
        settings["shapesense.interpreter"] = interpreter
    if trust:
        settings["security.workspace.trust.enabled"] = True
        settings["security.workspace.trust.startupPrompt"] = "never"
    (ud / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    config = tmp / "config.yaml"
    config.write_text("auth: none\ncert: false\n")
    folder = tmp / "workspace"
    shutil.copytree(HERE / "workspace", folder)
    if prepare:
        prepare(folder)
    common = ["--config", str(config), "--user-data-dir", str(ud), "--extensions-dir", str(ext)]

    inst = subprocess.run(
        [cs, *common, "--install-extension", e2e_env["SHAPESENSE_VSIX"]],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert inst.returncode == 0 and "successfully installed" in inst.stdout, inst.stdout + inst.stderr

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp / "code-server.log"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [cs, *common, "--bind-addr", f"127.0.0.1:{port}", "--auth", "none",
             "--disable-telemetry", "--disable-update-check",
             *([] if trust else ["--disable-workspace-trust"]),
             "--disable-getting-started-override", str(folder)],
            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,  # setsid: extension hosts and the Python server join the group
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2).read()
                break
            except OSError:
                assert server.poll() is None, log_path.read_text()[-3000:]
                assert time.monotonic() < deadline, "code-server did not answer /healthz in 60 s"
                time.sleep(0.25)
        cfg = {
            "url": url,
            "folder": str(folder),
            "file": SAMPLE,
            "shots": str(SHOTS),
            "scenario": scenario,
            "lines": _sample_lines(),
            "pgid": server.pid,  # start_new_session: the pid is the process group id
            "settings_path": str(ud / "User" / "settings.json"),
            "fail_shots": str(tmp),
            "shot": shot,
            "toast": toast,
            **(extra or {}),
        }
        cfg_path = tmp / "driver.json"
        cfg_path.write_text(json.dumps(cfg))
        denv = dict(env, NODE_PATH=e2e_env["SHAPESENSE_PW_NODE_PATH"])
        drv = subprocess.run(
            [str(node_bin / "node"), str(HERE / "driver.js"), str(cfg_path)],
            env=denv, capture_output=True, text=True, timeout=420, stdin=subprocess.DEVNULL,
        )
        line = next((l for l in drv.stdout.splitlines() if l.startswith("RESULT ")), None)
        assert line, f"driver.js failed ({drv.returncode}):\n{drv.stdout[-3000:]}\n{drv.stderr[-5000:]}"
        result = json.loads(line[len("RESULT ") :])
        result["code_server_log"] = log_path.read_text()[-4000:]
        result["final_source"] = (folder / SAMPLE).read_text()
        result["folder"] = str(folder)
        # the extension's output channel, as VS Code writes it to the logs folder
        logs = sorted((ud / "logs").glob("**/ShapeSense.log"))
        result["output_log"] = logs[-1].read_text() if logs else ""
        print(result["output_log"])
        print("\n".join(result["log"]))
        return result
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(server.pid, signal.SIGKILL)  # whatever ignored SIGTERM
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def main_run(e2e_env, tmp_path_factory) -> dict:
    return _run_scenario(e2e_env, tmp_path_factory.mktemp("vscode-main"), "main", sys.executable)


@pytest.fixture(scope="module")
def broken_run(e2e_env, tmp_path_factory) -> dict:
    return _run_scenario(
        e2e_env, tmp_path_factory.mktemp("vscode-broken"), "broken", "/nonexistent/bin/python3",
        toast="Python interpreter",
    )


@pytest.fixture(scope="module")
def crashing_run(e2e_env, tmp_path_factory) -> dict:
    """An interpreter that passes the import check but whose server dies at start."""
    tmp = tmp_path_factory.mktemp("vscode-crashing")
    fake = tmp / "python-crashing"
    fake.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" serve "*) echo "RuntimeError: shapesense test double refuses to serve" >&2; exit 1;; esac\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    fake.chmod(0o755)
    return _run_scenario(
        e2e_env, tmp, "broken", str(fake), shot=str(tmp / "crashing.png"), toast="failed to start"
    )


@pytest.fixture(scope="module")
def too_old_run(e2e_env, tmp_path_factory) -> dict:
    """An interpreter that answers like Python 2 does to `-I` (this machine has no old Python)."""
    tmp = tmp_path_factory.mktemp("vscode-too-old")
    fake = tmp / "python2.7"
    fake.write_text("#!/bin/sh\necho 'Unknown option: -I' >&2\necho 'usage: python2.7 [option] ...' >&2\nexit 2\n")
    fake.chmod(0o755)
    return _run_scenario(e2e_env, tmp, "broken", str(fake), shot=str(tmp / "too-old.png"),
                         toast="needs Python")


# Modules a cloned repository could use to run code in the server (tests/test_launch_security.py
# covers every module the server imports; here a few, through the installed extension).
SHADOWED = ["json", "jedi", "z3", "parso", "hashlib", "bisect", "shapesense", "pygls", "lsprotocol"]


def _shadowing_modules(folder: Path, markers: Path) -> None:
    markers.mkdir(exist_ok=True)
    for name in SHADOWED:
        (folder / f"{name}.py").write_text(f"open({str(markers / name)!r}, 'w').close()\n")


@pytest.fixture(scope="module")
def zero_setup_run(e2e_env, tmp_path_factory) -> dict:
    """The interpreter is a fresh venv without shapesense (nor pygls, z3, ...): the extension
    must run its bundled server with it. (It is named by `shapesense.interpreter`: the extension
    host's PATH comes from a login shell, not from code-server's environment, so a venv cannot be
    made the `python3` it finds.) The folder also holds modules named like the server's imports."""
    tmp = tmp_path_factory.mktemp("vscode-zero-setup")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    bare = subprocess.run([str(venv / "bin" / "python3"), "-I", "-c", "import shapesense"],
                          capture_output=True, cwd=tmp)
    assert bare.returncode != 0, "the fresh venv must not have shapesense"
    markers = tmp / "markers"
    lines = _sample_lines()
    run = _run_scenario(
        e2e_env, tmp, "view", str(venv / "bin" / "python3"),
        prepare=lambda folder: _shadowing_modules(folder, markers),
        shot=str(SHOTS / "zero-setup-hover.png"),
        extra={"hover": {"line": lines["driver_x"], "col": 0}, "wait_ms": 4000},
    )
    run["markers"] = sorted(p.name for p in markers.iterdir())
    run["venv"] = str(venv)
    return run


@pytest.fixture(scope="module")
def untrusted_run(e2e_env, tmp_path_factory) -> dict:
    """Workspace Trust on and the folder not trusted; its .vscode/settings.json and its
    pyproject.toml (`[tool.shapesense] python`, whose libraries the server would read) name
    interpreters that would leave a marker: neither may run, the server still works."""
    tmp = tmp_path_factory.mktemp("vscode-untrusted")
    markers = tmp / "markers"
    evil = tmp / "python-from-the-repo"
    evil.write_text(f"#!/bin/sh\ntouch {markers / 'workspace-interpreter'}\nexec \"{sys.executable}\" \"$@\"\n")
    evil.chmod(0o755)

    def prepare(folder: Path) -> None:
        _shadowing_modules(folder, markers)
        (folder / ".vscode").mkdir()
        (folder / ".vscode" / "settings.json").write_text(json.dumps({"shapesense.interpreter": str(evil)}))
        project_python = folder / ".venv" / "bin" / "python"
        project_python.parent.mkdir(parents=True)
        project_python.write_text(f"#!/bin/sh\ntouch {markers / 'pyproject-python'}\nexec \"{sys.executable}\" \"$@\"\n")
        project_python.chmod(0o755)
        (folder / "pyproject.toml").write_text('[tool.shapesense]\npython = ".venv/bin/python"\n')

    lines = _sample_lines()
    run = _run_scenario(
        e2e_env, tmp, "view", None, trust=True, prepare=prepare,
        shot=str(SHOTS / "restricted-mode-hover.png"),
        extra={"hover": {"line": lines["driver_x"], "col": 0}, "wait_ms": 4000},
    )
    run["markers"] = sorted(p.name for p in markers.iterdir())
    run["evil"] = str(evil)
    return run


def _step(run: dict, name: str) -> dict:
    s = run["steps"].get(name)
    context = "\n".join(run["log"]) + "\n--- ShapeSense output ---\n" + run.get("output_log", "")[-4000:]
    assert s is not None, f"driver never reached step {name!r}:\n{context}"
    assert s["ok"], f"step {name!r} failed: {s.get('error')}\n{context}"
    return s


# ---------------------------------------------------------------------------------- tests


def test_missing_interpreter_is_reported(broken_run):
    note = _step(broken_run, "notification")
    assert "/nonexistent/bin/python3" in note["text"] and "not found" in note["text"], note
    assert {"Open Settings", "Show Output"} <= set(note["buttons"]), note
    assert "error" in (_step(broken_run, "status_error")["label"] or ""), broken_run["steps"]
    out = _step(broken_run, "show_output_button")["output"]
    assert "cannot start the server" in out, out


def test_too_old_python_is_reported(too_old_run):
    note = _step(too_old_run, "notification")
    assert "ShapeSense needs Python >= 3.10" in note["text"] and "python2.7" in note["text"], note
    assert {"Open Settings", "Show Output"} <= set(note["buttons"]), note
    assert "error" in (_step(too_old_run, "status_error")["label"] or "")


def test_server_failing_at_start_is_reported(crashing_run):
    note = _step(crashing_run, "notification")
    assert "failed to start" in note["text"], note
    assert "test double refuses to serve" in note["text"], note
    assert {"Open Settings", "Show Output"} <= set(note["buttons"]), note
    assert len(note["all"]) == 1, note["all"]  # one notification, not also the client library's
    assert "error" in (_step(crashing_run, "status_error")["label"] or "")
    # started once, not restarted in a loop
    log = crashing_run["output_log"]
    assert log.count("client state: Stopped -> Starting") == 1, log


def test_extension_activates_and_starts_server(main_run):
    act = _step(main_run, "activation")
    log = main_run["output_log"]
    # the isolated launch (launch.ts), the bundled server, the extension's folder as cwd
    assert "-I -u " in log and "launch.py --bundled serve --stdio\" in " in log, log
    assert f"in {main_run['folder']}" not in log, log
    assert "server ready" in log, log
    # shapesense.trace.server = "messages" (set above) shows the LSP traffic in the channel
    assert "[trace] Sending request 'initialize" in log, log[-3000:]
    assert "ready" in act["status"] or "analysing" in act["status"], act


def test_zero_setup_bundled_server_runs_on_a_bare_python(zero_setup_run):
    run = zero_setup_run
    view = _step(run, "view")
    log = run["output_log"]
    assert view["hover"] and view["hover"]["ok"], (view, log[-3000:])
    assert "x: Tensor[64, 1, 28, 28]" in view["hover"]["text"], view
    assert f"interpreter (setting): {run['venv']}/bin/python3; server from the extension (bundled)" in log, log
    # the server came from the extension's own folder
    assert f"({run['venv']}/bin/python3; server from " in log, log
    assert "/bundled/libs/shapesense)" in log, log
    assert run["markers"] == [], f"workspace modules ran: {run['markers']}"


def test_untrusted_folder_never_runs_its_interpreter_setting(untrusted_run):
    run = untrusted_run
    view = _step(run, "view")
    log = run["output_log"]
    assert "Restricted Mode" in log and "never one named by the workspace's settings" in log, log
    assert "interpreter (default): python3" in log, log
    assert "Restricted Mode" in (_step(run, "view").get("status") or ""), view
    assert run["markers"] == [], f"ran: {run['markers']}"
    assert view["hover"] and "x: Tensor[64, 1, 28, 28]" in view["hover"]["text"], (view, log[-3000:])


def test_hover_shows_tensor_shape(main_run):
    hover = _step(main_run, "hover")
    assert "x: Tensor[64, 1, 28, 28]" in hover["text"], hover


def test_inlay_hint_is_drawn(main_run):
    inlay = _step(main_run, "inlay")
    assert "64, 1, 28, 28" in inlay["hint"], inlay


def test_squiggle_and_problems_panel(main_run):
    sq = _step(main_run, "squiggle")
    lines = _sample_lines()
    assert sq["line"] == lines["fc1_call"], sq
    message = "mat1 and mat2 shapes cannot be multiplied (64x256 and 400x120)"
    assert any(message in p for p in sq["problems"]), sq["problems"]


def test_quick_fix_removes_squiggle(main_run):
    qf = _step(main_run, "quickfix")
    assert qf["remaining"] == 0, qf
    assert "nn.Linear(256, 120)" in (qf["fixed_line"] or ""), qf


def test_annotate_command_writes_shapes(main_run):
    _step(main_run, "annotate")
    src = main_run["final_source"]
    original = (HERE / "workspace" / SAMPLE).read_text()
    assert "nn.Linear(256, 120)" in src  # the quick fix, saved
    assert 'applied "Annotate all' in main_run["output_log"], main_run["output_log"][-3000:]
    # every style writes the driver's shape into the source somewhere
    assert src.count("64") > original.count("64") + 1, src


def test_status_bar_settles_to_ready(main_run):
    assert "ready" in _step(main_run, "final_status")["status"]


def test_settings_apply_without_reload(main_run):
    live = _step(main_run, "settings_live")
    assert live["off_ms"] < 10000 and live["on_ms"] < 10000, live


def test_enable_setting_hides_and_restores_diagnostics(main_run):
    toggle = _step(main_run, "enable_toggle")
    assert toggle["off_ms"] < 10000 and toggle["on_ms"] < 20000, toggle


def test_crashed_server_is_restarted_and_user_told(main_run):
    crash = _step(main_run, "crash_restart")
    assert "restarting it (1/4)" in crash["toast"], crash
    assert "ready" in crash["status"], crash
    assert "Tensor[64, 1, 28, 28]" in crash["hover"], crash
