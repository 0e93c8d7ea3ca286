#!/usr/bin/env bash
# Packages the extension for one platform with the server and its Python dependencies inside:
#
#   bash scripts/package.sh [--target TARGET] [--out FILE.vsix] [--no-libs]
#
# TARGET is a vsce target (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64,
# win32-arm64); default: this machine's. z3-solver is a native library, so each target gets its
# own .vsix. The Python side goes into bundled/libs: the `shapesense` wheel built from
# $SHAPESENSE_SRC (default: the repository this folder sits in) plus its dependencies, installed
# with `pip install --target` for that platform and for Python 3.10 (so that the backports 3.10
# needs are in too; everything but z3 is pure Python and z3 is `py3-none`, so the result runs on
# any Python >= 3.10). Run after `npm run build` (out/extension.js). --no-libs packages without
# bundled/libs (the extension then uses the interpreter's own `shapesense`).
# Needs: python3 with pip (PYTHON=...), network to PyPI, node >= 22 with the npm dev deps.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$(cd "${SHAPESENSE_SRC:-$HERE/..}" && pwd)"
PYTHON="${PYTHON:-python3}"
TARGET=""
OUT=""
LIBS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --target) TARGET="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-libs) LIBS=0; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$TARGET" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) TARGET=linux-x64 ;;
    Linux-aarch64) TARGET=linux-arm64 ;;
    Darwin-x86_64) TARGET=darwin-x64 ;;
    Darwin-arm64) TARGET=darwin-arm64 ;;
    *) echo "no default target for $(uname -s)-$(uname -m); pass --target" >&2; exit 2 ;;
  esac
fi

# pip platform tags per vsce target (pip does not widen a --platform on its own, so list them)
seq_tags() { local fmt="$1" from="$2" to="$3"; for ((v = from; v <= to; v++)); do printf -- "--platform $fmt " "$v"; done; }
case "$TARGET" in
  linux-x64) PLATFORMS="--platform manylinux2014_x86_64 $(seq_tags manylinux_2_%s_x86_64 17 28)" ;;
  linux-arm64) PLATFORMS="--platform manylinux2014_aarch64 $(seq_tags manylinux_2_%s_aarch64 17 34)" ;;
  darwin-x64) PLATFORMS="$(seq_tags macosx_10_%s_x86_64 9 15) $(seq_tags macosx_%s_0_x86_64 11 15)" ;;
  darwin-arm64) PLATFORMS="$(seq_tags macosx_%s_0_arm64 11 15)" ;;
  win32-x64) PLATFORMS="--platform win_amd64" ;;
  win32-arm64) PLATFORMS="--platform win_arm64" ;;
  *) echo "unsupported target: $TARGET" >&2; exit 2 ;;
esac

log() { printf '[package] %s\n' "$*" >&2; }
LIBDIR="$HERE/bundled/libs"
if [ "$LIBS" = 1 ]; then
  # rebuild bundled/libs only when the Python sources, the dependencies or the target changed
  STAMP="$( (echo "$TARGET"; cat "$SRC/pyproject.toml";
             find "$SRC/shapesense" "$SRC/analysis" "$SRC/server" -name '*.py' -print0 | sort -z | xargs -0 cat) \
           | sha256sum | cut -d' ' -f1)"
  if [ "$(cat "$LIBDIR/.stamp" 2>/dev/null)" != "$STAMP" ]; then
    WHEELS="$(mktemp -d)"
    trap 'rm -rf "$WHEELS"' EXIT
    log "building the shapesense wheel from $SRC"
    "$PYTHON" -m pip wheel -q --no-deps -w "$WHEELS" "$SRC" >&2
    rm -rf "$LIBDIR"
    log "pip install --target bundled/libs ($TARGET, Python 3.10+)"
    # shellcheck disable=SC2086
    "$PYTHON" -m pip install -q --disable-pip-version-check --no-compile --target "$LIBDIR" \
      --only-binary=:all: --python-version 3.10 $PLATFORMS "$WHEELS"/shapesense-*.whl >&2
    rm -rf "$LIBDIR/bin"
    # jedi only resolves imports to workspace files here; its third-party stubs (~4,800 files,
    # 27 MB) serve type inference of other libraries. Its stdlib stubs stay (builtins).
    rm -rf "$LIBDIR/jedi/third_party/typeshed/stubs" "$LIBDIR/jedi/third_party/django-stubs"
    find "$LIBDIR" -name __pycache__ -type d -prune -exec rm -rf {} +
    echo "$STAMP" > "$LIBDIR/.stamp"
  else
    log "bundled/libs is up to date"
  fi
else
  rm -rf "$LIBDIR"
fi

VERSION="$(node -p "require('$HERE/package.json').version")"
OUT="${OUT:-$HERE/shapesense-$TARGET-$VERSION.vsix}"
(cd "$HERE" && npx --no-install vsce package --target "$TARGET" --no-dependencies --skip-license \
   --allow-missing-repository -o "$OUT" >&2)
log "$OUT ($(du -h "$OUT" | cut -f1))"
echo "$OUT"
