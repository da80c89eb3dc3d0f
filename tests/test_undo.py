"""undo_change through the official MCP Python SDK, on both paths (the plugin and the folder)
with equal answers: a move, a new wiki page and a property edit, each undone in turn, give the
vault back byte for byte; an undo is refused, naming the note, after a later edit to a note the
change touched, and leaves the vault as it is; with nothing kept, nothing to undo."""

import asyncio
import shutil

import jsonschema

from conftest import ROOT, kept_changes, on_both_paths, snapshot
from test_mcp_quality import session_on

CHANGES = [
    ("move_note", {"from": "People/Ada.md", "to": "Archive/People/Ada Lovelace.md"}),
    ("commit_wiki_page", {"page": {"path": "People/Alan Turing", "frontmatter": {"related": "[[Ada Lovelace]]"},
                                   "body": "# Alan Turing\n"},
                          "patches": [{"path": "Home.md", "kind": "link"}]}),
    ("update_properties", {"path": "Projects/Alpha", "set": {"status": "done"}}),
]


async def apply(session, tool, arguments):
    preview = (await session.call_tool(tool, arguments)).structured_content
    assert "plan_hash" in preview, preview
    applied = await session.call_tool(tool, {**arguments, "approved_plan_hash": preview["plan_hash"]})
    assert not applied.is_error, applied.structured_content
    return applied.structured_content


async def undo_all(vault, runtime_dir, mode):
    """Each change applied, then undone newest first; the vault after each step and every answer."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        states, answers = [snapshot(vault)], []
        for tool, arguments in CHANGES:
            answers.append(await apply(session, tool, arguments))
            states.append(snapshot(vault))
        kept_after_changes = len(kept_changes(vault))
        undone = []
        for _ in CHANGES:
            answer = await apply(session, "undo_change", {})
            jsonschema.validate(answer, tools["undo_change"].output_schema)
            undone.append((answer, snapshot(vault)))
        nothing = await session.call_tool("undo_change", {})
    return {"states": states, "answers": answers, "undone": undone, "kept": kept_after_changes,
            "nothing": (nothing.is_error, nothing.structured_content["code"]), "left": kept_changes(vault)}


async def refused_after_an_edit(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        moved = await apply(session, *CHANGES[0])
        home = vault / "Home.md"
        home.write_text(home.read_text() + "\nEdited after the move.\n")
        await asyncio.sleep(0.5)  # the plugin hears of the edit through its vault's events
        before = snapshot(vault)
        refused = await session.call_tool("undo_change", {"change_id": moved["change_id"], "dry_run": False})
        return refused.is_error, refused.structured_content, snapshot(vault) == before


def through_both(tmp_path, runtime_dir, run):
    vaults = {}
    for edge in ("plugin", "standalone"):
        vaults[edge] = tmp_path / edge
        shutil.copytree(ROOT / "examples" / "vault", vaults[edge])
    return on_both_paths(vaults, runtime_dir, run)


def test_undo_after_a_move_a_commit_and_a_property_edit_gives_the_vault_back_byte_for_byte(tmp_path, runtime_dir):
    through_plugin, on_folder = through_both(tmp_path, runtime_dir, undo_all)
    for result in (through_plugin, on_folder):
        states = result["states"]
        assert all(a != b for a, b in zip(states, states[1:])), "each change changed the vault"
        assert result["kept"] == len(CHANGES)
        # Newest first: each undo gives back the vault as it was before that change.
        for (answer, after), (tool, _), expected in zip(result["undone"], reversed(CHANGES), reversed(states[:-1])):
            assert answer["applied"] is True and answer["tool"] == tool
            assert after == expected, f"undoing {tool}"
        assert result["undone"][-1][1] == states[0], "the vault is back as it was, byte for byte"
        assert result["nothing"] == (True, "nothing_to_undo")
        assert result["left"] == []
        ids = [answer["change_id"] for answer in result["answers"]]
        assert [answer["change_id"] for answer, _ in result["undone"]] == ids[::-1]
    assert through_plugin["answers"] == on_folder["answers"]
    assert [answer for answer, _ in through_plugin["undone"]] == [answer for answer, _ in on_folder["undone"]]
    assert through_plugin["states"] == on_folder["states"]


def test_undo_is_refused_after_a_later_edit_to_a_touched_note(tmp_path, runtime_dir):
    through_plugin, on_folder = through_both(tmp_path, runtime_dir, refused_after_an_edit)
    assert through_plugin == on_folder
    is_error, error, untouched = on_folder
    assert is_error and error["code"] == "undo_refused" and "`Home.md`" in error["message"], error
    assert untouched, "the refusal changed nothing"


CANVAS = ('{\n\t"nodes":[\n\t\t{"id":"f1","type":"file","file":"People/Ada.md","x":0,"y":0,"width":400,"height":400},\n'
          '\t\t{"id":"t1","type":"text","text":"[[Ada]] \\"quoted\\"","x":0,"y":500,"width":250,"height":60}\n\t],\n\t"edges":[]\n}\n')


async def undo_a_move_that_rewrote_a_canvas(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        before = snapshot(vault)
        moved = await apply(session, *CHANGES[0])
        rewritten = (vault / "Board.canvas").read_text()
        undone = await apply(session, "undo_change", {})
        return moved["links_changed"], rewritten, undone["applied"], snapshot(vault) == before


def test_undo_of_a_move_gives_back_the_canvas_it_rewrote(tmp_path, runtime_dir):
    """A move rewrote a canvas's file card and text card: its undo writes the canvas back too
    (before, undo_change refused, saying the canvas had changed since: it read the texts of notes only)."""
    vaults = {}
    for edge in ("plugin", "standalone"):
        vaults[edge] = tmp_path / edge
        shutil.copytree(ROOT / "examples" / "vault", vaults[edge])
        (vaults[edge] / "Board.canvas").write_text(CANVAS)
    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, undo_a_move_that_rewrote_a_canvas)
    assert through_plugin == on_folder
    _, rewritten, applied, back = on_folder
    assert '"file":"Archive/People/Ada Lovelace.md"' in rewritten and "[[Ada Lovelace]]" in rewritten, rewritten
    assert applied is True and back, "the vault, the canvas included, is back byte for byte"
