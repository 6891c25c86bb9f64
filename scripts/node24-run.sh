#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH (OpenClaw 2026.9 and Vitest need it), so `npm test`
# and friends work the same on a machine whose own Node is older, with the development OpenClaw
# linked in (scripts/dev-host.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 24 ]; then
  PATH="$(bash "$root/scripts/node24.sh"):$PATH"
  export PATH
fi
export PATH="$root/node_modules/.bin:$PATH"
# The OpenClaw release the tests, the demo and the type checks run against (installed on first use).
bash "$root/scripts/dev-host.sh"
exec "$@"
