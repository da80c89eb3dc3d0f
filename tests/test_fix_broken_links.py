"""fix_broken_links through the official MCP Python SDK on a copy of a real wiki (the corpora's
`dnd-srd-wiki`) damaged on purpose (`damage.py`: typos, notes renamed and links left with a
moved note's old folder, headings renamed), checked against the damage's answer key: at the
default floor no link is repaired to a note it did not mean; precision and recall are printed;
undo_change gives the damaged vault back byte for byte."""


from conftest import corpus_copy, on_both_paths, snapshot, write_vault
from damage import damage
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
    vaults = {mode: corpus_copy(tmp_path, "dnd-srd-wiki", mode) for mode in ("plugin", "standalone")}
    keys = {mode: damage(vault, seed=42) for mode, vault in vaults.items()}
    assert keys["plugin"].key == keys["standalone"].key, "the damage is the seed's"
    damaged = keys["standalone"]
    kinds = {entry.kind for entry in damaged.key}
    assert kinds == {"typo", "renamed", "moved", "heading"}, kinds

    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, repair)
    assert through_plugin[:2] == on_folder[:2], "both paths preview the same repairs"
    assert through_plugin[5] == through_plugin[3], "undo_change through the plugin gives the damaged vault back byte for byte"
    first, repairs, applied, before, fixed, after = on_folder
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


# One broken link of each kind of evidence, and one in each place no repair may reach: code, a
# template expression and a read-only source folder.
KINDS_VAULT = {
    "SCHEMA.md": "---\nsource_folders: [raw]\n---\n",
    "raw/Clip.md": "[[Opportunity atack]]\n",
    "Notes.md": "[[my-note]] [[Old/Place/Topic]] [[Lovelace]] [[Kickoff]] [[Opportunity atack]] [[Guide#Instalation]]\n"
                "`[[Opportunity atack]]` <% tp.file.include(\"[[Opportunity atack]]\") %> {{[[Opportunity atack]]}}\n"
                "```\n[[Opportunity atack]]\n```\n",
    "My Note.md": "x\n",
    "New/Topic.md": "x\n",
    "People/Ada Lovelace.md": "---\naliases: [Lovelace]\n---\nx\n",
    "2024-01-01.md": "# Kickoff\n",
    "Opportunity attack.md": "x\n",
    "Guide.md": "# Guide\n## Installation\n",
}


async def fix_kinds(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        preview = (await session.call_tool("fix_broken_links", {})).structured_content
        applied = (await session.call_tool("fix_broken_links", {"approved_plan_hash": preview["plan_hash"]})).structured_content
        listed = (await session.call_tool("list_changes", {})).structured_content
        return preview, applied, listed, (vault / "Notes.md").read_text(), (vault / "raw/Clip.md").read_text()


def test_each_kind_of_evidence_is_repaired_and_no_link_in_code_templates_or_sources_on_both_paths(tmp_path, runtime_dir):
    vaults = {mode: write_vault(tmp_path / mode, KINDS_VAULT) for mode in ("plugin", "standalone")}
    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, fix_kinds)
    assert through_plugin[0] == on_folder[0], "both paths preview the same repairs"
    for preview, applied, listed, notes, clip in (through_plugin, on_folder):
        evidence = [(repair["before"], repair["after"], repair["evidence"]) for repair in preview["repairs"]]
        assert evidence == [
            ("[[my-note]]", "[[My Note]]", "name_form"),
            ("[[Old/Place/Topic]]", "[[Topic]]", "unique_name"),
            ("[[Lovelace]]", "[[Ada Lovelace]]", "alias"),
            ("[[Kickoff]]", "[[2024-01-01]]", "title"),
            ("[[Opportunity atack]]", "[[Opportunity attack]]", "similar"),
            ("[[Guide#Instalation]]", "[[Guide#Installation]]", "heading_renamed"),
        ], preview
        assert [link["reason"] for link in preview["unrepaired"]] == ["template_expression", "template_expression"]
        assert [link["note"] for link in preview["links_left_in_sources"]] == ["raw/Clip.md"]
        assert applied["applied"] is True and applied["change_id"], applied
        assert listed["changes"][0]["tool"] == "fix_broken_links" and listed["changes"][0]["undoable"] is True, listed
        assert notes == KINDS_VAULT["Notes.md"].replace(
            "[[my-note]] [[Old/Place/Topic]] [[Lovelace]] [[Kickoff]] [[Opportunity atack]] [[Guide#Instalation]]",
            "[[My Note]] [[Topic]] [[Ada Lovelace]] [[2024-01-01]] [[Opportunity attack]] [[Guide#Installation]]")
        assert clip == KINDS_VAULT["raw/Clip.md"], "a source folder is never written"
