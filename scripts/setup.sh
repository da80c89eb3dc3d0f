#!/usr/bin/env bash
# Installs whatever building (and, with `test`, testing) vaultlink needs and is missing, then
# writes the environment to use into target/setup.env. Idempotent: when everything is in
# place it only checks, in a few seconds.
#
# Usage: scripts/setup.sh build   # Rust, a wasm32 toolchain, wasm-bindgen-cli, npm packages
#        scripts/setup.sh test    # all of that, plus Chromium and ChromeDriver, Firefox and
#                                 # geckodriver, wasm-pack, and a Python environment with the MCP
#                                 # SDK for end-to-end tests
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }
want=${1:-build}
case "$want" in build|test) ;; *) die "usage: scripts/setup.sh build|test" ;; esac

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
apt_updated=""
apt_install() {
  [ -f /etc/debian_version ] || die "please install $* with your system's package manager, then run this again"
  if [ -z "$apt_updated" ]; then $SUDO apt-get update -qq >&2; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >&2
}

command -v cargo >/dev/null || die "Rust is missing: install it with rustup (https://rustup.rs), then run this again"
command -v node >/dev/null || die "Node.js 18 or later is missing: install it, then run this again"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || die "Node.js $node_major is too old: vaultlink's plugin build needs 18 or later"

mkdir -p target
scripts/wasm-toolchain.sh > target/setup.env
# shellcheck disable=SC1091
. target/setup.env

# wasm-bindgen-cli must be exactly the wasm-bindgen version in Cargo.lock.
bindgen_want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
bindgen_have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$bindgen_have" != "$bindgen_want" ]; then
  log "installing wasm-bindgen-cli $bindgen_want (compiles from crates.io, a few minutes)"
  cargo ${VAULTLINK_WASM_TOOLCHAIN:++$VAULTLINK_WASM_TOOLCHAIN} install -q wasm-bindgen-cli --version "=$bindgen_want" >&2
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

if [ "$want" = test ]; then
  if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    log "installing rustfmt and clippy, which the tests run"
    command -v rustup >/dev/null && timeout 120 rustup component add rustfmt clippy >&2 \
      || die "rustfmt and clippy are missing and could not be installed: add them to your Rust toolchain (rustup component add rustfmt clippy), then run this again"
  fi
  if ! command -v chromedriver >/dev/null || ! { command -v chromium >/dev/null || command -v google-chrome >/dev/null; }; then
    log "installing Chromium and ChromeDriver for the wasm tests"
    apt_install chromium chromium-driver
  fi
  if ! command -v firefox >/dev/null && ! command -v firefox-esr >/dev/null; then
    log "installing Firefox (Debian's firefox-esr) for the wasm tests"
    apt_install firefox-esr
  fi
  if ! command -v geckodriver >/dev/null; then
    log "installing geckodriver for the wasm tests in Firefox (compiles from crates.io, a few minutes)"
    cargo install -q --locked geckodriver >&2
  fi
  if ! command -v unzip >/dev/null; then
    log "installing unzip, which the README's install steps use (tests/test_release.py runs them)"
    apt_install unzip
  fi
  if ! command -v wasm-pack >/dev/null; then
    log "installing wasm-pack (compiles from crates.io, a few minutes)"
    cargo install -q wasm-pack >&2
  fi
  if [ ! -x target/py/bin/python ] || [ tests/requirements.txt -nt target/py/.installed ]; then
    log "installing the Python MCP SDK for the end-to-end tests"
    python3 -m venv target/py >&2 || { apt_install python3-venv; python3 -m venv target/py >&2; }
    target/py/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt >&2
    touch target/py/.installed
  fi
fi
log "ready ($want)"
