#!/usr/bin/env bash
# Peers beside vaultlink on the same vaults: builds hyalo-cli and obsidian-export from crates.io
# into target/bench/peers (once), then times what each shares with vaultlink.
#
#   scripts/bench-peers.sh <vault folder>...
set -euo pipefail
cd "$(dirname "$0")/.."
peers=target/bench/peers
for crate in hyalo-cli obsidian-export; do
  if [ ! -d "$peers/$crate/bin" ]; then
    echo "bench: building $crate from crates.io into $peers/$crate (a few minutes, once)" >&2
    cargo install --quiet --root "$peers/$crate" "$crate" >&2
  fi
done
exec python3 scripts/bench_peers.py "$peers" "$@"
