"""Command line: `shapesense serve` (the language server), `shapesense check`, `shapesense cache`."""
from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from importlib import metadata

from shapesense.analysis.db import EngineSettings

from .formats import FORMATS
from .settings import ANNOTATION_STYLES


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError("expected HOST:PORT, e.g. 127.0.0.1:2087")
    return host or "127.0.0.1", int(port)


def check_budget_default() -> int:
    from .check import DEFAULT_BUDGET_MS

    return DEFAULT_BUDGET_MS


def _budget_ms(value: str) -> int:
    if not value.isdigit():
        raise argparse.ArgumentTypeError("expected a number of milliseconds (0: no limit)")
    return int(value)


def _timeout_ms(value: str) -> int:
    from .config import SOLVER_TIMEOUT_RANGE

    lo, hi = SOLVER_TIMEOUT_RANGE
    if not value.isdigit() or not lo <= int(value) <= hi:
        raise argparse.ArgumentTypeError(f"expected an integer in [{lo}, {hi}]")
    return int(value)


def _version() -> str:
    try:
        return metadata.version("shapesense")
    except metadata.PackageNotFoundError:  # running from a plain checkout
        return "0+unknown"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="shapesense", description="PyTorch tensor shapes while you type.",
        epilog="exit codes of `check`: 0 no error found, 1 errors found, "
               "2 usage or configuration error, or a file that could not be analysed",
    )
    p.add_argument("--version", action="version", version=f"shapesense {_version()}")
    sub = p.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the language server")
    how = serve.add_mutually_exclusive_group()
    how.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    how.add_argument("--tcp", type=_host_port, metavar="HOST:PORT", help="listen for one client on a TCP port")
    serve.add_argument("--log-file", help="write the server's own log here (stderr by default)")
    serve.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])

    check = sub.add_parser(
        "check", help="analyse files and print shape problems",
        description="Analyse files and print shape problems. Reads [tool.shapesense] from the nearest "
                    "pyproject.toml above the checked paths; options given here override it.",
        epilog="exit codes: 0 no error found, 1 errors found (0 with --exit-zero), "
               "2 usage or configuration error, or a file that could not be analysed",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help=".py files or folders to walk")
    check.add_argument("--format", choices=FORMATS, default="text",
                       help="text (default), json, github (workflow annotations) or sarif (SARIF 2.1.0)")
    check.add_argument("--unknown-ops", action="store_true", help="list unmodelled API names with call counts")
    check.add_argument("--solver-timeout-ms", type=_timeout_ms, default=None,
                       help=f"default: solver-timeout-ms from the configuration, else {EngineSettings().solver_timeout_ms}")
    check.add_argument("--annotation-style", choices=ANNOTATION_STYLES, default=None,
                       help=f"default: annotation-style from the configuration, else {EngineSettings().annotation_style}")
    check.add_argument("--warn-unused-ignores", action="store_true",
                       help="report '# shapesense: ignore' comments that silence nothing (code unused-ignore)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when errors are found")
    check.add_argument("--budget-ms", type=_budget_ms, default=check_budget_default(),
                       help="time for one file's analysis; past it the file gets no diagnostics and a "
                            "note on stderr (default: %(default)s; 0: no limit)")
    check.add_argument("--python", metavar="PATH", default=None,
                       help="the interpreter whose installed libraries are analysed from source "
                            "(default: python from the configuration, else the one running shapesense)")
    cache = sub.add_parser(
        "cache", help="show or clear the cache of parsed files",
        description="The cache of parsed and lowered files (workspace files and installed libraries), "
                    "in $SHAPESENSE_CACHE_DIR, else $XDG_CACHE_HOME/shapesense, else ~/.cache/shapesense.")
    cache.add_argument("action", choices=["info", "clear"], help="info: where it is and what it holds; clear: empty it")
    cache.add_argument("--json", action="store_true", help="info as JSON")
    from . import summary_cli  # `shapesense summary`: the model summary (server/summary_cli.py)

    summary_cli.add_parser(sub)
    return p


def serve(args: argparse.Namespace) -> int:
    # Never log to stdout: with --stdio it is the JSON-RPC channel.
    target = {"filename": args.log_file} if args.log_file else {"stream": sys.stderr}
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", **target)
    from .app import build_server

    # The engine allocates many small, long-lived objects (IR, memo entries); CPython's
    # default gen-0 threshold (700) makes full collections land in the middle of edits.
    # A larger one removed most latency spikes (p90 89 -> 48 ms on 3,000 lines); 50,000 was
    # faster still but let RSS double while typing, so this is the compromise.
    gc.set_threshold(5_000, 10, 10)
    server = build_server()
    if args.tcp:
        from .transport import end_process, install_signal_handlers

        install_signal_handlers()
        server.start_tcp(*args.tcp)
        end_process(0 if server.protocol._shutdown else 1)  # the client left: no thread may hold us
    else:
        server.start_io()  # ends the process itself (server/transport.py)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "serve":
        return serve(args)
    if args.command == "cache":
        return _cache_command(args)
    if args.command == "summary":
        from . import summary_cli

        return summary_cli.main(args)
    from . import check, config

    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        for path in missing:
            sys.stderr.write(f"shapesense: no such file or folder: {path}\n")
        return check.EXIT_USAGE
    project = config.discover(args.paths)
    if project.problems:
        for problem in project.problems:
            sys.stderr.write(f"shapesense: configuration error: {problem}\n")
        return check.EXIT_USAGE
    defaults = EngineSettings()
    python = args.python or project.python
    library_paths = None
    if python:
        from shapesense.analysis.libraries import interpreter_paths

        library_paths = interpreter_paths(python)
        if library_paths is None and args.python:
            sys.stderr.write(f"shapesense: cannot run {python} to find its libraries\n")
            return check.EXIT_USAGE
        if library_paths is None:  # the configuration's python: say so, read this one's libraries
            sys.stderr.write(f"shapesense: warning: cannot run {python} (pyproject.toml python) to find "
                             "its libraries; using the libraries of the Python running shapesense\n")
    settings = EngineSettings(
        solver_timeout_ms=_first(args.solver_timeout_ms, project.solver_timeout_ms, defaults.solver_timeout_ms),
        annotation_style=_first(args.annotation_style, project.annotation_style, defaults.annotation_style),
        library_paths=library_paths,
        disk_cache=True,
    )
    return check.main(args.paths, args.format, args.unknown_ops, settings, project,
                      warn_unused_ignores=args.warn_unused_ignores, exit_zero=args.exit_zero,
                      budget_ms=args.budget_ms)


def _cache_command(args: argparse.Namespace) -> int:
    import json

    from shapesense.analysis import diskcache

    if args.action == "clear":
        removed = diskcache.clear()
        print(f"removed {removed} entries from {diskcache.default_folder()}")
        return 0
    info = diskcache.info()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"cache folder: {info['folder']}")
    print(f"{info['entries']} entries, {info['bytes'] / 1e6:.1f} MB (limit {info['max_bytes'] / 1e6:.0f} MB, "
          f"SHAPESENSE_CACHE_MAX_MB)")
    for bucket, b in info["buckets"].items():
        print(f"  {bucket}: {b['entries']} entries, {b['bytes'] / 1e6:.1f} MB")
    return 0


def _first(*values):
    """The first value given (command line, then configuration, then default)."""
    return next(v for v in values if v is not None)
