"""The wiki workflow an agent follows, through the official MCP Python SDK, on both paths (the
plugin and the folder) with equal answers: find_existing_page, commit_wiki_page (preview, then
apply), lint_wiki. Run on a copy of a real wiki (the corpora's `dnd-srd-wiki`) given a
SCHEMA.md; each refusal (a broken link, a missing required property, a stale `prev_hashes`
entry, a name no link can find) leaves the vault byte for byte as it was."""

import hashlib
from conftest import corpora_root, corpus_copy as copy_of_corpus, on_both_paths, on_both_sample_vaults, snapshot
from test_mcp_quality import session_on

CORPUS = corpora_root() / "dnd-srd-wiki"

SCHEMA = """---
types:
  class: {description: A character class, required: [type, summary], folder: Classes}
properties:
  type: [class]
  summary:
  related:
---
# Schema of the classes
"""

PAGE = {
    "path": "Classes/Artificer",
    "frontmatter": {"type": "class", "summary": "A maker of magical items", "related": "[[Wizard]]"},
    "body": "# Artificer\n\nA tinkerer, close to the [[Wizard]] and the [[Classes/Bard|Bard]].\n",
}


def corpus_copy(tmp_path, name):
    copy = copy_of_corpus(tmp_path, CORPUS.name, name)
    (copy / "SCHEMA.md").write_text(SCHEMA)
    return copy.resolve()


def findings(report):
    return sorted((proposal["kind"], proposal["subject"], proposal.get("detail", "")) for proposal in report["proposals"])


async def lint_all(session):
    """Every finding of lint_wiki, page after page."""
    found, cursor = [], None
    while True:
        arguments = {"limit": 200, **({"cursor": cursor} if cursor else {})}
        page = (await session.call_tool("lint_wiki", arguments)).structured_content
        found += findings(page)
        cursor = page.get("next_cursor")
        if not cursor:
            return found


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def workflow(vault, runtime_dir, mode):
    """The agent's calls; returns what each answered, the findings before and after, and the
    vault after each refusal."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        existing = (await session.call_tool("find_existing_page", {"topic": "Artificer"})).structured_content
        before = await lint_all(session)
        wizard = vault / "Classes" / "Wizard.md"
        refused = {}
        for name, arguments in {
            "broken link": {"page": {**PAGE, "body": PAGE["body"] + "See [[No such class]].\n"}},
            "missing required property": {"page": {**PAGE, "frontmatter": {"type": "class"}}},
            "stale prev_hash": {"page": PAGE, "patches": [{"path": "Classes/Wizard.md", "kind": "link"}],
                                "prev_hashes": {"Classes/Wizard.md": "0" * 64}},
            "unlinkable name": {"page": {**PAGE, "path": "Classes/Arti#ficer"}},
            "outside the type's folder": {"page": {**PAGE, "path": "Artificer"}},
        }.items():
            untouched = snapshot(vault)
            answer = await session.call_tool("commit_wiki_page", {**arguments, "dry_run": False})
            refused[name] = (answer.is_error, answer.structured_content["code"], snapshot(vault) == untouched)
        # The draft: no page yet, the notes that mention the topic, the schema's rules, a skeleton.
        draft = (await session.call_tool("draft_wiki_page", {"topic": "Artificer", "type": "class"})).structured_content
        skeleton = draft["skeleton"]
        assert skeleton["page"]["path"] == "Classes/Artificer.md" and draft["schema"]["required"] == ["type", "summary"]
        assert set(skeleton["page"]["frontmatter"]) == {"type", "summary"}
        # The agent writes the prose, fills the properties, and links the page from the Wizard too.
        page = {**skeleton["page"], "body": PAGE["body"], "frontmatter": PAGE["frontmatter"]}
        patches = skeleton["patches"] + [{"path": "Classes/Wizard.md", "kind": "link"}]
        arguments = {"page": page, "patches": patches, "prev_hashes": {**skeleton["prev_hashes"], "Classes/Wizard.md": sha(wizard)}}
        preview = (await session.call_tool("commit_wiki_page", arguments)).structured_content
        assert "plan_hash" in preview, preview
        applied = await session.call_tool("commit_wiki_page", {**arguments, "approved_plan_hash": preview["plan_hash"]})
        assert not applied.is_error, applied.structured_content
        after = await lint_all(session)
        backlinks = (await session.call_tool("get_backlinks", {"path": "Classes/Artificer.md"})).structured_content
    return {"existing": existing, "draft": draft, "refused": refused, "preview": preview, "applied": applied.structured_content,
            "new_findings": sorted(set(after) - set(before)), "backlinks": sorted(b["source"] for b in backlinks["backlinks"])}


def test_draft_commit_and_lint_a_page_on_a_real_wiki_through_both_paths(tmp_path, runtime_dir):
    vaults = {"plugin": corpus_copy(tmp_path, "plugin"), "standalone": corpus_copy(tmp_path, "standalone")}
    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, workflow)
    assert through_plugin == on_folder, "both paths answer alike"

    answers = on_folder
    assert answers["existing"]["verdict"] != "exists", answers["existing"]
    for name, (is_error, code, untouched) in answers["refused"].items():
        assert (is_error, code, untouched) == (True, "page_refused", True), name
    assert answers["applied"]["applied"] is True and answers["applied"]["path"] == "Classes/Artificer.md"
    assert answers["new_findings"] == [], "the page brings no new lint finding"
    assert "Classes/Wizard.md" in answers["backlinks"]

    page = (vaults["standalone"] / "Classes" / "Artificer.md").read_text()
    assert page.startswith('---\ntype: class\nsummary: A maker of magical items\nrelated: "[[Wizard]]"\n---\n# Artificer\n')
    wizard = (vaults["standalone"] / "Classes" / "Wizard.md").read_text()
    original = (CORPUS / "Classes" / "Wizard.md").read_text()
    assert wizard.startswith(original.rstrip()), "the patch only adds"
    assert wizard.rstrip().endswith("## See also\n\n- [[Artificer]]")
    assert snapshot(vaults["plugin"]) == snapshot(vaults["standalone"]), "both vaults end byte for byte alike"


async def commit_a_long_page(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        body = "See [[Ada]].\n\n" + "A line of the long page, written out in full.\n" * 2_200
        arguments = {"page": {"path": "People/Long page", "body": body}}
        preview = (await session.call_tool("commit_wiki_page", arguments)).structured_content
        applied = await session.call_tool("commit_wiki_page", {**arguments, "approved_plan_hash": preview.get("plan_hash")})
        return applied.is_error, applied.structured_content.get("applied"), body in (vault / "People" / "Long page.md").read_text()


def test_a_page_of_100_kb_is_committed_through_both_paths(tmp_path, runtime_dir):
    """Issue 34: commit_wiki_page could not write a page over 4,096 characters, the cap for names
    and targets; a page's body is held to the note size limit instead, on both paths."""
    through_plugin, on_folder = on_both_sample_vaults(tmp_path, runtime_dir, commit_a_long_page)
    assert through_plugin == on_folder == (False, True, True)


# The classes' schema, before and once `raw/` holds the wiki's sources.
CLASSES_SCHEMA = """---
types:
  class: {description: A character class, required: [type, summary, sources], folder: Classes}
properties:
  type: [class]
  summary:
  related:
  sources:
---
"""
SOURCES_SCHEMA = CLASSES_SCHEMA.removesuffix("---\n") + """source_folders: [raw]
---
# Schema of the classes, drawn from the clippings in raw/
"""

CLIP = """---
url: https://example.org/artificer
captured: 2026-11-30
---
# The Artificer, as clipped

Artificers are masters of invention; gnomes often become artificers, tinkering beside the wizard.
"""


def sources_copy(tmp_path, name):
    copy = corpus_copy(tmp_path, name)
    (copy / "SCHEMA.md").write_text(SOURCES_SCHEMA)
    (copy / "raw").mkdir()
    (copy / "raw" / "Artificer clip.md").write_text(CLIP)
    return copy


async def agent_with_sources(vault, runtime_dir, mode):
    """Issue 37's agent: checks for a page, drafts one from a clipped source, hits the duplicate
    refusal once and the raw-folder rule once, commits with patches, and lints."""
    async with session_on(vault, runtime_dir, mode) as (session, _):
        before = await lint_all(session)
        existing = (await session.call_tool("find_existing_page", {"topic": "Artificer"})).structured_content
        draft = (await session.call_tool("draft_wiki_page", {"topic": "Artificer", "type": "class",
                                                              "source": "raw/Artificer clip.md"})).structured_content
        skeleton = draft["skeleton"]
        page = {**skeleton["page"], "frontmatter": {**skeleton["page"]["frontmatter"], "summary": "A maker of magical items"},
                "body": "# Artificer\n\nA tinkerer, close to the [[Wizard]].\n"}
        refusals = {}
        # A second Wizard page, known by the Wizard's name, and one that patches the clip.
        for name, arguments in {
            "duplicate": {"page": {**page, "path": "Classes/Arcane tinkerer",
                                   "frontmatter": {**page["frontmatter"], "aliases": ["Wizard"]}}},
            "raw folder": {"page": page, "patches": [{"path": "raw/Artificer clip.md", "kind": "link"}]},
        }.items():
            untouched = snapshot(vault)
            answer = await session.call_tool("commit_wiki_page", {**arguments, "dry_run": False})
            content = answer.structured_content
            refusals[name] = (answer.is_error, content["code"], snapshot(vault) == untouched, content["message"])
        # The refused duplicate left the Wizard the one page of its name.
        wizard = (await session.call_tool("find_existing_page", {"topic": "Wizard"})).structured_content
        refusals["wizard after"] = (wizard["verdict"], [candidate["path"] for candidate in wizard["candidates"]][:1])
        arguments = {"page": page, "patches": skeleton["patches"] + [{"path": "Classes/Wizard.md", "kind": "link"}],
                     "prev_hashes": {**skeleton["prev_hashes"], "Classes/Wizard.md": sha(vault / "Classes" / "Wizard.md")}}
        preview = (await session.call_tool("commit_wiki_page", arguments)).structured_content
        applied = (await session.call_tool("commit_wiki_page", {**arguments, "approved_plan_hash": preview["plan_hash"]})).structured_content
        # The page replaced deliberately, with the hash it was read with, then the replacement undone.
        written = (vault / "Classes" / "Artificer.md").read_text()
        overwrite = {"page": {**page, "body": page["body"] + "\nArtificers infuse items.\n", "mode": "overwrite",
                              "prev_hash": applied["content_hash"]}, "dry_run": False}
        overwritten = (await session.call_tool("commit_wiki_page", overwrite)).structured_content
        replaced = (vault / "Classes" / "Artificer.md").read_text()
        undone = await session.call_tool("undo_change", {"change_id": overwritten["change_id"], "dry_run": False})
        restored = (vault / "Classes" / "Artificer.md").read_text() == written
        after = await lint_all(session)
    return {"existing": existing["verdict"], "draft": draft, "refusals": refusals, "preview": preview, "applied": applied,
            "overwritten": (overwritten["applied"], "Artificers infuse items." in replaced, undone.is_error, restored),
            "new_findings": sorted(set(after) - set(before))}


def test_an_agent_drafts_from_a_source_and_is_refused_a_duplicate_and_the_raw_folder_through_both_paths(tmp_path, runtime_dir):
    vaults = {"plugin": sources_copy(tmp_path, "plugin"), "standalone": sources_copy(tmp_path, "standalone")}
    through_plugin, on_folder = on_both_paths(vaults, runtime_dir, agent_with_sources)
    for answers in (through_plugin, on_folder):
        for answer in (answers["preview"], answers["applied"]):
            answer.pop("change_id", None)
    assert through_plugin == on_folder, "both paths answer alike"

    answers = on_folder
    assert answers["existing"] != "exists"
    draft = answers["draft"]
    assert draft["skeleton"]["page"]["frontmatter"]["sources"] == ["[[Artificer clip]]"]
    proposed = [note["path"] for note in draft["link_from"]]
    assert "Races/Gnome.md" in proposed and not any(path.startswith("raw/") for path in proposed), proposed
    is_error, code, untouched, message = answers["refusals"]["duplicate"]
    assert (is_error, code, untouched) == (True, "duplicate_page", True) and "`Classes/Wizard.md`" in message, message
    assert answers["refusals"]["wizard after"] == ("exists", ["Classes/Wizard.md"]), answers["refusals"]["wizard after"]
    is_error, code, untouched, message = answers["refusals"]["raw folder"]
    assert (is_error, code, untouched) == (True, "read_only_source", True) and "raw/Artificer clip.md" in message, message

    applied = answers["applied"]
    assert applied["applied"] is True and applied["path"] == "Classes/Artificer.md"
    assert applied["problems"] == answers["preview"]["problems"]
    assert [(source["path"], source["cited_by"]) for source in applied["ingested"]] == [
        ("raw/Artificer clip.md", ["Classes/Artificer.md"])]
    assert applied["ingested"][0]["content_hash"] == hashlib.sha256(CLIP.encode()).hexdigest()
    assert answers["overwritten"] == (True, True, False, True), "overwritten in place, then undone"
    assert answers["new_findings"] == [], "the page brings no new lint finding"
    for edge in ("plugin", "standalone"):
        assert (vaults[edge] / "raw" / "Artificer clip.md").read_text() == CLIP, "the source stays as captured"
    assert snapshot(vaults["plugin"]) == snapshot(vaults["standalone"]), "both vaults end byte for byte alike"
