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
# The wasm module is built with its own profile (Cargo.toml's wasm-release: fat LTO, one codegen
# unit), then optimised for size by binaryen's wasm-opt, the version pinned in package.json
# (scripts/setup.sh installs it with the npm packages), which also drops the names section.
cargo ${VAULTLINK_WASM_TOOLCHAIN:++$VAULTLINK_WASM_TOOLCHAIN} build -q --profile wasm-release -p vaultlink-wasm --target wasm32-unknown-unknown
wasm-bindgen --target web --out-dir plugin/wasm --out-name vaultlink_wasm \
  target/wasm32-unknown-unknown/wasm-release/vaultlink_wasm.wasm
node_modules/.bin/wasm-opt -Oz plugin/wasm/vaultlink_wasm_bg.wasm -o plugin/wasm/vaultlink_wasm_bg.wasm
npm run --silent build
