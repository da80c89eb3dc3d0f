"""A client's `notifications/cancelled` through the official MCP Python SDK, on a call the sidecar
forwards to the plugin: the sidecar tells the plugin (the bridge's `cancel`, naming the call), and
the plugin stops the call's work at its next note read, before any write, instead of running it
to its end for an answer nobody reads.

Run with VAULTLINK_BIN=target/debug/vaultlink after scripts/build.sh and npm run build:host.
"""

import asyncio
import contextlib
import json

from conftest import snapshot, start_plugin, stop_plugin
from test_mcp_quality import session_on

MOVE = {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}


def test_a_call_cancelled_through_the_plugin_stops_at_its_next_note_read_and_writes_nothing(vault, runtime_dir):
    before = snapshot(vault)
    # Every read of a note the move rewrites never finishes: the move is stuck at its reads.
    host = start_plugin(vault, runtime_dir, stall="Projects/Alpha.md")

    async def run():
        async with session_on(vault, runtime_dir, "plugin") as (session, _):
            move = asyncio.create_task(session.call_tool("move_note", {**MOVE, "dry_run": False}))
            stalled = await asyncio.to_thread(host.stdout.readline)
            assert json.loads(stalled) == {"stalled": "Projects/Alpha.md"}
            # Cancelling the task makes the SDK send `notifications/cancelled` for the request.
            move.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await move
            # The plugin runs writing calls one at a time: the next is answered only once the
            # cancelled move has stopped (its read never finishes). The timeout guards a hang.
            return await asyncio.wait_for(
                session.call_tool("update_properties", {"path": "People/Ada", "set": {"status": "after"}}), timeout=60)

    try:
        preview = asyncio.run(run())
    finally:
        stop_plugin(host)
    assert not preview.is_error and preview.structured_content["dry_run"] is True, preview.structured_content
    assert snapshot(vault) == before, "the cancelled move wrote nothing"
