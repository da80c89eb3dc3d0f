"""End to end: the official MCP Python SDK drives `vaultlink mcp`, once standalone on a copy
of the sample vault and once forwarding to the plugin's bridge, with the built `main.js`
running in Node against the obsidian test double. Both paths must answer alike.

Run by scripts/test.sh, which builds the sidecar (VAULTLINK_BIN), main.js and the plugin host.
"""

import asyncio
import json
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import ROOT, SIDECAR, kept_changes, on_path, snapshot, start_plugin, stop_plugin


async def session_calls(vault, runtime_dir, mode, calls, errlog=None):
    """Starts `vaultlink mcp`, initializes, lists tools, then makes each call in `calls`."""
    params = StdioServerParameters(
        command=str(SIDECAR),
        args=["mcp", "--vault", str(vault), "--mode", mode],
        env={"VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_LOG": "info"},
    )
    with open(errlog or os.devnull, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = await session.list_tools()
                results = []
                for name, arguments in calls:
                    # Arguments may depend on the answers so far (a cursor from the last page).
                    given = arguments(results) if callable(arguments) else arguments
                    results.append(await session.call_tool(name, given))
    return init, tools, results


CALLS = [
    ("get_outgoing_links", {"path": "Projects/Alpha.md"}),
    ("get_outgoing_links", {"path": "home"}),
    ("get_outgoing_links", {"path": "No such note.md"}),
    ("get_backlinks", {"path": "Projects/Alpha", "limit": 3}),
    ("get_backlinks", lambda results: {"path": "Projects/Alpha", "limit": 3, "cursor": results[-1].structured_content["next_cursor"],
                                       "response_format": "concise"}),
    ("find_unresolved_links", {}),
    ("find_orphans", {"folder": "Archive"}),
    ("resolve_link", {"from": "Home.md", "link": "[[Alpha#Goals]]"}),
    ("resolve_link", {"from": "Ideas/Sync.md", "link": "Index"}),
    ("list_notes", {"limit": 5}),
    ("read_note", {"path": "People/Ada"}),
    ("read_note", {"path": "../etc/passwd"}),
    ("get_outgoing_links", {"path": "Home.md", "paht": "typo"}),
    ("lint_wiki", {}),
    ("find_existing_page", {"topic": "ada lovelace"}),
    ("find_evidence", {"title": "ada"}),
]

# The tools every session must list, each with an output schema and read-only annotations.
READ_TOOLS = {"get_outgoing_links", "get_backlinks", "find_unresolved_links", "find_orphans",
              "resolve_link", "list_notes", "read_note", "lint_wiki", "find_existing_page", "find_evidence"}


def answers(results):
    return [(result.is_error, result.structured_content) for result in results]


def test_standalone_answers_with_structured_content(vault, runtime_dir):
    init, tools, results = asyncio.run(session_calls(vault, runtime_dir, "standalone", CALLS))
    assert init.server_info.name == "vaultlink"
    assert init.server_info.version == json.loads((ROOT / "manifest.json").read_text())["version"]

    listed = {tool.name: tool for tool in tools.tools}
    assert READ_TOOLS <= set(listed)
    for name in READ_TOOLS:
        assert listed[name].output_schema["type"] == "object", name
        assert listed[name].annotations.read_only_hint is True, name
        assert listed[name].annotations.open_world_hint is False, name

    # The SDK has already checked each successful result against its tool's output schema.
    (alpha, home, missing, back_1, back_2, unresolved, orphans, resolved, ambiguous, notes, ada, outside, typo,
     lint, existing, evidence) = results
    assert alpha.is_error is False
    targets = [(link["source"], link.get("key"), link["target"], link.get("resolved_path"))
               for link in alpha.structured_content["links"]]
    assert targets == [
        ("property", "owner", "Ada", "People/Ada.md"),
        ("property", "related", "Beta", "Projects/Beta.md"),
        ("property", "related", "Link syntax", "Reference/Link syntax.md"),
        ("body", None, "2026-11-02", "Meetings/2026-11-02.md"),
        ("body", None, "Ada#^bio", "People/Ada.md"),
    ]
    assert alpha.structured_content["links"][4]["subpath_status"] == "found"
    assert home.structured_content["path"] == "Home.md"
    found = {link["target"]: (link["status"], link.get("resolved_path")) for link in home.structured_content["links"]}
    assert found["Quarterly plan"] == ("unresolved", None)
    # Two notes are named Index; the one in the linking note's folder is chosen.
    assert found["Index"] == ("ambiguous", "Index.md")
    assert found["Ada"] == ("resolved", "People/Ada.md")

    assert missing.is_error is True
    assert missing.structured_content["code"] == "note_not_found"
    assert "No such note.md" in missing.content[0].text

    # Pages of backlinks, property links among them.
    assert back_1.structured_content["total"] >= 6
    assert len(back_1.structured_content["backlinks"]) == 3 and back_1.structured_content["next_cursor"].startswith("3.")
    assert "column" not in back_2.structured_content["backlinks"][0]
    everyone = back_1.structured_content["backlinks"] + back_2.structured_content["backlinks"]
    assert len({(link["source"], link["line"], link["target"]) for link in everyone}) == 6

    missing_targets = {target["target"] for target in unresolved.structured_content["targets"]}
    assert {"Quarterly plan", "Zettelkasten", "Missing page"} <= missing_targets
    assert orphans.structured_content["orphans"] == ["Archive/Orphan.md"]

    assert resolved.structured_content["resolved_path"] == "Projects/Alpha.md"
    assert resolved.structured_content["subpath_status"] == "found"
    # From Ideas/, `Index` is ambiguous and the note in the same folder is chosen.
    assert ambiguous.structured_content["status"] == "ambiguous"
    assert ambiguous.structured_content["resolved_path"] == "Ideas/Index.md"
    assert sorted(ambiguous.structured_content["candidates"]) == ["Ideas/Index.md", "Index.md"]

    assert notes.structured_content["total"] == 16
    assert len(notes.structured_content["notes"]) == 5
    assert ada.structured_content["path"] == "People/Ada.md"
    assert "Wrote" in ada.structured_content["body"] or "Leads" in ada.structured_content["body"]
    assert ada.structured_content["aliases"] == ["Ada Lovelace"]

    assert outside.is_error is True
    assert outside.structured_content["code"] == "invalid_path"
    assert typo.is_error is True
    assert typo.structured_content["code"] == "invalid_arguments"
    assert "paht" in typo.structured_content["message"]

    assert lint.is_error is False
    kinds = {proposal["kind"] for proposal in lint.structured_content["proposals"]}
    assert {"orphan", "unresolved_link", "ambiguous_link"} <= kinds
    # Ada's alias names her note: the page exists.
    assert existing.structured_content["verdict"] == "exists"

    # Ada's own note first, then notes whose properties link her, then bodies; each with prose.
    strengths = [found["match"] for found in evidence.structured_content["matches"]]
    assert evidence.structured_content["matches"][0]["path"] == "People/Ada.md"
    assert strengths[0] == "title" and "frontmatter" in strengths and "body" in strengths
    assert strengths == sorted(strengths, key=["title", "frontmatter", "body"].index)
    assert evidence.structured_content["total"] == len(strengths)
    assert all(len(found.get("excerpt", "")) <= 200 for found in evidence.structured_content["matches"])


def test_plugin_bridge_answers_equal_standalone(vault, runtime_dir, plugin, tmp_path):
    log = tmp_path / "sidecar.log"
    _, _, through_plugin = asyncio.run(session_calls(vault, runtime_dir, "plugin", CALLS, errlog=log))
    assert "answered by the plugin" in log.read_text()
    _, _, standalone = asyncio.run(session_calls(vault, runtime_dir, "standalone", CALLS))
    assert answers(through_plugin) == answers(standalone)
    assert through_plugin[0].structured_content["links"], "the plugin indexed the vault"


def test_auto_mode_prefers_the_plugin(vault, runtime_dir, plugin, tmp_path):
    log = tmp_path / "sidecar.log"
    _, _, results = asyncio.run(session_calls(vault, runtime_dir, "auto", CALLS[:1], errlog=log))
    assert "answered by the plugin" in log.read_text()
    assert results[0].is_error is False


def test_auto_mode_without_plugin_runs_on_the_folder(vault, runtime_dir, tmp_path):
    log = tmp_path / "sidecar.log"
    _, _, results = asyncio.run(session_calls(vault, runtime_dir, "auto", CALLS[:1], errlog=log))
    assert "answered by the folder" in log.read_text()
    assert results[0].structured_content["path"] == "Projects/Alpha.md"


def test_plugin_mode_without_plugin_says_so(vault, runtime_dir):
    _, _, results = asyncio.run(session_calls(vault, runtime_dir, "plugin", CALLS[:1]))
    assert results[0].is_error is True
    error = results[0].structured_content
    assert error["code"] == "plugin_unavailable"
    assert error["retryable"] is True
    assert "Obsidian" in error["hint"]


def bridge_exchange(socket_path, lines):
    """Sends raw lines to the bridge; returns the answer lines and whether it then closed."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        client.connect(socket_path)
        # One write for all lines: the bridge may close the connection after the first one,
        # and what it answered before closing must still be read.
        try:
            client.sendall(b"".join(line.encode() + b"\n" for line in lines))
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        while True:
            chunk = client.recv(65536)
            if not chunk:
                return [json.loads(line) for line in data.decode().splitlines() if line], True
            data += chunk
            if data.count(b"\n") >= len(lines):
                return [json.loads(line) for line in data.decode().splitlines() if line], False


def test_bridge_refuses_a_wrong_token(plugin):
    discovery = json.loads(Path(plugin["discovery"]).read_text())
    wrong = "0" * 64 if discovery["token"] != "0" * 64 else "1" * 64
    hello = {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": wrong, "protocol": 1}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "call",
            "params": {"tool": "get_outgoing_links", "arguments": {"path": "Home.md"}}}
    answers_, closed = bridge_exchange(discovery["socket"], [json.dumps(hello), json.dumps(call)])
    assert answers_[0]["error"]["code"] == -32001
    assert answers_[0]["error"]["message"].startswith("unauthorized")
    assert all("result" not in answer for answer in answers_)
    assert closed

    right = {**hello, "params": {"token": discovery["token"], "protocol": 1}}
    answers_, _ = bridge_exchange(discovery["socket"], [json.dumps(right), json.dumps(call)])
    assert answers_[1]["result"]["path"] == "Home.md"


def listening_tcp_inodes():
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A":  # LISTEN
                inodes.add(fields[9])
    return inodes


def test_the_plugin_listens_on_no_tcp_port(plugin):
    pid = plugin["process"].pid
    sockets = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(target[len("socket:["):-1])
    assert sockets, "the plugin holds its bridge socket open"
    assert not sockets & listening_tcp_inodes()
    mode = os.stat(plugin["socket"]).st_mode & 0o777
    assert mode == 0o600, oct(mode)
    assert os.stat(plugin["discovery"]).st_mode & 0o777 == 0o600


def test_both_paths_follow_obsidians_excluded_files(vault, runtime_dir, tmp_path):
    """`.obsidian/app.json` excludes a folder: its notes are no longer reported as orphans,
    standalone and through the plugin alike."""
    (vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": ["Archive/"]}))
    calls = [("find_orphans", {})]
    _, _, standalone = asyncio.run(session_calls(vault, runtime_dir, "standalone", calls))
    orphans = standalone[0].structured_content["orphans"]
    assert "Archive/Orphan.md" not in orphans
    assert orphans == ["Inbox.md", "Reference/Glossary.md"]

    _, _, through_plugin = on_path(vault, runtime_dir, "plugin", lambda vault, runtime_dir, mode: session_calls(vault, runtime_dir, mode, calls))
    assert answers(through_plugin) == answers(standalone)


MOVE = ("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"})


def move_then_apply(vault, runtime_dir, mode):
    """Previews a move, checks nothing changed, applies it with the preview's hash."""
    before = snapshot(vault)
    _, tools, (preview,) = asyncio.run(session_calls(vault, runtime_dir, mode, [MOVE]))
    assert snapshot(vault) == before, "a dry run writes nothing"
    listed = {tool.name: tool for tool in tools.tools}
    assert listed["move_note"].annotations.read_only_hint is False
    # It rewrites other notes, so it is not additive only (issue: annotations true to what it does).
    assert listed["move_note"].annotations.destructive_hint is True
    assert listed["rewrite_link"].annotations.destructive_hint is True
    assert preview.is_error is False, preview.content
    plan = preview.structured_content
    assert plan["dry_run"] is True and plan["applied"] is False
    approve = ("move_note", {**MOVE[1], "approved_plan_hash": plan["plan_hash"]})
    stale = ("move_note", {**MOVE[1], "approved_plan_hash": "0" * 64})
    _, _, (refused, applied) = asyncio.run(session_calls(vault, runtime_dir, mode, [stale, approve]))
    assert refused.is_error is True and refused.structured_content["code"] == "plan_hash_mismatch"
    assert applied.is_error is False, applied.content
    assert applied.structured_content["applied"] is True
    return plan, applied.structured_content


def check_moved(vault, plan):
    assert not (vault / "People" / "Ada.md").exists()
    assert (vault / "People" / "Ada Lovelace.md").exists()
    alpha = (vault / "Projects" / "Alpha.md").read_text()
    assert 'owner: "[[Ada Lovelace]]"' in alpha
    assert "[[Ada Lovelace#^bio|Ada's notes]]" in alpha
    assert plan["links_changed"] == 8 and plan["notes_edited"] == 7


def backlink_total(vault, runtime_dir, mode, path):
    _, _, (back,) = asyncio.run(session_calls(vault, runtime_dir, mode, [("get_backlinks", {"path": path})]))
    return back.structured_content["total"]


def test_move_note_standalone_previews_then_applies(vault, runtime_dir):
    before = backlink_total(vault, runtime_dir, "standalone", "People/Ada.md")
    plan, applied = move_then_apply(vault, runtime_dir, "standalone")
    check_moved(vault, plan)
    # The index follows: the moved note has every backlink it had.
    assert backlink_total(vault, runtime_dir, "standalone", "People/Ada Lovelace.md") == before


def test_rewrite_link_repoints_an_unresolved_target(vault, runtime_dir):
    call = ("rewrite_link", {"from_target": "Quarterly plan", "to_target": "Projects/Beta", "dry_run": False})
    bad = ("rewrite_link", {"from_target": "Quarterly plan", "to_target": "x]]\ninjected"})
    before = snapshot(vault)
    _, _, (refused, done) = asyncio.run(session_calls(vault, runtime_dir, "standalone", [bad, call]))
    assert refused.is_error is True and refused.structured_content["code"] == "unrepresentable_link"
    assert done.structured_content["applied"] is True and done.structured_content["links_changed"] == 1
    home = (vault / "Home.md").read_text()
    assert "Still to write: [[Projects/Beta]]." in home
    changed = {path for path, data in snapshot(vault).items() if before.get(path) != data}
    assert changed == {"Home.md"}


def test_move_and_rewrite_through_the_plugin_equal_standalone(vault, runtime_dir, tmp_path):
    """The same preview, apply and rewrite on two copies of the vault, one through the
    plugin's bridge and one standalone: equal answers, byte-identical vaults."""
    twin = tmp_path / "twin"
    shutil.copytree(vault, twin)
    twin_runtime = Path(tempfile.mkdtemp(prefix="vl-", dir="/tmp"))
    twin_runtime.chmod(0o700)
    rewrite = ("rewrite_link", {"from_target": "Zettelkasten", "to_target": "Ideas/Sync", "dry_run": False})
    host = start_plugin(vault, runtime_dir)
    try:
        log = tmp_path / "sidecar.log"
        plan, applied = move_then_apply(vault, runtime_dir, "plugin")
        _, _, (rewritten,) = asyncio.run(session_calls(vault, runtime_dir, "plugin", [rewrite], errlog=log))
        assert "answered by the plugin" in log.read_text()
        # The plugin's index followed its own writes.
        after_move = backlink_total(vault, runtime_dir, "plugin", "People/Ada Lovelace.md")
    finally:
        stop_plugin(host)
    twin_plan, twin_applied = move_then_apply(twin, twin_runtime, "standalone")
    _, _, (twin_rewritten,) = asyncio.run(session_calls(twin, twin_runtime, "standalone", [rewrite]))
    shutil.rmtree(twin_runtime, ignore_errors=True)
    check_moved(vault, plan)
    assert plan == twin_plan and applied == twin_applied
    assert answers([rewritten]) == answers([twin_rewritten])
    assert snapshot(vault) == snapshot(twin)
    assert after_move == backlink_total(twin, twin_runtime, "standalone", "People/Ada Lovelace.md")


def delete_calls(vault):
    text = (vault / "People" / "Ada.md").read_bytes()
    return text, [
        ("delete_note", {"path": "Archive/Orphan.md"}),                                   # preview, no backlinks
        ("delete_note", {"path": "People/Ada"}),                                          # preview, backlinks
        ("delete_note", {"path": "People/Ada", "confirm": True}),                         # refused
        ("delete_note", {"path": "People/Ada", "confirm": True, "force": True,
                         "expected_mtime": 1}),                                           # stale mtime
        ("delete_note", {"path": "People/Ada", "confirm": True, "force": True,
                         "approved_plan_hash": "0" * 64}),                                # stale plan
        ("delete_note", {"path": "People/Ada", "confirm": True, "force": True}),          # forced
        ("delete_note", {"path": "Attachments/diagram.svg"}),                             # not a note
    ]


def check_deletes(vault, results, text):
    orphan, ada, refused, stale_mtime, stale_plan, forced, svg = (result.structured_content for result in results)
    assert orphan["dry_run"] and orphan["can_confirm"] and orphan["blocked_reasons"] == []
    assert ada["dry_run"] and not ada["can_confirm"] and ada["blocked_reasons"] == ["has_backlinks"]
    sources = {(link["note"], link["source"], link.get("key")) for link in ada["backlinks"]}
    assert ("Projects/Alpha.md", "property", "owner") in sources and ("Home.md", "body", None) in sources
    # A blocked delete is an error with its code, as every other writing tool's refusal is.
    for result, code in ((results[2], "has_backlinks"), (results[3], "concurrent_modification"),
                         (results[4], "plan_hash_mismatch")):
        assert result.is_error and result.structured_content["code"] == code, result.structured_content
    assert "`Home.md` line" in refused["message"] and "force" in refused["hint"], refused
    assert forced["ok"] and forced["forced"] and len(forced["backlinks"]) == len(ada["backlinks"])
    assert forced["captured"]["text"].encode() == text, "the captured text recreates the note byte for byte"
    assert results[6].is_error and svg["code"] == "invalid_path"
    assert not (vault / "People" / "Ada.md").exists()
    # No other note was edited: the links to Ada dangle.
    assert "[[Ada]]" in (vault / "Home.md").read_text()


def test_delete_note_standalone(vault, runtime_dir):
    text, calls = delete_calls(vault)
    _, tools, results = asyncio.run(session_calls(vault, runtime_dir, "standalone", calls))
    listed = {tool.name: tool for tool in tools.tools}
    assert listed["delete_note"].annotations.destructive_hint is True
    assert listed["delete_note"].annotations.idempotent_hint is False
    check_deletes(vault, results, text)
    assert results[5].structured_content["trashed_to"] == ".trash/Ada.md"
    assert (vault / ".trash" / "Ada.md").read_bytes() == text


def test_delete_note_through_the_plugin_equals_standalone(vault, runtime_dir, tmp_path):
    twin = tmp_path / "twin"
    shutil.copytree(vault, twin)
    text, calls = delete_calls(vault)
    # The same note's mtime differs between the copies; the stale-mtime call uses 1 in both.
    _, _, through_plugin = on_path(vault, runtime_dir, "plugin", lambda vault, runtime_dir, mode: session_calls(vault, runtime_dir, mode, calls))
    check_deletes(vault, through_plugin, text)
    assert through_plugin[5].structured_content["trashed_to"].startswith("Obsidian's trash")
    twin_runtime = Path(tempfile.mkdtemp(prefix="vl-", dir="/tmp"))
    twin_runtime.chmod(0o700)
    _, _, standalone = asyncio.run(session_calls(twin, twin_runtime, "standalone", calls))
    shutil.rmtree(twin_runtime, ignore_errors=True)

    def comparable(result):
        content = dict(result.structured_content)
        content.pop("trashed_to", None)
        return result.is_error, content

    assert [comparable(result) for result in through_plugin] == [comparable(result) for result in standalone]


BATCHES = {
    "move of a note": [("move_note", {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"})],
    "move of a folder": [("move_note", {"from": "Projects", "to": "Archive/Projects"})],
    "rename that changes only case": [("move_note", {"from": "People/Ada.md", "to": "People/ADA.md"})],
    "rewrite": [("rewrite_link", {"from_target": "Zettelkasten", "to_target": "Ideas/Sync"})],
    "delete": [("delete_note", {"path": "Archive/Orphan.md"})],
}


def preview_then_apply(vault, runtime, mode, batch):
    """Each call previewed, then applied with its plan_hash, in one session."""
    params = StdioServerParameters(
        command=str(SIDECAR),
        args=["mcp", "--vault", str(vault), "--mode", mode],
        env={"VAULTLINK_RUNTIME_DIR": str(runtime), "VAULTLINK_LOG": "info"},
    )

    async def run():
        async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                answers = []
                for tool, arguments in batch:
                    preview = await session.call_tool(tool, arguments)
                    assert preview.is_error is False, preview.content
                    applied = await session.call_tool(tool, {**arguments, "approved_plan_hash": preview.structured_content["plan_hash"]})
                    assert applied.is_error is False, applied.content
                    answers.append((preview.structured_content, applied.structured_content))
                return answers
    return asyncio.run(run())


@pytest.mark.parametrize("name", list(BATCHES))
def test_every_writing_tool_leaves_the_same_vault_through_the_plugin_as_standalone(vault, runtime_dir, tmp_path, name):
    """One change engine: core makes the batch, each edge only carries it out, so the same
    batch through the plugin and on the folder leaves byte-identical vaults."""
    twin = tmp_path / "twin"
    shutil.copytree(vault, twin)
    twin_runtime = Path(tempfile.mkdtemp(prefix="vl-", dir="/tmp"))
    twin_runtime.chmod(0o700)
    before = snapshot(vault)
    host = start_plugin(vault, runtime_dir)
    try:
        through_plugin = preview_then_apply(vault, runtime_dir, "plugin", BATCHES[name])
    finally:
        stop_plugin(host)
    on_folder = preview_then_apply(twin, twin_runtime, "standalone", BATCHES[name])
    shutil.rmtree(twin_runtime, ignore_errors=True)
    assert snapshot(vault) != before, "the batch changed the vault"
    # Where a deleted note went is each edge's own (Obsidian's trash setting, the folder's
    # .trash); everything else is byte for byte the same.
    outside_trash = lambda files: {path: data for path, data in files.items() if not path.startswith(".trash")}
    assert outside_trash(snapshot(vault)) == outside_trash(snapshot(twin))
    assert [plan["plan_hash"] for plan, _ in through_plugin] == [plan["plan_hash"] for plan, _ in on_folder]
    assert not (vault / ".vaultlink" / "journal.json").exists() and not (twin / ".vaultlink" / "journal.json").exists()
    assert len(kept_changes(vault)) == len(kept_changes(twin)), "each edge keeps the same changes for undo_change"
