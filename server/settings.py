"""User settings (section "shapesense"): parsed leniently, defaults on any invalid value.

Accepted shapes of the incoming object, from initializationOptions or
workspace/configuration: the settings themselves (`{"enable": true, ...}`), or nested
under "shapesense" or "settings" (as the VS Code tools template sends it). Dotted keys
(`"shapesense.debounceMs"`) are accepted too.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

SECTION = "shapesense"

ANNOTATION_STYLES = ("jaxtyping", "comment", "assert")
CONDITIONAL_SEVERITIES = ("warning", "information", "hint", "off")


@dataclass(frozen=True)
class Settings:
    enable: bool = True
    annotation_style: str = "jaxtyping"
    inlay_hints: bool = True
    conditional_severity: str = "warning"
    solver_timeout_ms: int = 500
    # None: adaptive (analyse at once when idle; a burst of edits cancels the superseded
    # run and queues at most one more). A number restores a fixed debounce.
    debounce_ms: int | None = None
    analysis_budget_ms: int = 15_000  # one analysis of one file; past it: cancelled, a message
    max_file_bytes: int = 2_000_000  # bigger files are analysed up to this size only
    solver_budget_ms: int = 2_000  # solver time of one analysis; past it queries say "unknown"
    warn_unused_ignores: bool = False  # `# shapesense: ignore` comments that silence nothing
    # The Python whose installed libraries are analysed from source (its sys.path); "" is
    # the interpreter running the server (analysis/libraries.py).
    interpreter: str = ""
    # [tool.shapesense] of the workspace root (server/config.py ProjectConfig); not a client key
    project: Any = None


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise ValueError("expected true or false")


def _choice(options: tuple[str, ...]):
    def check(v: Any) -> str:
        if isinstance(v, str) and v in options:
            return v
        raise ValueError("expected one of " + ", ".join(repr(o) for o in options))
    return check


def _int_range(lo: int, hi: int):
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v):
            raise ValueError("expected an integer")
        if not lo <= int(v) <= hi:
            raise ValueError(f"expected an integer in [{lo}, {hi}]")
        return int(v)
    return check


# camelCase key -> (field, validator returning the value or raising ValueError)
def _path(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise ValueError("expected a path to a Python interpreter")


_KEYS = {
    "interpreter": ("interpreter", _path),
    "enable": ("enable", _bool),
    "annotationStyle": ("annotation_style", _choice(ANNOTATION_STYLES)),
    "inlayHints": ("inlay_hints", _bool),
    "conditionalSeverity": ("conditional_severity", _choice(CONDITIONAL_SEVERITIES)),
    "solverTimeoutMs": ("solver_timeout_ms", _int_range(10, 60_000)),
    "debounceMs": ("debounce_ms", _int_range(0, 10_000)),
    "analysisBudgetMs": ("analysis_budget_ms", _int_range(50, 600_000)),
    "maxFileBytes": ("max_file_bytes", _int_range(1_000, 500_000_000)),
    "solverBudgetMs": ("solver_budget_ms", _int_range(10, 600_000)),
    "warnUnusedIgnores": ("warn_unused_ignores", _bool),
}


def _unwrap(raw: Any) -> dict:
    if not isinstance(raw, dict):
        return {}
    for key in (SECTION, "settings"):
        inner = raw.get(key)
        if isinstance(inner, dict):
            return _unwrap(inner)
    flat = {}
    for key, value in raw.items():
        if isinstance(key, str) and key.startswith(SECTION + "."):
            key = key[len(SECTION) + 1:]
        flat[key] = value
    return flat


def parse_settings(raw: Any, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a client object plus one problem message per rejected value.

    Keys missing from `raw` keep the value in `base` (defaults when None); a
    `null` value means "use the default". Unknown keys are ignored (clients send
    extra keys such as "trace").
    """
    settings = base or Settings()
    defaults = Settings()
    if raw is not None and not isinstance(raw, dict):
        return settings, [f"ShapeSense settings must be an object, got {type(raw).__name__}; using defaults"]
    problems = []
    changes = {}
    for key, value in _unwrap(raw).items():
        if key not in _KEYS:
            continue
        name, check = _KEYS[key]
        if value is None:
            changes[name] = getattr(defaults, name)
            continue
        try:
            changes[name] = check(value)
        except ValueError as exc:
            changes[name] = getattr(defaults, name)
            problems.append(
                f"ShapeSense: invalid setting {SECTION}.{key} = {value!r} ({exc}); "
                f"using the default {getattr(defaults, name)!r}"
            )
    return replace(settings, **changes), problems
