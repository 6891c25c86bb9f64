#!/usr/bin/env bash
# Prints the directory where the development tools are kept: the Node 24 runtime, the OpenClaw
# releases the tests run against, Biome. $CLAWOS_CACHE_DIR when set, else the per-user cache.
# It is outside the checkout on purpose: OpenClaw's install scan walks every directory of a linked
# plugin and refuses one with more than 10,000, so a checkout holding whole OpenClaw releases could
# not be linked into a gateway.
set -euo pipefail
dir="${CLAWOS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/clawos}"
mkdir -p "$dir"
cd "$dir" && pwd
