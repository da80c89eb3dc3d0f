#!/usr/bin/env bash
# Builds what a release ships into target/release-assets/: the plugin (main.js, manifest.json,
# styles.css, and the three in vaultlink-<version>.zip), the sidecar built for this machine
# (vaultlink-<version>-<target triple>), and SHA256SUMS of them all. scripts/test.sh runs it and
# so does the release workflow (.github/workflows/release.yml), on each system it builds for.
#
# The plugin is reproducible: the same commit gives the same main.js (and zip) bytes, whichever
# folder the clone is in, since the wasm module is built with the build's paths mapped to fixed
# names (see scripts/build.sh). tests/test_release.py builds it twice to check.
#
# Usage: scripts/release.sh
#        VAULTLINK_TARGET=<target triple> scripts/release.sh   # the sidecar for another target
#                                                              # (its Rust target installed)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
# shellcheck disable=SC1091
. target/setup.env
scripts/build.sh --release
host=$(rustc -vV | sed -n 's/^host: //p')
target=${VAULTLINK_TARGET:-$host}
exe=""
case "$target" in *windows*) exe=.exe ;; esac
binary=target/release/vaultlink$exe
if [ "$target" != "$host" ]; then
  cargo build -q --release --locked -p vaultlink --target "$target"
  binary=target/$target/release/vaultlink$exe
fi
node scripts/release-assets.mjs target/release-assets "$binary" "$target"
