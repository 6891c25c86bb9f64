#!/usr/bin/env bash
# Builds a clean, loadable ClawOS plugin directory at $1: the plugin's own files plus its
# production dependencies only, the way OpenClaw installs a plugin from npm. Link or load this
# directory rather than a development checkout, whose node_modules holds a whole OpenClaw of its own.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:?usage: stage-plugin.sh <target-dir>}"
mkdir -p "$target"
target="$(cd "$target" && pwd)"
# Built JavaScript for hosts and routes that do not load TypeScript (npm installs, extensions dir).
(cd "$root" && "$root/node_modules/.bin/tsc" -p tsconfig.build.json)
for item in package.json package-lock.json openclaw.plugin.json index.ts src manifests README.md; do
  rm -rf "${target:?}/$item"
  cp -R "$root/$item" "$target/$item"
done
if [ -d "$root/dist" ]; then rm -rf "$target/dist"; cp -R "$root/dist" "$target/dist"; fi
cd "$target"
npm ci --omit=dev --omit=peer --omit=optional --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error >&2
echo "$target"
