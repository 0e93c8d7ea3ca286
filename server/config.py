"""`[tool.shapesense]` in pyproject.toml: the project's settings, shared by the CLI and the server.

    [tool.shapesense]
    include = ["src/**", "scripts/*.py"]   # globs relative to the pyproject.toml's folder
    exclude = ["src/legacy"]               # a folder covers everything in it
    disable = ["improper-value"]           # codes never reported
    severity = { dtype-mismatch = "warning", unused-ignore = "error" }  # or "off"
    solver-timeout-ms = 1000
    annotation-style = "comment"
    python = ".venv/bin/python"           # kept for library resolution

The CLI finds the nearest pyproject.toml with that table, walking up from the checked
paths; the server reads the one at the workspace root. Every problem (unknown key, bad
value, unreadable TOML) is one message: the CLI prints them and stops (exit code 2), the
server shows them once and applies the valid keys.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache

from shapesense.analysis.suppression import ALL_CODES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from .settings import ANNOTATION_STYLES

FILE_NAME = "pyproject.toml"
SEVERITIES = ("error", "warning", "information", "hint", "off")
SOLVER_TIMEOUT_RANGE = (10, 60_000)


@dataclass(frozen=True)
class ProjectConfig:
    path: str | None = None  # the pyproject.toml it came from; None: no configuration
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    disable: frozenset[str] = frozenset()
    severity: tuple[tuple[str, str], ...] = ()  # (code, severity) overrides
    solver_timeout_ms: int | None = None
    annotation_style: str | None = None
    python: str | None = None
    problems: tuple[str, ...] = field(default=(), compare=False)

    @property
    def root(self) -> str | None:
        return os.path.dirname(self.path) if self.path else None

    def override(self, code: str) -> str | None:
        """The project's severity for a code: "off" when disabled, else its `severity`
        entry; None: the diagnostic keeps its own."""
        if code in self.disable:
            return "off"
        return dict(self.severity).get(code)

    def selects(self, path: str) -> bool:
        """Whether `path` is checked: inside the project, it must match `include` (when
        given) and no `exclude`. Files outside the project's folder are not filtered."""
        if self.root is None or not os.path.isabs(path):  # URI keys: untitled buffers, cells
            return True
        rel = os.path.relpath(os.path.abspath(path), self.root)
        if rel.startswith(".."):
            return True
        rel = rel.replace(os.sep, "/")
        if self.include and not any(_matches(p, rel) for p in self.include):
            return False
        return not any(_matches(p, rel) for p in self.exclude)


# -- globs ------------------------------------------------------------------------------------

@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern:
    """`*` and `?` stay within one folder, `**` crosses folders, `[...]` is a class."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and pattern.find("]", i + 2) != -1:
            close = pattern.find("]", i + 2)
            body = pattern[i + 1:close].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = close + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def _matches(pattern: str, rel: str) -> bool:
    """The path, or one of the folders it is in, matches the glob (so naming a folder
    covers its files)."""
    regex = _glob_regex(pattern.strip("/").removeprefix("./"))
    parts = rel.split("/")
    return any(regex.fullmatch("/".join(parts[:k])) for k in range(1, len(parts) + 1))


# -- reading and validating -------------------------------------------------------------------

def _strings(value, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return tuple(value)


def _codes(value) -> frozenset[str]:
    codes = _strings(value, "disable")
    unknown = [c for c in codes if c not in ALL_CODES]
    if unknown:
        raise ValueError(f"unknown code(s) {', '.join(map(repr, unknown))} (known: {', '.join(ALL_CODES)})")
    return frozenset(codes)


def _severity(value) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ValueError('severity must be a table of code = "error" | "warning" | "information" | "hint" | "off"')
    out = []
    for code, level in value.items():
        if code not in ALL_CODES:
            raise ValueError(f"unknown code {code!r} (known: {', '.join(ALL_CODES)})")
        if level not in SEVERITIES:
            raise ValueError(f"{code} = {level!r}: expected one of {', '.join(map(repr, SEVERITIES))}")
        out.append((code, level))
    return tuple(sorted(out))


def _timeout(value) -> int:
    lo, hi = SOLVER_TIMEOUT_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"expected an integer in [{lo}, {hi}], got {value!r}")
    return value


def _style(value) -> str:
    if value not in ANNOTATION_STYLES:
        raise ValueError(f"expected one of {', '.join(map(repr, ANNOTATION_STYLES))}, got {value!r}")
    return value


def _python(value) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a path to a Python interpreter, got {value!r}")
    return value


# TOML key -> (field, validator returning the value or raising ValueError)
_KEYS = {
    "include": ("include", lambda v: _strings(v, "include")),
    "exclude": ("exclude", lambda v: _strings(v, "exclude")),
    "disable": ("disable", _codes),
    "severity": ("severity", _severity),
    "solver-timeout-ms": ("solver_timeout_ms", _timeout),
    "annotation-style": ("annotation_style", _style),
    "python": ("python", _python),
}


def parse(table: object, path: str) -> ProjectConfig:
    """A `[tool.shapesense]` table -> its configuration; invalid keys are skipped and
    described in `problems`."""
    if not isinstance(table, dict):
        return ProjectConfig(path, problems=(f"{path}: [tool.shapesense] must be a table",))
    values: dict = {}
    problems = []
    for key, value in table.items():
        if key not in _KEYS:
            hint = f"; did you mean {key.replace('_', '-')!r}?" if key.replace("_", "-") in _KEYS else ""
            problems.append(f"{path}: [tool.shapesense] unknown key {key!r}{hint} "
                            f"(known: {', '.join(_KEYS)})")
            continue
        name, check = _KEYS[key]
        try:
            values[name] = check(value)
        except ValueError as exc:
            problems.append(f"{path}: [tool.shapesense] {key}: {exc}")
    if values.get("python") and not os.path.isabs(values["python"]):
        values["python"] = os.path.normpath(os.path.join(os.path.dirname(path), values["python"]))
    return ProjectConfig(path, problems=tuple(problems), **values)


def _read(path: str) -> tuple[dict | None, str | None]:
    """(parsed TOML, None) or (None, problem)."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh), None
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return None, f"{path}: invalid TOML: {exc}"


def load_file(path: str) -> ProjectConfig | None:
    """The configuration in one pyproject.toml; None when it has no [tool.shapesense]."""
    path = os.path.abspath(path)
    data, problem = _read(path)
    if problem is not None:
        return ProjectConfig(path, problems=(problem,))
    tool = data.get("tool") if isinstance(data, dict) else None
    if not isinstance(tool, dict) or "shapesense" not in tool:
        return None
    return parse(tool["shapesense"], path)


def load_at(folder: str) -> ProjectConfig:
    """The configuration in `folder`'s own pyproject.toml (the server's workspace root)."""
    candidate = os.path.join(folder, FILE_NAME)
    found = load_file(candidate) if os.path.isfile(candidate) else None
    return found or ProjectConfig()


def discover(paths: list[str]) -> ProjectConfig:
    """The nearest pyproject.toml with [tool.shapesense], walking up from the folder that
    holds all `paths` (the CLI's checked paths)."""
    folders = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))) for p in paths]
    if not folders:
        folders = [os.getcwd()]
    folder = os.path.commonpath(folders)
    while True:
        candidate = os.path.join(folder, FILE_NAME)
        if os.path.isfile(candidate):
            found = load_file(candidate)
            if found is not None:
                return found
        parent = os.path.dirname(folder)
        if parent == folder:
            return ProjectConfig()
        folder = parent


def server_base(workspace_roots: list[str]):
    """For the language server: the Settings the editor's own settings override (the
    defaults, with the workspace root's [tool.shapesense] engine values and the project
    itself in `Settings.project`), and the problems to show the user once."""
    from .settings import Settings

    project = load_at(workspace_roots[0]) if workspace_roots else ProjectConfig()
    changes: dict = {"project": project if project.path else None}
    if project.solver_timeout_ms is not None:
        changes["solver_timeout_ms"] = project.solver_timeout_ms
    if project.annotation_style is not None:
        changes["annotation_style"] = project.annotation_style
    problems = [f"ShapeSense: {problem}; the other settings of the file still apply" for problem in project.problems]
    return Settings(**changes), problems
