#!/usr/bin/env bash
# Builds the ShapeSense VS Code extension, installs it into code-server (VS Code in the browser)
# and opens samples/ in it. Prints the local URL; Ctrl+C stops everything.
#
#   bash scripts/run-vscode.sh                 # http://127.0.0.1:8080/?folder=<repo>/samples
#   PORT=9000 bash scripts/run-vscode.sh
#   bash scripts/run-vscode.sh --background    # start, print URL and PID group, return
#   bash scripts/run-vscode.sh path/to/folder  # open another folder
#
# The server (bundled into the .vsix from this checkout) runs with SHAPESENSE_PYTHON (default:
# python3 on PATH), any Python >= 3.10; nothing needs to be installed into it.
# State (settings, installed extension) lives in ${SHAPESENSE_E2E_HOME:-~/.cache/shapesense-e2e}/run.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BACKGROUND=0
FOLDER="$REPO/samples"
for arg in "$@"; do
  case "$arg" in
    --background) BACKGROUND=1 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) FOLDER="$(cd "$arg" && pwd)" ;;
  esac
done

# 1. install the toolchain and build + package the extension (idempotent, fast when done)
VSIX="$(bash "$REPO/scripts/vscode-e2e-setup.sh" | tail -n 1)"
E2E_HOME="${SHAPESENSE_E2E_HOME:-$HOME/.cache/shapesense-e2e}"
# shellcheck disable=SC1091
source "$E2E_HOME/env.sh"
export PATH="$SHAPESENSE_NODE_DIR/bin:$PATH"
RUN="$E2E_HOME/run"
export XDG_CONFIG_HOME="$RUN/xdg/config" XDG_DATA_HOME="$RUN/xdg/data" \
       XDG_CACHE_HOME="$RUN/xdg/cache" XDG_STATE_HOME="$RUN/xdg/state"
mkdir -p "$RUN/user-data/User" "$RUN/extensions"

PYTHON="${SHAPESENSE_PYTHON:-$(command -v python3)}"
if ! "$PYTHON" -I -c "import sys; sys.exit(sys.version_info < (3, 10))" 2>/dev/null; then
  echo "warning: $PYTHON is not a Python >= 3.10 (the extension will say so too)" >&2
fi

# 2. user settings: written once, then yours to change (the interpreter is always updated)
SETTINGS="$RUN/user-data/User/settings.json"
"$PYTHON" - "$SETTINGS" "$PYTHON" <<'EOF'
import json, os, sys
path, python = sys.argv[1], sys.argv[2]
settings = {
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": "off",
    "update.mode": "none",
    "chat.disableAIFeatures": True,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
}
if os.path.exists(path):
    try:
        with open(path) as f:
            settings.update(json.load(f))
    except ValueError:
        pass
settings["shapesense.interpreter"] = python
with open(path, "w") as f:
    json.dump(settings, f, indent=2)
EOF

# 3. install the freshly built .vsix
CS=(--config "$RUN/config.yaml" --user-data-dir "$RUN/user-data" --extensions-dir "$RUN/extensions")
printf 'auth: none\ncert: false\n' > "$RUN/config.yaml"
"$SHAPESENSE_CODE_SERVER" "${CS[@]}" --force --install-extension "$VSIX" >/dev/null

# 4. start code-server on loopback
PORT="${PORT:-8080}"
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "port $PORT is busy; set PORT=... to another one" >&2
  exit 1
fi
URL="http://127.0.0.1:$PORT/?folder=$FOLDER"
ARGS=("${CS[@]}" --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry
      --disable-update-check --disable-workspace-trust --disable-getting-started-override "$FOLDER")

if [ "$BACKGROUND" = 1 ]; then
  setsid "$SHAPESENSE_CODE_SERVER" "${ARGS[@]}" > "$RUN/code-server.log" 2>&1 < /dev/null &
  PGID=$!
  for _ in $(seq 1 120); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
    sleep 0.25
  done
  echo "$PGID" > "$RUN/code-server.pgid"
  echo "ShapeSense in VS Code (code-server): $URL"
  echo "log: $RUN/code-server.log   stop: kill -- -$PGID"
else
  echo "ShapeSense in VS Code (code-server): $URL"
  echo "(open it in a browser; Ctrl+C stops code-server)"
  exec "$SHAPESENSE_CODE_SERVER" "${ARGS[@]}"
fi
