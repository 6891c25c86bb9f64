#!/usr/bin/env bash
# Usage: scripts/ensure-host.sh <openclaw-version>
# Installs openclaw@<version> (once) into the development cache (scripts/cache-dir.sh), under
# hosts/openclaw-<version>/, and prints the installed package directory (.../node_modules/openclaw).
# Tests use it to get real OpenClaw releases other than the development host (scripts/dev-host.sh).
set -euo pipefail
version="${1:?usage: ensure-host.sh <openclaw-version>}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hosts="$(bash "$root/scripts/cache-dir.sh")/hosts"
prefix="$hosts/openclaw-$version"
pkg="$prefix/node_modules/openclaw"

installed() { [ -f "$pkg/package.json" ] && [ -f "$prefix/.complete" ]; }

if ! installed; then
  mkdir -p "$hosts"
  # One installer at a time (test files may ask for the same version in parallel).
  # A lock left by a killed installer (its PID gone) is taken over.
  lock="$hosts/.openclaw-$version.lock"
  until mkdir "$lock" 2>/dev/null; do
    holder="$(cat "$lock/pid" 2>/dev/null || true)"
    if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then
      rm -rf "$lock"
      continue
    fi
    sleep 1
  done
  echo $$ >"$lock/pid"
  trap 'rm -rf "$lock"' EXIT
  if ! installed; then
    PATH="$(bash "$root/scripts/node24.sh"):$PATH"
    tmp="$hosts/.openclaw-$version.tmp.$$"
    rm -rf "$tmp" "$prefix"
    mkdir -p "$tmp"
    # Overrides needed by the 2026.1.x and 2026.2.x releases (checked: 2026.1.29, 2026.1.30,
    # 2026.2.9), harmless elsewhere: their WhatsApp dependency pulls libsignal from a git host
    # (unreachable offline; the registry has libsignal 6.0.0), and linkedom >= 0.18.13 depends
    # on a package missing from the registry.
    cat >"$tmp/package.json" <<EOF
{
  "name": "clawos-openclaw-host-$version",
  "private": true,
  "dependencies": { "openclaw": "$version" },
  "overrides": { "libsignal": "6.0.0", "linkedom": "0.18.12" }
}
EOF
    npm install --prefix "$tmp" --no-audit --no-fund --ignore-scripts --loglevel=error >&2
    touch "$tmp/.complete"
    mv "$tmp" "$prefix"
  fi
fi
echo "$pkg"
