"""Issue 37's rest, as an agent meets it through the official MCP Python SDK on both paths (the
plugin and the folder) with equal answers, on a copy of a real wiki (the corpora's
`dnd-srd-wiki`): an undo that would write in a folder declared a source since is refused; a page
keeps the content hash of the source it was drawn from, and `lint_wiki` says `stale` once the
source is captured again, until the page is committed anew; and a convention the SCHEMA.md
marks `severity: block` refuses a move and a property edit that add its finding."""

import asyncio
import hashlib

from conftest import snapshot, start_plugin, stop_plugin
from test_mcp_quality import session_on
from test_wiki import CLASSES_SCHEMA as WITHOUT_SOURCES, CLIP, corpus_copy

# The same schema once `raw/` holds the wiki's sources, with two conventions that block.
SCHEMA = WITHOUT_SOURCES.removesuffix("---\n") + """source_folders: [raw]
conventions:
  schema: block
  unresolved_link: {severity: block}
---
"""

RECAPTURED = CLIP + "\nArtificers were added to the rules in a later book.\n"


def wiki_copy(tmp_path, name):
    copy = corpus_copy(tmp_path, name)
    (copy / "SCHEMA.md").write_text(WITHOUT_SOURCES)
    (copy / "raw").mkdir()
    (copy / "raw" / "Artificer clip.md").write_text(CLIP)
    return copy


def outcome(answer):
    content = answer.structured_content
    return (answer.is_error, content.get("code"), content.get("message", ""))


async def stale(session):
    report = (await session.call_tool("lint_wiki", {"kinds": ["stale"], "response_format": "detailed"})).structured_content
    return [(p["subject"], p["related"], p["evidence"], p["tool"]) for p in report["proposals"]], report["skipped"]


async def mark_the_clip(session, vault, said):
    """A property set on the clip while `raw/` is still an ordinary folder."""
    said["marked"] = (await session.call_tool("update_properties", {"path": "raw/Artificer clip.md", "set": {"summary": "A clipping"},
                                                                    "dry_run": False})).structured_content


async def undo_and_ingest(session, vault, said):
    """`raw/` declared a source since: the undo would edit the source, and is refused. Then the
    page drawn from the clip, which keeps the clip's hash."""
    untouched = snapshot(vault)
    undo = outcome(await session.call_tool("undo_change", {"change_id": said["marked"]["change_id"], "dry_run": False}))
    said["undo"] = (undo, snapshot(vault) == untouched)
    draft = (await session.call_tool("draft_wiki_page", {"topic": "Artificer", "type": "class",
                                                          "source": "raw/Artificer clip.md"})).structured_content
    page = {**draft["skeleton"]["page"], "body": "# Artificer\n\nA tinkerer, close to the [[Wizard]].\n",
            "frontmatter": {**draft["skeleton"]["page"]["frontmatter"], "summary": "A maker of magical items"}}
    said["page"] = page
    said["committed"] = (await session.call_tool("commit_wiki_page", {"page": page, "dry_run": False})).structured_content
    said["kept_hash"] = hashlib.sha256((vault / "raw" / "Artificer clip.md").read_bytes()).hexdigest()
    said["written"] = (vault / "Classes" / "Artificer.md").read_text()
    said["fresh"] = await stale(session)


async def stale_then_blocked(session, vault, said):
    """The clip captured again by hand: the page is stale until committed anew. Then the
    blocking conventions: a move out of the type's folder (`schema`), a property link to no note
    (`unresolved_link`); a move that adds no finding goes through."""
    said["found"] = await stale(session)
    page = said["page"]
    again = {"page": {**page, "mode": "overwrite", "prev_hash": said["committed"]["content_hash"],
                      "body": page["body"] + "\nA later book added them to the rules.\n"}, "dry_run": False}
    said["recommitted"] = outcome(await session.call_tool("commit_wiki_page", again))
    said["current"] = await stale(session)
    before = snapshot(vault)
    blocked = {
        "move": outcome(await session.call_tool("move_note", {"from": "Classes/Artificer.md", "to": "Artificer.md", "dry_run": False})),
        "property": outcome(await session.call_tool("update_properties", {"path": "Classes/Artificer.md",
                                                                          "set": {"related": "[[No such class]]"}, "dry_run": False})),
    }
    said["blocked"] = (blocked, snapshot(vault) == before)
    said["allowed"] = outcome(await session.call_tool("move_note", {"from": "Classes/Artificer.md", "to": "Classes/Artificers.md"}))


def between(vault, phase):
    """What the user does by hand between two sessions: declares `raw/` a source folder, then
    captures the clip again (no tool writes in a source folder)."""
    if phase == 0:
        (vault / "SCHEMA.md").write_text(SCHEMA)
    elif phase == 1:
        (vault / "raw" / "Artificer clip.md").write_text(RECAPTURED)


PHASES = [mark_the_clip, undo_and_ingest, stale_then_blocked]


def run_phases(vault, runtime_dir, mode):
    """Each phase in a session of its own; through the plugin, on a plugin started for it, as
    Obsidian opened again reads what was written while it was closed."""
    said = {}
    for at, phase in enumerate(PHASES):
        async def run():
            async with session_on(vault, runtime_dir, mode) as (session, _):
                await phase(session, vault, said)
        host = start_plugin(vault, runtime_dir) if mode == "plugin" else None
        try:
            asyncio.run(run())
        finally:
            if host is not None:
                stop_plugin(host)
        between(vault, at)
    for name in ("marked", "committed", "page"):
        said.pop(name)
    return said


def test_sources_stay_as_captured_pages_go_stale_and_blocking_conventions_hold_through_both_paths(tmp_path, runtime_dir):
    vaults = {"plugin": wiki_copy(tmp_path, "plugin"), "standalone": wiki_copy(tmp_path, "standalone")}
    through_plugin = run_phases(vaults["plugin"], runtime_dir, "plugin")
    on_folder = run_phases(vaults["standalone"], runtime_dir, "standalone")
    assert through_plugin == on_folder, "both paths answer alike"
    answers = on_folder

    (is_error, code, message), untouched = answers["undo"]
    assert (is_error, code, untouched) == (True, "read_only_source", True), message
    assert "edit `raw/Artificer clip.md`" in message, message

    kept_hash = answers["kept_hash"]
    assert f'source_hashes:\n  - "{kept_hash} raw/Artificer clip.md"\n' in answers["written"], answers["written"]
    assert answers["fresh"] == ([], [])
    new_hash = hashlib.sha256(RECAPTURED.encode()).hexdigest()
    assert answers["found"] == ([("Classes/Artificer.md", ["raw/Artificer clip.md"],
                                  {"source": "raw/Artificer clip.md", "kept_hash": kept_hash, "current_hash": new_hash},
                                  "commit_wiki_page")], [])
    assert answers["recommitted"][0] is False, answers["recommitted"]
    assert answers["current"] == ([], []), "committed anew, the page keeps the source's new hash"
    page = (vaults["standalone"] / "Classes" / "Artificer.md").read_text()
    assert f'  - "{new_hash} raw/Artificer clip.md"\n' in page, page

    blocked, untouched = answers["blocked"]
    assert untouched, "a blocked write changes nothing"
    is_error, code, message = blocked["move"]
    assert (is_error, code) == (True, "convention_blocked") and "the convention `schema` is `severity: block`" in message, message
    is_error, code, message = blocked["property"]
    assert (is_error, code) == (True, "page_refused") and "the convention `unresolved_link`" in message, message
    assert answers["allowed"][0] is False, answers["allowed"]
    for edge in ("plugin", "standalone"):
        assert (vaults[edge] / "raw" / "Artificer clip.md").read_text() == RECAPTURED, "the source stays as captured"
