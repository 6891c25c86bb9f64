#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH (OpenClaw 2026.9 and Vitest need it), so `npm test`
# and friends work the same on a machine whose own Node is older.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 24 ]; then
  PATH="$(bash "$root/scripts/node24.sh"):$PATH"
  export PATH
fi
export PATH="$root/node_modules/.bin:$PATH"
exec "$@"
