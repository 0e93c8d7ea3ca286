"""What the VS Code extension runs: `python -I launch.py [--bundled] (--check | serve --stdio)`.

`-I` (isolated mode) keeps the working directory, PYTHONPATH and the user site-packages out of
`sys.path`, and the extension starts Python with its own folder as the working directory, so
nothing in the opened folder can be imported. `sys.path[0]` is this file's folder, which holds
nothing else.

--bundled   put the extension's `bundled/libs` (the server and its dependencies, installed at
            package time with `pip install --target`) first on `sys.path`; without it the
            server comes from the interpreter's own environment.
--check     import everything the server needs and print one `SHAPESENSE_CHECK {json}` line.

This file must stay parseable by old Pythons (no f-strings, no newer syntax) so that --check
can say which version it found.
"""
import os
import sys

TOOL_DIR = os.path.dirname(os.path.abspath(__file__))
LIBS = os.path.join(os.path.dirname(TOOL_DIR), "libs")
MIN_PYTHON = (3, 10)
REQUIRED = ("shapesense.server", "pygls", "lsprotocol", "parso", "jedi", "z3")


def _set_path(bundled):
    if bundled:
        sys.path.insert(0, LIBS)
    elif sys.prefix == sys.base_prefix:
        # -I also hid the user site-packages (`pip install --user shapesense`); outside a
        # virtual environment that is where the server may live, and it is not the workspace
        import site

        user_site = site.getusersitepackages()
        if os.path.isdir(user_site):
            site.addsitedir(user_site)


def _check(bundled):
    import json

    out = {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "bundled": bundled,
        "missing": {},
    }
    if sys.version_info < MIN_PYTHON:
        out["old"] = True
    else:
        for mod in REQUIRED:
            try:
                __import__(mod)
            except Exception as e:  # any failure to import is a reason not to start
                out["missing"][mod] = type(e).__name__ + ": " + str(e)
        try:
            import shapesense
            from importlib.metadata import version

            out["version"] = version("shapesense")
            out["location"] = os.path.dirname(os.path.abspath(shapesense.__file__))
        except Exception:
            pass
    print("SHAPESENSE_CHECK " + json.dumps(out))
    return 0


def main(argv):
    bundled = "--bundled" in argv
    argv = [a for a in argv if a != "--bundled"]
    try:
        sys.stderr.reconfigure(encoding="utf-8", errors="backslashreplace")
    except AttributeError:  # Python < 3.7: the version check below says what is wrong
        pass
    _set_path(bundled)
    if argv[:1] == ["--check"]:
        return _check(bundled)
    if sys.version_info < MIN_PYTHON:
        sys.stderr.write("ShapeSense needs Python >= 3.10, this is %s\n" % sys.version.split()[0])
        return 1
    from shapesense.server.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
