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
#   VAULTLINK_BENCH_SIZES="1000 10000"    generated vault sizes (default 1000 10000 100000; "" for none)
#   VAULTLINK_BENCH_PEERS=0               skip building and timing the peer tools
#
# Issue 39's table (scripts/bench_first_answer.py) pairs the first answer, the cost per note, CPU
# and memory with hyalo and the floor; issue 42's (scripts/bench_repair.py) times fix_broken_links'
# and link_mentions' dry runs beside hyalo's `links fix` and `links auto` on the corpus and the
# largest vault (the goals' vaults), and scores repairs on the damaged corpus.
#
# Bounded in time: about 40 minutes on 2 shared cores. Every figure takes fewer runs where one
# run takes seconds (native figures 9 runs, 3 from 50,000 notes on; wasm in Node 7 runs, 1 at
# 100,000 notes; headless Chromium 7, 3 from 50,000 notes on; the paired rounds of issues 39 and
# 42 up to 5, 3 from 50,000 notes on, and no new round once a vault's have taken minutes), and
# hyalo's runs known to take over 10 minutes are left out with the reason printed. The first time,
# it also generates the vaults (copy them into target/bench/vaults to skip that) and builds the
# peers from crates.io. Every figure is also given beside its floor or its peer, measured in the
# same run, because absolute times drift with the machine's load, which is printed at the start
# and the end.
set -euo pipefail
cd "$(dirname "$0")/.."

corpora="${1:-../shared/corpora}"
# Unset: the three sizes; set and empty: no generated vault (the corpora alone).
sizes="${VAULTLINK_BENCH_SIZES-1000 10000 100000}"
work=target/bench
figures="$work/figures.jsonl"
report="$work/report.md"
durations="$work/durations.txt"
mkdir -p "$work/vaults"
: > "$figures"
: > "$durations"
export VAULTLINK_BENCH_FIGURES="$PWD/$figures"
# vaultlink's persistent index lives in a cache folder of the run's own, never the user's: each
# script that measures a vault seen once or never seen makes its own inside it.
rm -rf "$work/cache"
mkdir -p "$work/cache"
export VAULTLINK_CACHE_DIR="$PWD/$work/cache"

step() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)" >&2; }
# Runs one part of the report and notes how long it took, for the report's last line.
part() {
  local name=$1 started=$SECONDS
  shift
  step "$name"
  "$@"
  echo "$name: $((SECONDS - started)) s" >> "$durations"
}
# The notes (Markdown files outside hidden folders) below a folder.
notes_in() { find "$1" -name '*.md' -not -path '*/.*' | wc -l; }

step "setup and release builds"
setup_started=$SECONDS
scripts/setup.sh test >&2   # the test setup: Chromium and the Python MCP SDK are measured with
cargo build --release -p vaultlink -p vaultlink-bench >&2
scripts/build.sh >&2
npm run --silent build:host >&2
echo "setup and builds: $((SECONDS - setup_started)) s" >> "$durations"

vaults=()
if [ -d "$corpora" ]; then
  for name in kepano-obsidian dnd-srd-wiki yoshixi-zettelkasten; do
    [ -d "$corpora/$name" ] && vaults+=("$corpora/$name")
  done
else
  echo "bench: no corpora at $corpora: only the generated vaults are measured" >&2
fi
generating_started=$SECONDS
for size in $sizes; do
  dir="$work/vaults/generated-$size"
  if [ ! -d "$dir" ]; then
    step "generating $dir"
    target/release/vaultlink-bench generate "$size" "$dir.partial" 1 >&2
    mv "$dir.partial" "$dir"
  fi
  vaults+=("$dir")
done
echo "generating the vaults: $((SECONDS - generating_started)) s" >> "$durations"

run_started=$SECONDS
{
  echo "Measured $(date -u +%Y-%m-%d) by \`scripts/bench.sh\` at commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!BENCHMARKS.md' || echo ' with changes not yet committed')."
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB, $(. /etc/os-release && echo "$PRETTY_NAME"); $(rustc --version | cut -d' ' -f1-2), Node $(node --version)."
  echo "Load average when it started: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "### Parsing, native (\`parse_note\` beside pulldown-cmark alone, one core; medians of 9 runs, 3 from 50,000 notes on)"
  echo
  part "parsing, native" target/release/vaultlink-bench parse "${vaults[@]}"
  echo
  echo "### Index, native (medians of 9 runs, 3 from 50,000 notes on)"
  echo
  part "index, native" target/release/vaultlink-bench index "${vaults[@]}"
  echo
  echo "### Moves: plan and proof, native (medians of 9 runs, 3 from 50,000 notes on)"
  echo
  part "moves, native" target/release/vaultlink-bench move "${vaults[@]}"
  echo
  echo "### Lint and find_existing_page, native (medians of 9 runs, 3 from 50,000 notes on)"
  echo
  part "lint, native" target/release/vaultlink-bench lint "${vaults[@]}"
  echo
  echo "### The sidecar and MCP: a real client (the official Python SDK), standalone and through the plugin"
  echo
  part "the sidecar and MCP" target/py/bin/python scripts/bench_mcp.py "$figures" "${vaults[@]}"
  echo
  echo "### wasm in Node: the plugin's index"
  echo
  echo "Medians of 7 runs; one run at 100,000 notes, where a run of the three figures takes a minute or more."
  echo
  wasm_in_node() {
    echo '```'
    for vault in "${vaults[@]}"; do
      if [ "$(notes_in "$vault")" -ge 100000 ]; then
        VAULTLINK_BENCH_RUNS=1 npm run --silent bench:index -- "$vault"
      else
        npm run --silent bench:index -- "$vault"
      fi
    done
    echo '```'
  }
  part "wasm in Node" wasm_in_node
  echo
  echo "### wasm in headless Chromium (medians of 7 runs, 3 from 50,000 notes on)"
  echo
  part "wasm in headless Chromium" node plugin/bench/chromium-bench.mjs "${vaults[@]}"
  echo
  echo "### The UI thread while lint_wiki runs through the bridge (the plugin in the renderer host)"
  echo
  # plugin/bench/ui-block-bench.ts; a checkout without it yet still runs the rest (grep reads
  # all of npm's list, so pipefail sees no broken pipe). On every vault but the 100,000-note
  # one: the target is the corpus's, and a lint there takes long.
  if npm run | grep bench:ui-block >/dev/null; then
    ui_block() {
      echo '```'
      for vault in "${vaults[@]}"; do
        [ "$(basename "$vault")" = generated-100000 ] && continue
        npm run --silent bench:ui-block -- "$vault"
      done
      echo '```'
    }
    part "the UI thread" ui_block
  else
    echo "Not measured: this checkout has no \`npm run bench:ui-block\`."
  fi
  if [ "${VAULTLINK_BENCH_PEERS:-1}" != 0 ]; then
    echo
    echo "### Peers, on the same vaults"
    echo
    part "peers" scripts/bench-peers.sh "${vaults[@]}"
  fi
  echo
  echo "### Issue 39's goals: the first answer, the cost per note, CPU and memory beside the floor and hyalo; main.js"
  echo
  hyalo=-
  if [ "${VAULTLINK_BENCH_PEERS:-1}" != 0 ]; then
    scripts/bench-peers.sh --build-only >&2
    hyalo=target/bench/peers/hyalo-cli/bin/hyalo
  fi
  part "issue 39's goals" python3 scripts/bench_first_answer.py "$hyalo" "${vaults[@]}"
  echo
  echo "### Issue 42's goals: fix_broken_links and link_mentions beside hyalo's links fix and links auto; repair quality"
  echo
  # Quality on the corpus the damage test uses; its Python imports the test's damage generator.
  damage_corpus=-
  [ -d "$corpora/dnd-srd-wiki" ] && damage_corpus="$corpora/dnd-srd-wiki"
  # The goals' vaults: the corpus and the 100,000-note vault (a run without either, such as a
  # quick one on a single corpus, times every vault it has instead).
  repair_vaults=()
  for vault in "${vaults[@]}"; do
    case "$(basename "$vault")" in yoshixi-zettelkasten | generated-100000) repair_vaults+=("$vault") ;; esac
  done
  repair_on="the goals' vaults"
  if [ ${#repair_vaults[@]} -eq 0 ]; then
    repair_vaults=("${vaults[@]}")
    repair_on="every vault of this run, which has neither of the goals' vaults"
  fi
  echo "On $(for vault in "${repair_vaults[@]}"; do printf '%s, ' "$(basename "$vault")"; done | sed 's/, $//'): $repair_on."
  echo
  part "issue 42's goals" target/py/bin/python scripts/bench_repair.py "$hyalo" "$damage_corpus" "${repair_vaults[@]}"
  echo
  echo "### Targets"
  echo
  target/release/vaultlink-bench targets "$figures"
  echo
  echo "The measurements took $(( (SECONDS - run_started) / 60 )) minutes ($(paste -sd ';' "$durations" | sed 's/;/; /g')); load average when it ended: $(cut -d' ' -f1-3 /proc/loadavg)."
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
