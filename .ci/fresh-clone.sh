#!/usr/bin/env bash
# Usage: .ci/fresh-clone.sh <node-version>
# The README's quick start as a newcomer on Node <version> meets it: a fresh clone of this checkout's
# HEAD, that Node first on PATH, an empty development cache, then `npm install && npm run demo` and
# the unit tests through `npm test`. (npm test runs Vitest on Node 24 whatever the machine's Node, so
# the end-to-end files would repeat the run .ci/run makes on this clone.)
set -euo pipefail
version="${1:?usage: fresh-clone.sh <node-version>}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(bash "$repo/scripts/node-runtime.sh" "$version")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/clawos"
cd "$work/clawos"
export PATH="$bin:$PATH" CLAWOS_CACHE_DIR="$work/cache"
echo "== fresh clone on node $(node --version), npm $(npm --version), empty development cache"
npm install --no-audit --no-fund
npm run demo
npm test -- --project unit
