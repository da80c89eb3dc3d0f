#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time and says how many inputs each ran.
#
#   scripts/fuzz.sh [seconds per target, default 60] [--keep]
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Each target starts
# from the inputs kept in crates/core/tests/fuzz_regressions/<target>/ and from its working
# corpus in fuzz/corpus/<target>/ (not committed). A crash is copied into the regression
# folder, where a plain `cargo test` runs it through the same checks, and the script fails.
# With --keep, the working corpus is minimised (cargo fuzz cmin) and its 20 smallest inputs
# are added to the regression folder as well. VAULTLINK_FUZZ_TARGETS="a b" runs only those.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
keep=false
for argument in "$@"; do
  case "$argument" in
    --keep) keep=true ;;
    *[!0-9]*|'') echo "usage: scripts/fuzz.sh [seconds] [--keep]" >&2; exit 2 ;;
    *) seconds=$argument ;;
  esac
done
targets=(${VAULTLINK_FUZZ_TARGETS:-parse_note frontmatter plan_move properties})
failed=0
for target in "${targets[@]}"; do
  regressions=crates/core/tests/fuzz_regressions/$target
  corpus=fuzz/corpus/$target
  mkdir -p "$corpus" "fuzz/artifacts/$target"
  log=$(mktemp)
  echo "== $target for ${seconds}s"
  if ! cargo +nightly fuzz run "$target" "$corpus" "$regressions" -- \
      -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 >"$log" 2>&1; then
    failed=1
    echo "$target FAILED; the input is kept in $regressions:" >&2
    grep -E "panicked|ERROR|SUMMARY" "$log" | head -5 >&2 || true
  fi
  for crash in "fuzz/artifacts/$target"/crash-* "fuzz/artifacts/$target"/oom-* "fuzz/artifacts/$target"/timeout-*; do
    [ -e "$crash" ] && cp "$crash" "$regressions/" && rm "$crash"
  done
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
  elapsed=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE '[0-9]+ second' | tail -1 || true)
  coverage=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
  echo "$target: ${runs:-?} inputs in ${elapsed:-less than ${seconds}} seconds, ${coverage:-cov: ?}, corpus $(ls "$corpus" | wc -l) files"
  if $keep; then
    cargo +nightly fuzz cmin "$target" "$corpus" >/dev/null 2>&1 || true
    mapfile -t smallest < <(ls -S -r "$corpus" | head -20)
    for input in "${smallest[@]}"; do cp "$corpus/$input" "$regressions/min-$input"; done
  fi
  rm -f "$log"
done
exit $failed
