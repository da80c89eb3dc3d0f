"""Times peers and vaultlink on the same tasks, as whole processes (median of 3 runs, each
stopped after 60 s; one run when it takes over 10 s). Called by scripts/bench-peers.sh, which builds the peers.

    python3 scripts/bench_peers.py <peers folder> <vault folder>...
"""

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


def timed(command):
    """Median wall time in ms of 3 runs (1 when the first takes over 10 s), or None when a run
    failed or took over LIMIT s."""
    times = []
    for _ in range(3):
        if times and times[0] > 10_000:
            break
        start = time.perf_counter()
        try:
            done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=LIMIT)
        except subprocess.TimeoutExpired:
            return None
        if done.returncode not in (0, 1):
            return None
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def shown(ms):
    return f"> {LIMIT} s or failed" if ms is None else f"{ms:.0f} ms"


def main():
    peers = Path(sys.argv[1])
    hyalo = peers / "hyalo-cli" / "bin" / "hyalo"
    export = peers / "obsidian-export" / "bin" / "obsidian-export"
    versions = [subprocess.run([str(tool), "--version"], capture_output=True, text=True).stdout.strip()
                for tool in (hyalo, export)]
    print(f"Versions: {versions[0]}, {versions[1]}; vaultlink at this commit. Whole processes, median of 3 runs.")
    print()
    print("| vault | task | vaultlink | hyalo | obsidian-export |")
    print("|---|---|---:|---:|---:|")
    for folder in sys.argv[2:]:
        vault = Path(folder).resolve()
        name = vault.name
        most = subprocess.run([str(BENCH), "most-linked", str(vault)], capture_output=True, text=True, check=True).stdout.strip()
        moved = f"moved/{Path(most).name}"
        rows = [
            ("broken links", [str(VAULTLINK), "unresolved", str(vault), "--json"],
             [str(hyalo), "--dir", str(vault), "find", "--broken-links", "--format", "json", "--no-hints"], None),
            ("orphans", [str(VAULTLINK), "orphans", str(vault), "--json"],
             [str(hyalo), "--dir", str(vault), "find", "--orphan", "--filenames-only"], None),
            (f"move the most-linked note, dry run (`{most}`)", [str(VAULTLINK), "mv", str(vault), most, moved, "--dry-run", "--json"],
             [str(hyalo), "--dir", str(vault), "mv", most, moved, "--dry-run", "--format", "json", "--no-hints"], None),
        ]
        with tempfile.TemporaryDirectory() as out:
            rows.append(("parse the whole vault (obsidian-export: export it)", [str(VAULTLINK), "summary", str(vault)], None,
                         [str(export), str(vault), out]))
            for task, ours, theirs, exported in rows:
                print(f"| {name} | {task} | {shown(timed(ours))} | {shown(timed(theirs)) if theirs else '—'} | "
                      f"{shown(timed(exported)) if exported else '—'} |", flush=True)


if __name__ == "__main__":
    main()
