"""The MCP server as an agent meets it, driven by the official MCP Python SDK: every tool's
answers checked against its advertised output schema (standalone and through the plugin),
errors an agent can act on, the server's instructions, pages that stay small on a big vault,
progress notifications, `server_health`, and the bridge failing (plugin absent, killed during a
call, restarted, sent an oversized line, holding a token we do not have).

Run by scripts/test.sh, which builds the sidecar (VAULTLINK_BIN), main.js and the plugin host.
"""

import asyncio
import collections
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
from pathlib import Path

import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from conftest import ROOT, SIDECAR, corpora_root, on_path, snapshot, start_plugin, stop_plugin

# The answer of every failed call, whatever the tool.
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "pattern": "^[a-z_]+$"},
        "message": {"type": "string", "minLength": 10},
        "hint": {"type": "string", "minLength": 10},
        "retryable": {"type": "boolean"},
    },
    "required": ["code", "message", "hint", "retryable"],
}

# The error codes README.md documents; every code a tool answers must be among them.
DOCUMENTED_CODES = set(re.findall(r"^\| `([a-z_]+)` \|", (ROOT / "README.md").read_text(), re.MULTILINE))

# At least one call of every tool, on the sample vault. Writing tools preview only.
EVERY_TOOL = [
    ("get_outgoing_links", {"path": "Projects/Alpha.md"}),
    ("get_outgoing_links", {"path": "Projects/Alpha.md", "response_format": "concise"}),
    ("get_backlinks", {"path": "People/Ada", "limit": 3}),
    ("get_backlinks", {"path": "People/Ada", "response_format": "concise"}),
    ("find_unresolved_links", {}),
    ("find_unresolved_links", {"response_format": "concise", "limit": 1}),
    ("find_orphans", {}),
    ("resolve_link", {"from": "Home.md", "link": "[[Alpha#Goals]]"}),
    ("resolve_link", {"from": "Ideas/Sync.md", "link": "Index", "response_format": "concise"}),
    ("list_notes", {}),
    ("list_notes", {"folder": "People", "response_format": "concise"}),
    ("read_note", {"path": "People/Ada"}),
    ("read_note", {"path": "Projects/Alpha", "max_bytes": 1000, "response_format": "concise"}),
    ("lint_wiki", {}),
    ("lint_wiki", {"response_format": "concise", "kinds": ["orphan"]}),
    ("find_existing_page", {"topic": "ada lovelace"}),
    ("find_evidence", {"title": "Ada"}),
    ("find_evidence", {"title": "Ada", "limit": 1, "nodes_only": True, "response_format": "concise"}),
    ("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}),
    ("rewrite_link", {"from_target": "Quarterly plan", "to_target": "Projects/Beta", "response_format": "concise"}),
    ("delete_note", {"path": "People/Ada"}),
    ("update_properties", {"path": "People/Ada", "set": {"status": "draft", "related": "[[Grace Hopper]]"}, "remove": ["aliases"]}),
    ("update_properties", {"path": "People/Ada", "set": {"status": "draft"}, "response_format": "concise"}),
    ("bulk_move_notes", {"moves": [{"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}, {"from": "Ideas", "to": "Notes/Ideas"}]}),
    ("draft_wiki_page", {"topic": "Alan Turing", "source": "People/Ada"}),
    ("draft_wiki_page", {"topic": "Ada", "response_format": "concise"}),
    ("commit_wiki_page", {"page": {"path": "People/Alan Turing", "frontmatter": {"related": "[[Ada]]"}, "body": "# Alan Turing\n"},
                          "patches": [{"path": "People/Ada", "kind": "link"}], "response_format": "detailed"}),
    ("list_changes", {}),
    ("list_changes", {"limit": 1, "response_format": "concise"}),
    ("server_health", {}),
    ("server_health", {"response_format": "concise"}),
    ("find_link_paths", {"from": "Home", "to": "People/Ada"}),
    ("find_link_paths", {"from": "People/Ada", "to": "Home", "direction": "any", "response_format": "concise"}),
    ("link_graph", {"question": "hubs"}),
    ("link_graph", {"question": "islands", "response_format": "concise"}),
    ("link_graph", {"question": "cycles", "min_length": 2, "max_length": 4}),
    ("link_graph", {"question": "health"}),
    ("detected_moves", {}),
    ("detected_moves", {"limit": 1, "response_format": "concise"}),
    ("heal_moves", {}),
    ("fix_broken_links", {}),
    ("fix_broken_links", {"path": "Projects", "min_confidence_percent": 95, "response_format": "concise"}),
    ("link_mentions", {}),
    ("link_mentions", {"path": "Projects", "first_only": True, "targets": ["People/Ada"], "response_format": "concise"}),
    # Refusals, each with its code.
    ("get_outgoing_links", {"path": "No such note.md"}),
    ("read_note", {"path": "../outside.md"}),
    ("get_backlinks", {"path": "People/Ada", "cursor": "not a cursor"}),
    ("delete_note", {"path": "People/Ada", "force": True}),
    ("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md", "approved_plan_hash": "0" * 64}),
    ("move_note", {"from": "People/Ada.md", "to": "Projects/Alpha.md"}),
    ("move_note", {"from": "People/Ada.md", "to": "People/Ada|x.md"}),
    ("commit_wiki_page", {"page": {"path": "People/Ada", "body": "[[Nowhere]]"}}),
    ("undo_change", {}),
]
EXPECTED_CODES = ["note_not_found", "invalid_path", "invalid_arguments", "invalid_arguments",
                  "plan_hash_mismatch", "destination_exists", "invalid_name", "page_refused",
                  "nothing_to_undo"]


def environment(runtime_dir):
    return {"VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_LOG": "info", "PATH": os.environ.get("PATH", "")}


@contextlib.asynccontextmanager
async def session_on(vault, runtime_dir, mode, errlog=None, extra_env=None):
    """An initialized MCP session with `vaultlink mcp` on `vault`, kept open for the test."""
    params = StdioServerParameters(command=str(SIDECAR), args=["mcp", "--vault", str(vault), "--mode", mode],
                                   env={**environment(runtime_dir), **(extra_env or {})})
    with open(errlog or os.devnull, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                yield session, init


def check_against_schemas(tools, results):
    """Each success fits its tool's output schema; each failure is {code, message, hint, retryable}."""
    codes = []
    for (name, arguments), result in zip(EVERY_TOOL, results):
        content = result.structured_content
        assert content is not None, f"{name} {arguments} answers structured content"
        if result.is_error:
            jsonschema.validate(content, ERROR_SCHEMA)
            assert content["code"] in DOCUMENTED_CODES, f"{content['code']} is in README.md's table"
            assert result.content[0].text.startswith(content["message"]), "the text is a human sentence"
            codes.append(content["code"])
        else:
            schema = tools[name].output_schema
            jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema).validate(content)
    return codes


async def call_every_tool(vault, runtime_dir, mode):
    async with session_on(vault, runtime_dir, mode) as (session, _):
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        results = [await session.call_tool(name, arguments) for name, arguments in EVERY_TOOL]
    return listed, results


@pytest.mark.parametrize("mode", ["standalone", "plugin"])
def test_every_tool_answers_within_its_output_schema(vault, runtime_dir, mode, request):
    if mode == "plugin":
        request.getfixturevalue("plugin")
    before = snapshot(vault)
    listed, results = asyncio.run(call_every_tool(vault, runtime_dir, mode))
    assert {name for name, _ in EVERY_TOOL} == set(listed), "every listed tool is called, and only those"
    for tool in listed.values():
        assert tool.title, tool.name
        annotations = tool.annotations
        assert annotations.open_world_hint is False, tool.name
        for hint in ("read_only_hint", "destructive_hint", "idempotent_hint"):
            assert getattr(annotations, hint) is not None, f"{tool.name} sets {hint}"
        assert tool.input_schema["type"] == "object" and tool.output_schema["type"] == "object"
    codes = check_against_schemas(listed, results)
    assert codes == EXPECTED_CODES
    assert snapshot(vault) == before, "previews and refusals change nothing"
    answers = {json.dumps(call, sort_keys=True): result.structured_content for call, result in zip(EVERY_TOOL, results)}
    health = answers[json.dumps(("server_health", {}), sort_keys=True)]
    assert health["mode"] == mode and health["index"]["notes"] == 16
    concise_health = answers[json.dumps(("server_health", {"response_format": "concise"}), sort_keys=True)]
    assert "index" not in concise_health and concise_health["mode"] == mode
    ambiguous = answers[json.dumps(("resolve_link", {"from": "Ideas/Sync.md", "link": "Index", "response_format": "concise"}), sort_keys=True)]
    assert ambiguous["status"] == "ambiguous" and "candidates" not in ambiguous
    # A refused rule names its parameter.
    force = results[EVERY_TOOL.index(("delete_note", {"path": "People/Ada", "force": True}))]
    assert "`force` needs `confirm: true`" in force.structured_content["message"]


def test_an_unknown_tool_is_a_protocol_error_and_a_bad_call_is_a_tool_result(vault, runtime_dir):
    async def run():
        async with session_on(vault, runtime_dir, "standalone") as (session, _):
            with pytest.raises(MCPError) as unknown:
                await session.call_tool("no_such_tool", {})
            typo = await session.call_tool("get_backlinks", {"path": "People/Ada", "limt": 3})
            return unknown.value, typo
    unknown, typo = asyncio.run(run())
    assert "no_such_tool" in str(unknown)
    assert typo.is_error and typo.structured_content["code"] == "invalid_arguments"
    assert "`limt`" in typo.structured_content["message"] and "limit" in typo.structured_content["message"]


def test_the_instructions_open_with_how_to_use_the_server(vault, runtime_dir):
    async def run():
        async with session_on(vault, runtime_dir, "standalone") as (session, init):
            return init, (await session.list_tools()).tools
    init, tools = asyncio.run(run())
    opening = init.instructions[:512]
    names = {tool.name for tool in tools}
    mentioned = {name for name in names if name in opening}
    # How to find, read and inspect; that writes preview and apply with plan_hash; pages.
    assert {"list_notes", "read_note", "get_backlinks", "move_note", "rewrite_link", "delete_note"} <= mentioned
    for needed in ("plan_hash", "next_cursor", "relative to the vault root"):
        assert needed in opening, needed
    assert len(init.instructions) > 512, "more follows for clients that show it all"


# A big vault, made on disk: a hub every note links to, missing pages many notes name, a long
# note, notes that link nowhere. Big enough that no list fits one default page.
BIG_NOTES = 1500
LONG_LINES = 8000


def write_big_vault(root):
    root.mkdir(parents=True, exist_ok=True)
    (root / "Hub.md").write_text("# Hub\n\nThe centre of everything.\n")
    words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor " * 3
    for number in range(BIG_NOTES):
        folder = root / f"Area {number % 7}"
        folder.mkdir(exist_ok=True)
        following = (number + 1) % BIG_NOTES
        links = f"[[Hub]], [[Missing page {number % 20}]] and [[Note {following:04}]]" if number % 9 else "[[Hub]]"
        (folder / f"Note {number:04}.md").write_text(
            f"---\naliases: [\"Alias {number}\"]\ntags: [area{number % 7}]\n---\n# Note {number:04}\n\n"
            f"{words}\n\nSee {links}.\n"
        )
    lines = "".join(f"Line {number}: a long note, é and 漢字, about [[Hub]].\n" for number in range(LONG_LINES))
    (root / "Long.md").write_text(f"---\ntitle: Long\n---\n{lines}")
    return root


@pytest.fixture(scope="module")
def big_vault(tmp_path_factory):
    return write_big_vault(tmp_path_factory.mktemp("big") / "vault").resolve()


LIST_CALLS = [
    ("get_backlinks", {"path": "Hub"}),
    ("find_unresolved_links", {}),
    ("find_orphans", {}),
    ("list_notes", {}),
    ("lint_wiki", {}),
    ("find_evidence", {"title": "Hub"}),
    ("move_note", {"from": "Area 0", "to": "Elsewhere/Area 0"}),
    ("rewrite_link", {"from_target": "Hub", "to_target": "Centre", "allow_unresolved": True}),
]


async def default_pages(vault, runtime_dir):
    async with session_on(vault, runtime_dir, "standalone") as (session, _):
        pages = [(name, await session.call_tool(name, arguments)) for name, arguments in LIST_CALLS]
        # Every backlink, page by page.
        everyone, cursor = [], None
        while True:
            arguments = {"path": "Hub", **({"cursor": cursor} if cursor else {})}
            page = (await session.call_tool("get_backlinks", arguments)).structured_content
            everyone += page["backlinks"]
            cursor = page.get("next_cursor")
            if cursor is None:
                break
        # The long note, page by page.
        body, read_pages, cursor = "", [], None
        while True:
            arguments = {"path": "Long", **({"cursor": cursor} if cursor else {})}
            page = (await session.call_tool("read_note", arguments)).structured_content
            read_pages.append(page)
            body += page["body"]
            cursor = page.get("next_cursor")
            if cursor is None:
                break
        explicit = (await session.call_tool("list_notes", {"limit": 1000, "response_format": "concise"})).structured_content
    return pages, everyone, body, read_pages, explicit


def size(content):
    return len(json.dumps(content, ensure_ascii=False).encode())


def wire_size(result, request_id=1):
    """The bytes of the JSON-RPC line that carries `result` on stdio: the structured content and,
    as the MCP spec suggests, the same JSON again as text."""
    line = {"jsonrpc": "2.0", "id": request_id, "result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}
    return len(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode())


# What a default page may take on the wire: its items end near 16 KB (20 KB with the rest of the
# answer), and the text copy of the JSON escapes its quotes; README.md states this bound.
WIRE_BOUND = 44_000


def test_default_pages_stay_under_20_kb_on_a_big_vault(big_vault, runtime_dir):
    pages, everyone, body, read_pages, explicit = asyncio.run(default_pages(big_vault, runtime_dir))
    for name, page in pages:
        assert not page.is_error, page.content
        assert size(page.structured_content) < 20_000, f"{name}: {size(page.structured_content)} bytes"
        assert wire_size(page) < WIRE_BOUND, f"{name}: {wire_size(page)} bytes on the wire"
        assert page.structured_content.get("next_cursor"), f"{name} has more than one page on this vault"
    print("largest default page on the wire:", max(wire_size(page) for _, page in pages), "bytes")
    # Every note links to the hub, and the long note does on each of its lines.
    assert len(everyone) == BIG_NOTES + LONG_LINES == pages[0][1].structured_content["total"]
    assert len({(link["source"], link["line"]) for link in everyone}) == len(everyone), "no backlink twice"
    # Fifty referrers per missing page, and the count of all.
    unresolved = pages[1][1].structured_content["targets"][0]
    assert len(unresolved["referrers"]) == 50 < unresolved["referrer_count"]
    whole = (big_vault / "Long.md").read_text()
    assert body == whole[whole.index("Line 0"):], "the pages join into the body"
    assert len(read_pages) > 10 and all(size(page) < 20_000 for page in read_pages)
    assert all(page["body_bytes"] == len(body.encode()) for page in read_pages)
    assert read_pages[0]["frontmatter"] == "title: Long\n" and "frontmatter" not in read_pages[1]
    # An explicit limit is obeyed as given.
    assert len(explicit["notes"]) == 1000


def test_default_pages_stay_under_20_kb_on_the_real_corpora(runtime_dir):
    corpora = [path for path in sorted(corpora_root().glob("*")) if path.is_dir()]
    if not corpora:
        pytest.skip(f"the corpora are absent ({corpora_root()} holds no vault); set VAULTLINK_CORPORA to run this")

    async def run(corpus):
        async with session_on(corpus, runtime_dir, "standalone") as (session, _):
            notes = (await session.call_tool("list_notes", {"limit": 1000, "response_format": "concise"})).structured_content
            calls = [(name, arguments) for name, arguments in LIST_CALLS if name not in ("get_backlinks", "move_note", "rewrite_link")]
            # The preview of moving the corpus's biggest top folder (of the notes listed).
            folders = collections.Counter(note["path"].split("/")[0] for note in notes["notes"] if "/" in note["path"])
            if folders:
                biggest = folders.most_common(1)[0][0]
                calls.append(("move_note", {"from": biggest, "to": f"Moved/{biggest}"}))
            calls += [("get_backlinks", {"path": note["path"]}) for note in notes["notes"][:50]]
            calls += [("read_note", {"path": note["path"]}) for note in notes["notes"][:50]]
            return [(name, await session.call_tool(name, arguments)) for name, arguments in calls]

    for corpus in corpora:
        for name, page in asyncio.run(run(corpus.resolve())):
            assert not page.is_error, f"{corpus.name} {name}: {page.content}"
            assert size(page.structured_content) < 20_000, f"{corpus.name} {name}: {size(page.structured_content)} bytes"
            assert wire_size(page) < WIRE_BOUND, f"{corpus.name} {name}: {wire_size(page)} bytes on the wire"


async def with_progress(vault, runtime_dir, mode, calls, gate=None):
    """Makes each call with a progress callback; returns each call's result and notifications.
    With `gate`, the server's first index waits for that file, which is made once the first call
    was sent and `server_health` answered (saying it is indexing): the first call waits for the
    index, and hears its progress."""
    extra_env = {"VAULTLINK_DEBUG_INDEX_GATE": str(gate)} if gate else None
    async with session_on(vault, runtime_dir, mode, extra_env=extra_env) as (session, _):
        answers = []
        for index, (name, arguments) in enumerate(calls):
            seen = []

            async def on_progress(progress, total, message, seen=seen):
                seen.append((progress, total, message))

            call = asyncio.ensure_future(session.call_tool(name, arguments, progress_callback=on_progress))
            if gate and index == 0:
                health = (await session.call_tool("server_health", {})).structured_content
                assert health["folder_index"]["mode"] == "indexing", health
                gate.write_text("")
            answers.append((await call, seen))
    return answers


def check_progress(seen, name):
    assert len(seen) >= 2, f"{name} reports progress: {seen}"
    values = [progress for progress, _, _ in seen]
    assert values == sorted(set(values)), f"{name}: progress only grows: {values}"
    assert all(message for _, _, message in seen)
    assert all(total is None or total >= progress for progress, total, _ in seen)


def test_long_calls_report_progress_standalone(big_vault, runtime_dir, tmp_path):
    # A fresh copy, so that the server's start indexes the whole folder; the first call waits
    # for that index and hears its progress.
    calls = [
        ("list_notes", {"limit": 1}),
        ("lint_wiki", {"limit": 5}),
        ("find_evidence", {"title": "Hub", "limit": 5}),
        ("move_note", {"from": "Hub.md", "to": "Centre/Hub.md"}),
        ("rewrite_link", {"from_target": "Missing page 1", "to_target": "Hub"}),
        ("delete_note", {"path": "Area 0/Note 0000.md"}),
        ("list_notes", {"limit": 1}),
    ]
    answers = asyncio.run(with_progress(big_vault, runtime_dir, "standalone", calls, gate=tmp_path / "gate"))
    (first, indexing), *long_calls, (_, quiet) = answers
    assert not first.is_error
    assert any("indexing the vault folder" in message for _, _, message in indexing)
    totals = {total for _, total, _ in indexing if total is not None}
    assert totals == {float(BIG_NOTES + 2)}, "the first index counts every file to read"
    check_progress(indexing, "the first index")
    for (name, _), (result, seen) in zip(calls[1:-1], long_calls):
        assert not result.is_error, result.content
        check_progress(seen, name)
    evidence_reads = [message for _, _, message in long_calls[1][1] if message.startswith("find_evidence: read")]
    assert len(evidence_reads) == (BIG_NOTES + 2) // 500, "find_evidence reports the notes it reads"
    assert quiet == [], "a quick read reports no progress"


def test_long_calls_report_progress_through_the_plugin(vault, runtime_dir, plugin):
    # Every tool core's table calls long reports its progress through the plugin as on the
    # folder: `bulk_move_notes` and `draft_wiki_page` once reported none, the sidecar's own list
    # of long tools having missed them.
    calls = [("lint_wiki", {}), ("find_evidence", {"title": "Ada"}),
             ("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}),
             ("bulk_move_notes", {"moves": [{"from": "Ideas", "to": "Notes/Ideas"}]}),
             ("draft_wiki_page", {"topic": "Alan Turing", "source": "People/Ada"})]
    for (name, _), (result, seen) in zip(calls, asyncio.run(with_progress(vault, runtime_dir, "plugin", calls))):
        assert not result.is_error, result.content
        check_progress(seen, name)
        assert "forwarded" in seen[0][2] and "plugin answered" in seen[-1][2]


def test_server_health_says_where_calls_run(vault, runtime_dir, plugin):
    async def run(mode):
        async with session_on(vault, runtime_dir, mode) as (session, _):
            # A read first: it waits for the index the server began at its start, which
            # `server_health` only announces while it is being built.
            notes = (await session.call_tool("list_notes", {"limit": 1})).structured_content
            health = (await session.call_tool("server_health", {})).structured_content
            return health, notes
    through_plugin, notes = asyncio.run(run("auto"))
    standalone, _ = asyncio.run(run("standalone"))
    manifest = json.loads((ROOT / "manifest.json").read_text())
    assert through_plugin["mode"] == "plugin" and through_plugin["requested_mode"] == "auto"
    assert through_plugin["plugin"] == {"connected": True, "state": "ready",
                                        "server": f"vaultlink-plugin {manifest['version']}", "version": manifest["version"]}
    assert through_plugin["writes"]["go_to"] == "plugin" and through_plugin["writes"]["evidence"]
    assert standalone["writes"] == {"go_to": "folder", "evidence": ["--mode standalone: every call runs on the folder"]}
    assert through_plugin["vault"] == str(vault) and through_plugin["sidecar_version"] == json.loads((ROOT / "manifest.json").read_text())["version"]
    assert standalone["mode"] == "standalone" and standalone["plugin"] == {"connected": False}
    assert through_plugin["index"] == standalone["index"], "both paths count the same vault alike"
    assert through_plugin["index"]["notes"] == notes["total"]
    assert "last_bridge_error" not in through_plugin


# The bridge failing.

MOVE = {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}


def test_a_plugin_killed_during_a_write_ends_the_call_and_the_sidecar_writes_nothing(vault, runtime_dir, tmp_path):
    """The plugin dies while applying a move (it is reading a note the move edits): the call
    ends with plugin_unavailable, nothing changed on disk, and nothing was retried on the
    folder. When a plugin serves the vault again, the same session reaches it."""
    before = snapshot(vault)
    log = tmp_path / "sidecar.log"
    host = start_plugin(vault, runtime_dir, stall="Projects/Alpha.md")

    async def run():
        async with session_on(vault, runtime_dir, "auto", errlog=log) as (session, _):
            call = asyncio.create_task(session.call_tool("move_note", {**MOVE, "dry_run": False}))
            stalled = await asyncio.to_thread(host.stdout.readline)
            assert json.loads(stalled) == {"stalled": "Projects/Alpha.md"}
            host.send_signal(signal.SIGKILL)
            host.wait(timeout=10)
            killed = await asyncio.wait_for(call, timeout=30)
            unchanged = snapshot(vault)
            again = start_plugin(vault, runtime_dir)
            try:
                health = (await session.call_tool("server_health", {})).structured_content
                preview = await session.call_tool("move_note", MOVE)
            finally:
                stop_plugin(again)
            return killed, unchanged, health, preview

    killed, unchanged, health, preview = asyncio.run(run())
    assert killed.is_error, killed.content
    error = killed.structured_content
    assert error["code"] == "plugin_unavailable" and error["retryable"] is True
    assert "wrote nothing" in error["message"] and "preview it again" in error["hint"]
    assert unchanged == before, "no partial write, and no write of the sidecar's own"
    assert "answered by the folder" not in log.read_text()
    assert health["mode"] == "plugin" and health["plugin"]["connected"] is True, "the sidecar reconnected"
    assert "last_bridge_error" in health
    assert not preview.is_error and preview.structured_content["dry_run"] is True


def test_a_restarted_plugin_is_reached_again_with_its_new_token(vault, runtime_dir, tmp_path):
    log = tmp_path / "sidecar.log"

    async def run():
        host = start_plugin(vault, runtime_dir)
        async with session_on(vault, runtime_dir, "auto", errlog=log) as (session, _):
            first = await session.call_tool("get_backlinks", {"path": "People/Ada"})
            stop_plugin(host)
            meanwhile = await session.call_tool("get_backlinks", {"path": "People/Ada"})
            host = start_plugin(vault, runtime_dir)
            try:
                after = await session.call_tool("get_backlinks", {"path": "People/Ada"})
                health = (await session.call_tool("server_health", {})).structured_content
            finally:
                stop_plugin(host)
        return first, meanwhile, after, health

    first, meanwhile, after, health = asyncio.run(run())
    served = re.findall(r"get_backlinks answered by (the plugin|the folder)", log.read_text())
    assert served == ["the plugin", "the folder", "the plugin"]
    assert first.structured_content == meanwhile.structured_content == after.structured_content
    assert health["mode"] == "plugin"


def test_plugin_mode_without_a_plugin_is_plugin_unavailable_for_every_tool(vault, runtime_dir):
    async def run():
        async with session_on(vault, runtime_dir, "plugin") as (session, _):
            return [await session.call_tool(name, arguments) for name, arguments in
                    [("get_backlinks", {"path": "People/Ada"}), ("move_note", MOVE)]], \
                (await session.call_tool("server_health", {})).structured_content
    results, health = asyncio.run(run())
    for result in results:
        assert result.is_error and result.structured_content["code"] == "plugin_unavailable"
        assert result.structured_content["retryable"] is True
    assert health["mode"] == "unavailable" and "no discovery file" in health["plugin"]["reason"]


def test_a_token_we_do_not_have_never_leads_to_writing_behind_the_plugin(vault, runtime_dir, plugin, tmp_path):
    """A live plugin whose discovery file holds another token (as after a token change the
    sidecar has not seen): reads fall back to the folder, writes are refused, and
    server_health tells why."""
    discovery = Path(plugin["discovery"])
    original = discovery.read_text()
    record = json.loads(original)
    record["token"] = "f" * 64 if record["token"] != "f" * 64 else "e" * 64
    discovery.write_text(json.dumps(record))
    before = snapshot(vault)
    log = tmp_path / "sidecar.log"

    async def run():
        async with session_on(vault, runtime_dir, "auto", errlog=log) as (session, _):
            read = await session.call_tool("get_backlinks", {"path": "People/Ada"})
            write = await session.call_tool("move_note", {**MOVE, "dry_run": False})
            health = (await session.call_tool("server_health", {})).structured_content
            return read, write, health

    try:
        read, write, health = asyncio.run(run())
    finally:
        # The plugin removes only a discovery file that holds its own token.
        discovery.write_text(original)
    assert not read.is_error and "get_backlinks answered by the folder" in log.read_text()
    assert write.is_error and write.structured_content["code"] == "plugin_unavailable"
    assert "wrong token" in write.structured_content["message"]
    assert snapshot(vault) == before
    assert "wrong token" in health["last_bridge_error"]["message"]


def test_an_oversized_call_is_refused_and_the_bridge_serves_on(vault, runtime_dir, plugin, tmp_path):
    log = tmp_path / "sidecar.log"

    async def run():
        async with session_on(vault, runtime_dir, "plugin", errlog=log) as (session, _):
            huge = await session.call_tool("resolve_link", {"from": "Home.md", "link": "[[" + "x" * 1_100_000 + "]]"})
            after = await session.call_tool("resolve_link", {"from": "Home.md", "link": "[[Alpha]]"})
            return huge, after

    huge, after = asyncio.run(run())
    # Refused by the schema's cap on a string's length before it is planned or forwarded (the
    # bridge's own 1 MiB line limit is tested on the raw socket below).
    assert huge.is_error and huge.structured_content["code"] == "invalid_arguments"
    assert "over the 4096 it may have" in huge.structured_content["message"]
    assert not after.is_error and after.structured_content["resolved_path"] == "Projects/Alpha.md"


def raw_lines(socket_path, payload, expected):
    """Sends bytes to the bridge; returns up to `expected` answer lines and whether it closed."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(socket_path)
        try:
            client.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        while data.count(b"\n") < expected:
            chunk = client.recv(65536)
            if not chunk:
                return [json.loads(line) for line in data.splitlines() if line], True
            data += chunk
        return [json.loads(line) for line in data.splitlines() if line], False


def test_the_plugin_refuses_an_oversized_or_malformed_line_cleanly(plugin):
    discovery = json.loads(Path(plugin["discovery"]).read_text())
    hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": discovery["token"], "protocol": 1}})
    ping = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    # A malformed line is answered, and the connection serves on.
    answers, closed = raw_lines(discovery["socket"], f"{hello}\n{{not json\n{ping}\n".encode(), 3)
    assert [answer.get("id") for answer in answers] == [1, None, 3] and not closed
    assert answers[1]["error"]["code"] == -32700
    # A line over 1 MiB is refused and the connection closed; the server serves on.
    oversized = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "y" * (2 << 20)}})
    answers, closed = raw_lines(discovery["socket"], f"{hello}\n{oversized}\n".encode(), 3)
    assert closed and answers[-1]["error"]["code"] == -32600 and "longer than" in answers[-1]["error"]["message"]
    answers, closed = raw_lines(discovery["socket"], f"{hello}\n{ping}\n".encode(), 2)
    assert answers[1]["result"] == {} and not closed


def test_stdio_answers_a_line_that_is_not_json_and_non_object_arguments_as_json_rpc_asks(vault):
    """A raw client on stdio: a line that is not JSON gets -32700 (not silence), `tools/call`
    arguments that are not an object get -32602 (not "method not found"), and the session goes on."""
    import select
    server = subprocess.Popen([str(SIDECAR), "mcp", "--vault", str(vault), "--mode", "standalone"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def exchange(line):
        server.stdin.write(line + b"\n")
        server.stdin.flush()
        ready, _, _ = select.select([server.stdout], [], [], 10)
        assert ready, f"no answer to {line[:40]!r}"
        return json.loads(server.stdout.readline())

    try:
        init = exchange(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).encode())
        assert init["result"]["serverInfo"]["name"] == "vaultlink"
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for line in [b"{not json", b"\xff\xfe", b"[" * 300 + b"]" * 300]:
            answer = exchange(line)
            assert answer["error"]["code"] == -32700 and answer["id"] is None, answer
        answer = exchange(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_notes","arguments":[1]}}')
        assert answer["id"] == 5 and answer["error"]["code"] == -32602 and "must be a JSON object" in answer["error"]["message"]
        answer = exchange(b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_notes","arguments":{"limit":1}}}')
        assert answer["id"] == 6 and answer["result"]["isError"] is False
    finally:
        server.kill()
        server.wait(timeout=10)


def write_folder_vault(root, notes=260):
    """A folder of notes that link to one another, and a note outside it linking into it."""
    folder = root / "Project"
    folder.mkdir(parents=True)
    for number in range(notes):
        (folder / f"Part {number:03}.md").write_text(f"# Part {number:03}\n\nNext: [[Part {(number + 1) % notes:03}]]\n")
    (root / "Home.md").write_text("".join(f"- [[Project/Part {number:03}]]\n" for number in range(notes)))
    return root.resolve()


async def move_pages(vault, runtime_dir, mode):
    """Every page of a folder move's preview, then the call that applies it."""
    arguments = {"from": "Project", "to": "Archive/Stuff"}
    async with session_on(vault, runtime_dir, mode) as (session, _):
        pages, cursor = [], None
        while True:
            page = await session.call_tool("move_note", {**arguments, **({"cursor": cursor} if cursor else {})})
            assert not page.is_error, page.structured_content
            pages.append(page)
            cursor = page.structured_content.get("next_cursor")
            if cursor is None:
                break
        stale = await session.call_tool("move_note", {**arguments, "cursor": "0.000000000000"})
        applied = await session.call_tool("move_note", {**arguments, "approved_plan_hash": pages[0].structured_content["plan_hash"]})
        return pages, stale, applied


@pytest.mark.parametrize("mode", ["standalone", "plugin"])
def test_a_move_preview_pages_its_moves_and_changes(tmp_path, runtime_dir, mode):
    vault = write_folder_vault(tmp_path / "vault")
    pages, stale, applied = on_path(vault, runtime_dir, mode, move_pages)
    first = pages[0].structured_content
    assert len(pages) > 2, f"a {first['files_moved']}-file move previews on several pages"
    assert all(wire_size(page) < WIRE_BOUND and size(page.structured_content) < 20_000 for page in pages)
    # The counts are on every page; the pages hold every move, then every change, once.
    assert all(page.structured_content["files_moved"] == 260 and page.structured_content["links_changed"] == first["links_changed"]
               for page in pages)
    moves = [move for page in pages for move in page.structured_content["moves"]]
    changes = [change for page in pages for change in page.structured_content["changes"]]
    assert len(moves) == 260 == len({move["from"] for move in moves})
    assert len(changes) == first["links_changed"] >= 260
    assert len({page.structured_content["plan_hash"] for page in pages}) == 1
    assert stale.is_error and stale.structured_content["code"] == "invalid_arguments"
    # Applying answers the first page of what was done, and the files moved.
    assert applied.is_error is False and applied.structured_content["applied"] is True
    assert (vault / "Archive" / "Stuff" / "Part 000.md").exists() and not (vault / "Project").exists()
    # Written as Obsidian writes it under "shortest": each part's name is unique.
    assert "- [[Part 000]]\n" in (vault / "Home.md").read_text()
