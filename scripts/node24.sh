#!/usr/bin/env bash
# Prints the bin directory of the Node 24 runtime the tests, the demo and the type checks run on:
# OpenClaw 2026.9.x needs Node >= 24.16 and the machine's own Node may be older, so it is fetched
# into the development cache (scripts/node-runtime.sh). CLAWOS_NODE_VERSION picks another release.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/node-runtime.sh" "${CLAWOS_NODE_VERSION:-24.21.0}"
