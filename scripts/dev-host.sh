#!/usr/bin/env bash
# Installs the OpenClaw release ClawOS is developed against (tools/dev-host, with its own lock file)
# into the development cache (scripts/cache-dir.sh), once per lock file, and links it at .dev-host in
# the checkout, where the SDK types (tsconfig.json `paths`), the unit tests, the gateway harness and
# the benchmarks find it. OpenClaw 2026.9 needs Node >= 24.16, so it is not a devDependency:
# `npm install` works on a checkout whatever the machine's Node. It is not under node_modules either:
# OpenClaw refuses to link a plugin whose node_modules points outside it, so a checkout stays an
# ordinary plugin directory (`openclaw plugins install --link <checkout>`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/tools/dev-host"
want="$(cat "$src/package.json" "$src/package-lock.json" | cksum | cut -d' ' -f1)"
cache="$(bash "$root/scripts/cache-dir.sh")"
# One directory per lock file: a checkout on another branch never replaces a host in use.
prefix="$cache/dev-host-$want"
pkg="$prefix/node_modules/openclaw"
if [ ! -f "$prefix/.complete" ]; then
  PATH="$(bash "$root/scripts/node24.sh"):$PATH"
  tmp="$cache/.dev-host.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  cp "$src/package.json" "$src/package-lock.json" "$tmp/"
  # Install scripts are not run (npm 11 skips the host's own by default; none is needed here).
  (cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  touch "$tmp/.complete"
  # Another checkout may have finished the same install meanwhile; either copy will do.
  if [ -e "$prefix" ]; then rm -rf "$tmp"; else mv "$tmp" "$prefix"; fi
fi
link="$root/.dev-host"
if [ "$(readlink "$link" 2>/dev/null)" != "$pkg" ]; then
  rm -f "$link"
  ln -s "$pkg" "$link"
fi
# Checkouts made before the host moved out of node_modules had it linked there.
if [ -L "$root/node_modules/openclaw" ]; then rm -f "$root/node_modules/openclaw"; fi
