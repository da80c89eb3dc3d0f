"""What an agent sees of `update_properties` and `rewrite_link` on the notes it meets: frontmatter
in every YAML form is edited keeping every other byte or refused with a typed code, never
`internal`; an edit that changes nothing writes nothing and says so; a rewrite that would break
working links is refused unless asked for, and says how many it breaks. Through the official
Python SDK, on both edges where the edge carries the change out."""

import asyncio

from conftest import snapshot
from test_edges import through_both_edges
from test_mcp_end_to_end import session_calls

# A block scalar with a blank line inside, as most notes of one real vault held it.
FOLDED = "---\nsummary: >\n  one\n\n  two\nstatus: draft\n---\n# Folded\n\nBody [[Ada]].\n"


def test_update_properties_edits_a_note_with_a_blank_line_in_a_block_scalar_on_both_edges(tmp_path, runtime_dir):
    arguments = {"path": "Folded.md", "set": {"status": "done"}}
    vaults, through_plugin, on_folder, _ = through_both_edges(
        "update_properties", arguments, tmp_path, runtime_dir, {"Folded.md": FOLDED})
    assert through_plugin == on_folder
    for vault in vaults.values():
        assert (vault / "Folded.md").read_text() == FOLDED.replace("status: draft", "status: done")


def test_update_properties_refuses_what_it_cannot_edit_with_a_typed_code_and_writes_nothing(vault, runtime_dir):
    # Removing the anchor another entry uses cannot keep that entry's value.
    (vault / "Anchored.md").write_text("---\nbase: &b 1\nuse: *b\n---\nBody\n")
    before = snapshot(vault)
    _, _, (refused,) = asyncio.run(session_calls(
        vault, runtime_dir, "standalone", [("update_properties", {"path": "Anchored.md", "remove": ["base"], "dry_run": False})]))
    assert refused.is_error is True
    assert refused.structured_content["code"] == "unwritable_note", refused.structured_content
    assert "anchor" in refused.structured_content["hint"]
    assert snapshot(vault) == before


def test_update_properties_that_changes_nothing_writes_nothing_and_says_so(vault, runtime_dir):
    before = snapshot(vault)
    call = ("update_properties", {"path": "People/Ada", "set": {"role": "lead"}, "remove": ["absent"], "dry_run": False})
    _, _, (same,) = asyncio.run(session_calls(vault, runtime_dir, "standalone", [call]))
    assert same.is_error is False, same.structured_content
    answer = same.structured_content
    assert answer["unchanged"] is True and answer["applied"] is False and "change_id" not in answer
    assert answer["set"] == [] and answer["removed"] == []
    assert snapshot(vault) == before


def test_rewrite_link_refuses_to_break_working_links_unless_allowed(vault, runtime_dir):
    before = snapshot(vault)
    breaking = {"from_target": "Ada", "to_target": "Nobody by that name"}
    calls = [
        ("rewrite_link", breaking),
        ("rewrite_link", {**breaking, "dry_run": False}),
        ("rewrite_link", {**breaking, "allow_unresolved": True}),
    ]
    _, _, (refused, refused_apply, allowed) = asyncio.run(session_calls(vault, runtime_dir, "standalone", calls))
    for refusal in (refused, refused_apply):
        assert refusal.is_error is True
        error = refusal.structured_content
        assert error["code"] == "breaks_links", error
        assert "links that find a note today" in error["message"] and "allow_unresolved: true" in error["hint"]
    assert snapshot(vault) == before, "a refused rewrite writes nothing"
    preview = allowed.structured_content
    assert allowed.is_error is False, preview
    assert preview["dry_run"] is True and preview["links_broken"] == preview["links_changed"] > 0
    assert f"leave {preview['links_broken']} links" in refused.structured_content["message"]


# A canvas as Obsidian writes it: a file card showing a heading of Inbox.md and a text card whose
# Markdown (JSON-escaped) links it twice.
CANVAS = (
    '{\n\t"nodes":[\n'
    '\t\t{"id":"6f0ad84f44ce9c17","type":"file","file":"Inbox.md","subpath":"#Today","x":0,"y":0,"width":400,"height":400},\n'
    '\t\t{"id":"a1b2c3d4e5f60718","type":"text","text":"## Inbox\\n[[Inbox]] and [[Inbox#Today|\\"today\\"]]","x":500,"y":0,"width":250,"height":60}\n'
    '\t],\n\t"edges":[]\n}\n'
)


def test_rewrite_link_repoints_canvas_cards_alike_on_both_edges(tmp_path, runtime_dir):
    arguments = {"from_target": "Inbox", "to_target": "Home"}
    vaults, through_plugin, on_folder, _ = through_both_edges(
        "rewrite_link", arguments, tmp_path, runtime_dir, {"Boards/Inbox.canvas": CANVAS})
    assert through_plugin == on_folder
    assert snapshot(vaults["plugin"]) == snapshot(vaults["standalone"])
    expected = (CANVAS.replace('"file":"Inbox.md"', '"file":"Home.md"')
                .replace("[[Inbox]] and [[Inbox#Today", "[[Home]] and [[Home#Today"))
    for vault in vaults.values():
        assert (vault / "Boards" / "Inbox.canvas").read_text() == expected
    notes = {change["note"] for change in on_folder[0]["changes"]}
    assert "Boards/Inbox.canvas" in notes


SCHEMA = ("---\ntypes:\n  concept: {required: [type, summary], folder: concepts}\nproperties:\n"
          "  type: [concept]\n  summary:\n  related:\n  status: [draft, stable]\n---\n# Schema\n")


def test_update_properties_checks_what_commit_wiki_page_checks(vault, runtime_dir):
    (vault / "wiki" / "concepts").mkdir(parents=True)
    (vault / "wiki" / "SCHEMA.md").write_text(SCHEMA)
    (vault / "wiki" / "concepts" / "Graph.md").write_text("---\ntype: concept\nsummary: Nodes\nstatus: draft\n---\n# Graph\n")
    before = snapshot(vault)
    calls = [
        ("update_properties", {"path": "wiki/concepts/Graph", "set": {"status": "wild"}, "dry_run": False}),
        ("update_properties", {"path": "wiki/concepts/Graph", "set": {"colour": "red"}, "dry_run": False}),
        ("update_properties", {"path": "wiki/concepts/Graph", "set": {"status": "stable", "related": "[[Forest]]"}}),
    ]
    _, _, (off_vocabulary, unknown, linked) = asyncio.run(session_calls(vault, runtime_dir, "standalone", calls))
    for refused, named in ((off_vocabulary, "wild"), (unknown, "colour")):
        assert refused.is_error is True
        error = refused.structured_content
        assert error["code"] == "page_refused" and named in error["message"] and "wiki/SCHEMA.md" in error["message"], error
    assert snapshot(vault) == before
    assert linked.is_error is False, linked.structured_content
    assert linked.structured_content["unresolved_links"] == ['related: [[Forest]]']


# A relative markdown link two folders down, which Obsidian resolves to the root's note.
RELATIVE = {"Old note.md": "# Old note\n", "Deep/Notes/Relative.md": "See [x](../../Old%20note.md#Top) and [y](./Elsewhere.md).\n"}


def test_rewrite_link_repoints_a_relative_link_that_resolves_to_the_note_from_target_names_on_both_edges(tmp_path, runtime_dir):
    arguments = {"from_target": "Old note", "to_target": "People/Ada"}
    vaults, through_plugin, on_folder, _ = through_both_edges("rewrite_link", arguments, tmp_path, runtime_dir, RELATIVE)
    assert through_plugin == on_folder
    for vault in vaults.values():
        assert (vault / "Deep/Notes/Relative.md").read_text() == "See [x](People/Ada.md#Top) and [y](./Elsewhere.md).\n"
