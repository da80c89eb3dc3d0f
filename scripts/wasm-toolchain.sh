#!/usr/bin/env bash
# Makes sure a Rust toolchain that can build wasm32-unknown-unknown is available, and prints
# the environment to use it as `export` lines (progress goes to stderr).
#
# Usage:  eval "$(scripts/wasm-toolchain.sh)"
#
# The order, cheapest first:
#   1. the active rustup toolchain already has the wasm32 target: use it;
#   2. `rustup target add wasm32-unknown-unknown`, with a short timeout (offline machines hang here);
#   3. on Debian: Debian's `rustc-web` with its standard-library source, std built once for
#      wasm32 with -Zbuild-std, installed into Debian's sysroot and linked into rustup as the
#      toolchain `debian-web`.
# It is idempotent: when everything is in place it only checks and prints.
# VAULTLINK_WASM_ROUTE=debian skips steps 1 and 2, to exercise the offline route.
set -euo pipefail
log() { printf 'wasm-toolchain: %s\n' "$*" >&2; }

TARGET=wasm32-unknown-unknown
DEBIAN_TOOLCHAIN=debian-web
SYSROOT_WASM=/usr/lib/rustlib/$TARGET/lib

has_target() { # $1: toolchain name, or empty for the active one
  local sysroot
  sysroot=$(rustc ${1:++$1} --print sysroot 2>/dev/null) || return 1
  ls "$sysroot/lib/rustlib/$TARGET/lib/"libstd-*.rlib >/dev/null 2>&1
}

emit() { # $1: toolchain to use for wasm builds, empty for the active one
  echo "export VAULTLINK_WASM_TOOLCHAIN=${1}"
  echo "export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner"
  if [ -x /usr/bin/chromedriver ] && [ -z "${CHROMEDRIVER:-}" ]; then
    echo "export CHROMEDRIVER=/usr/bin/chromedriver"
  fi
}

route=${VAULTLINK_WASM_ROUTE:-auto}
if [ "$route" != debian ] && has_target ""; then
  emit ""
  exit 0
fi
if has_target "$DEBIAN_TOOLCHAIN"; then
  emit "$DEBIAN_TOOLCHAIN"
  exit 0
fi

if [ "$route" != debian ]; then
  log "the active toolchain has no $TARGET target; trying rustup (30 s at most)"
  if timeout 30 rustup target add "$TARGET" >&2 2>&1 && has_target ""; then
    emit ""
    exit 0
  fi
fi

if [ ! -f /etc/debian_version ]; then
  log "could not add $TARGET with rustup, and this is not Debian, so the offline route does not apply."
  log "Install the target by hand (rustup target add $TARGET) and run this again."
  exit 1
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
need_pkgs=()
for p in rustc-web cargo-web rust-web-src rust-web-llvm lld-22; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
  log "rustup could not add the target; installing Debian packages: ${need_pkgs[*]}"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >&2
fi

stamp="$SYSROOT_WASM/.built-by"
want_stamp=$(/usr/bin/rustc --version)
if ! ls "$SYSROOT_WASM"/libstd-*.rlib >/dev/null 2>&1 || ! ls "$SYSROOT_WASM"/libtest-*.rlib >/dev/null 2>&1 \
   || [ "$(cat "$stamp" 2>/dev/null)" != "$want_stamp" ]; then
  log "building the Rust standard library for $TARGET (once, a few minutes)"
  work=$(mktemp -d)
  mkdir -p "$work/src"
  printf '[package]\nname = "stdbuild"\nversion = "0.0.0"\nedition = "2021"\n[lib]\ncrate-type = ["rlib"]\n' > "$work/Cargo.toml"
  : > "$work/src/lib.rs"
  (cd "$work" && RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc /usr/bin/cargo build -q --release \
      --target "$TARGET" -Zbuild-std=std,panic_abort,test >&2)
  $SUDO mkdir -p "$SYSROOT_WASM"
  $SUDO rm -f "$SYSROOT_WASM"/*.rlib
  (cd "$work/target/$TARGET/release/deps" && $SUDO cp $(ls -- *.rlib | grep -v '^libstdbuild-') "$SYSROOT_WASM"/)
  rm -rf "$work"
  echo "$want_stamp" | $SUDO tee "$stamp" >/dev/null
fi

if ! rustup toolchain list | grep -q "^$DEBIAN_TOOLCHAIN"; then
  rustup toolchain link "$DEBIAN_TOOLCHAIN" /usr >&2
fi
emit "$DEBIAN_TOOLCHAIN"
