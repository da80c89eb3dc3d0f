"""undo_change through the official MCP Python SDK, on both paths (the plugin and the folder)
with equal answers: a move, a new wiki page and a property edit, each undone in turn, give the
vault back byte for byte; an undo is refused, naming the note, after a later edit to a note the
change touched, and leaves the vault as it is; with nothing kept, nothing to undo."""

import shutil

import jsonschema

from conftest import ROOT, kept_changes, on_both_paths, on_both_sample_vaults, snapshot
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
        before = snapshot(vault)
        refused = await session.call_tool("undo_change", {"change_id": moved["change_id"], "dry_run": False})
        return refused.is_error, refused.structured_content, snapshot(vault) == before


def test_undo_after_a_move_a_commit_and_a_property_edit_gives_the_vault_back_byte_for_byte(tmp_path, runtime_dir):
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, undo_all)
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
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, refused_after_an_edit)
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


async def undo_after_later_links(vault, runtime_dir, mode):
    """Notes made since a move and a new page link them (made through the tools, which both
    edges' indexes see): the move's and the page's undo, each by its id."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        moved = await apply(session, *CHANGES[0])
        await apply(session, "commit_wiki_page", {"page": {"path": "People/Later", "body": "Made since: [[Ada Lovelace]].\n"}})
        page = await apply(session, "commit_wiki_page", {"page": {"path": "People/Alan Turing", "body": "# Alan Turing\n"}})
        await apply(session, "commit_wiki_page", {"page": {"path": "People/Reading", "body": "See [[Alan Turing]].\n"}})
        asked = {"change_id": page["change_id"]}
        preview = (await session.call_tool("undo_change", asked)).structured_content
        refused = await session.call_tool("undo_change", {**asked, "dry_run": False})
        forced = await apply(session, "undo_change", {**asked, "force": True})
        undone = await apply(session, "undo_change", {"change_id": moved["change_id"]})
        return {"preview": [link["note"] for link in preview.get("backlinks", [])],
                "refused": (refused.is_error, refused.structured_content["code"], refused.structured_content["message"]),
                "forced": (forced["removed"], [link["note"] for link in forced["backlinks"]]),
                "relinked": undone.get("relinked"), "later": (vault / "People" / "Later.md").read_text(),
                "ada": (vault / "People" / "Ada.md").exists()}


def test_undo_keeps_the_links_made_since_and_removes_a_linked_page_only_with_force(tmp_path, runtime_dir):
    """Issue 34: after a move, a note made since linked the moved note at its new name, and
    undoing the move left that link broken; a page the undone change created was removed while a
    note made since linked it. The moves back are planned as moves, and the page goes only with
    `force`, the links it leaves dangling listed, on both paths alike."""
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, undo_after_later_links)
    assert through_plugin == on_folder
    assert on_folder["preview"] == ["People/Reading.md"], on_folder
    is_error, code, message = on_folder["refused"]
    assert is_error and code == "undo_refused" and "`People/Reading.md` line 1 ([[Alan Turing]])" in message, message
    assert on_folder["forced"] == (["People/Alan Turing.md"], ["People/Reading.md"])
    assert on_folder["relinked"] == ["People/Later.md"] and on_folder["ada"], on_folder
    assert "[[Ada]]" in on_folder["later"] and "Lovelace" not in on_folder["later"], on_folder["later"]
