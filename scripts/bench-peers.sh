#!/usr/bin/env bash
# Peers beside vaultlink on the same vaults: builds hyalo-cli and obsidian-export from crates.io
# into target/bench/peers (once), then times what each shares with vaultlink.
#
#   scripts/bench-peers.sh <vault folder>...
#   scripts/bench-peers.sh --build-only     # only build the peers (scripts/bench.sh's issue 39 table)
#
# hyalo is pinned to the version issue 39's figures were measured against, so a figure read
# beside an earlier one compares vaultlink's progress, not hyalo's.
set -euo pipefail
cd "$(dirname "$0")/.."
peers=target/bench/peers
for crate in hyalo-cli@0.25.1 obsidian-export; do
  name=${crate%@*}
  if [ ! -d "$peers/$name/bin" ]; then
    echo "bench: building $crate from crates.io into $peers/$name (a few minutes, once)" >&2
    cargo install --quiet --root "$peers/$name" "$crate" >&2
  fi
done
[ "${1:-}" = --build-only ] && exit 0
exec python3 scripts/bench_peers.py "$peers" "$@"
