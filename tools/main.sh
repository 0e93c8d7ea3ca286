#!/usr/bin/env bash
# The main job: install ShapeSense, check samples/ with the CLI, then open samples/ in a real
# VS Code (code-server) with the extension installed and print its URL.
#   bash tools/main.sh            # CLI report, then VS Code on samples/ (Ctrl+C stops)
#   bash tools/main.sh --cli      # the CLI report only
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -e . >/dev/null
python3 -m shapesense check samples/
[ "${1:-}" = "--cli" ] && exit 0
exec bash scripts/run-vscode.sh samples
