"""`shapesense check` output formats: text, json, github (workflow commands) and sarif.

Every writer takes the same Report (server/check.py): diagnostics already filtered by
ignore comments and re-graded by the project's configuration.
"""
from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from shapesense.analysis.results import Span
from shapesense.analysis.suppression import ALL_CODES

from .convert import DOCS_BASE, code_href

if TYPE_CHECKING:
    from .check import Report

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

# One line per code for tools that list rules (SARIF); docs/diagnostics.md has the long form.
RULE_SUMMARIES = {
    "shape-mismatch": "A tensor has the wrong shape for an operation, or two tensors' shapes do not fit each other.",
    "illegal-shape": "An operation would produce a tensor with a zero or negative size.",
    "illegal-value": "A hyperparameter lies outside the values the operation accepts.",
    "improper-value": "A hyperparameter is legal but contradicts the operation's other requirements.",
    "dtype-mismatch": "Tensors have element types an operation does not accept together.",
    "unused-ignore": "A '# shapesense: ignore' comment silences nothing, or names an unknown code.",
}
assert set(RULE_SUMMARIES) == set(ALL_CODES)


def display_path(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _version() -> str:
    try:
        return metadata.version("shapesense")
    except metadata.PackageNotFoundError:
        return "0+unknown"


# -- text and json ------------------------------------------------------------------------------

def _range(span: Span) -> dict:
    return {
        "start": {"line": span.start[0], "character": span.start[1]},
        "end": {"line": span.end[0], "character": span.end[1]},
    }


def write_json(report: "Report", unknown_ops: bool, out: TextIO) -> None:
    doc: dict = {"diagnostics": [], "facts": [], "errors": report.errors, "warnings": report.warnings}
    for a in report.analyses:
        path = display_path(a.path)
        for d in a.diagnostics:
            doc["diagnostics"].append({
                "path": path, "range": _range(d.span), "severity": d.severity, "code": d.code,
                "message": d.message,
                "related": [
                    {"path": display_path(r.path) if r.path else path, "range": _range(r.span), "message": r.message}
                    for r in d.related
                ],
            })
        for f in a.facts:
            doc["facts"].append({"path": path, "range": _range(f.span), "text": f.text, "shape": f.shape,
                                 "assigned": f.is_target, "variants": list(f.variants), "origin": f.origin,
                                 "notes": list(f.notes), "variant_sources": list(f.variant_sources)})
    if unknown_ops:
        doc["unknown_ops"] = dict(report.unknown_ops().most_common())
    if report.failures:
        doc["failures"] = [{"path": display_path(p), "error": e} for p, e in report.failures]
    json.dump(doc, out, indent=2)
    out.write("\n")


def write_text(report: "Report", unknown_ops: bool, out: TextIO) -> None:
    for a in report.analyses:
        for d in sorted(a.diagnostics, key=lambda d: d.span.start):
            line, col = d.span.start
            out.write(f"{display_path(a.path)}:{line + 1}:{col + 1}: {d.severity}: {d.message} [{d.code}]\n")
    for path, error in report.failures:
        out.write(f"{display_path(path)}: analysis failed: {error.strip().splitlines()[-1]}\n")
    if unknown_ops:
        ops = report.unknown_ops()
        out.write(f"unmodelled APIs ({len(ops)}):\n")
        for name, count in ops.most_common():
            out.write(f"  {count:6d}  {name}\n")
    out.write(f"{report.errors} error(s), {report.warnings} warning(s) in {len(report.analyses)} file(s)\n")


# -- GitHub workflow commands -------------------------------------------------------------------

_GITHUB_LEVEL = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


def github_data(text: str) -> str:
    """Escaping of a workflow command's message (as GitHub's toolkit does it)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """Escaping of a workflow command's property value: also `:` and `,`."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def _github_command(level: str, message: str, **props) -> str:
    fields = ",".join(f"{k}={github_property(str(v))}" for k, v in props.items())
    return f"::{level} {fields}::{github_data(message)}\n"


def write_github(report: "Report", unknown_ops: bool, out: TextIO) -> None:
    for a in report.analyses:
        path = display_path(a.path).replace(os.sep, "/")
        for d in sorted(a.diagnostics, key=lambda d: d.span.start):
            (line, col), (end_line, end_col) = d.span
            props = {"file": path, "line": line + 1, "col": col + 1}
            if end_line == line:
                props["endColumn"] = end_col + 1
            else:
                props["endLine"] = end_line + 1
            props["title"] = d.code
            out.write(_github_command(_GITHUB_LEVEL.get(d.severity, "warning"), d.message, **props))
    for path, error in report.failures:
        last = error.strip().splitlines()[-1] if error.strip() else "analysis failed"
        out.write(_github_command("error", f"ShapeSense could not analyse this file: {last}",
                                  file=display_path(path).replace(os.sep, "/"), title="analysis-failed"))


# -- SARIF 2.1.0 ------------------------------------------------------------------------------

_SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def _help_uri(code: str) -> str | None:
    """SARIF wants an absolute URI: only when the package names where its docs live."""
    return code_href(code) if DOCS_BASE.startswith(("https://", "http://")) else None


def _rule(code: str) -> dict:
    rule = {
        "id": code,
        "name": "".join(part.capitalize() for part in code.split("-")),
        "shortDescription": {"text": RULE_SUMMARIES[code]},
        "help": {"text": f"{RULE_SUMMARIES[code]} See docs/diagnostics.md#{code} for examples and fixes."},
        "defaultConfiguration": {"level": "warning" if code == "unused-ignore" else "error"},
    }
    uri = _help_uri(code)
    if uri is not None:
        rule["helpUri"] = uri
    return rule


def _artifact_uri(path: str) -> dict:
    rel = os.path.relpath(path)
    if rel.startswith(".."):
        return {"uri": Path(path).as_uri()}
    return {"uri": Path(rel).as_posix(), "uriBaseId": "%SRCROOT%"}


def _region(span: Span) -> dict:
    # SARIF lines and columns are 1-based; columns count characters (code points) here,
    # as the run's columnKind says.
    (line, col), (end_line, end_col) = span
    return {"startLine": line + 1, "startColumn": col + 1, "endLine": end_line + 1, "endColumn": end_col + 1}


def _location(path: str, span: Span, message: str | None = None, ident: int | None = None) -> dict:
    loc: dict = {"physicalLocation": {"artifactLocation": _artifact_uri(path), "region": _region(span)}}
    if ident is not None:
        loc["id"] = ident
    if message:
        loc["message"] = {"text": message}
    return loc


def sarif_document(report: "Report") -> dict:
    rules = [_rule(code) for code in ALL_CODES]
    index = {code: i for i, code in enumerate(ALL_CODES)}
    results = []
    for a in report.analyses:
        for d in sorted(a.diagnostics, key=lambda d: d.span.start):
            result = {
                "ruleId": d.code,
                "level": _SARIF_LEVEL.get(d.severity, "warning"),
                "message": {"text": d.message},
                "locations": [_location(a.path, d.span)],
            }
            if d.code in index:
                result["ruleIndex"] = index[d.code]
            related = [_location(r.path or a.path, r.span, r.message, i) for i, r in enumerate(d.related)]
            if related:
                result["relatedLocations"] = related
            results.append(result)
    notifications = [
        {"level": "error", "message": {"text": f"analysis failed: {error.strip().splitlines()[-1] if error.strip() else ''}"},
         "locations": [{"physicalLocation": {"artifactLocation": _artifact_uri(path)}}]}
        for path, error in report.failures
    ]
    driver = {"name": "ShapeSense", "version": _version(), "rules": rules}
    if DOCS_BASE.startswith(("https://", "http://")):
        driver["informationUri"] = DOCS_BASE.rstrip("/")
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "invocations": [{"executionSuccessful": not report.failures, "toolExecutionNotifications": notifications}],
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def write_sarif(report: "Report", unknown_ops: bool, out: TextIO) -> None:
    json.dump(sarif_document(report), out, indent=2)
    out.write("\n")


WRITERS = {"text": write_text, "json": write_json, "github": write_github, "sarif": write_sarif}
