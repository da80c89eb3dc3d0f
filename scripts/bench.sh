#!/usr/bin/env bash
# The benchmark: measures vaultlink on the shared corpora (when present) and on generated vaults
# of 1,000, 10,000 and 100,000 notes, side by side with its floors and with peer tools, prints
# the tables and writes them into BENCHMARKS.md between its "bench:start" and "bench:end" marks.
# Every program appends its figures to target/bench/figures.jsonl; the last table, the targets
# (issue 20's beside the figures it started from, then the earlier issues'), is made from them
# by `vaultlink-bench targets`.
#
#   scripts/bench.sh [corpora folder]     # default: ../shared/corpora, when it exists
#
# Options through the environment:
#   VAULTLINK_BENCH_SIZES="1000 10000"    generated vault sizes (default 1000 10000 100000)
#   VAULTLINK_BENCH_PEERS=0               skip building and timing the peer tools
#
# Issue 42's table (scripts/bench_repair.py) times fix_broken_links' dry run beside hyalo's
# `links fix`, and link_mentions beside `links auto` once the CLI has `mentions`.
#
# It takes a while: generating the 100,000-note vault, nine runs of every figure, and the first
# time, building the peers from crates.io. Run it on a quiet machine: every figure is also given
# beside its floor, measured in the same run, because absolute times drift.
set -euo pipefail
cd "$(dirname "$0")/.."

corpora="${1:-../shared/corpora}"
sizes="${VAULTLINK_BENCH_SIZES:-1000 10000 100000}"
work=target/bench
figures="$work/figures.jsonl"
report="$work/report.md"
mkdir -p "$work/vaults"
: > "$figures"
export VAULTLINK_BENCH_FIGURES="$PWD/$figures"

step() { printf '\n== %s\n' "$*" >&2; }

step "setup and release builds"
scripts/setup.sh test >&2   # the test setup: Chromium and the Python MCP SDK are measured with
cargo build --release -p vaultlink -p vaultlink-bench >&2
scripts/build.sh >&2
npm run --silent build:host >&2

vaults=()
if [ -d "$corpora" ]; then
  for name in kepano-obsidian dnd-srd-wiki yoshixi-zettelkasten; do
    [ -d "$corpora/$name" ] && vaults+=("$corpora/$name")
  done
else
  echo "bench: no corpora at $corpora: only the generated vaults are measured" >&2
fi
for size in $sizes; do
  dir="$work/vaults/generated-$size"
  if [ ! -d "$dir" ]; then
    step "generating $dir"
    target/release/vaultlink-bench generate "$size" "$dir.partial" 1 >&2
    mv "$dir.partial" "$dir"
  fi
  vaults+=("$dir")
done

{
  echo "Measured $(date -u +%Y-%m-%d) by \`scripts/bench.sh\` at commit $(git rev-parse --short HEAD)."
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB, $(. /etc/os-release && echo "$PRETTY_NAME"); $(rustc --version | cut -d' ' -f1-2), Node $(node --version)."
  echo "Load average when it started: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "### Parsing, native (\`parse_note\` beside pulldown-cmark alone, one core)"
  echo
  target/release/vaultlink-bench parse "${vaults[@]}"
  echo
  echo "### Index, native (medians of 9 runs)"
  echo
  target/release/vaultlink-bench index "${vaults[@]}"
  echo
  echo "### Moves: plan and proof, native"
  echo
  target/release/vaultlink-bench move "${vaults[@]}"
  echo
  echo "### Lint and find_existing_page, native"
  echo
  target/release/vaultlink-bench lint "${vaults[@]}"
  echo
  echo "### The sidecar and MCP: a real client (the official Python SDK), standalone and through the plugin"
  echo
  target/py/bin/python scripts/bench_mcp.py "$figures" "${vaults[@]}"
  echo
  echo "### wasm in Node: the plugin's index"
  echo
  echo '```'
  for vault in "${vaults[@]}"; do
    npm run --silent bench:index -- "$vault"
  done
  echo '```'
  echo
  echo "### wasm in headless Chromium"
  echo
  node plugin/bench/chromium-bench.mjs "${vaults[@]}"
  echo
  echo "### The UI thread while lint_wiki runs through the bridge (the plugin in the renderer host)"
  echo
  # plugin/bench/ui-block-bench.ts; a checkout without it yet still runs the rest (grep reads
  # all of npm's list, so pipefail sees no broken pipe). On every vault but the 100,000-note
  # one: the target is the corpus's, and a lint there takes long.
  if npm run | grep bench:ui-block >/dev/null; then
    echo '```'
    for vault in "${vaults[@]}"; do
      [ "$(basename "$vault")" = generated-100000 ] && continue
      npm run --silent bench:ui-block -- "$vault"
    done
    echo '```'
  else
    echo "Not measured: this checkout has no \`npm run bench:ui-block\`."
  fi
  if [ "${VAULTLINK_BENCH_PEERS:-1}" != 0 ]; then
    echo
    echo "### Peers, on the same vaults"
    echo
    scripts/bench-peers.sh "${vaults[@]}"
  fi
  echo
  echo "### Issue 39's goals: the first answer, the cost per note, CPU and memory beside the floor and hyalo; main.js"
  echo
  hyalo=-
  if [ "${VAULTLINK_BENCH_PEERS:-1}" != 0 ]; then
    scripts/bench-peers.sh --build-only >&2
    hyalo=target/bench/peers/hyalo-cli/bin/hyalo
  fi
  python3 scripts/bench_first_answer.py "$hyalo" "${vaults[@]}"
  echo
  echo "### Issue 42's goals: fix_broken_links and link_mentions beside hyalo's links fix and links auto; repair quality"
  echo
  # Quality on the corpus the damage test uses; its Python imports the test's damage generator.
  damage_corpus=-
  [ -d "$corpora/dnd-srd-wiki" ] && damage_corpus="$corpora/dnd-srd-wiki"
  target/py/bin/python scripts/bench_repair.py "$hyalo" "$damage_corpus" "${vaults[@]}"
  echo
  echo "### Targets"
  echo
  target/release/vaultlink-bench targets "$figures"
} | tee "$report"

# Replace what lies between the marks in BENCHMARKS.md, keeping the prose around them.
python3 - "$report" <<'EOF'
import sys
from pathlib import Path
report = Path(sys.argv[1]).read_text()
path = Path("BENCHMARKS.md")
text = path.read_text() if path.exists() else "# Benchmarks\n\n<!-- bench:start -->\n<!-- bench:end -->\n"
start, end = "<!-- bench:start -->", "<!-- bench:end -->"
if start not in text or end not in text:
    text = text.rstrip() + f"\n\n{start}\n{end}\n"
before, rest = text.split(start, 1)
_, after = rest.split(end, 1)
path.write_text(f"{before}{start}\n{report.rstrip()}\n{end}{after}")
print(f"bench: wrote the tables into {path}", file=sys.stderr)
EOF
