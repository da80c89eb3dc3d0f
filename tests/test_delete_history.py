"""Deletes, undo and the history through the official MCP Python SDK, on both paths (the plugin
and the folder) with equal answers (issue 36): `confirm: false` is always a preview, and with an
approved hash it is refused; a delete is kept like every other change, so `undo_change` right
after it writes the note back byte for byte, never the change before it, and is refused, naming
the path, when a file took it since; a retried delete or undo answers `already_applied` with its
`change_id`, also after the sidecar or Obsidian started again."""

import asyncio
import shutil

from conftest import ROOT, kept_changes, on_both_sample_vaults, snapshot, start_plugin, stop_plugin
from test_mcp_quality import session_on

ORPHAN = "Archive/Orphan.md"


def without_trash(answer):
    """An answer without where the trash is, which is each edge's to say."""
    return {key: value for key, value in answer.items() if key != "trashed_to"}


async def confirm_false_with_a_hash(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        preview = (await session.call_tool("delete_note", {"path": ORPHAN})).structured_content
        before = snapshot(vault)
        contradiction = await session.call_tool(
            "delete_note", {"path": ORPHAN, "confirm": False, "approved_plan_hash": preview["plan_hash"]})
        kept_after_refusal = snapshot(vault) == before
        again = (await session.call_tool("delete_note", {"path": ORPHAN, "confirm": False})).structured_content
        applied = await session.call_tool("delete_note", {"path": ORPHAN, "approved_plan_hash": preview["plan_hash"]})
        return {"preview": preview, "contradiction": (contradiction.is_error, contradiction.structured_content),
                "kept": kept_after_refusal, "again": again,
                "applied": (applied.is_error, without_trash(applied.structured_content)),
                "gone": not (vault / ORPHAN).exists()}


def test_confirm_false_is_always_a_preview_and_with_an_approved_hash_is_refused(tmp_path, runtime_dir):
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, confirm_false_with_a_hash)
    for result in (through_plugin, on_folder):
        refused, error = result["contradiction"]
        assert refused and error["code"] == "invalid_arguments", error
        assert "`approved_plan_hash` cannot be combined with `confirm: false`" in error["message"], error
        assert result["kept"], "nothing was deleted"
        assert result["again"]["dry_run"] is True and result["again"]["plan_hash"] == result["preview"]["plan_hash"]
        # The approved hash with `confirm` left out applies, as move_note's does without `dry_run`.
        is_error, applied = result["applied"]
        assert not is_error and applied["dry_run"] is False and result["gone"], applied
    assert through_plugin == on_folder


async def delete_between_changes(vault, runtime_dir, mode):
    text = (vault / ORPHAN).read_bytes()
    async with session_on(vault, runtime_dir, mode) as (session, _):
        start = snapshot(vault)
        edit = {"path": "Projects/Alpha", "set": {"status": "done"}}
        preview = (await session.call_tool("update_properties", edit)).structured_content
        edited = await session.call_tool("update_properties", {**edit, "approved_plan_hash": preview["plan_hash"]})
        assert not edited.is_error, edited.structured_content
        after_edit = snapshot(vault)
        deleted = await session.call_tool("delete_note", {"path": ORPHAN, "confirm": True})
        assert not deleted.is_error, deleted.structured_content
        kept = len(kept_changes(vault))
        undo_preview = (await session.call_tool("undo_change", {})).structured_content
        undone = await session.call_tool("undo_change", {"approved_plan_hash": undo_preview["plan_hash"]})
        after_undo = snapshot(vault)
        restored = (vault / ORPHAN).read_bytes()
        undo_preview = (await session.call_tool("undo_change", {})).structured_content
        older = await session.call_tool("undo_change", {"approved_plan_hash": undo_preview["plan_hash"]})
        return {"text": text, "restored": restored, "deleted": without_trash(deleted.structured_content), "kept": kept,
                "undone": (undone.is_error, undone.structured_content), "older": older.structured_content,
                "states": (start, after_edit, after_undo, snapshot(vault))}


def test_undo_right_after_a_delete_puts_the_note_back_and_never_the_change_before(tmp_path, runtime_dir):
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, delete_between_changes)
    for result in (through_plugin, on_folder):
        assert result["kept"] == 2, "the delete is kept like the edit before it"
        is_error, undone = result["undone"]
        assert not is_error, undone
        assert undone["tool"] == "delete_note" and undone["change_id"] == result["deleted"]["change_id"], undone
        assert undone["restored"] == [ORPHAN], undone
        assert result["restored"] == result["text"], "the note is back byte for byte"
        start, after_edit, after_undo, at_end = result["states"]
        # The trash keeps its copy (the user's to empty); every other file is as after the edit.
        assert {path: data for path, data in after_undo.items() if not path.startswith(".trash")} == after_edit
        assert result["older"]["tool"] == "update_properties"
        assert {path: data for path, data in at_end.items() if not path.startswith(".trash")} == start
    assert through_plugin["deleted"] == on_folder["deleted"]
    assert through_plugin["undone"] == on_folder["undone"]


async def undo_when_the_path_is_taken(vault, runtime_dir, mode):
    """A new note at the deleted note's place, made through the tools (which both edges' indexes
    see), then the delete's undo by its id."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        deleted = await session.call_tool("delete_note", {"path": ORPHAN, "confirm": True})
        assert not deleted.is_error, deleted.structured_content
        page = {"page": {"path": ORPHAN.removesuffix(".md"), "body": "A new note at the old place.\n"}}
        preview = (await session.call_tool("commit_wiki_page", page)).structured_content
        made = await session.call_tool("commit_wiki_page", {**page, "approved_plan_hash": preview["plan_hash"]})
        assert not made.is_error, made.structured_content
        before = snapshot(vault)
        refused = await session.call_tool(
            "undo_change", {"change_id": deleted.structured_content["change_id"], "dry_run": False})
        return refused.is_error, refused.structured_content, snapshot(vault) == before


def test_the_undo_of_a_delete_is_refused_naming_the_path_a_file_took_since(tmp_path, runtime_dir):
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, undo_when_the_path_is_taken)
    for is_error, error, unchanged in (through_plugin, on_folder):
        assert is_error and error["code"] == "undo_refused", error
        assert f"`{ORPHAN}` (a file is at its place again)" in error["message"], error
        assert unchanged, "nothing was changed"
    assert through_plugin == on_folder


async def history_of_three(vault, runtime_dir, mode):
    """A move, a property edit on a note the move rewrote, and a delete; then the history, paged,
    and a page asked with a cursor after another change was kept."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        ids = []
        for tool, arguments in (("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}),
                                ("update_properties", {"path": "Projects/Alpha", "set": {"status": "done"}}),
                                ("delete_note", {"path": ORPHAN, "confirm": True})):
            if tool != "delete_note":
                preview = (await session.call_tool(tool, arguments)).structured_content
                arguments = {**arguments, "approved_plan_hash": preview["plan_hash"]}
            applied = await session.call_tool(tool, arguments)
            assert not applied.is_error, applied.structured_content
            ids.append(applied.structured_content["change_id"])
        before = snapshot(vault)
        whole = await session.call_tool("list_changes", {})
        first = (await session.call_tool("list_changes", {"limit": 2})).structured_content
        rest = (await session.call_tool("list_changes", {"limit": 2, "cursor": first["next_cursor"]})).structured_content
        unchanged = snapshot(vault) == before
        preview = (await session.call_tool("undo_change", {})).structured_content
        await session.call_tool("undo_change", {"approved_plan_hash": preview["plan_hash"]})
        stale = await session.call_tool("list_changes", {"limit": 2, "cursor": first["next_cursor"]})
        return {"ids": ids, "whole": whole.structured_content, "schema": tools["list_changes"],
                "pages": [first["changes"], rest["changes"]], "unchanged": unchanged,
                "stale": (stale.is_error, stale.structured_content["code"])}


def test_list_changes_shows_the_kept_changes_newest_first_with_what_can_be_undone(tmp_path, runtime_dir):
    import jsonschema

    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, history_of_three)
    for result in (through_plugin, on_folder):
        listed = result["whole"]
        jsonschema.validate(listed, result["schema"].output_schema)
        assert result["schema"].annotations.read_only_hint is True
        assert listed["total"] == 3 and "next_cursor" not in listed
        move, edit, delete = result["ids"]
        assert [change["change_id"] for change in listed["changes"]] == [delete, edit, move]
        newest, middle, oldest = listed["changes"]
        assert newest["tool"] == "delete_note" and newest["latest"] is True and newest["undoable"] is True
        assert newest["arguments"] == {"path": ORPHAN} and newest["touched"]["removed"] == 1
        assert middle["tool"] == "update_properties" and middle["undoable"] is True and "latest" not in middle
        assert oldest["tool"] == "move_note" and oldest["touched"]["moved"] == 1
        assert oldest["arguments"]["moves"] == [{"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}]
        # The edit after the move rewrote a note the move rewrote: the move cannot be undone first.
        assert oldest["undoable"] is False and "`Projects/Alpha.md`" in oldest["why_not"], oldest
        assert oldest["applied_at"].endswith("Z") and newest["applied_unix_ms"] >= oldest["applied_unix_ms"]
        assert result["pages"][0] + result["pages"][1] == listed["changes"]
        assert result["unchanged"], "listing writes nothing"
        assert result["stale"] == (True, "invalid_arguments")

    def comparable(result):
        return [{key: value for key, value in change.items() if key not in ("applied_unix_ms", "applied_at")}
                for change in result["whole"]["changes"]]

    assert comparable(through_plugin) == comparable(on_folder)


async def undo_past_an_unreadable_change(vault, runtime_dir, mode):
    """A delete, then a file named as a newer kept change that no seal opens (a copy from
    another machine, or junk): an undo without an id stops at it, naming it; by its id the delete
    is undone; list_changes lists both."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        deleted = await session.call_tool("delete_note", {"path": ORPHAN, "confirm": True})
        assert not deleted.is_error, deleted.structured_content
        junk = vault / ".vaultlink" / "changes" / "9999999999999999-abcdef.json"
        junk.write_text("{}")
        before = snapshot(vault)
        refused = await session.call_tool("undo_change", {"dry_run": False})
        unchanged = snapshot(vault) == before
        listed = (await session.call_tool("list_changes", {})).structured_content
        by_id = await session.call_tool(
            "undo_change", {"change_id": deleted.structured_content["change_id"], "dry_run": False})
        return {"refused": (refused.is_error, refused.structured_content), "unchanged": unchanged,
                "listed": [(change["change_id"], change["undoable"]) for change in listed["changes"]],
                "by_id": (by_id.is_error, by_id.structured_content.get("tool")), "back": (vault / ORPHAN).exists()}


def test_an_undo_without_an_id_never_reaches_past_a_newer_change_it_cannot_undo(tmp_path, runtime_dir):
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, undo_past_an_unreadable_change)
    for result in (through_plugin, on_folder):
        is_error, error = result["refused"]
        assert is_error and error["code"] == "undo_refused", error
        assert "`.vaultlink/changes/9999999999999999-abcdef.json`" in error["message"], error
        assert "never reaches past it" in error["message"] and "list_changes" in error["hint"], error
        assert result["unchanged"], "nothing was changed"
        assert result["listed"][0] == ("abcdef", False) and result["listed"][1][1] is True, result["listed"]
        assert result["by_id"] == (False, "delete_note") and result["back"], result
    assert through_plugin["listed"] == on_folder["listed"]


async def retried_after_restarts(vault, runtime_dir, mode):
    """A delete and the undo of it, each applied, then retried with the same approved hash, as a
    client does when the connection dropped before the answer came: in the same session and in a
    new one (as after a restart, with no memory of the plans it answered)."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        preview = (await session.call_tool("delete_note", {"path": ORPHAN})).structured_content
        approved = {"path": ORPHAN, "approved_plan_hash": preview["plan_hash"]}
        deleted = await session.call_tool("delete_note", approved)
        assert not deleted.is_error, deleted.structured_content
        retried = await session.call_tool("delete_note", approved)
    async with session_on(vault, runtime_dir, mode) as (session, _):
        delete_after_restart = await session.call_tool("delete_note", approved)
        undo_preview = (await session.call_tool("undo_change", {})).structured_content
        undo_approved = {"approved_plan_hash": undo_preview["plan_hash"]}
        undone = await session.call_tool("undo_change", undo_approved)
        assert not undone.is_error, undone.structured_content
        undo_retried = await session.call_tool("undo_change", undo_approved)
        after_undo = snapshot(vault)
    async with session_on(vault, runtime_dir, mode) as (session, _):
        undo_after_restart = await session.call_tool("undo_change", undo_approved)
        kept = snapshot(vault) == after_undo
    return {"change_id": deleted.structured_content["change_id"], "kept": kept,
            "answers": [(name, answer.is_error, answer.structured_content) for name, answer in (
                ("delete retried", retried), ("delete after a restart", delete_after_restart),
                ("undo retried", undo_retried), ("undo after a restart", undo_after_restart))]}


def test_a_retried_delete_or_undo_answers_already_applied_with_its_change_id_also_after_a_restart(tmp_path, runtime_dir):
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, retried_after_restarts)
    for result in (through_plugin, on_folder):
        assert result["kept"], "a retried undo writes nothing"
        for name, is_error, answer in result["answers"]:
            assert is_error and answer["code"] == "already_applied", (name, answer)
            assert f"`{result['change_id']}`" in answer["message"], (name, answer["message"])
    assert through_plugin["answers"] == on_folder["answers"]


def test_a_retried_undo_is_known_after_obsidian_restarts(tmp_path, runtime_dir):
    """Through the plugin, with the plugin itself started again between the undo and its retry,
    so nothing in memory remembers the undo: the change it set aside does."""
    vault = tmp_path / "vault"
    shutil.copytree(ROOT / "examples" / "vault", vault)

    async def undo(session):
        deleted = await session.call_tool("delete_note", {"path": ORPHAN, "confirm": True})
        assert not deleted.is_error, deleted.structured_content
        preview = (await session.call_tool("undo_change", {})).structured_content
        undone = await session.call_tool("undo_change", {"approved_plan_hash": preview["plan_hash"]})
        assert not undone.is_error, undone.structured_content
        return deleted.structured_content["change_id"], preview["plan_hash"]

    async def retry(plan_hash):
        async with session_on(vault, runtime_dir, "plugin") as (session, _):
            return await session.call_tool("undo_change", {"approved_plan_hash": plan_hash})

    async def first():
        async with session_on(vault, runtime_dir, "plugin") as (session, _):
            return await undo(session)

    host = start_plugin(vault, runtime_dir)
    try:
        change_id, plan_hash = asyncio.run(first())
    finally:
        stop_plugin(host)
    after_undo = snapshot(vault)
    host = start_plugin(vault, runtime_dir)
    try:
        retried = asyncio.run(retry(plan_hash))
    finally:
        stop_plugin(host)
    assert retried.is_error and retried.structured_content["code"] == "already_applied", retried.structured_content
    assert f"`{change_id}`" in retried.structured_content["message"], retried.structured_content["message"]
    assert snapshot(vault) == after_undo, "nothing was written again"
