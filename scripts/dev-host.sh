#!/usr/bin/env bash
# Installs the OpenClaw release ClawOS is developed against (tools/dev-host, with its own lock file)
# into the repo's ignored cache, once, and links it as node_modules/openclaw, where the SDK types,
# the unit tests, the gateway harness and the benchmarks find it. OpenClaw 2026.9 needs Node >= 24.16,
# so it is not a devDependency: `npm install` works on a checkout whatever the machine's Node.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/tools/dev-host"
prefix="$root/.cache/dev-host"
stamp="$prefix/.installed-from"
want="$(cat "$src/package.json" "$src/package-lock.json" | cksum | cut -d' ' -f1)"
if [ ! -f "$prefix/node_modules/openclaw/package.json" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  PATH="$(bash "$root/scripts/node24.sh"):$PATH"
  tmp="$root/.cache/.dev-host.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  cp "$src/package.json" "$src/package-lock.json" "$tmp/"
  # Install scripts are not run (npm 11 skips the host's own by default; none is needed here).
  (cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  echo "$want" >"$tmp/.installed-from"
  rm -rf "$prefix"
  mv "$tmp" "$prefix"
fi
mkdir -p "$root/node_modules"
link="$root/node_modules/openclaw"
if [ "$(readlink "$link" 2>/dev/null)" != "$prefix/node_modules/openclaw" ]; then
  rm -rf "$link"
  ln -s "$prefix/node_modules/openclaw" "$link"
fi
