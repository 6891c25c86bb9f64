#!/usr/bin/env bash
# Runs Biome (formatter and linter), installed on demand into the development cache
# (scripts/cache-dir.sh).
# Biome ships one native binary per platform as optional packages; a lock file made on one
# machine does not list them all, so it stays out of package.json and is fetched here instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${CLAWOS_BIOME_VERSION:-2.6.8}"
prefix="$(bash "$root/scripts/cache-dir.sh")/biome-$version"
bin="$prefix/node_modules/.bin/biome"
if [ ! -x "$bin" ]; then
  mkdir -p "$prefix"
  npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error --prefix "$prefix" "@biomejs/biome@$version" >&2
fi
cd "$root"
exec "$bin" "$@"
