"""Times peers and vaultlink on the same tasks, as whole processes, each stopped after 60 s.
Called by scripts/bench-peers.sh, which builds the peers.

    python3 scripts/bench_peers.py <peers folder> <vault folder>...

A task vaultlink shares with hyalo runs in pairs: vaultlink, then hyalo, three times (once when a
run takes over 10 s); each time is the median of its runs, and the ratio hyalo's time over
vaultlink's is the median of the pairs' ratios, which a machine whose load changes from second
to second moves far less than the ratio of two medians taken apart. Each ratio is appended to
the file `VAULTLINK_BENCH_FIGURES` names (`hyalo_ratio_<task>`), for `vaultlink-bench targets`.
obsidian-export's export runs alone, three times, median, on vaults under EXPORT_MAX_NOTES notes:
on larger ones it ran over its 60 s in every earlier run, a minute each spent on no figure.
vaultlink runs with its persistent index in a cache folder of its own (VAULTLINK_CACHE_DIR) that
one untimed run of each command filled: the vault seen once, as a user's vault is after the
first command; hyalo runs without its snapshot, its default.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAULTLINK = ROOT / "target" / "release" / "vaultlink"
BENCH = ROOT / "target" / "release" / "vaultlink-bench"
LIMIT = 60
RUNS = 3
EXPORT_MAX_NOTES = 10_000


def run_once(command, env=None):
    """Wall time in ms of one run, or None when it failed or took over LIMIT s."""
    start = time.perf_counter()
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=LIMIT, env=env)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode not in (0, 1):
        return None
    return (time.perf_counter() - start) * 1000


def timed(command, env=None):
    """Median wall time in ms of RUNS runs (1 when the first takes over 10 s), or None when a run
    failed or took over LIMIT s; `env`, when given, is called before each run for its environment."""
    times = []
    for _ in range(RUNS):
        if times and times[0] > 10_000:
            break
        ms = run_once(command, env() if env else None)
        if ms is None:
            return None
        times.append(ms)
    return statistics.median(times)


def paired(ours, theirs, env):
    """(our median, their median, median of the pairs' ratios theirs / ours), from runs in pairs,
    ours with `env`; a side that failed or timed out is None, and so is the ratio."""
    run_once(ours, env)  # fills vaultlink's persistent index: the vault seen once
    pairs = []
    for _ in range(RUNS):
        if pairs and max(pairs[0]) > 10_000:
            break
        mine, other = run_once(ours, env), run_once(theirs)
        if mine is None or other is None:
            return (mine, other, None)
        pairs.append((mine, other))
    return (statistics.median(mine for mine, _ in pairs), statistics.median(other for _, other in pairs),
            statistics.median(other / mine for mine, other in pairs))


def shown(ms):
    return f"> {LIMIT} s or failed" if ms is None else f"{ms:.0f} ms"


def record(vault, figure, value):
    """Appends one figure to `VAULTLINK_BENCH_FIGURES`, when it is set."""
    figures = os.environ.get("VAULTLINK_BENCH_FIGURES")
    if figures and value is not None:
        with open(figures, "a") as out:
            out.write(json.dumps({"vault": vault, "figure": figure, "value": value}) + "\n")


def main():
    peers = Path(sys.argv[1])
    hyalo = peers / "hyalo-cli" / "bin" / "hyalo"
    export = peers / "obsidian-export" / "bin" / "obsidian-export"
    versions = [subprocess.run([str(tool), "--version"], capture_output=True, text=True).stdout.strip()
                for tool in (hyalo, export)]
    print(f"Versions: {versions[0]}, {versions[1]}; vaultlink at this commit. Whole processes: vaultlink and hyalo in "
          f"pairs, {RUNS} pairs (one when a run takes over 10 s), medians, and hyalo's time over vaultlink's as the median "
          "of the pairs' ratios; vaultlink on a vault seen once (its persistent index filled by one untimed run), hyalo "
          f"without its snapshot. obsidian-export alone, median of 3, on vaults under {EXPORT_MAX_NOTES:,} notes (on larger ones "
          "it ran over 60 s in every earlier run).")
    print()
    print("| vault | task | vaultlink | hyalo | hyalo / vaultlink | obsidian-export |")
    print("|---|---|---:|---:|---:|---:|")
    cache = tempfile.TemporaryDirectory(prefix="vlb-peers-cache-")
    env = {**os.environ, "VAULTLINK_CACHE_DIR": str(Path(cache.name) / "seen")}
    for folder in sys.argv[2:]:
        vault = Path(folder).resolve()
        # Named as the folder is given, as the other benches name it (a link to a vault elsewhere
        # keeps its own name).
        name = Path(os.path.abspath(folder)).name
        most = subprocess.run([str(BENCH), "most-linked", str(vault)], capture_output=True, text=True, check=True).stdout.strip()
        moved = f"moved/{Path(most).name}"
        shared = [
            ("broken links", "broken_links", [str(VAULTLINK), "unresolved", str(vault), "--json"],
             [str(hyalo), "--dir", str(vault), "find", "--broken-links", "--format", "json", "--no-hints"]),
            ("orphans", "orphans", [str(VAULTLINK), "orphans", str(vault), "--json"],
             [str(hyalo), "--dir", str(vault), "find", "--orphan", "--filenames-only"]),
            (f"move the most-linked note, dry run (`{most}`)", "move_dry_run",
             [str(VAULTLINK), "mv", str(vault), most, moved, "--dry-run", "--json"],
             [str(hyalo), "--dir", str(vault), "mv", most, moved, "--dry-run", "--format", "json", "--no-hints"]),
        ]
        for task, slug, ours, theirs in shared:
            mine, other, ratio = paired(ours, theirs, env)
            record(name, f"hyalo_ratio_{slug}", ratio)
            ratio_shown = "—" if ratio is None else f"{ratio:.2f} ×"
            print(f"| {name} | {task} | {shown(mine)} | {shown(other)} | {ratio_shown} | — |", flush=True)
        notes = sum(1 for path in vault.rglob("*.md") if not any(part.startswith(".") for part in path.relative_to(vault).parts))
        with tempfile.TemporaryDirectory() as out:
            # `summary` builds the index from scratch every time: a new, empty cache folder for
            # each run, as obsidian-export starts from nothing.
            fresh = Path(cache.name) / "fresh"

            def emptied():
                shutil.rmtree(fresh, ignore_errors=True)
                fresh.mkdir()
                return {**os.environ, "VAULTLINK_CACHE_DIR": str(fresh)}

            mine = timed([str(VAULTLINK), "summary", str(vault)], emptied)
            shutil.rmtree(fresh, ignore_errors=True)
            if notes < EXPORT_MAX_NOTES:
                exported = shown(timed([str(export), str(vault), out]))
            else:
                exported = f"not run ({notes:,} notes)"
            print(f"| {name} | parse the whole vault (obsidian-export: export it) | {shown(mine)} | — | — | {exported} |",
                  flush=True)
    cache.cleanup()


if __name__ == "__main__":
    main()
