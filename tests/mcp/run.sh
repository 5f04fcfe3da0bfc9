#!/usr/bin/env bash
# kvplan mcp with the official MCP client: installs @modelcontextprotocol/sdk (npm ci, pinned by
# package-lock.json) when missing or older than the lock, then runs test.mjs.
#   tests/mcp/run.sh <kvplan> [<build>/python]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kvplan="${1:?usage: run.sh <kvplan> [pythonpath]}"
export KVPLAN_PYTHONPATH="${2:-}"
command -v node >/dev/null || { echo "tests/mcp: node missing (scripts/bootstrap --test-packages)" >&2; exit 1; }
stamp="$here/node_modules/.kvplan-npm-ci"
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || { echo "tests/mcp: npm ci failed" >&2; exit 1; }
  touch "$stamp"
fi
exec node "$here/test.mjs" "$kvplan"
