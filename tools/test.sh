#!/usr/bin/env bash
# Every test: installs what the tests need (torch==2.13.0 CPU, pytest-lsp, Neovim, code-server
# and Chromium for the VS Code end-to-end test), then runs them all, then the benchmark smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -e '.[test,bench]' 'torch==2.13.0' 2>&1 | grep -v "running pip as the 'root'" || true
# Graphviz's dot lays out `shapesense summary --format svg` (tests/test_summary_svg.py).
if ! command -v dot >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq graphviz; } >/dev/null 2>&1 \
    || echo "tools/test.sh: could not install graphviz" >&2
fi
python3 -m pytest -q -p no:cacheprovider tests bench/test_harness.py "$@"
python3 -m bench.run --smoke
