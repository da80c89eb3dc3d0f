"""The link graph's reads as an agent calls them, through the official MCP Python SDK, on both
paths (the plugin and the folder) with equal answers, on a copy of a real vault (the corpora's
`kepano-obsidian`, whose notes link to category pages): find_link_paths and link_graph's hubs,
islands, cycles and health. Each answer is checked against what the other tools say of the same
vault (a step of a path or a cycle is a link get_outgoing_links lists; a hub's in-degree is the
number of notes get_backlinks names), and every page of a paged list is read, so the pages add
up to the total."""

from conftest import corpus_copy, on_both_paths, snapshot
from test_mcp_quality import session_on


def graph_copy(tmp_path, name):
    copy = corpus_copy(tmp_path, "kepano-obsidian", name)
    # An island of its own, a note no other reaches, and a cycle of three the test knows.
    (copy / "Island").mkdir()
    (copy / "Island" / "One.md").write_text("# One\n\n[[Two]]\n")
    (copy / "Island" / "Two.md").write_text("# Two\n\n[[Three]]\n")
    (copy / "Island" / "Three.md").write_text("# Three\n\nBack to [[One]].\n")
    return copy.resolve()


async def every_page(session, tool, arguments, items, limit=50):
    """Every item of a paged answer, and the first page."""
    found, cursor, first = [], None, None
    while True:
        page = (await session.call_tool(tool, {**arguments, "limit": limit, **({"cursor": cursor} if cursor else {})})).structured_content
        first = first or page
        found += page[items]
        cursor = page.get("next_cursor")
        if not cursor:
            return first, found


async def targets_of(session, note):
    """The notes `note` links to, as get_outgoing_links resolves its links."""
    _, links = await every_page(session, "get_outgoing_links", {"path": note}, "links", limit=1000)
    return {link.get("resolved_path") for link in links}


async def graph_reads(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        health = (await session.call_tool("link_graph", {"question": "health"})).structured_content
        # Every lint carries the whole vault's health, whatever its folder and kinds.
        lint_health = (await session.call_tool("lint_wiki", {"folder": "Island", "kinds": ["orphan"], "limit": 1})).structured_content["health"]
        hubs_first, hubs = await every_page(session, "link_graph", {"question": "hubs"}, "hubs")
        islands_first, islands = await every_page(session, "link_graph", {"question": "islands", "response_format": "concise"}, "islands")
        cycles_first, cycles = await every_page(session, "link_graph", {"question": "cycles", "min_length": 3, "max_length": 3}, "cycles")
        top = hubs[0]["path"]
        _, backlinks = await every_page(session, "get_backlinks", {"path": top}, "backlinks", limit=1000)
        linking = sorted({link["source"] for link in backlinks} - {top})
        # A note that links to the top hub reaches it in one link; the hub reaches it back
        # walking that link backwards; the island is reached from nowhere else.
        one = (await session.call_tool("find_link_paths", {"from": linking[0], "to": top})).structured_content
        back = (await session.call_tool("find_link_paths", {"from": top, "to": linking[0], "direction": "any"})).structured_content
        far = (await session.call_tool("find_link_paths", {"from": top, "to": "Island/One", "direction": "any"})).structured_content
        two = (await session.call_tool("find_link_paths", {"from": "Island/One", "to": "Island/Three"})).structured_content
        steps_checked = []
        walks = [(cycle["notes"], True) for cycle in cycles[:20]] + [(path["notes"], False) for path in two["paths"]]
        for notes, closed in walks:
            pairs = zip(notes, notes[1:] + ([notes[0]] if closed else []))
            steps_checked += [(note, following, following in await targets_of(session, note)) for note, following in pairs]
        refused = await session.call_tool("link_graph", {"question": "hubs", "min_length": 3})
        return {
            "health": health, "lint_health": lint_health, "hubs": hubs, "hubs_total": hubs_first["total"], "cut_points": hubs_first["cut_points"],
            "islands": islands, "islands_first": {key: value for key, value in islands_first.items() if key not in ("islands", "next_cursor")},
            "cycles": cycles, "cycles_total": cycles_first["total"], "linking": linking, "top_in": len(linking),
            "one": one, "back": back, "far": far, "two": two, "steps": steps_checked,
            "refused": (refused.is_error, refused.structured_content.get("code")),
        }


def test_the_graph_reads_agree_on_both_paths_and_with_the_other_tools(tmp_path, runtime_dir):
    vaults = {mode: graph_copy(tmp_path, mode) for mode in ("plugin", "standalone")}
    before = snapshot(vaults["standalone"])
    through_plugin, standalone = on_both_paths(vaults, runtime_dir, graph_reads)
    assert through_plugin == standalone, "both paths answer alike"
    assert snapshot(vaults["standalone"]) == before, "the reads write nothing"
    answer = standalone
    notes = sum(1 for _ in vaults["standalone"].rglob("*.md"))
    health = answer["health"]
    assert health["question"] == "health" and health["notes"] == notes
    assert answer["lint_health"] == {key: value for key, value in health.items() if key != "question"}, "lint reports the same health"
    assert sum(island["size"] for island in answer["islands"]) == notes, "every note is in one island"
    assert len(answer["islands"]) == answer["islands_first"]["total"] == health["island_count"]
    assert answer["islands_first"]["largest_island"] == health["largest_island"] == answer["islands"][0]["size"]
    assert 0 < health["largest_island_share"] <= 1 and health["broken_ratio"] == round(health["broken_links"] / health["links"], 4)
    # Hubs: most linked first, the in-degree the number of notes that link there.
    degrees = [hub["in_degree"] for hub in answer["hubs"]]
    assert degrees == sorted(degrees, reverse=True) and len(answer["hubs"]) == answer["hubs_total"]
    assert answer["hubs"][0]["in_degree"] == answer["top_in"]
    assert answer["cut_points"] == sum(hub["cut_point"] for hub in answer["hubs"]) > 0
    # Paths: one link from a note that links to the hub; the link is the note's own.
    one = answer["one"]
    assert one["length"] == 1 and one["paths"][0]["notes"] == [answer["linking"][0], one["to"]]
    assert one["paths"][0]["links"][0]["source"] == answer["linking"][0]
    back = answer["back"]
    assert back["length"] == 1 and back["paths"][0]["links"][0]["direction"] == "backward"
    assert "length" not in answer["far"] and answer["far"]["paths"] == [] and "islands" in answer["far"]["reason"]
    assert answer["two"]["length"] == 2 and answer["two"]["paths"][0]["notes"] == ["Island/One.md", "Island/Two.md", "Island/Three.md"]
    # Cycles: the one the test made is there, once; every step of every cycle is a real link.
    assert ["Island/One.md", "Island/Two.md", "Island/Three.md"] in [cycle["notes"] for cycle in answer["cycles"]]
    assert len(answer["cycles"]) == answer["cycles_total"]
    assert all(len(cycle["notes"]) == 3 for cycle in answer["cycles"])
    assert answer["steps"] and all(found for _, _, found in answer["steps"]), [step for step in answer["steps"] if not step[2]]
    assert answer["refused"] == (True, "invalid_arguments")
