"""Issue 39's goals, measured in one run and paired run by run (a benchmark, not a test):

    python3 scripts/bench_first_answer.py <hyalo binary or "-"> <vault folder>...

For each vault, RUNS rounds (LARGE_RUNS from LARGE_NOTES notes on, where one run takes seconds),
and no new round once the vault's rounds have taken BUDGET seconds (at least one round is run):
so a loaded machine makes fewer rounds, not a longer benchmark. In each round, one after the
other, every contender runs once as a whole process:
- `vaultlink backlinks <vault> <most-linked note>` (the CLI) and `vaultlink mcp` spawned until
  its first `get_backlinks` answer (raw JSON-RPC on its stdin and stdout, the server stopped
  then), each twice: with the persistent index of a vault seen once (a cache folder given by
  VAULTLINK_CACHE_DIR, warmed by one CLI run and one server run before the first round), and on a
  vault never seen before (a new, empty cache folder for every run);
- hyalo's `backlinks` on the same note, without and with its `--index-file` snapshot (made once
  with `create-index`, outside the vault);
- the floor, `vaultlink-bench floor-once`: read every note, run pulldown-cmark over it and
  serde_yaml over its frontmatter, keep nothing.
Every ratio is the median of the rounds' ratios, which a machine whose load changes from second
to second moves far less than two medians taken apart. Wall time from spawn to exit (the CLI) or
to the answer (the server), CPU time (user + system) and peak resident memory come from the
kernel (wait4). Each figure is appended to the file VAULTLINK_BENCH_FIGURES names, when set.
Vaults are only read: hyalo's snapshot and vaultlink's caches live in a temporary folder.
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
VAULTLINK = Path(os.environ.get("VAULTLINK_BENCH_BIN", ROOT / "target" / "release" / "vaultlink"))
BENCH = ROOT / "target" / "release" / "vaultlink-bench"
RUNS = 5
LARGE_RUNS = 3
LARGE_NOTES = 50_000
BUDGET = 180
LIMIT = 300


def note_count(vault):
    """The Markdown files below `vault`, hidden folders left out, as the index counts notes."""
    count = 0
    for _, folders, files in os.walk(vault):
        folders[:] = [folder for folder in folders if not folder.startswith(".")]
        count += sum(1 for file in files if file.endswith(".md"))
    return count


def rounds_for(notes):
    """The most rounds a vault of `notes` notes gets."""
    return LARGE_RUNS if notes >= LARGE_NOTES else RUNS


def in_rounds(contenders, rounds, budget=BUDGET):
    """Up to `rounds` rounds, each running every contender once in turn; no new round once
    `budget` seconds have gone by. Answers contender -> list of Runs."""
    runs = {name: [] for name in contenders}
    started = time.perf_counter()
    for _ in range(rounds):
        for name, run in contenders.items():
            runs[name].append(run())
        if time.perf_counter() - started > budget:
            break
    return runs


class Run:
    """One whole process: wall ms, CPU ms (user + system) and peak resident MB; ok False when it failed."""

    def __init__(self, wall, cpu, rss, ok):
        self.wall, self.cpu, self.rss, self.ok = wall, cpu, rss, ok


def reaped(process, start, end=None, codes=(0, 1)):
    """Waits for `process` (killed past LIMIT s) and makes its Run from the kernel's account; a
    run that exits with a code outside `codes` failed."""
    deadline = time.monotonic() + LIMIT
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid != 0:
            break
        if time.monotonic() > deadline:
            process.kill()
            pid, status, usage = os.wait4(process.pid, 0)
            end = None
            break
        time.sleep(0.002)
    process.returncode = os.waitstatus_to_exitcode(status)
    finish = end if end is not None else time.perf_counter()
    ok = end is not None or process.returncode in codes
    return Run((finish - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss / 1024, ok)


def whole(command, env=None, codes=(0, 1)):
    """One run of a command to its exit, its output thrown away; it failed when its exit code is
    not among `codes` (vaultlink's commands exit 1 when they report findings)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return reaped(process, start, codes=codes)


def first_answer(vault, note, env):
    """`vaultlink mcp` from spawn to its first `get_backlinks` answer; the server is then stopped
    by closing its stdin, and its peak memory is what it reached by then."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "get_backlinks", "arguments": {"path": note, "limit": 50}}},
    ]
    start = time.perf_counter()
    process = subprocess.Popen([str(VAULTLINK), "mcp", "--vault", str(vault), "--mode", "standalone"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    process.stdin.write("".join(json.dumps(message) + "\n" for message in messages).encode())
    process.stdin.flush()
    answered = None
    ok = False
    for line in process.stdout:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("id") == 2:
            answered = time.perf_counter()
            result = message.get("result") or {}
            ok = "error" not in message and not result.get("isError", False)
            break
    process.stdin.close()
    run = reaped(process, start, answered)
    process.stdout.close()
    run.ok = run.ok and ok
    return run


def median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def record(vault, figure, value):
    figures = os.environ.get("VAULTLINK_BENCH_FIGURES")
    if figures and value is not None:
        with open(figures, "a") as out:
            out.write(json.dumps({"vault": vault, "figure": figure, "value": value}) + "\n")


def ms(value):
    return "—" if value is None else f"{value:,.0f} ms" if value >= 100 else f"{value:.1f} ms"


def times(value):
    return "—" if value is None else f"{value:.2f} ×"


def measure(vault, hyalo, work, notes):
    """The rounds on one vault: a dict of contender -> list of Runs."""
    note = subprocess.run([str(BENCH), "most-linked", str(vault)], capture_output=True, text=True, check=True).stdout.strip()
    base = {**os.environ, "VAULTLINK_RUNTIME_DIR": str(work / "runtime")}
    (work / "runtime").mkdir(mode=0o700, exist_ok=True)
    seen = {**base, "VAULTLINK_CACHE_DIR": str(work / "seen-cache")}
    fresh_cache = work / "fresh-cache"

    def fresh():
        shutil.rmtree(fresh_cache, ignore_errors=True)
        fresh_cache.mkdir()
        return {**base, "VAULTLINK_CACHE_DIR": str(fresh_cache)}

    cli = [str(VAULTLINK), "backlinks", str(vault), note, "--json", "--mode", "standalone"]
    contenders = {
        "cli_seen": lambda: whole(cli, seen),
        "cli_fresh": lambda: whole(cli, fresh()),
        "mcp_seen": lambda: first_answer(vault, note, seen),
        "mcp_fresh": lambda: first_answer(vault, note, fresh()),
        "floor": lambda: whole([str(BENCH), "floor-once", str(vault)]),
    }
    if hyalo is not None:
        snapshot = work / "hyalo-index"
        subprocess.run([str(hyalo), "--dir", str(vault), "create-index", "--output", str(snapshot), "--allow-outside-vault"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        # hyalo's `backlinks` exits 1 on an error, such as refusing its snapshot of a large vault
        # (it exits at once): that run failed, it is not a fast answer.
        contenders["hyalo"] = lambda: whole([str(hyalo), "--dir", str(vault), "backlinks", note, "--format", "json", "--no-hints"],
                                            codes=(0,))
        contenders["hyalo_index"] = lambda: whole([str(hyalo), "--dir", str(vault), "backlinks", note, "--format", "json", "--no-hints",
                                                   "--index-file", str(snapshot)], codes=(0,))
    # The vault seen once: a CLI run and a server run leave the persistent index, untimed.
    contenders["cli_seen"]()
    contenders["mcp_seen"]()
    return note, in_rounds(contenders, rounds_for(notes))


def paired(runs, over, under, field="wall"):
    """The median of the rounds' ratios over / under, for rounds where both ran."""
    ratios = [getattr(a, field) / getattr(b, field) for a, b in zip(runs[over], runs[under]) if a.ok and b.ok and getattr(b, field) > 0]
    return median(ratios)


def failed_or(runs, name, value):
    """`value` in ms, or "failed" when the contender ran and no run of it succeeded (hyalo refuses
    its snapshot on a large vault and exits at once)."""
    if value is None and runs.get(name):
        return "failed"
    return ms(value)


def figure(runs, name, field="wall"):
    if name not in runs:
        return None
    return median([getattr(run, field) for run in runs[name] if run.ok])


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    hyalo = None if sys.argv[1] == "-" else Path(sys.argv[1])
    folders = [Path(folder) for folder in sys.argv[2:]]
    results = []
    with tempfile.TemporaryDirectory(prefix="vlb-first-") as temporary:
        for index, folder in enumerate(folders):
            work = Path(temporary) / str(index)
            work.mkdir()
            name = Path(os.path.abspath(folder)).name
            notes = note_count(folder.resolve())
            note, runs = measure(folder.resolve(), hyalo, work, notes)
            results.append((name, notes, note, runs))
            print(f"bench: {name} measured ({len(runs['floor'])} rounds)", file=sys.stderr, flush=True)
    hyalo_version = "not measured" if hyalo is None else subprocess.run([str(hyalo), "--version"], capture_output=True, text=True).stdout.strip()
    print(f"Whole processes in rounds (up to {RUNS}, {LARGE_RUNS} from {LARGE_NOTES:,} notes on, and no new round after "
          f"{BUDGET} s on a vault: the rounds column says how many ran), medians; a ratio is the median of the "
          f"rounds' ratios. hyalo: {hyalo_version}. \"Seen once\": vaultlink's persistent index warmed by one CLI and one "
          "server run; \"never seen\": an empty cache folder for every run. The note asked about is the most-linked one.")
    print()
    print("#### First answer: spawn to the first `get_backlinks` answer (MCP) and a whole CLI `backlinks`")
    print()
    print("| vault | notes | rounds | CLI seen once | CLI never seen | MCP seen once | MCP never seen | hyalo | hyalo `--index` | floor | "
          "hyalo / CLI seen (≥ 10 ×) | hyalo `--index` / CLI seen (≥ 3 ×) | hyalo / CLI never seen (≥ 2 ×) | CLI never seen / floor (≤ 1.6 ×) | "
          "hyalo / MCP seen (≥ 10 ×) | hyalo `--index` / MCP seen (≥ 3 ×) | hyalo / MCP never seen (≥ 2 ×) | MCP never seen / floor (≤ 1.6 ×) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, notes, _, runs in results:
        row = {
            "cli_seen": figure(runs, "cli_seen"), "cli_fresh": figure(runs, "cli_fresh"),
            "mcp_seen": figure(runs, "mcp_seen"), "mcp_fresh": figure(runs, "mcp_fresh"),
            "hyalo": figure(runs, "hyalo"), "hyalo_index": figure(runs, "hyalo_index"), "floor": figure(runs, "floor"),
        }
        ratios = {
            "hyalo_over_cli_seen": paired(runs, "hyalo", "cli_seen") if "hyalo" in runs else None,
            "hyalo_index_over_cli_seen": paired(runs, "hyalo_index", "cli_seen") if "hyalo" in runs else None,
            "hyalo_over_cli_fresh": paired(runs, "hyalo", "cli_fresh") if "hyalo" in runs else None,
            "cli_fresh_over_floor": paired(runs, "cli_fresh", "floor"),
            "hyalo_over_mcp_seen": paired(runs, "hyalo", "mcp_seen") if "hyalo" in runs else None,
            "hyalo_index_over_mcp_seen": paired(runs, "hyalo_index", "mcp_seen") if "hyalo" in runs else None,
            "hyalo_over_mcp_fresh": paired(runs, "hyalo", "mcp_fresh") if "hyalo" in runs else None,
            "mcp_fresh_over_floor": paired(runs, "mcp_fresh", "floor"),
        }
        for key, value in {**row, **ratios}.items():
            record(name, f"first_answer_{key}", value)
        record(name, "first_answer_rounds", len(runs["floor"]))
        print(f"| {name} | {notes:,} | {len(runs['floor'])} | {ms(row['cli_seen'])} | {ms(row['cli_fresh'])} | {ms(row['mcp_seen'])} | {ms(row['mcp_fresh'])} | "
              f"{ms(row['hyalo'])} | {failed_or(runs, 'hyalo_index', row['hyalo_index'])} | {ms(row['floor'])} | {times(ratios['hyalo_over_cli_seen'])} | "
              f"{times(ratios['hyalo_index_over_cli_seen'])} | {times(ratios['hyalo_over_cli_fresh'])} | {times(ratios['cli_fresh_over_floor'])} | "
              f"{times(ratios['hyalo_over_mcp_seen'])} | {times(ratios['hyalo_index_over_mcp_seen'])} | "
              f"{times(ratios['hyalo_over_mcp_fresh'])} | {times(ratios['mcp_fresh_over_floor'])} |")
    print()
    print("#### Cost per note and CPU, a vault never seen (CLI `backlinks`) beside the floor")
    print()
    print("| vault | notes | wall per note | floor's wall per note | CPU | floor's CPU | CPU / floor's (≤ 2 ×) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    per_note = []
    for name, notes, _, runs in results:
        wall, floor_wall = figure(runs, "cli_fresh"), figure(runs, "floor")
        cpu, floor_cpu = figure(runs, "cli_fresh", "cpu"), figure(runs, "floor", "cpu")
        cpu_ratio = paired(runs, "cli_fresh", "floor", "cpu")
        record(name, "cpu_over_floor", cpu_ratio)
        record(name, "first_answer_cli_fresh_cpu", cpu)
        record(name, "first_answer_floor_cpu", floor_cpu)
        if wall is not None and floor_wall is not None:
            per_note.append((name, notes, wall * 1000 / notes, floor_wall * 1000 / notes))
        print(f"| {name} | {notes:,} | {'—' if wall is None else f'{wall * 1000 / notes:.1f} µs'} | "
              f"{'—' if floor_wall is None else f'{floor_wall * 1000 / notes:.1f} µs'} | {ms(cpu)} | {ms(floor_cpu)} | {times(cpu_ratio)} |")
    generated = sorted((entry for entry in per_note if entry[0].startswith("generated-")), key=lambda entry: entry[1])
    if len(generated) >= 2:
        small, large = generated[0], generated[-1]
        growth, floor_growth = large[2] / small[2], large[3] / small[3]
        record(large[0], "per_note_growth", growth)
        record(large[0], "floor_per_note_growth", floor_growth)
        record(large[0], "per_note_growth_from", small[1])
        print()
        print(f"Per-note cost from {small[1]:,} to {large[1]:,} notes: vaultlink {growth:.2f} × (goal ≤ 1.2 ×), the floor {floor_growth:.2f} ×.")
    print()
    print("#### Peak memory (resident, from the kernel)")
    print()
    print("| vault | notes | CLI `backlinks`, never seen | CLI, seen once | MCP server at its first answer, never seen | MCP server, seen once | floor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, notes, _, runs in results:
        peaks = {key: figure(runs, key, "rss") for key in ("cli_fresh", "cli_seen", "mcp_fresh", "mcp_seen", "floor")}
        for key, value in peaks.items():
            record(name, f"peak_rss_mb_{key}", value)
        print(f"| {name} | {notes:,} | " + " | ".join("—" if value is None else f"{value:,.0f} MB" for value in peaks.values()) + " |")
    main_js = ROOT / "main.js"
    if main_js.exists():
        size = main_js.stat().st_size
        record("plugin", "main_js_bytes", size)
        print()
        print(f"`main.js`: {size:,} bytes ({size / 1e6:.2f} MB; goal ≤ 1.5 MB).")


if __name__ == "__main__":
    main()
