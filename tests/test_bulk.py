"""bulk_move_notes through the official MCP Python SDK on a copy of a real wiki (the corpora's
`dnd-srd-wiki`), on both paths with equal answers: 50 notes move in one proven batch, two of
them swapping names. Every link that found a note before finds the same note after (at its new
path); no byte outside a link changes; undo_change then gives the vault back byte for byte."""

from pathlib import Path

from conftest import corpus_copy, on_both_paths, snapshot
from test_mcp_quality import session_on

CORPUS = "dnd-srd-wiki"


def the_moves(vault):
    """The two most linked spells swap names, and the next 48 move to another folder, so links
    must follow every one."""
    # Names a link can hold (the corpus has some, such as `# Spellcasting.md`, that no move may give).
    linkable = lambda path: not any(character in path.name for character in '[]#^|:\\*"<>?')
    spells = [path for path in (vault / "Spells").rglob("*.md") if linkable(path)]
    texts = "\n".join(path.read_text() for path in vault.rglob("*.md"))
    linked = sorted(spells, key=lambda path: (-texts.count(f"[[{path.stem}"), path.name))
    chosen = [str(path.relative_to(vault)) for path in linked[:50]]
    assert len(chosen) == 50 and texts.count(f"[[{Path(chosen[49]).stem}") > 0, "the corpus has the linked notes this test moves"
    moves = [{"from": chosen[0], "to": chosen[1]}, {"from": chosen[1], "to": chosen[0]}]
    moves += [{"from": path, "to": f"Moved/{path}"} for path in chosen[2:]]
    return moves


async def links_of(session, paths):
    found = {}
    for path in paths:
        found[path], cursor = [], None
        while True:
            arguments = {"path": path, "limit": 1000, **({"cursor": cursor} if cursor else {})}
            answer = (await session.call_tool("get_outgoing_links", arguments)).structured_content
            found[path] += answer["links"]
            cursor = answer.get("next_cursor")
            if cursor is None:
                break
    return found


async def bulk(vault, runtime_dir, mode):
    moves = the_moves(vault)
    where = {move["from"]: move["to"] for move in moves}
    async with session_on(vault, runtime_dir, mode) as (session, _):
        notes = [note["path"] for note in (await session.call_tool("list_notes", {"limit": 1000})).structured_content["notes"]]
        before_texts = {path: (vault / path).read_text() for path in notes}
        before = await links_of(session, notes)
        untouched = snapshot(vault)
        preview = (await session.call_tool("bulk_move_notes", {"moves": moves})).structured_content
        assert "plan_hash" in preview, preview
        applied = await session.call_tool("bulk_move_notes", {"moves": moves, "approved_plan_hash": preview["plan_hash"]})
        assert not applied.is_error, applied.structured_content
        after = await links_of(session, [where.get(path, path) for path in notes])
        after_texts = {path: (vault / where.get(path, path)).read_text() for path in notes}
        undone = await session.call_tool("undo_change", {"dry_run": False})
        assert not undone.is_error, undone.structured_content
        back = snapshot(vault) == untouched
    return {"preview": {key: preview[key] for key in ("plan_hash", "files_moved", "links_changed", "notes_edited")},
            "applied": applied.structured_content["change_id"], "before": before, "after": after,
            "before_texts": before_texts, "after_texts": after_texts, "where": where, "back": back}


def outside_links(text, links):
    """The note's bytes with every link's span cut out."""
    data, kept, at = text.encode(), [], 0
    for link in sorted(links, key=lambda link: link["span"]["start"]):
        kept.append(data[at:link["span"]["start"]])
        at = link["span"]["end"]
    kept.append(data[at:])
    return kept


def test_a_bulk_move_of_50_notes_with_a_swap_proves_every_link_and_changes_nothing_outside_links(tmp_path, runtime_dir):
    vaults = {"plugin": corpus_copy(tmp_path, CORPUS, "plugin"), "standalone": corpus_copy(tmp_path, CORPUS, "standalone")}
    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, bulk)
    assert through_plugin["preview"] == on_folder["preview"] and through_plugin["applied"] == on_folder["applied"]
    assert through_plugin["after_texts"] == on_folder["after_texts"], "both paths write the same bytes"

    result = on_folder
    where = result["where"]
    assert result["preview"]["files_moved"] == 50 and result["preview"]["links_changed"] > 0
    for path, links in result["before"].items():
        moved_to = where.get(path, path)
        after = result["after"][moved_to]
        assert len(after) == len(links), path
        for old, new in zip(links, after):
            if old["status"] == "resolved":
                expected = where.get(old["resolved_path"], old["resolved_path"])
                assert (new["status"], new["resolved_path"]) == ("resolved", expected), f"{path}: {old['target']} -> {new['target']}"
            else:
                assert new["status"] == old["status"], f"{path}: {old['target']}"
        assert outside_links(result["before_texts"][path], links) == outside_links(result["after_texts"][path], after), \
            f"{path}: a byte outside its links changed"
    assert through_plugin["back"] and on_folder["back"], "undo_change gives the vault back byte for byte"
