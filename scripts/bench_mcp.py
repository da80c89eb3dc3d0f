"""A benchmark (not a test) of vaultlink through MCP, with the official Python SDK as the client.

    target/py/bin/python scripts/bench_mcp.py <figures.jsonl> <vault folder>...

For each vault it measures, and prints as rows of a Markdown table:
- the sidecar's whole index from disk: `vaultlink summary <vault>` as a process on a vault never
  seen (a new, empty cache folder for its persistent index each run), wall time (median of 5, of
  3 from 50,000 notes on, where a run takes seconds);
- `get_backlinks` round trips through `vaultlink mcp` standalone and forwarded to the plugin
  (the built main.js in Node on the obsidian test double, build/plugin-host.cjs), median and
  99th percentile of 200 calls on the most-linked notes, after a warm-up;
- the peak resident memory of the standalone MCP server after it indexed the vault.
Each figure is also appended to <figures.jsonl> for the targets table.
"""

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parent.parent
SIDECAR = ROOT / "target" / "release" / "vaultlink"
PLUGIN_HOST = ROOT / "build" / "plugin-host.cjs"
CALLS = 200


def record(figures, name, figure, value):
    with open(figures, "a") as out:
        out.write(json.dumps({"vault": name, "figure": figure, "value": value}) + "\n")


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def index_from_disk(vault, notes, cache):
    """Median wall time of `vaultlink summary` on a vault never seen, in ms."""
    times = []
    for _ in range(3 if notes >= 50_000 else 5):
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir()
        start = time.perf_counter()
        subprocess.run([str(SIDECAR), "summary", str(vault)], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "VAULTLINK_CACHE_DIR": str(cache)})
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def child_peak_rss_mb(name="vaultlink"):
    """VmHWM of this process's live child named `name`, in MB."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("Name", "").strip() == name and int(fields.get("PPid", "0")) == os.getpid():
            return int(fields["VmHWM"].split()[0]) / 1024
    return None


async def round_trips(vault, runtime_dir, mode, expected_notes):
    params = StdioServerParameters(
        command=str(SIDECAR),
        args=["mcp", "--vault", str(vault), "--mode", mode],
        env={"VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_CACHE_DIR": str(runtime_dir / "cache")},
    )
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            # Wait until the index holds the whole vault (the plugin indexes in the background).
            for _ in range(600):
                listed = await session.call_tool("list_notes", {"limit": 1000})
                if expected_notes is None or listed.structured_content["total"] == expected_notes:
                    break
                await asyncio.sleep(0.1)
            paths = [note["path"] for note in listed.structured_content["notes"]]
            targets = paths[:: max(1, len(paths) // 20)][:20]
            for path in targets:
                await session.call_tool("get_backlinks", {"path": path, "limit": 50})
            times = []
            for call in range(CALLS):
                start = time.perf_counter()
                result = await session.call_tool("get_backlinks", {"path": targets[call % len(targets)], "limit": 50})
                times.append((time.perf_counter() - start) * 1000)
                if result.is_error:
                    raise SystemExit(f"get_backlinks failed: {result.content}")
            rss = child_peak_rss_mb() if mode == "standalone" else None
    return statistics.median(times), percentile(times, 0.99), rss


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    figures = sys.argv[1]
    print("| vault | sidecar index from disk (whole `summary` process) | get_backlinks standalone median / p99 | "
          "get_backlinks through the plugin median / p99 | MCP server peak RSS after indexing |")
    print("|---|---:|---:|---:|---:|")
    for folder in sys.argv[2:]:
        vault = Path(folder).resolve()
        # Named as the folder is given, as the other benches name it (a link to a vault elsewhere
        # keeps its own name).
        name = Path(os.path.abspath(folder)).name
        runtime_dir = Path(tempfile.mkdtemp(prefix="vlb-", dir="/tmp"))
        runtime_dir.chmod(0o700)
        try:
            notes = json.loads(subprocess.run([str(SIDECAR), "summary", str(vault), "--json"], check=True, capture_output=True,
                                              text=True, env={**os.environ, "VAULTLINK_CACHE_DIR": str(runtime_dir / "cache")}).stdout)["notes"]
            index_ms = index_from_disk(vault, notes, runtime_dir / "summary-cache")
            record(figures, name, "sidecar_index_ms", index_ms)
            alone = asyncio.run(round_trips(vault, runtime_dir, "standalone", None))
            host = subprocess.Popen(["node", str(PLUGIN_HOST), str(vault)], stdout=subprocess.PIPE, text=True,
                                    env={**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime_dir)})
            try:
                json.loads(host.stdout.readline())
                bridged = asyncio.run(round_trips(vault, runtime_dir, "plugin", notes))
            finally:
                host.terminate()
                host.wait(timeout=60)
        finally:
            shutil.rmtree(runtime_dir, ignore_errors=True)
        record(figures, name, "backlinks_standalone_median_ms", alone[0])
        record(figures, name, "backlinks_bridge_median_ms", bridged[0])
        record(figures, name, "backlinks_bridge_p99_ms", bridged[1])
        if alone[2] is not None:
            record(figures, name, "sidecar_rss_mb", alone[2])
        rss = f"{alone[2]:.0f} MB" if alone[2] is not None else "not measured"
        print(f"| {name} | {index_ms:.0f} ms | {alone[0]:.2f} / {alone[1]:.2f} ms | "
              f"{bridged[0]:.2f} / {bridged[1]:.2f} ms | {rss} |", flush=True)


if __name__ == "__main__":
    main()
