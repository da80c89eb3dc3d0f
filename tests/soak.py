"""Soak: mixed read calls and move dry runs through one `vaultlink mcp` session for minutes,
with the sidecar's resident memory sampled, to show it stays flat. Not part of the default
test run (it takes minutes); run it by hand and record the figures in RELIABILITY.md:

    target/py/bin/python tests/soak.py <vault> [--minutes 3] [--mode standalone|plugin]

With --mode plugin it starts the plugin host in Node on the vault and goes through the bridge
(the plugin host's memory is sampled too). Exits 1 if the sidecar's memory after the first
minute grows by more than 10% (plus 8 MB) by the end, or if any call fails.
"""

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_reliability import PLUGIN_HOST, SIDECAR, call_mix, note_paths, params  # noqa: E402


def rss_mb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def sidecar_pid(vault):
    """The pid of the `vaultlink mcp` serving `vault`, found by its command line."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if command and command[0].decode(errors="replace").endswith("vaultlink") and str(vault).encode() in command:
            return int(entry.name)
    return None


async def soak(vault, runtime, mode, minutes, host_pid):
    calls = call_mix(note_paths(vault), count=5000, seed=23)
    samples = []
    done = failed = 0
    async with stdio_client(params(vault, runtime, mode), errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            pid = sidecar_pid(vault)
            start = time.monotonic()
            next_sample = start
            while time.monotonic() - start < minutes * 60:
                batch = [calls[(done + i) % len(calls)] for i in range(50)]
                results = await asyncio.gather(*(session.call_tool(tool, arguments) for tool, arguments in batch))
                failed += sum(1 for result in results if result.is_error)
                done += len(batch)
                if time.monotonic() >= next_sample:
                    sample = {"seconds": round(time.monotonic() - start), "calls": done, "sidecar_mb": rss_mb(pid)}
                    if host_pid is not None:
                        sample["plugin_host_mb"] = rss_mb(host_pid)
                    samples.append(sample)
                    print(json.dumps(sample), flush=True)
                    next_sample += 15
    return samples, done, failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vault", type=Path)
    parser.add_argument("--minutes", type=float, default=3)
    parser.add_argument("--mode", choices=["standalone", "plugin"], default="standalone")
    options = parser.parse_args()
    vault = options.vault.resolve()
    if not vault.is_dir():
        sys.exit(f"{vault} is not a vault folder")
    runtime = Path(tempfile.mkdtemp(prefix="vl-soak-", dir="/tmp"))
    runtime.chmod(0o700)
    host = None
    if options.mode == "plugin":
        host = subprocess.Popen(["node", str(PLUGIN_HOST), str(vault)], stdout=subprocess.PIPE,
                                env={**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime)}, text=True)
        assert json.loads(host.stdout.readline())["ready"] is True
    try:
        samples, done, failed = asyncio.run(soak(vault, runtime, options.mode, options.minutes, host.pid if host else None))
    finally:
        if host is not None:
            host.terminate()
            host.wait(timeout=30)
    warm = next((sample for sample in samples if sample["seconds"] >= 60), samples[0])
    last = samples[-1]
    growth = last["sidecar_mb"] - warm["sidecar_mb"]
    print(f"{SIDECAR.name} {options.mode}: {done} calls in {options.minutes} min, {failed} failed; "
          f"sidecar RSS {samples[0]['sidecar_mb']:.1f} MB at start, {warm['sidecar_mb']:.1f} MB at {warm['seconds']} s, "
          f"{last['sidecar_mb']:.1f} MB at the end ({growth:+.1f} MB)")
    if failed or growth > warm["sidecar_mb"] * 0.10 + 8:
        sys.exit(1)


if __name__ == "__main__":
    main()
