#!/usr/bin/env bash
# Refresh the README's pictures (docs/screenshots/*.png) from a real VS Code session.
# Tests never write into the repository (their screenshots go to build/screenshots/);
# this script is the one explicit way to update the tracked ones: it runs the VS Code
# end-to-end tests (code-server in headless Chromium, set up by scripts/vscode-e2e-setup.sh)
# with SHAPESENSE_SCREENSHOTS pointing at docs/screenshots/. Extra arguments go to pytest
# (e.g. `-k hover` to refresh only some pictures). Review with `git diff --stat docs/`.
set -euo pipefail
cd "$(dirname "$0")/.."
export SHAPESENSE_SCREENSHOTS="$PWD/docs/screenshots"
mkdir -p "$SHAPESENSE_SCREENSHOTS"
python3 -m pytest -q -p no:cacheprovider tests/vscode "$@"
echo "screenshots written to docs/screenshots/:"
git status --short -- docs/screenshots || ls -l docs/screenshots
