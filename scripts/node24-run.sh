#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH (OpenClaw 2026.9 and Vitest need it), so `npm test`
# and friends work the same on a machine whose own Node is older, with the development OpenClaw
# linked in (scripts/dev-host.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# OpenClaw 2026.9 needs Node >= 24.16: the machine's own Node when it is that new, else the cached one.
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 24 || (a === 24 && b >= 16) ? 0 : 1)' 2>/dev/null; then
  PATH="$(bash "$root/scripts/node24.sh"):$PATH"
  export PATH
fi
export PATH="$root/node_modules/.bin:$PATH"
# The OpenClaw release the tests, the demo and the type checks run against (installed on first use).
bash "$root/scripts/dev-host.sh"
exec "$@"
