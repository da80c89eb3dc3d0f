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
# The plugin is reproducible (scripts/release.sh): the wasm module names the sources of the crates
# it was built from in its panic messages, so Cargo's home folder, which differs between machines,
# is named /cargo there instead. (The workspace's own crates are named relative to it already.)
cargo_home=${CARGO_HOME:-$HOME/.cargo}
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--remap-path-prefix=$cargo_home=/cargo${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:+ $CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS}"
cargo ${VAULTLINK_WASM_TOOLCHAIN:++$VAULTLINK_WASM_TOOLCHAIN} build -q --release -p vaultlink-wasm --target wasm32-unknown-unknown
wasm-bindgen --target web --out-dir plugin/wasm --out-name vaultlink_wasm \
  target/wasm32-unknown-unknown/release/vaultlink_wasm.wasm
npm run --silent build
