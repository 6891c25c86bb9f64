#!/usr/bin/env bash
# Builds a ClawOS plugin directory at $1 the way OpenClaw installs it from npm: the files package.json
# publishes (`files`), the built JavaScript entry, and production dependencies only. The tests load
# and pack this copy, so they run what a tarball holds and never leave a build in the checkout
# (the host prefers a linked checkout's dist/ over its TypeScript, so a stale one would be run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:?usage: stage-plugin.sh <target-dir>}"
mkdir -p "$target"
target="$(cd "$target" && pwd)"
cd "$root"
# The SDK types come from the development host.
bash scripts/dev-host.sh
items="$(node -p 'const p = require("./package.json"); ["package.json", "package-lock.json", ...p.files.filter((f) => f.replace(/\/$/, "") !== "dist")].join("\n")')"
while IFS= read -r item; do
  item="${item%/}"
  rm -rf "${target:?}/$item"
  if [ -e "$item" ]; then cp -R "$item" "$target/$item"; fi
done <<<"$items"
rm -rf "$target/dist"
"$root/node_modules/.bin/tsc" -p tsconfig.build.json --outDir "$target/dist"
cd "$target"
npm ci --omit=dev --omit=peer --omit=optional --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error >&2
echo "$target"
