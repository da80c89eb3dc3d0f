#!/usr/bin/env bash
# The README's first command: sets up what is missing, builds everything, and runs the
# sidecar in standalone mode on the sample vault.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
scripts/build.sh --release
echo
echo "== vaultlink summary examples/vault"
target/release/vaultlink summary examples/vault
echo
echo "== vaultlink links examples/vault Projects/Alpha"
target/release/vaultlink links examples/vault Projects/Alpha --mode standalone
echo
echo "Built: target/release/vaultlink (the sidecar) and main.js + manifest.json (the plugin)."
