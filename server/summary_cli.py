"""`shapesense summary FILE[:NAME] [--input 1,3,224,224 ...] [--format text|json|svg]`:
a model's layer table (torchinfo's rows), parameter counts and shapes, from the analysis.

Exit codes: 0 printed, 2 usage error, a file that cannot be read, or no such model."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TextIO

from shapesense.analysis import summary as model_summary
from shapesense.analysis.db import AnalysisHost, EngineSettings

from .paths import read_text

EXIT_OK, EXIT_USAGE = 0, 2


def add_parser(sub) -> None:
    p = sub.add_parser(
        "summary", help="a model's layers, output shapes and parameter counts, without running it",
        description="Print a model summary like torchinfo's, computed statically. FILE:NAME picks an "
                    "nn.Module class or a module-level variable holding a model (default: the file's "
                    "outermost model). Without --input, the forward run is a call the file makes, else "
                    "a symbolic one.",
        epilog="exit codes: 0 printed, 2 usage error, an unreadable file, or no such model")
    p.add_argument("target", metavar="FILE[:NAME]")
    p.add_argument("--input", action="append", type=_shape, metavar="D1,D2,...",
                   help="the shape of a forward input (repeat for several inputs), e.g. 1,3,224,224")
    p.add_argument("--format", choices=("text", "json", "svg"), default="text")


def _shape(value: str) -> tuple:
    try:
        dims = tuple(int(d) for d in value.split(","))
    except ValueError:
        dims = ()
    if not dims or any(d < 0 for d in dims):
        raise argparse.ArgumentTypeError("expected comma-separated non-negative sizes, e.g. 1,3,224,224")
    return dims


def split_target(target: str) -> tuple[str, str | None]:
    """`models.py:Net` -> ("models.py", "Net"); a Windows drive letter is not a NAME."""
    path, sep, name = target.rpartition(":")
    if sep and path and name.isidentifier() and not (len(path) == 1 and path.isalpha()):
        return path, name
    return target, None


def main(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    path, name = split_target(args.target)
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        sys.stderr.write(f"shapesense: no such file: {path}\n")
        return EXIT_USAGE
    text = read_text(path)
    if text is None:
        sys.stderr.write(f"shapesense: {path}: cannot read file\n")
        return EXIT_USAGE
    host = AnalysisHost(EngineSettings(), os.path.dirname(path))
    host.set_file(path, text)
    result = model_summary.summarize(host, path, name, args.input)
    if result is None:
        names = model_summary.model_names(host, path)
        what = f"no nn.Module named {name}" if name else "no nn.Module class"
        hint = f" (models: {', '.join(names)})" if names else ""
        sys.stderr.write(f"shapesense: {path}: {what}{hint}\n")
        return EXIT_USAGE
    if args.format == "json":
        out.write(json.dumps(result.to_json(), indent=2) + "\n")
    elif args.format == "svg":
        from . import summary_svg

        try:
            out.write(summary_svg.render(result))
        except summary_svg.LayoutUnavailable as exc:
            sys.stderr.write(f"shapesense: {exc}\n")
            return EXIT_USAGE
    else:
        out.write(model_summary.render_text(result))
    return EXIT_OK
