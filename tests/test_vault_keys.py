"""The vault's sealing key (issue 35, "keys that agree"): the plugin and a sidecar that share only
the vault folder, with different HOMEs and (as root, as CI runs) in different pid namespaces, each
undo a change the other made and kept, since both seal with the key file in the vault. And a
sidecar in WSL that finds a live plugin of Windows refuses writes, naming WSL and what to do."""

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import ROOT, SIDECAR, kept_changes, snapshot, start_plugin, stop_plugin
from test_mcp_quality import session_on

MOVE = {"from": "People/Ada.md", "to": "Archive/People/Ada Lovelace.md"}
AS_ROOT = os.geteuid() == 0


@contextlib.asynccontextmanager
async def sidecar_elsewhere(vault, mode="standalone", wrapper=()):
    """An MCP session with a sidecar as an agent in a sandbox runs it: a HOME and a runtime
    folder of its own, and as root a pid namespace of its own (`unshare`), or the `wrapper`."""
    home = Path(tempfile.mkdtemp(prefix="vlh-", dir="/tmp"))
    namespace = ["unshare", "--pid", "--fork", "--mount-proc"] if AS_ROOT and not wrapper else []
    command = [*wrapper, *namespace, str(SIDECAR), "mcp", "--vault", str(vault), "--mode", mode]
    params = StdioServerParameters(command=command[0], args=command[1:],
                                   env={"HOME": str(home), "VAULTLINK_RUNTIME_DIR": str(home / "run"),
                                        "PATH": os.environ.get("PATH", "")})
    try:
        async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
    finally:
        shutil.rmtree(home, ignore_errors=True)


async def applied(session, tool, arguments):
    preview = (await session.call_tool(tool, arguments)).structured_content
    assert "plan_hash" in preview, preview
    result = await session.call_tool(tool, {**arguments, "approved_plan_hash": preview["plan_hash"]})
    assert not result.is_error, result.structured_content
    return result.structured_content


async def through_plugin(vault, runtime_dir, tool, arguments):
    async with session_on(vault, runtime_dir, "plugin") as (session, _):
        return await applied(session, tool, arguments)


async def through_sidecar_elsewhere(vault, tool, arguments):
    async with sidecar_elsewhere(vault) as session:
        return await applied(session, tool, arguments)


def test_a_change_the_plugin_kept_is_undone_by_a_sidecar_in_another_home_and_namespace(vault, runtime_dir):
    before = snapshot(vault)
    host = start_plugin(vault, runtime_dir)
    try:
        asyncio.run(through_plugin(vault, runtime_dir, "move_note", MOVE))
    finally:
        stop_plugin(host)
    assert len(kept_changes(vault)) == 1 and snapshot(vault) != before
    asyncio.run(through_sidecar_elsewhere(vault, "undo_change", {}))
    assert snapshot(vault) == before
    assert kept_changes(vault) == []


def test_a_change_a_sidecar_in_another_home_and_namespace_kept_is_undone_by_the_plugin(vault, runtime_dir):
    before = snapshot(vault)
    asyncio.run(through_sidecar_elsewhere(vault, "move_note", MOVE))
    assert len(kept_changes(vault)) == 1 and snapshot(vault) != before
    host = start_plugin(vault, runtime_dir)
    try:
        asyncio.run(through_plugin(vault, runtime_dir, "undo_change", {}))
    finally:
        stop_plugin(host)
    assert snapshot(vault) == before
    assert kept_changes(vault) == []


@pytest.mark.skipif(not AS_ROOT, reason="a kernel release of WSL is shown to the sidecar by a bind mount, which needs root")
def test_a_sidecar_in_wsl_refuses_writes_behind_a_live_plugin_on_windows(vault, tmp_path):
    """The sidecar sees a kernel release of WSL (bind-mounted over /proc/sys/kernel/osrelease in a
    mount namespace of its own) and a fresh lease of a plugin on Windows: writes are refused, the
    message names WSL and the hint says what to do; the vault is byte-identical."""
    lease = json.loads((ROOT / "tests" / "vectors" / "presence.json").read_text())["lease"]
    (vault / ".vaultlink").mkdir(exist_ok=True)
    (vault / ".vaultlink" / "presence.json").write_text(json.dumps({**lease, "platform": "win32", "machine": os.uname().nodename}))
    release = tmp_path / "osrelease"
    release.write_text("5.15.167.4-microsoft-standard-WSL2\n")
    wrapper = ["unshare", "--mount", "sh", "-c", 'mount --bind "$0" /proc/sys/kernel/osrelease && exec "$@"', str(release)]
    before = snapshot(vault)

    async def calls():
        # Auto, the mode a client starts the sidecar in by default, is the one that meets a plugin.
        async with sidecar_elsewhere(vault, "auto", wrapper) as session:
            return (await session.call_tool("list_notes", {"limit": 5}),
                    await session.call_tool("move_note", {**MOVE, "dry_run": False}))

    read, write = asyncio.run(calls())
    assert read.is_error is False, read.content
    assert write.is_error is True, write.content
    error = write.structured_content
    assert error["code"] == "plugin_unavailable", error
    assert "runs in WSL and Obsidian on Windows" in error["message"], error
    assert "Run the agent and its sidecar on Windows" in error["hint"] and "close Obsidian" in error["hint"], error
    assert snapshot(vault) == before, "the vault is byte-identical"
