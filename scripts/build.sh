#!/usr/bin/env bash
# Builds everything: the native sidecar, the wasm module, and the plugin bundle main.js
# with the wasm inlined. Run scripts/setup.sh first (demo.sh and test.sh do).
#
# Usage: scripts/build.sh [--release]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
. target/setup.env
profile_flag=""
[ "${1:-}" = --release ] && profile_flag=--release

cargo build -q $profile_flag -p vaultlink
cargo ${VAULTLINK_WASM_TOOLCHAIN:++$VAULTLINK_WASM_TOOLCHAIN} build -q --release -p vaultlink-wasm --target wasm32-unknown-unknown
wasm-bindgen --target web --out-dir plugin/wasm --out-name vaultlink_wasm \
  target/wasm32-unknown-unknown/release/vaultlink_wasm.wasm
npm run --silent build
