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
