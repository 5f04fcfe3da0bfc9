#!/usr/bin/env bash
# Builds the web calculator if needed (web/build.sh: libkvplan -> WebAssembly, into build-web/)
# and runs the browser tests (test.mjs: playwright-core + Debian's chromium, headless) against
# it. Prints "N passed, N failed"; exits non-zero when anything failed.
#   tests/web/run.sh                  # the tests
#   tests/web/run.sh --screenshots    # also refresh docs/web/*.png
# Env: KVPLAN_CLI (default build/bin/kvplan), KVPLAN_WEB_BUILD (default build-web),
#      CHROMIUM (default /usr/bin/chromium).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${KVPLAN_WEB_BUILD:-$root/build-web}"
export KVPLAN_CLI="${KVPLAN_CLI:-$root/build/bin/kvplan}"
export KVPLAN_WEB_SITE="$build/site"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

args=()
if [ "${1:-}" = "--screenshots" ]; then args=(--screenshots "$root/docs/web"); fi

fail_setup() { echo "tests/web: $1" >&2; echo "0 passed, 1 failed"; exit 1; }
command -v node >/dev/null || fail_setup "node missing (apt-get install -y nodejs npm)"
[ -x "$CHROMIUM" ] || fail_setup "chromium missing at $CHROMIUM (apt-get install -y chromium)"
[ -x "$KVPLAN_CLI" ] || fail_setup "the CLI is missing at $KVPLAN_CLI (scripts/bootstrap builds it)"

mkdir -p "$build"
"$root/web/build.sh" "$build" >"$build/web-build.log" 2>&1 || { tail -40 "$build/web-build.log" >&2; fail_setup "web/build.sh failed (log: $build/web-build.log)"; }

lock="$root/tests/web/package-lock.json"
stamp="$root/tests/web/node_modules/.kvplan-npm-ci"
if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
  (cd "$root/tests/web" && npm ci --no-audit --no-fund --loglevel=error) || fail_setup "npm ci in tests/web failed"
  touch "$stamp"
fi

# The tests stop themselves (watchdog in test.mjs); timeout is the backstop.
exec timeout -k 5 200 node "$root/tests/web/test.mjs" "${args[@]}"
