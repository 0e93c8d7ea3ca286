"""`python -m shapesense ...`: the same command line as the `shapesense` script.

`python -m` puts the working directory first on sys.path, so in a cloned repository a `json.py`,
`z3.py` or `parso.py` would be imported (and run) by the server or by `check .`. Drop that entry
before anything else is imported. (`-P`/`-I`/PYTHONSAFEPATH already leave it out; Python itself
still finds a `shapesense.py` in the working directory before this runs: use the `shapesense`
script or `python -P -m shapesense` there.)
"""
import sys

if not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)) and sys.path:
    del sys.path[0]

from shapesense.server.cli import main  # noqa: E402 - after the sys.path fix on purpose

sys.exit(main())
