"""Moves made outside vaultlink (issue 39), through the official MCP Python SDK against the sidecar
on the folder: the server sees the vault once (the persistent index keeps what it saw), the notes
are then moved by `mv`, `git mv` and a script, one is moved and edited, one is copied, and the next
server lists the detected moves with their evidence and the links they broke, leaves the look-alikes
listed with why, and `heal_moves` rewrites exactly the broken links, all or nothing, undoably; and
`vaultlink moves` and `vaultlink heal` say the same on the command line."""

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import time

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import PLUGIN_HOST, SIDECAR, kept_changes, stop_plugin

LINKER = ("see [alpha](notes/Alpha.md), [gamma](drafts/Gamma.md), [[old/x]], [[old/deep/y]], "
          "[[kept/Beta]], [delta](notes/Delta.md) and [epsilon](notes/Epsilon.md)\n")
NOTES = {
    "Index.md": LINKER,
    "notes/Alpha.md": "alpha, moved by mv\n",
    "kept/Beta.md": "beta, moved by git mv\n",
    "drafts/Gamma.md": "gamma, which links back to [the index](../Index.md)\n",
    "old/x.md": "x of a folder a script moves\n",
    "old/deep/y.md": "y of a folder a script moves\n",
    "notes/Delta.md": "delta, moved and edited\n",
    "notes/Epsilon.md": "epsilon, copied twice and gone\n",
}


def make_vault(folder, notes=None):
    """The vault (`NOTES` unless `notes` are given), each note an hour old, so the persistent
    index is sure of what it kept."""
    old = (int(time.time()) - 3600) * 1_000_000_000
    for name, text in (NOTES if notes is None else notes).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, ns=(old, old))
    return folder.resolve()


def environment(runtime_dir, cache):
    return {"VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_CACHE_DIR": str(cache), "PATH": os.environ.get("PATH", "")}


@contextlib.asynccontextmanager
async def session_on(vault, runtime_dir, cache, mode="standalone"):
    params = StdioServerParameters(command=str(SIDECAR), args=["mcp", "--vault", str(vault), "--mode", mode],
                                   env=environment(runtime_dir, cache))
    with open(os.devnull, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def git(vault, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=vault, check=True,
                   capture_output=True)


def move_outside(vault):
    """The moves, as a person and their tools make them."""
    (vault / "archive").mkdir()
    subprocess.run(["mv", "notes/Alpha.md", "archive/Alpha.md"], cwd=vault, check=True)
    (vault / "archive/2026").mkdir()
    subprocess.run(["mv", "drafts/Gamma.md", "archive/2026/Gamma.md"], cwd=vault, check=True)
    git(vault, "mv", "kept/Beta.md", "archive/Beta.md")
    # A script moves a whole folder.
    os.rename(vault / "old", vault / "new")
    # Moved, then edited: the bytes differ, so it is not taken for a move.
    subprocess.run(["mv", "notes/Delta.md", "archive/Delta.md"], cwd=vault, check=True)
    with open(vault / "archive/Delta.md", "a") as note:
        note.write("an edit after the move\n")
    # Copied twice, the original gone: which copy is the move is not known.
    shutil.copy(vault / "notes/Epsilon.md", vault / "archive/Epsilon.md")
    shutil.copy(vault / "notes/Epsilon.md", vault / "archive/Epsilon copy.md")
    (vault / "notes/Epsilon.md").unlink()


async def seen_then_moved(vault, runtime_dir, cache):
    async with session_on(vault, runtime_dir, cache) as session:
        first = (await session.call_tool("detected_moves", {})).structured_content
    git(vault, "init", "-q")
    git(vault, "add", "-A")
    git(vault, "commit", "-qm", "notes")
    move_outside(vault)
    async with session_on(vault, runtime_dir, cache) as session:
        return {"first": first, **await after_moves(session, vault)}


async def after_moves(session, vault):
    """What the server answers once the moves are made, and the vault along the way."""
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    detected = await session.call_tool("detected_moves", {})
    paged = (await session.call_tool("detected_moves", {"limit": 1})).structured_content
    preview = await session.call_tool("heal_moves", {})
    untouched = (vault / "Index.md").read_text()
    applied = await session.call_tool("heal_moves", {"approved_plan_hash": preview.structured_content["plan_hash"]})
    healed = {name: (vault / name).read_text() for name in ("Index.md", "archive/2026/Gamma.md")}
    listed = (await session.call_tool("list_changes", {})).structured_content
    undo = (await session.call_tool("undo_change", {})).structured_content
    undone = await session.call_tool("undo_change", {"approved_plan_hash": undo["plan_hash"]})
    after_undo = (vault / "Index.md").read_text()
    return {"tools": tools, "detected": detected, "paged": paged, "preview": preview,
            "untouched": untouched, "applied": applied, "healed": healed, "listed": listed, "undone": undone,
            "after_undo": after_undo}


def validate(tools, name, result):
    assert not result.is_error, result.structured_content
    schema = tools[name].output_schema
    jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema).validate(
        result.structured_content)
    return result.structured_content


def test_moves_made_by_mv_git_mv_and_a_script_are_detected_and_healed_and_the_look_alikes_are_listed(
        tmp_path, runtime_dir):
    vault, cache = make_vault(tmp_path / "vault"), tmp_path / "cache"
    found = asyncio.run(seen_then_moved(vault, runtime_dir, cache))
    # The first server has nothing to compare with.
    assert found["first"]["observed"] is False and found["first"]["total"] == 0
    check_detected_and_healed(found, vault)


async def seen_by_the_plugin_then_moved(vault, runtime_dir, cache, host):
    async with session_on(vault, runtime_dir, cache, mode="plugin") as session:
        first = (await session.call_tool("detected_moves", {})).structured_content
        git(vault, "init", "-q")
        git(vault, "add", "-A")
        git(vault, "commit", "-qm", "notes")
        move_outside(vault)
        # Obsidian's file watcher reports what changed on the disk: each move a delete and a create.
        host.stdin.write("notice\n")
        host.stdin.flush()
        assert json.loads(host.stdout.readline()) == {"noticed": True}
        return {"first": first, **await after_moves(session, vault)}


def test_the_same_moves_made_while_obsidian_has_the_vault_open_are_detected_and_healed_through_the_plugin(
        tmp_path, runtime_dir):
    vault, cache = make_vault(tmp_path / "vault"), tmp_path / "cache"
    host = subprocess.Popen(["node", str(PLUGIN_HOST), str(vault)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_HOST_NOTICE_DISK": "1"})
    try:
        assert json.loads(host.stdout.readline())["ready"] is True
        found = asyncio.run(seen_by_the_plugin_then_moved(vault, runtime_dir, cache, host))
    finally:
        stop_plugin(host)
    # The plugin compares with the vault as its first index saw it: nothing had moved then.
    assert found["first"]["observed"] is True and found["first"]["total"] == 0
    check_detected_and_healed(found, vault)


def check_detected_and_healed(found, vault):
    """The moves, the look-alikes, the heal's preview, its rewrite and its undo: the same on both paths."""
    detected = validate(found["tools"], "detected_moves", found["detected"])
    assert detected["observed"] is True
    moves = {(move["kind"], move["from"], move["to"]): move for move in detected["moves"]}
    assert set(moves) == {
        ("note", "notes/Alpha.md", "archive/Alpha.md"),
        ("note", "kept/Beta.md", "archive/Beta.md"),
        ("note", "drafts/Gamma.md", "archive/2026/Gamma.md"),
        ("folder", "old", "new"),
    }, moves
    assert moves[("folder", "old", "new")]["notes_total"] == 2
    assert "same size and content hash" in moves[("note", "notes/Alpha.md", "archive/Alpha.md")]["evidence"]
    assert moves[("note", "kept/Beta.md", "archive/Beta.md")]["links_broken_total"] == 1, detected
    broken = {(link["note"], link["target"]) for move in detected["moves"] for link in move["links_broken"]}
    assert broken == {("Index.md", "notes/Alpha.md"), ("Index.md", "drafts/Gamma.md"), ("Index.md", "old/x"),
                      ("Index.md", "old/deep/y"), ("Index.md", "kept/Beta"), ("archive/2026/Gamma.md", "../Index.md")}, broken
    ambiguous = {case["from"]: case for case in detected["ambiguous"]}
    assert ambiguous["notes/Delta.md"]["why"] == "content_differs"
    assert ambiguous["notes/Delta.md"]["detail"].startswith("not detected, content differs")
    assert ambiguous["notes/Epsilon.md"]["why"] == "copies"
    assert sorted(ambiguous["notes/Epsilon.md"]["candidates"]) == ["archive/Epsilon copy.md", "archive/Epsilon.md"]
    assert detected["total"] == 6 and found["paged"]["next_cursor"], found["paged"]

    preview = validate(found["tools"], "heal_moves", found["preview"])
    assert preview["dry_run"] is True and preview["moves"] == [] and preview["files_moved"] == 0
    assert preview["links_changed"] == 6 and preview["ambiguous"] == 2
    assert found["untouched"] == LINKER, "a preview writes nothing"

    applied = validate(found["tools"], "heal_moves", found["applied"])
    assert applied["applied"] is True and applied["change_id"]
    assert found["healed"]["Index.md"] == (
        "see [alpha](Alpha.md), [gamma](Gamma.md), [[x]], [[y]], "
        "[[Beta]], [delta](notes/Delta.md) and [epsilon](notes/Epsilon.md)\n")
    # The moved note's own relative link follows it, as move_note writes it.
    assert found["healed"]["archive/2026/Gamma.md"] == "gamma, which links back to [the index](Index.md)\n"
    # No file moved back, the ambiguous ones were left, and the heal is kept for undo_change.
    assert (vault / "archive/Alpha.md").exists() and not (vault / "notes/Alpha.md").exists()
    assert found["listed"]["changes"][0]["tool"] == "heal_moves"
    assert not found["undone"].is_error and found["after_undo"] == LINKER


def test_the_moves_and_heal_commands_detect_and_heal_a_move_on_the_command_line(tmp_path, runtime_dir):
    vault, cache = make_vault(tmp_path / "vault"), tmp_path / "cache"
    env = {**os.environ, **environment(runtime_dir, cache)}

    def run(*args):
        done = subprocess.run([str(SIDECAR), *args, str(vault), "--mode", "standalone"], capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "No earlier view" in run("moves")
    subprocess.run(["mv", "notes/Alpha.md", "Alpha moved.md"], cwd=vault, check=True)
    listed = run("moves")
    assert "note notes/Alpha.md -> Alpha moved.md" in listed and "broke Index.md:1 notes/Alpha.md" in listed, listed
    # Each command sees the vault anew: this one compares with what `moves` saw, the move already.
    subprocess.run(["mv", "Alpha moved.md", "notes/Alpha.md"], cwd=vault, check=True)
    run("moves")
    subprocess.run(["mv", "notes/Alpha.md", "Alpha moved.md"], cwd=vault, check=True)
    index_before = (vault / "Index.md").read_text()
    previewed = run("heal", "--dry-run")
    assert "would be rewritten" in previewed and "Nothing was changed (--dry-run)." in previewed, previewed
    assert (vault / "Index.md").read_text() == index_before and kept_changes(vault) == []
    # As `fix` and `mv`: without --dry-run the links are rewritten.
    healed = json.loads(run("heal", "--json"))
    assert healed["applied"] is True and healed["links_changed"] == 1, healed
    assert "[alpha](Alpha%20moved.md)" in (vault / "Index.md").read_text()
    assert len(kept_changes(vault)) == 1


def test_a_move_stays_detected_across_commands_until_it_is_healed(tmp_path, runtime_dir):
    vault, cache = make_vault(tmp_path / "vault"), tmp_path / "cache"
    env = {**os.environ, **environment(runtime_dir, cache)}

    def run(*args, note=None):
        done = subprocess.run([str(SIDECAR), *args, str(vault), *([note] if note else []), "--mode", "standalone"],
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("moves")
    subprocess.run(["mv", "notes/Alpha.md", "Alpha moved.md"], cwd=vault, check=True)
    # An unrelated command sees the vault anew and keeps what it saw in the persistent index.
    run("backlinks", note="Index.md")
    listed = json.loads(run("moves", "--json"))
    assert [(move["from"], move["to"]) for move in listed["moves"]] == [("notes/Alpha.md", "Alpha moved.md")], listed
    assert "note notes/Alpha.md -> Alpha moved.md" in run("moves")
    healed = json.loads(run("heal", "--yes", "--json"))
    assert healed["applied"] is True and healed["links_changed"] == 1, healed
    assert "[alpha](Alpha%20moved.md)" in (vault / "Index.md").read_text()
    after = json.loads(run("moves", "--json"))
    assert after["moves"] == [] and after["ambiguous"] == [], after


async def detected_then_restarted(vault, runtime_dir, cache):
    async with session_on(vault, runtime_dir, cache):
        pass
    subprocess.run(["mv", "notes/Alpha.md", "Alpha moved.md"], cwd=vault, check=True)
    async with session_on(vault, runtime_dir, cache) as session:
        detected = (await session.call_tool("detected_moves", {})).structured_content
    # The agent's client restarts the server before it heals.
    async with session_on(vault, runtime_dir, cache) as session:
        preview = (await session.call_tool("heal_moves", {})).structured_content
        applied = (await session.call_tool("heal_moves", {"approved_plan_hash": preview["plan_hash"]})).structured_content
        same_server = (await session.call_tool("detected_moves", {})).structured_content
    async with session_on(vault, runtime_dir, cache) as session:
        next_server = (await session.call_tool("detected_moves", {})).structured_content
    return detected, applied, same_server, next_server


def test_a_restart_between_detected_moves_and_heal_moves_still_heals(tmp_path, runtime_dir):
    vault, cache = make_vault(tmp_path / "vault"), tmp_path / "cache"
    detected, applied, same_server, next_server = asyncio.run(detected_then_restarted(vault, runtime_dir, cache))
    assert [(move["from"], move["to"]) for move in detected["moves"]] == [("notes/Alpha.md", "Alpha moved.md")], detected
    assert applied["applied"] is True and applied["links_changed"] == 1, applied
    assert "[alpha](Alpha%20moved.md)" in (vault / "Index.md").read_text()
    assert same_server["moves"] == [] and next_server["moves"] == [], (same_server, next_server)
