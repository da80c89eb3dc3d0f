"""Nothing is written outside the vault through a symbolic link, on either edge, by any writing
tool (issue 34, red team, critical: through the plugin, `move_note Note.md -> Inbox/Note.md` with
`Inbox -> <a folder outside>` answered `applied` and the folder outside then held the note).

A vault as a clone can carry it: `Inbox` a symbolic link to a folder outside, which holds a note.
Every writing tool is called as an agent calls it, through the official MCP SDK, once with the
plugin (the built main.js in the plugin host, whose Obsidian double shows and follows the linked
folder as Obsidian does) and once on the folder (standalone): each call is refused, and the vault
and the folder outside stay byte for byte as they were. Through the plugin the refusal is
`invalid_path` naming the link; on the folder a note behind a link is not part of the vault at
all (the walk does not follow links), so a call naming one finds no such note."""

import os
import subprocess

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import SIDECAR, on_path

INSIDE = "# Inside\n[[Ada]] and [[Home]]\n"

# Each writing tool, approved at once; what makes it go through the link; the link it names.
CASES = {
    "move a note into the link": ("move_note", {"from": "Inbox.md", "to": "Linked/Inbox.md"}, "Linked"),
    "move a folder into the link": ("move_note", {"from": "Projects", "to": "Linked/Projects"}, "Linked"),
    "move a note out from behind the link": ("move_note", {"from": "Linked/Inside.md", "to": "Inside.md"}, "Linked"),
    "a move that rewrites a note behind the link": ("move_note", {"from": "People/Ada.md", "to": "People/Ada L.md"}, "Linked"),
    "a bulk move with one move into the link": ("bulk_move_notes", {"moves": [
        {"from": "Projects/Beta.md", "to": "Archive/Beta.md"},
        {"from": "Inbox.md", "to": "Linked/Inbox.md"},
    ]}, "Linked"),
    "a rewrite of a link behind the link": ("rewrite_link", {"from_target": "Home", "to_target": "Inbox"}, "Linked"),
    "properties of a note behind the link": ("update_properties", {"path": "Linked/Inside.md", "set": {"status": "x"}}, "Linked"),
    "a wiki page behind the link": ("commit_wiki_page", {"page": {"path": "Linked/Page", "body": "# Page\n\n[[Home]]\n"}}, "Linked"),
    "a wiki patch behind the link": ("commit_wiki_page", {
        "page": {"path": "Page", "body": "# Page\n\n[[Home]]\n"},
        "patches": [{"path": "Linked/Inside.md", "kind": "link"}],
    }, "Linked"),
    "a delete behind the link": ("delete_note", {"path": "Linked/Inside.md"}, "Linked"),
    "a delete into a trash that is a link": ("delete_note", {"path": "Inbox.md"}, ".trash"),
    "a journal folder that is a link": ("move_note", {"from": "Inbox.md", "to": "Inbox 2.md"}, ".vaultlink"),
}


# On the folder, a note behind a link is not part of the vault (the walk does not follow links):
# a change that would rewrite it through the plugin changes only the vault there.
UNSEEN_ON_THE_FOLDER = {"a move that rewrites a note behind the link", "a rewrite of a link behind the link"}
# The cases whose path itself goes through the link, which both edges refuse alike.
NAMED_ON_BOTH_EDGES = {
    "move a note into the link", "move a folder into the link", "a bulk move with one move into the link",
    "a wiki page behind the link", "a delete into a trash that is a link", "a journal folder that is a link",
}


def approved(tool, arguments):
    if tool == "delete_note":
        return {**arguments, "confirm": True, "force": True}
    return {**arguments, "dry_run": False}


def tree(folder):
    """Every folder, file (with its bytes) and symbolic link (as where it points) under `folder`,
    never following a link."""
    found = {}
    for top, folders, files in os.walk(folder, followlinks=False):
        for name in folders + files:
            full = os.path.join(top, name)
            relative = os.path.relpath(full, folder)
            if os.path.islink(full):
                found[relative] = "-> " + os.readlink(full)
            elif os.path.isdir(full):
                found[relative + "/"] = ""
            else:
                with open(full, "rb") as file:
                    found[relative] = file.read()
    return found


def linked_vault(vault, tmp_path, link):
    """Makes `link` in `vault` a symbolic link to a folder outside; that folder holds a note
    linking into the vault. Returns the folder outside."""
    outside = tmp_path / f"outside-{link.strip('.')}"
    outside.mkdir()
    (outside / "Inside.md").write_text(INSIDE)
    if link == "Linked":
        os.symlink(outside, vault / "Linked")
    else:
        # The other links stand beside a real `Linked` folder holding the same note.
        (vault / "Linked").mkdir()
        (vault / "Linked" / "Inside.md").write_text(INSIDE)
        os.symlink(outside, vault / link)
    return outside


async def call(vault, runtime, mode, tool, arguments):
    server = StdioServerParameters(
        command=str(SIDECAR),
        args=["mcp", "--vault", str(vault), "--mode", mode],
        env={"VAULTLINK_RUNTIME_DIR": str(runtime), "VAULTLINK_LOG": "warn", "HOME": os.environ["HOME"]},
    )
    async with stdio_client(server, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool(tool, approved(tool, arguments))


@pytest.mark.parametrize("edge", ["plugin", "standalone"])
@pytest.mark.parametrize("case", CASES)
def test_no_writing_tool_goes_through_a_symbolic_link(case, edge, vault, tmp_path, runtime_dir):
    tool, arguments, link = CASES[case]
    outside = linked_vault(vault, tmp_path, link)
    vault_before, outside_before = tree(vault), tree(outside)
    answer = on_path(vault, runtime_dir, edge, lambda vault, runtime_dir, mode: call(vault, runtime_dir, mode, tool, arguments))
    assert tree(outside) == outside_before, f"{case} through the {edge}: the folder outside changed"
    if edge == "standalone" and case in UNSEEN_ON_THE_FOLDER:
        # The note behind the link is not the vault's here: the change is made in the vault alone.
        assert answer.is_error is False, answer.content
        return
    assert answer.is_error is True, f"{case} through the {edge}: {answer.structured_content or answer.content}"
    error = answer.structured_content or {}
    if edge == "plugin" or case in NAMED_ON_BOTH_EDGES:
        # A path of the vault that goes through the link, refused before any change.
        assert error.get("code") == "invalid_path", error
        assert f"`{link}`" in error["message"] and "symbolic link" in error["message"], error
        assert "nothing was changed" in error["message"], error
        if edge == "plugin":
            assert f"goes through `{link}`, a symbolic link" in error["message"], error
    else:
        # The path names no note of the vault on the folder.
        assert error.get("code") in ("note_not_found", "page_refused"), error
        assert "Linked/Inside.md" in error["message"], error
    assert tree(vault) == vault_before, f"{case} through the {edge}: the vault changed"


def test_the_cli_refuses_a_move_into_a_linked_folder(vault, tmp_path):
    """`vaultlink mv`, the command people run, holds the same rule."""
    outside = linked_vault(vault, tmp_path, "Linked")
    vault_before, outside_before = tree(vault), tree(outside)
    done = subprocess.run([str(SIDECAR), "mv", str(vault), "Inbox.md", "Linked/Inbox.md"], capture_output=True, text=True)
    assert done.returncode == 2, done
    assert "goes through `Linked`, a symbolic link" in done.stderr
    assert tree(vault) == vault_before and tree(outside) == outside_before
