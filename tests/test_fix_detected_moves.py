"""fix_broken_links takes a move made outside vaultlink as its strongest evidence: the
server sees the vault once (the persistent index keeps what it saw), `mv` then moves a note to a
name nothing else would find it by, and the next server repairs the link the move broke to the
note's new path with the evidence `detected_move`, ahead of a note whose name only reads alike.
Through the plugin alike: the plugin's first index is what it compares with, and the move reaches
it as Obsidian's file watcher reports one, a delete and a create."""

import asyncio
import json
import os
import subprocess

from conftest import PLUGIN_HOST, stop_plugin
from test_detected_moves import make_vault, session_on

NOTES = {
    "Index.md": "the plan is in [[notes/Plan]]\n",
    "notes/Plan.md": "the plan, moved by mv\n",
    "Plans.md": "a note whose name reads alike\n",
}


async def repaired(session):
    """The preview of fix_broken_links after the move, checked, and its plan applied."""
    preview = (await session.call_tool("fix_broken_links", {})).structured_content
    assert preview["links_repaired"] == 1, preview
    (repair,) = preview["repairs"]
    assert (repair["before"], repair["target"], repair["evidence"], repair["confidence"]) == (
        "[[notes/Plan]]", "archive/Old plan draft.md", "detected_move", 1.0), repair
    applied = await session.call_tool("fix_broken_links", {"approved_plan_hash": preview["plan_hash"]})
    assert not applied.is_error and applied.structured_content["applied"], applied.structured_content
    return repair


def mv_plan(vault):
    (vault / "archive").mkdir()
    subprocess.run(["mv", "notes/Plan.md", "archive/Old plan draft.md"], cwd=vault, check=True)


def check_repaired(vault, repair):
    assert (vault / "Index.md").read_text() == f"the plan is in {repair['after']}\n"
    assert repair["after"] in ("[[Old plan draft]]", "[[archive/Old plan draft]]"), repair


def test_a_note_moved_by_mv_is_the_repair_of_the_link_it_broke(tmp_path, runtime_dir):
    vault, cache = make_vault(tmp_path / "vault", NOTES), tmp_path / "cache"

    async def scenario():
        async with session_on(vault, runtime_dir, cache) as session:
            await session.call_tool("detected_moves", {})
        mv_plan(vault)
        async with session_on(vault, runtime_dir, cache) as session:
            return await repaired(session)

    check_repaired(vault, asyncio.run(scenario()))


def test_a_note_moved_by_mv_while_obsidian_has_the_vault_open_is_the_repair_through_the_plugin(tmp_path, runtime_dir):
    vault, cache = make_vault(tmp_path / "vault", NOTES), tmp_path / "cache"
    host = subprocess.Popen(["node", str(PLUGIN_HOST), str(vault)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_HOST_NOTICE_DISK": "1"})

    async def scenario():
        async with session_on(vault, runtime_dir, cache, mode="plugin") as session:
            mv_plan(vault)
            host.stdin.write("notice\n")
            host.stdin.flush()
            assert json.loads(host.stdout.readline()) == {"noticed": True}
            return await repaired(session)

    try:
        assert json.loads(host.stdout.readline())["ready"] is True
        repair = asyncio.run(scenario())
    finally:
        stop_plugin(host)
    check_repaired(vault, repair)
