"""link_mentions through the official MCP Python SDK, on both paths: on a copy of a real wiki
(the corpora's `dnd-srd-wiki`, its `Classes` folder: some 500 mentions in 12 notes) the preview is paged, the plan applied by its hash, every new
link finds the note its mention named and shows the mention's text, the change is listed, and
undo_change gives the vault back byte for byte; on a small vault, the zones no link may reach
and the mentions a caller leaves out."""

import json
import os
import subprocess
from collections import Counter

from conftest import SIDECAR, corpus_copy, on_both_paths, snapshot, write_vault
from test_mcp_quality import session_on


async def pages(session, tool, arguments, key):
    items, cursor, first = [], None, None
    while True:
        page = (await session.call_tool(tool, {**arguments, **({"cursor": cursor} if cursor else {})})).structured_content
        assert key in page, page
        items += page[key]
        first = first or page
        cursor = page.get("next_cursor")
        if cursor is None:
            return first, items


async def shown_links(session, note):
    """Each body link of `note` that finds a note: (line, the text it shows, the note it finds)."""
    _, links = await pages(session, "get_outgoing_links", {"path": note, "limit": 500}, "links")
    return Counter((link["line"], link.get("display", link["target"]), link.get("resolved_path"))
                   for link in links if link["source"] == "body")


# A folder of the wiki: the whole of it (14,000 mentions in 900 notes) makes the check of every
# link minutes long, and a folder is read as the whole vault is, note by note.
SCOPE = {"path": "Classes"}


async def link_and_undo(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        first, mentions = await pages(session, "link_mentions", {**SCOPE, "limit": 100}, "mentions")
        before = snapshot(vault)
        notes = sorted({mention["note"] for mention in mentions})
        shown_before = {note: await shown_links(session, note) for note in notes}
        applied = (await session.call_tool("link_mentions", {**SCOPE, "approved_plan_hash": first["plan_hash"]})).structured_content
        linked = snapshot(vault)
        shown_after = {note: await shown_links(session, note) for note in notes}
        listed = (await session.call_tool("list_changes", {})).structured_content
        undone = await session.call_tool("undo_change", {"dry_run": False})
        assert not undone.is_error, undone.structured_content
        return first, mentions, applied, listed, before, linked, snapshot(vault), shown_before, shown_after


def test_mentions_in_a_real_wiki_are_linked_to_the_notes_they_name_and_undone_byte_for_byte(tmp_path, runtime_dir):
    vaults = {mode: corpus_copy(tmp_path, "dnd-srd-wiki", mode) for mode in ("plugin", "standalone")}
    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, link_and_undo)
    assert through_plugin[:2] == on_folder[:2], "both paths preview the same mentions"
    for first, mentions, applied, listed, before, linked, after, shown_before, shown_after in (through_plugin, on_folder):
        assert first["dry_run"] is True and len(mentions) == first["mentions_linked"] > 100, first
        assert len({mention["id"] for mention in mentions}) == len(mentions), "each mention has its own id"
        assert applied["applied"] is True and applied["mentions_linked"] == first["mentions_linked"], applied
        assert listed["changes"][0]["tool"] == "link_mentions" and listed["changes"][0]["undoable"] is True, listed
        assert linked != before, "the links were written"
        assert after == before, "undo_change gives the vault back byte for byte"
        # Every new link shows its mention and finds the note it named; every old one is kept.
        for note in shown_before:
            wanted = Counter((mention["line"], mention["text"], mention["target"]) for mention in mentions if mention["note"] == note)
            assert shown_after[note] - shown_before[note] == wanted, note
            assert shown_before[note] - shown_after[note] == Counter(), note


SMALL_VAULT = {
    "SCHEMA.md": "---\nsource_folders: [raw]\n---\n",
    "raw/Clip.md": "An opportunity attack.\n",
    "Opportunity attack.md": "x\n",
    "Attack.md": "An attack is an attack.\n",
    "a/Guide.md": "x\n",
    "b/Guide.md": "x\n",
    "Notes.md": "---\nsee: attack\n---\n# Attack\nAn opportunity attack, two attacks, the guide.\n"
                "`attack` %% attack %% <!-- attack --> $attack$ [[Attack|attack]] [attack](Attack.md)\n"
                "```\nattack\n```\n| attack |\n| - |\n| attack |\n",
}


async def link_some(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        preview = (await session.call_tool("link_mentions", {})).structured_content
        left_out = [mention["id"] for mention in preview["mentions"] if mention["text"] == "attacks"]
        chosen = {"exclude": left_out}
        narrowed = (await session.call_tool("link_mentions", chosen)).structured_content
        stale = await session.call_tool("link_mentions", {"approved_plan_hash": preview["plan_hash"], **chosen})
        applied = (await session.call_tool("link_mentions", {"approved_plan_hash": narrowed["plan_hash"], **chosen})).structured_content
        return preview, narrowed, stale.is_error, applied, (vault / "Notes.md").read_text(), (vault / "raw/Clip.md").read_text()


def test_only_prose_is_linked_and_an_excluded_mention_is_left_on_both_paths(tmp_path, runtime_dir):
    vaults = {mode: write_vault(tmp_path / mode, SMALL_VAULT) for mode in ("plugin", "standalone")}
    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, link_some)
    assert through_plugin[:2] == on_folder[:2], "both paths preview the same mentions"
    for preview, narrowed, stale_refused, applied, notes, clip in (through_plugin, on_folder):
        assert [(mention["text"], mention["target"]) for mention in preview["mentions"]] == [
            ("opportunity attack", "Opportunity attack.md"), ("attacks", "Attack.md")], preview
        assert preview["ambiguous"] == [{"name": "Guide", "notes": ["a/Guide.md", "b/Guide.md"], "mentions": 1}], preview
        assert narrowed["mentions_linked"] == 1 and narrowed["plan_hash"] != preview["plan_hash"], narrowed
        assert stale_refused, "a hash approves only the set it was previewed with"
        assert applied["applied"] is True, applied
        assert notes == SMALL_VAULT["Notes.md"].replace("An opportunity attack,", "An [[Opportunity attack|opportunity attack]],")
        assert clip == SMALL_VAULT["raw/Clip.md"], "a source folder is never written"


def test_vaultlink_mentions_previews_with_dry_run_links_a_note_and_says_how_to_undo(tmp_path, runtime_dir):
    vault = write_vault(tmp_path / "vault", SMALL_VAULT)
    env = {**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime_dir)}

    def run(*args):
        done = subprocess.run([str(SIDECAR), "mentions", str(vault), *args, "--mode", "standalone"], capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    preview = json.loads(run("--dry-run", "--json"))
    assert preview["dry_run"] is True and preview["mentions_linked"] == 2, preview
    assert (vault / "Notes.md").read_text() == SMALL_VAULT["Notes.md"], "--dry-run changes nothing"
    said = run("--note", "Attack", "--dry-run")
    assert "0 mentions in 0 files would be linked" in said, "a note's own name is never linked"
    said = run("--note", "Notes")
    assert "Notes.md:5  opportunity attack  ->  [[Opportunity attack|opportunity attack]]" in said, said
    assert "Guide  (1 mentions)  a/Guide.md, b/Guide.md" in said and "undo_change takes it back" in said, said
    assert "[[Attack|attacks]]" in (vault / "Notes.md").read_text()
