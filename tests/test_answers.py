"""What every answer promises an agent, through the official MCP Python SDK, on the folder and
through the plugin: no answer passes its byte ceiling on the wire whatever its arguments (an
explicit `limit: 1000`, the largest `max_bytes`, the undo of a big folder move), a list inside one
item is cut with its count, a stale `list_notes` cursor is refused instead of skipping notes, and
the words an agent acts on (the instructions' opening, `prev_hashes`, SCHEMA.md's format, a
concise preview) say what the tools do.

Run with VAULTLINK_BIN=target/debug/vaultlink after scripts/build.sh and npm run build:host.
"""

import asyncio
import contextlib
import re

import pytest

from conftest import on_path
from test_mcp_quality import session_on, wire_size

# README.md states it: every answer on the wire, structured content plus its text copy.
MAX_ANSWER_BYTES = 256_000
# Enough files, with long enough names, that the old answers passed the ceiling several times.
FILES = 1_200
REFERRERS = 379
MANY_LINKS = 12_000
LONG_NAME = "a rather long descriptive file name that repeats itself " * 2


def write_oversized_vault(root):
    """A vault whose every list grows past one answer: a folder of many notes with long names
    linking each other, a missing page hundreds of notes name (an `unresolved_link` proposal with
    379 referrers), a hub every note links, and a note whose body is all quotes."""
    folder = root / "Project"
    folder.mkdir(parents=True)
    for number in range(FILES):
        missing = "[[Missing page]] " if number < REFERRERS else ""
        (folder / f"{LONG_NAME}{number:04}.md").write_text(
            f"# Part {number}\n\n{missing}[[Hub]] [[Nowhere {number}]] [[{LONG_NAME}{(number + 1) % FILES:04}]]\n"
        )
    (root / "Hub.md").write_text("# Hub\n")
    (root / "Quotes.md").write_text('"' * 200_000 + "\n")
    # A note with more links than any answer holds.
    (root / "Many links.md").write_text("".join(f"- [[Target {number} with a longer name]]\n" for number in range(MANY_LINKS)))
    return root.resolve()


async def oversized_answers(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        calls = [
            ("lint_wiki", {"limit": 1000}),
            ("find_unresolved_links", {"limit": 1000}),
            ("get_backlinks", {"path": "Hub", "limit": 1000}),
            ("list_notes", {"limit": 1000}),
            ("find_orphans", {"limit": 1000}),
            ("find_evidence", {"title": "Hub", "limit": 1000}),
            ("read_note", {"path": "Quotes", "max_bytes": 64_000}),
            ("get_outgoing_links", {"path": "Many links", "limit": 1000}),
            ("rewrite_link", {"from_target": "Hub", "to_target": "Centre", "allow_unresolved": True, "limit": 1000}),
            ("link_graph", {"question": "hubs", "limit": 1000}),
            ("find_link_paths", {"from": f"Project/{LONG_NAME}0000", "to": f"Project/{LONG_NAME}0600", "direction": "any", "limit": 1000}),
        ]
        answers = [(name, await session.call_tool(name, arguments)) for name, arguments in calls]
        move = {"from": "Project", "to": f"Archive/{LONG_NAME}"}
        preview = await session.call_tool("move_note", {**move, "limit": 1000})
        answers.append(("move_note", preview))
        applied = await session.call_tool("move_note", {**move, "approved_plan_hash": preview.structured_content["plan_hash"]})
        answers.append(("move_note applied", applied))
        # The undo of that move, every page of its preview, then its receipt.
        undo_pages, cursor = [], None
        while True:
            page = await session.call_tool("undo_change", {"limit": 1000, **({"cursor": cursor} if cursor else {})})
            undo_pages.append(page)
            cursor = page.structured_content.get("next_cursor")
            if cursor is None or page.is_error:
                break
        answers += [("undo_change preview", page) for page in undo_pages]
        receipt = await session.call_tool("undo_change", {"approved_plan_hash": undo_pages[0].structured_content["plan_hash"]})
        answers.append(("undo_change applied", receipt))
        return answers, undo_pages, receipt


@pytest.mark.parametrize("mode", ["standalone", "plugin"])
def test_every_answer_stays_under_its_ceiling_whatever_its_arguments(tmp_path, runtime_dir, mode):
    vault = write_oversized_vault(tmp_path / "vault")
    answers, undo_pages, receipt = on_path(vault, runtime_dir, mode, oversized_answers)
    for name, answer in answers:
        assert not answer.is_error, f"{name}: {answer.structured_content}"
        assert wire_size(answer) < MAX_ANSWER_BYTES, f"{name}: {wire_size(answer)} bytes on the wire"
    by_name = dict(answers)
    # What did not fit goes on with a cursor.
    for name in ("lint_wiki", "find_unresolved_links", "get_backlinks", "rewrite_link", "move_note", "read_note", "get_outgoing_links",
                 "link_graph"):
        assert by_name[name].structured_content.get("next_cursor"), f"{name} ends its page with a next_cursor"
    outgoing = by_name["get_outgoing_links"].structured_content
    assert outgoing["total"] == MANY_LINKS and len(outgoing["links"]) < MANY_LINKS and "cut" not in outgoing
    # One proposal about the page 379 notes name: its lists cut to 50, with their counts.
    lint = by_name["lint_wiki"].structured_content
    missing = [proposal for proposal in lint["proposals"] if proposal["kind"] == "unresolved_link" and proposal["subject"] == "Missing page"]
    assert missing, "the missing page is among the first proposals"
    assert len(missing[0]["related"]) == 50 and missing[0]["related_count"] == REFERRERS
    assert len(missing[0]["evidence"]["referrers"]) == 50 and missing[0]["evidence"]["referrers_count"] == REFERRERS
    # The undo's preview pages hold every file once; the counts are on every page and the receipt.
    assert len(undo_pages) > 1
    moved_back = [moved for page in undo_pages for moved in page.structured_content["moved_back"]]
    assert len(moved_back) == FILES == len({moved["from"] for moved in moved_back})
    assert all(page.structured_content["counts"]["moved_back"] == FILES for page in undo_pages)
    assert receipt.structured_content["applied"] is True and receipt.structured_content["counts"]["moved_back"] == FILES
    assert (vault / "Project" / f"{LONG_NAME}0000.md").exists(), "the undo moved the folder back"


async def list_then_move(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        first = (await session.call_tool("list_notes", {"limit": 2, "response_format": "concise"})).structured_content
        # One note goes and another comes: the list keeps its length, and would shift under the cursor.
        preview = await session.call_tool("move_note", {"from": first["notes"][0]["path"], "to": "0 First.md"})
        moved = await session.call_tool(
            "move_note", {"from": first["notes"][0]["path"], "to": "0 First.md", "approved_plan_hash": preview.structured_content["plan_hash"]}
        )
        stale = await session.call_tool("list_notes", {"limit": 2, "cursor": first["next_cursor"], "response_format": "concise"})
        again = (await session.call_tool("list_notes", {"limit": 2, "response_format": "concise"})).structured_content
        return first, moved, stale, again


@pytest.mark.parametrize("mode", ["standalone", "plugin"])
def test_a_stale_list_notes_cursor_is_refused_saying_to_start_again(vault, runtime_dir, mode, request):
    if mode == "plugin":
        request.getfixturevalue("plugin")
    first, moved, stale, again = asyncio.run(list_then_move(vault, runtime_dir, mode))
    assert not moved.is_error, moved.structured_content
    assert first["total"] == again["total"], "the list kept its length"
    assert stale.is_error and stale.structured_content["code"] == "invalid_arguments"
    assert "start again" in stale.structured_content["message"]


async def words(vault, runtime_dir):
    async with session_on(vault, runtime_dir, "standalone") as (session, init):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        concise = await session.call_tool("rewrite_link", {"from_target": "Quarterly plan", "to_target": "Projects/Beta", "response_format": "concise"})
        return init.instructions, tools, concise


def test_the_words_an_agent_acts_on_say_what_the_tools_do(vault, runtime_dir):
    instructions, tools, concise = asyncio.run(words(vault, runtime_dir))
    opening = instructions[:512]
    writing = {name for name, tool in tools.items() if not tool.annotations.read_only_hint}
    assert len(writing) >= 7
    assert {name for name in writing if name not in opening} == set(), "the opening names every writing tool"
    assert "previews first" in opening and "plan_hash" in opening
    prev_hashes = tools["commit_wiki_page"].input_schema["properties"]["prev_hashes"]["description"]
    assert "draft_wiki_page" in prev_hashes and "read_note gives none" in prev_hashes
    # SCHEMA.md's format: its frontmatter's `types` and `properties`, with an example of each.
    assert "`types` (`concept: {description: ..., required: [status], folder: Concepts}`)" in instructions
    assert "`properties` (a list of names, or names to allowed values: `status: [draft, done]`)" in instructions
    # A concise preview keeps its list of changes: it is what is approved.
    assert not concise.is_error and concise.structured_content["dry_run"] is True
    assert concise.structured_content["changes"] and len(concise.structured_content["changes"]) == concise.structured_content["links_changed"]


# One writing call of each kind on the sample vault, each applied once and then retried with the
# same approved hash, as a client does when the connection dropped before the answer came.
RETRIED = [
    ("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}),
    ("rewrite_link", {"from_target": "Quarterly plan", "to_target": "Projects/Beta"}),
    ("update_properties", {"path": "Projects/Alpha", "set": {"status": "retried"}}),
    ("bulk_move_notes", {"moves": [{"from": "Ideas", "to": "Notes/Ideas"}]}),
    ("commit_wiki_page", {"page": {"path": "People/Alan Turing", "body": "# Alan Turing\n"}}),
]


async def apply_twice(vault, runtime_dir, mode):
    results = []
    async with session_on(vault, runtime_dir, mode) as (session, _):
        for name, arguments in RETRIED:
            preview = await session.call_tool(name, arguments)
            assert not preview.is_error, (name, preview.structured_content)
            approved = {**arguments, "approved_plan_hash": preview.structured_content["plan_hash"]}
            applied = await session.call_tool(name, approved)
            retried = await session.call_tool(name, approved)
            results.append((name, approved, applied, retried))
        # An undo too, retried in the same session.
        undo = await session.call_tool("undo_change", {})
        undo_approved = {"approved_plan_hash": undo.structured_content["plan_hash"]}
        undone = await session.call_tool("undo_change", undo_approved)
        undo_retried = await session.call_tool("undo_change", undo_approved)
    # A new session, as after a restart: the kept changes still say what was applied.
    name, approved, _, _ = results[0]
    async with session_on(vault, runtime_dir, mode) as (session, _):
        after_restart = await session.call_tool(name, approved)
    return results, (undone, undo_retried), after_restart


@pytest.mark.parametrize("mode", ["standalone", "plugin"])
def test_retrying_an_applied_call_answers_that_it_was_applied_already(vault, runtime_dir, mode, request):
    if mode == "plugin":
        request.getfixturevalue("plugin")
    results, (undone, undo_retried), after_restart = asyncio.run(apply_twice(vault, runtime_dir, mode))
    for name, _, applied, retried in results:
        assert not applied.is_error and applied.structured_content["applied"] is True, (name, applied.structured_content)
        change_id = applied.structured_content["change_id"]
        assert retried.is_error, name
        assert retried.structured_content["code"] == "already_applied", (name, retried.structured_content)
        assert f"`{change_id}`" in retried.structured_content["message"], (name, retried.structured_content["message"])
    assert not undone.is_error and undone.structured_content["applied"] is True
    assert undo_retried.is_error and undo_retried.structured_content["code"] == "already_applied", undo_retried.structured_content
    assert after_restart.is_error and after_restart.structured_content["code"] == "already_applied"
    assert f"`{results[0][2].structured_content['change_id']}`" in after_restart.structured_content["message"]


EVIDENCE_NOTES = 6_000


async def cancel_a_long_read(vault, runtime_dir, errlog):
    async with session_on(vault, runtime_dir, "standalone", errlog=errlog) as (session, _):
        # The folder indexed first, so that the long call is the reading of every note.
        await session.call_tool("list_notes", {"limit": 1})
        reading = asyncio.Event()

        async def on_progress(progress, total, message):
            if message and message.startswith("find_evidence: read"):
                reading.set()

        evidence = asyncio.create_task(session.call_tool("find_evidence", {"title": "Hub"}, progress_callback=on_progress))
        await reading.wait()
        # Cancelling the task makes the SDK send `notifications/cancelled` for the request.
        evidence.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await evidence
        # The next read is answered once the cancelled work has stopped.
        return await session.call_tool("get_backlinks", {"path": "Hub", "limit": 1})


def test_a_cancelled_call_stops_its_work_not_only_its_answer(tmp_path, runtime_dir):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Hub.md").write_text("# Hub\n")
    for number in range(EVIDENCE_NOTES):
        (vault / f"Note {number:05}.md").write_text(f"# Note {number}\n\nAbout the [[Hub]], which this note mentions.\n")
    errlog = tmp_path / "sidecar.log"
    backlinks = asyncio.run(cancel_a_long_read(vault.resolve(), runtime_dir, errlog))
    assert not backlinks.is_error and backlinks.structured_content["total"] == EVIDENCE_NOTES
    stopped = re.search(r"a call stopped: the client cancelled it after (\d+) of (\d+) note reads", errlog.read_text())
    assert stopped, "the sidecar says the cancelled call stopped"
    assert int(stopped.group(1)) < int(stopped.group(2)) == EVIDENCE_NOTES + 1, stopped.group(0)


async def read_during_a_long_read(vault, runtime_dir):
    async with session_on(vault, runtime_dir, "standalone") as (session, _):
        await session.call_tool("list_notes", {"limit": 1})
        reading = asyncio.Event()
        finished = []

        async def on_progress(progress, total, message):
            if message and message.startswith("find_evidence: read"):
                reading.set()

        async def evidence():
            result = await session.call_tool("find_evidence", {"title": "Hub"}, progress_callback=on_progress)
            finished.append("find_evidence")
            return result

        long_read = asyncio.create_task(evidence())
        await reading.wait()
        backlinks = await session.call_tool("get_backlinks", {"path": "Hub", "limit": 1})
        finished.append("get_backlinks")
        return backlinks, await long_read, finished


def test_a_read_is_not_queued_behind_a_long_read(tmp_path, runtime_dir):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Hub.md").write_text("# Hub\n")
    for number in range(EVIDENCE_NOTES):
        (vault / f"Note {number:05}.md").write_text(f"# Note {number}\n\nAbout the [[Hub]], which this note mentions.\n")
    backlinks, evidence, finished = asyncio.run(read_during_a_long_read(vault.resolve(), runtime_dir))
    assert not backlinks.is_error and not evidence.is_error
    # Asked while find_evidence was reading the notes, get_backlinks was answered first.
    assert finished == ["get_backlinks", "find_evidence"]
