"""The standalone server's live index, end to end: the official MCP Python SDK drives
`vaultlink mcp --mode standalone` on a copy of the sample vault while this test edits, creates,
renames and deletes files behind the server's back, and checks the very next answer after each
change, with no pause in between. `server_health` reports the live index, never left for a walk of
the folder; at the end a fresh server gives the same answers.

The fallback (no watcher, as on a network drive, every call walking the folder) is tested in
Rust, through a constructor the shipped binary does not have:
`standalone::tests::without_a_watcher_every_refresh_walks_and_answers_as_freshly`.
"""

import asyncio
import os
import sys

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import SIDECAR

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the live index is built on Linux's inotify")


def params(vault, runtime_dir):
    return StdioServerParameters(command=str(SIDECAR), args=["mcp", "--vault", str(vault), "--mode", "standalone"],
                                 env={"VAULTLINK_RUNTIME_DIR": str(runtime_dir)})


async def call(session, tool, arguments):
    result = await session.call_tool(tool, arguments)
    return result.is_error, result.structured_content


async def sources_linking_to(session, path):
    error, answer = await call(session, "get_backlinks", {"path": path, "limit": 1000})
    assert not error, answer
    return {link["source"] for link in answer["backlinks"]}


async def unresolved_targets(session):
    error, answer = await call(session, "find_unresolved_links", {"limit": 1000})
    assert not error, answer
    return {target["target"] for target in answer["targets"]}


async def outgoing(session, path):
    error, answer = await call(session, "get_outgoing_links", {"path": path})
    assert not error, answer
    return {(link["target"], link.get("resolved_path")) for link in answer["links"]}


# The calls whose answers, at the end, must equal a fresh server's.
FINAL_CALLS = [
    ("get_backlinks", {"path": "Projects/Alpha", "limit": 1000}),
    ("get_backlinks", {"path": "projects/beta.md", "limit": 1000}),
    ("get_outgoing_links", {"path": "Journal/Renamed.md"}),
    ("get_outgoing_links", {"path": "Inbox.md"}),
    ("get_outgoing_links", {"path": "Board.canvas"}),
    ("find_unresolved_links", {"limit": 1000}),
    ("find_orphans", {"limit": 1000}),
    ("list_notes", {"limit": 1000}),
]


def test_each_answer_right_after_a_change_behind_the_servers_back_sees_it(vault, runtime_dir, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()

    async def run():
        async with stdio_client(params(vault, runtime_dir), errlog=open(os.devnull, "w")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                # The index the server began at its start is built by the time this answers.
                assert "Zettelkasten" in await unresolved_targets(session)
                error, health = await call(session, "server_health", {})
                assert not error and health["mode"] == "standalone"
                assert health["folder_index"] == {"mode": "live", "reason": "the folder is watched (inotify): each call first reads the files changed since the last"}

                # An edit.
                inbox = vault / "Inbox.md"
                inbox.write_text(inbox.read_text().replace("[[Zettelkasten]]", "[[Alpha]]"))
                assert "Zettelkasten" not in await unresolved_targets(session)
                assert ("Alpha", "Projects/Alpha.md") in await outgoing(session, "Inbox.md")

                # A note created in a new folder.
                (vault / "Notes").mkdir()
                (vault / "Notes" / "Live.md").write_text("[[Beta]] and [[Nobody yet]]\n")
                assert "Notes/Live.md" in await sources_linking_to(session, "Projects/Beta")
                assert "Nobody yet" in await unresolved_targets(session)

                # The note it links to, created.
                (vault / "Nobody yet.md").write_text("# Nobody yet\n")
                assert "Nobody yet" not in await unresolved_targets(session)
                assert await sources_linking_to(session, "Nobody yet.md") == {"Notes/Live.md"}

                # A note renamed.
                (vault / "Notes" / "Live.md").rename(vault / "Notes" / "Renamed.md")
                assert await sources_linking_to(session, "Nobody yet.md") == {"Notes/Renamed.md"}

                # A folder with a note renamed.
                (vault / "Notes").rename(vault / "Journal")
                assert await sources_linking_to(session, "Nobody yet.md") == {"Journal/Renamed.md"}

                # An editor's save: a temporary file renamed over the note.
                (vault / "Journal" / ".Renamed.md.tmp").write_text("[[Alpha]]\n")
                (vault / "Journal" / ".Renamed.md.tmp").rename(vault / "Journal" / "Renamed.md")
                assert await sources_linking_to(session, "Nobody yet.md") == set()
                assert await outgoing(session, "Journal/Renamed.md") == {("Alpha", "Projects/Alpha.md")}
                assert "Journal/Renamed.md" in await sources_linking_to(session, "Projects/Alpha")

                # A canvas created, then saved again with other cards: its file card and the links
                # of its text card are read from its JSON.
                board = vault / "Board.canvas"
                board.write_text('{"nodes":[{"id":"a","type":"file","file":"Projects/Alpha.md"},'
                                 '{"id":"b","type":"text","text":"[[Nobody at all]]"}]}')
                assert "Board.canvas" in await sources_linking_to(session, "Projects/Alpha")
                assert "Nobody at all" in await unresolved_targets(session)
                board.write_text('{"nodes":[{"id":"a","type":"file","file":"Inbox.md"}]}')
                assert "Board.canvas" not in await sources_linking_to(session, "Projects/Alpha")
                assert await sources_linking_to(session, "Inbox") == {"Board.canvas"}
                assert "Nobody at all" not in await unresolved_targets(session)

                # A note deleted: the links to it no longer resolve.
                (vault / "People" / "Ada.md").unlink()
                assert "Ada" in await unresolved_targets(session)
                error, answer = await call(session, "get_backlinks", {"path": "People/Ada"})
                assert error and answer["code"] == "note_not_found"

                # A note created and deleted before the next call.
                (vault / "Brief.md").write_text("[[Beta]]\n")
                (vault / "Brief.md").unlink()
                assert "Brief.md" not in await sources_linking_to(session, "Projects/Beta")

                # A case-only rename of a note and of its folder.
                (vault / "Projects" / "Beta.md").rename(vault / "Projects" / "beta.md")
                (vault / "Projects").rename(vault / "projects")
                error, answer = await call(session, "get_backlinks", {"path": "projects/beta.md", "limit": 1000})
                assert not error and answer["path"] == "projects/beta.md", answer
                assert "Home.md" in {link["source"] for link in answer["backlinks"]}

                # A folder moved out of the vault, and another moved in.
                (vault / "Meetings").rename(outside / "Meetings")
                (outside / "Meetings").rename(vault / "Minutes")
                (vault / "Reference").rename(outside / "Reference")
                assert "Minutes/2026-11-09.md" in await sources_linking_to(session, "Minutes/2026-11-02")
                assert "Link syntax" in await unresolved_targets(session)

                # Every answer came from the live index: the watcher was never distrusted, which
                # would have made a call walk the folder and say so in the reason.
                error, after = await call(session, "server_health", {"response_format": "concise"})
                assert after["folder_index"] == health["folder_index"], after["folder_index"]
                return [await call(session, name, arguments) for name, arguments in FINAL_CALLS]

    async def fresh():
        async with stdio_client(params(vault, runtime_dir), errlog=open(os.devnull, "w")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return [await call(session, name, arguments) for name, arguments in FINAL_CALLS]

    live = asyncio.run(run())
    assert live == asyncio.run(fresh()), "the live index answers as a fresh server does"
