#!/usr/bin/env bash
# Builds the web calculator into build-web/site/: libkvplan + web/src/kvplan_wasm.cpp compiled to
# WebAssembly with Debian's emscripten, the page, and Chart.js (pinned in web/package-lock.json,
# installed with `npm ci`). Re-running rebuilds only what changed.
#   web/build.sh [BUILD_DIR]        (default: build-web at the repository root)
# Then serve it:  python3 -m http.server -d build-web/site 8000  and open http://127.0.0.1:8000/
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-web}"
jobs="${KVPLAN_JOBS:-2}"

command -v emcmake >/dev/null || { echo "web/build.sh: emscripten missing (apt-get install -y emscripten)" >&2; exit 2; }
command -v npm >/dev/null || { echo "web/build.sh: npm missing (apt-get install -y npm)" >&2; exit 2; }

# Debian's emscripten runs its optimizer under the system node, which finds acorn here.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"

lock="$root/web/package-lock.json"
stamp="$root/web/node_modules/.kvplan-npm-ci"
if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
  (cd "$root/web" && npm ci --no-audit --no-fund --loglevel=error)
  touch "$stamp"
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  emcmake cmake -S "$root/web" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$jobs"
echo "web/build.sh: site in $build/site"
