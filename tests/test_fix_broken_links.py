"""fix_broken_links through the official MCP Python SDK on a copy of a real wiki (the corpora's
`dnd-srd-wiki`) damaged on purpose (`damage.py`: typos, notes renamed and links left with a
moved note's old folder, headings renamed), checked against the damage's answer key: at the
default floor no link is repaired to a note it did not mean; precision and recall are printed;
undo_change gives the damaged vault back byte for byte."""

import asyncio

from conftest import snapshot
from damage import damage
from test_bulk import corpus_copy
from test_mcp_quality import session_on


async def repair(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        repairs, cursor = [], None
        while True:
            page = (await session.call_tool("fix_broken_links", {"limit": 500, **({"cursor": cursor} if cursor else {})})).structured_content
            assert "plan_hash" in page, page
            repairs += page["repairs"]
            first = first if cursor else page
            cursor = page.get("next_cursor")
            if cursor is None:
                break
        damaged = snapshot(vault)
        applied = (await session.call_tool("fix_broken_links", {"approved_plan_hash": first["plan_hash"]})).structured_content
        fixed = snapshot(vault)
        undone = await session.call_tool("undo_change", {"dry_run": False})
        assert not undone.is_error, undone.structured_content
        return first, repairs, applied, damaged, fixed, snapshot(vault)


def score(key, repairs):
    """Each damaged link's repair against the key: right, wrong, or left."""
    by_link = {}
    for repair in repairs:
        by_link.setdefault((repair["note"], repair["line"], repair["before"]), []).append(repair)
    right, wrong, left = [], [], []
    for damaged in key:
        found = by_link.get((damaged.note, damaged.line, damaged.link))
        if not found:
            left.append(damaged)
            continue
        repair = found[0]
        meant = repair["target"] == damaged.meant and (damaged.heading is None or repair["after"].endswith(f"#{damaged.heading}]]"))
        (right if meant else wrong).append((damaged, repair))
    return right, wrong, left


def test_the_damage_is_repaired_to_the_notes_meant_and_undone_byte_for_byte(tmp_path, runtime_dir):
    vault = corpus_copy(tmp_path, "damaged")
    damaged = damage(vault, seed=42)
    kinds = {entry.kind for entry in damaged.key}
    assert kinds == {"typo", "renamed", "moved", "heading"}, kinds

    first, repairs, applied, before, fixed, after = asyncio.run(repair(vault, runtime_dir, "standalone"))
    right, wrong, left = score(damaged.key, repairs)
    assert wrong == [], f"repaired to a note it did not mean: {wrong}"
    precision = len(right) / max(1, len(right) + len(wrong))
    recall = len(right) / len(damaged.key)
    by_kind = {kind: (sum(1 for entry, _ in right if entry.kind == kind), sum(1 for entry in damaged.key if entry.kind == kind))
               for kind in sorted(kinds)}
    print(f"\nfix_broken_links on dnd-srd-wiki, seed {damaged.seed}: precision {precision:.2f}, recall {recall:.2f} "
          f"({len(right)} of {len(damaged.key)}); by kind {by_kind}; left: {[(entry.kind, entry.link) for entry in left]}")
    assert recall >= 0.8, f"recall {recall:.2f}: left {[(entry.kind, entry.link) for entry in left]}"
    for kind, (repaired, total) in by_kind.items():
        assert repaired > 0, f"no `{kind}` damage was repaired of {total}"

    assert applied["applied"] is True and applied["links_repaired"] == first["links_repaired"], applied
    assert fixed != before, "the repairs were written"
    assert after == before, "undo_change gives the damaged vault back byte for byte"
