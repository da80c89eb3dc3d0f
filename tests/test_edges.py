"""The same change through both edges: the plugin (the built main.js in the plugin host, through
the sidecar's bridge) and the sidecar on the folder (standalone) carry out the same core batch, so
for each writing tool the two vaults end byte for byte alike and the two journals, written before
the first change, hold the same entries."""

import asyncio
import json
import os
import re
import shutil
import subprocess

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import PLUGIN_HOST, ROOT, SIDECAR, kept_changes, snapshot, stop_plugin, write_vault

CASES = {
    "a note": ("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}),
    "a folder": ("move_note", {"from": "Projects", "to": "Archive/Projects"}),
    "a case-only rename": ("move_note", {"from": "Ideas/Sync.md", "to": "Ideas/sync.md"}),
    "a rewrite": ("rewrite_link", {"from_target": "Ada", "to_target": "People/Grace Hopper"}),
    "a delete": ("delete_note", {"path": "Inbox.md"}),
    "a bulk move with a chain and a folder": ("bulk_move_notes", {"moves": [
        {"from": "Projects/Beta.md", "to": "Archive/Beta.md"},
        {"from": "Projects/Alpha.md", "to": "Projects/Beta.md"},
        {"from": "Ideas", "to": "Notes/Ideas"},
    ]}),
    "a wiki page and its patches": ("commit_wiki_page", {
        "page": {"path": "People/Alan Turing", "frontmatter": {"tags": ["person"], "related": "[[Ada]]"},
                 "body": "# Alan Turing\n\nSee [[Graph view]].\n"},
        "patches": [{"path": "People/Ada.md", "kind": "link"},
                    {"path": "Home.md", "kind": "append", "heading": "People", "text": "- [[Alan Turing]]"}],
    }),
    "the unlinked mentions": ("link_mentions", {}),
}


def approve(tool, arguments, preview):
    if tool == "delete_note":
        return {**arguments, "confirm": True, "force": True, "approved_plan_hash": preview["plan_hash"]}
    return {**arguments, "approved_plan_hash": preview["plan_hash"]}


async def preview_and_apply(vault, runtime, mode, tool, arguments, env):
    server = StdioServerParameters(
        command=str(SIDECAR),
        args=["mcp", "--vault", str(vault), "--mode", mode],
        env={"VAULTLINK_RUNTIME_DIR": str(runtime), "VAULTLINK_LOG": "warn", **env},
    )
    async with stdio_client(server, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            preview = await session.call_tool(tool, arguments)
            assert preview.is_error is False, preview.structured_content
            applied = await session.call_tool(tool, approve(tool, arguments, preview.structured_content))
            assert applied.is_error is False, applied.structured_content
            return preview.structured_content, applied.structured_content


def journals(copy):
    """The journals an edge began, in order, as core's `journal` data."""
    return [json.loads(line)["journal"] for line in copy.read_text().splitlines() if line.strip()]


def entries(journal):
    """A journal's entries, with the temporary names' process id (which names each edge's own
    files) taken out."""
    pid = str(journal["pid"])

    def untagged(name):
        return None if name is None else name.replace(f".vaultlink-{pid}.", ".vaultlink-<pid>.")

    return {
        "version": journal["version"],
        "tool": journal["tool"],
        "writes": [{**write, "temporary": untagged(write["temporary"])} for write in journal["writes"]],
        "moves": [{**move, "via": untagged(move["via"])} for move in journal["moves"]],
        "made_folders": journal["made_folders"],
    }


def through_both_edges(tool, arguments, tmp_path, runtime_dir, extra_files=None):
    """Copies the sample vault twice (with `extra_files`, path to text, added), previews and
    applies the call through the plugin on one copy and on the folder on the other: the vaults,
    the two answers (preview, applied) of each edge, and the files holding each edge's journals."""
    vaults, copies = {}, {}
    for edge in ("plugin", "standalone"):
        vaults[edge] = tmp_path / edge / "vault"
        shutil.copytree(ROOT / "examples" / "vault", vaults[edge])
        write_vault(vaults[edge], extra_files or {})
        copies[edge] = tmp_path / f"{edge}-journals.jsonl"
        copies[edge].touch()
    host = subprocess.Popen(
        ["node", str(PLUGIN_HOST), str(vaults["plugin"])],
        stdout=subprocess.PIPE,
        env={**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_HOST_JOURNAL_COPY": str(copies["plugin"])},
        text=True,
    )
    try:
        assert json.loads(host.stdout.readline())["ready"] is True
        through_plugin = asyncio.run(preview_and_apply(vaults["plugin"], runtime_dir, "plugin", tool, arguments, {}))
    finally:
        stop_plugin(host)
    on_folder = asyncio.run(preview_and_apply(
        vaults["standalone"], runtime_dir, "standalone", tool, arguments, {"VAULTLINK_DEBUG_JOURNAL_COPY": str(copies["standalone"])}))
    return vaults, through_plugin, on_folder, copies


@pytest.mark.parametrize("case", CASES)
def test_both_edges_carry_out_the_same_batch(case, tmp_path, runtime_dir):
    tool, arguments = CASES[case]
    vaults, through_plugin, on_folder, copies = through_both_edges(tool, arguments, tmp_path, runtime_dir)

    # The same plan, previewed and applied alike.
    assert through_plugin[0]["plan_hash"] == on_folder[0]["plan_hash"]
    if tool == "delete_note":
        # Where the trash is is each edge's to say (Obsidian's setting, the folder's `.trash`).
        assert through_plugin[1]["captured"] == on_folder[1]["captured"]
        assert {**through_plugin[1], "trashed_to": None} == {**on_folder[1], "trashed_to": None}
    else:
        assert through_plugin[1] == on_folder[1]
    assert snapshot(vaults["plugin"]) == snapshot(vaults["standalone"]), f"{case}: the vaults differ"
    for vault in vaults.values():
        assert not (vault / ".vaultlink" / "journal.json").exists(), "no journal is left"
        # Every change is kept for undo_change, once, with the id the answer gave.
        ids = [name.split("-", 1)[1].removesuffix(".json") for name in kept_changes(vault)]
        assert ids == [on_folder[1]["change_id"]], f"{case}: {ids}"

    plugin_journals, folder_journals = journals(copies["plugin"]), journals(copies["standalone"])
    if tool == "delete_note":
        # A delete is one rename into the trash, which either happens or not: no journal (its
        # change is kept before it, and taken back out if the rename fails).
        assert plugin_journals == folder_journals == []
    else:
        assert len(folder_journals) == 1, (
            f"{SIDECAR} copied {len(folder_journals)} journals: the sidecar under test must be a debug build, "
            "whose VAULTLINK_DEBUG_JOURNAL_COPY copies each journal it begins")
        assert len(plugin_journals) == 1, plugin_journals
        assert entries(plugin_journals[0]) == entries(folder_journals[0])
        # Each names its holder by a random id, which proves it live by its lease (core's `lease`).
        holders = [journal.get("holder", "") for journal in (plugin_journals[0], folder_journals[0])]
        assert all(re.fullmatch(r"[0-9a-f]{32}", holder) for holder in holders) and holders[0] != holders[1], holders
        assert plugin_journals[0]["tool"] == tool
        assert plugin_journals[0]["writes"] or plugin_journals[0]["moves"], f"{case}: the batch does something"


def test_update_properties_through_both_edges(tmp_path, runtime_dir):
    """update_properties goes through the same engine: through the plugin and on the folder the
    note ends byte for byte alike, only its edited entries changed, and both journals alike."""
    tool = "update_properties"
    arguments = {"path": "People/Ada", "set": {"status": "reviewed", "related": "[[Grace Hopper]]"}, "remove": ["role"]}
    before = (ROOT / "examples" / "vault" / "People" / "Ada.md").read_text()
    vaults, through_plugin, on_folder, copies = through_both_edges(tool, arguments, tmp_path, runtime_dir)
    assert through_plugin == on_folder
    assert snapshot(vaults["plugin"]) == snapshot(vaults["standalone"])
    after = (vaults["plugin"] / "People" / "Ada.md").read_text()
    assert 'related: "[[Grace Hopper]]"' in after and "status: reviewed" in after
    assert after.split("\n---\n", 1)[1] == before.split("\n---\n", 1)[1], "the body is untouched"
    assert "role:" not in after and "aliases: [Ada Lovelace]" in after, "the removed key is gone, the others as written"
    plugin_journals, folder_journals = journals(copies["plugin"]), journals(copies["standalone"])
    assert len(plugin_journals) == len(folder_journals) == 1
    assert entries(plugin_journals[0]) == entries(folder_journals[0])
    assert plugin_journals[0]["tool"] == tool


# A canvas as Obsidian writes it: tab-indented JSON, one card a line; a file card showing a heading
# of People/Ada.md and a text card whose Markdown (JSON-escaped) links it twice.
CANVAS = (
    '{\n\t"nodes":[\n'
    '\t\t{"id":"6f0ad84f44ce9c17","type":"file","file":"People/Ada.md","subpath":"#Bio","x":0,"y":0,"width":400,"height":400},\n'
    '\t\t{"id":"a1b2c3d4e5f60718","type":"text","text":"## Who\\n[[Ada]] and [her page](../People/Ada.md) \\"quoted\\"","x":500,"y":0,"width":250,"height":60}\n'
    '\t],\n\t"edges":[\n\t\t{"id":"0a1b2c3d4e5f6a7b","fromNode":"6f0ad84f44ce9c17","toNode":"a1b2c3d4e5f60718"}\n\t]\n}\n'
)


def test_a_move_rewrites_a_canvas_alike_through_both_edges(tmp_path, runtime_dir):
    """A canvas's file card and text-card links are rewritten by move_note through the plugin (which
    reads the canvas from Obsidian's vault, where the metadata cache has no links for it) and on
    the folder alike, the JSON edited in place."""
    tool, arguments = CASES["a note"]
    vaults, through_plugin, on_folder, _ = through_both_edges(
        tool, arguments, tmp_path, runtime_dir, {"Boards/People.canvas": CANVAS})
    assert through_plugin == on_folder
    assert snapshot(vaults["plugin"]) == snapshot(vaults["standalone"])
    expected = (CANVAS.replace('"file":"People/Ada.md"', '"file":"People/Ada Lovelace.md"')
                .replace("[[Ada]] and [her page](../People/Ada.md)",
                         # Written as Obsidian writes it under "shortest": the name is unique.
                         "[[Ada Lovelace]] and [her page](Ada%20Lovelace.md)"))
    for vault in vaults.values():
        assert (vault / "Boards" / "People.canvas").read_text() == expected
        json.loads((vault / "Boards" / "People.canvas").read_text())
    canvas_changes = [change for change in on_folder[0]["changes"] if change["note"] == "Boards/People.canvas"]
    assert [change["before"] for change in canvas_changes] == ["People/Ada.md", "[[Ada]]", "[her page](../People/Ada.md)"]
