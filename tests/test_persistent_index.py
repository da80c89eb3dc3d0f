"""The persistent index and the server's start, end to end.

The server begins indexing the vault when it starts: `server_health` and `tools/list` answer
while it is still indexing, and a call that needs the index waits for it and answers right. The
index is held at its start by a gate file (a debug build's `VAULTLINK_DEBUG_INDEX_GATE`), so the
test sees the server mid-index by an event, not by timing.

The persistent index never serves a stale answer: after an edit, a touch, a same-size edit within
one modification-time tick, a rename, a delete, a damaged or foreign index file and a vault moved
to another folder, the command line's answer is the one the notes give, and the log says which
files were read again and whether the file was used.
"""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import SIDECAR

GIVE = re.compile(r"the persistent index gave (\d+) files; (\d+) are read")


@pytest.fixture()
def cache(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    return folder


def index_files(cache):
    return sorted((cache / "index").glob("*.index")) if (cache / "index").exists() else []


def cli(vault, cache, runtime_dir, *args):
    """Runs a command on the folder; returns its JSON answer and what the persistent index gave
    (files taken, files read), or `None` when it was not used."""
    env = {**os.environ, "VAULTLINK_CACHE_DIR": str(cache), "VAULTLINK_RUNTIME_DIR": str(runtime_dir),
           "VAULTLINK_LOG": "vaultlink=info"}
    done = subprocess.run([str(SIDECAR), *args[:1], str(vault), *args[1:], "--json", "--mode", "standalone"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    given = GIVE.search(done.stderr)
    return json.loads(done.stdout), (tuple(map(int, given.groups())) if given else None), done.stderr


def sources(vault, cache, runtime_dir, note):
    answer, given, _ = cli(vault, cache, runtime_dir, "backlinks", note)
    return sorted(link["source"] for link in answer), given


def write(path, text, mtime_ns=None):
    path.write_text(text)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


def make_vault(folder, notes):
    """A vault of `notes`, each an hour old: its stamp proves it unchanged at the next start."""
    folder.mkdir()
    old = (int(time.time()) - 3600) * 1_000_000_000
    for name, text in notes.items():
        write(folder / name, text, old)
    return folder.resolve()


def test_an_edit_a_touch_a_rename_and_a_delete_are_seen_and_only_changed_notes_are_read(tmp_path, cache, runtime_dir):
    vault = make_vault(tmp_path / "v", {"a.md": "to [[b]]", "b.md": "bee", "c.md": "see", "d.md": "to [[b]] too"})
    assert sources(vault, cache, runtime_dir, "b") == (["a.md", "d.md"], None)
    assert len(index_files(cache)) == 1
    # Unchanged: every file comes from the persistent index.
    assert sources(vault, cache, runtime_dir, "b") == (["a.md", "d.md"], (4, 0))

    # An edit (another size): only that note is read.
    write(vault / "a.md", "now to [[c]]")
    assert sources(vault, cache, runtime_dir, "b") == (["d.md"], (3, 1))
    assert sources(vault, cache, runtime_dir, "c")[0] == ["a.md"]

    # A touch without an edit: read again, the answer the same.
    stat = (vault / "d.md").stat()
    os.utime(vault / "d.md", ns=(stat.st_atime_ns, stat.st_mtime_ns - 10_000_000_000))
    assert sources(vault, cache, runtime_dir, "b")[0] == ["d.md"]

    # A rename and a delete.
    (vault / "d.md").rename(vault / "e.md")
    assert sources(vault, cache, runtime_dir, "b")[0] == ["e.md"]
    (vault / "e.md").unlink()
    assert sources(vault, cache, runtime_dir, "b")[0] == []


def test_a_same_size_edit_within_one_tick_is_read_again(tmp_path, cache, runtime_dir):
    vault = make_vault(tmp_path / "v", {"b.md": "bee", "c.md": "see"})
    write(vault / "a.md", "to [[b]]")
    mtime = (vault / "a.md").stat().st_mtime_ns
    assert sources(vault, cache, runtime_dir, "b")[0] == ["a.md"]
    # The same size, the same modification time (as a coarse file system keeps it): only the
    # tick it was written in tells, and the note is read again.
    write(vault / "a.md", "to [[c]]", mtime)
    assert (vault / "a.md").stat().st_mtime_ns == mtime
    assert sources(vault, cache, runtime_dir, "b")[0] == []
    assert sources(vault, cache, runtime_dir, "c")[0] == ["a.md"]


def test_a_damaged_index_file_is_rebuilt_and_never_misread(tmp_path, cache, runtime_dir):
    vault = make_vault(tmp_path / "v", {"a.md": "to [[b]]", "b.md": "bee"})
    sources(vault, cache, runtime_dir, "b")
    [file] = index_files(cache)
    data = bytearray(file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    file.write_bytes(bytes(data))
    answer, given, log = cli(vault, cache, runtime_dir, "backlinks", "b")
    assert [link["source"] for link in answer] == ["a.md"]
    assert given is None and "it is damaged" in log, log
    # Rebuilt: the next start takes every file from it.
    assert sources(vault, cache, runtime_dir, "b") == (["a.md"], (2, 0))
    # Cut short, or not an index at all: the same.
    file.write_bytes(file.read_bytes()[:40])
    assert sources(vault, cache, runtime_dir, "b") == (["a.md"], None)
    file.write_bytes(b"not an index")
    assert sources(vault, cache, runtime_dir, "b") == (["a.md"], None)


def test_another_vaults_index_file_is_refused(tmp_path, cache, runtime_dir):
    one = make_vault(tmp_path / "one", {"a.md": "to [[b]]", "b.md": "bee"})
    two = make_vault(tmp_path / "two", {"x.md": "to [[b]]", "y.md": "to [[b]]", "b.md": "bee"})
    sources(one, cache, runtime_dir, "b")
    [one_file] = index_files(cache)
    sources(two, cache, runtime_dir, "b")
    [two_file] = [file for file in index_files(cache) if file != one_file]
    shutil.copyfile(two_file, one_file)
    answer, given, log = cli(one, cache, runtime_dir, "backlinks", "b")
    assert sorted(link["source"] for link in answer) == ["a.md"]
    assert given is None and "it is another vault's" in log, log


def test_a_vault_moved_away_and_another_put_in_its_place_is_never_served_the_first_ones_data(tmp_path, cache, runtime_dir):
    first = make_vault(tmp_path / "v", {"a.md": "to [[b]]", "b.md": "bee"})
    assert sources(first, cache, runtime_dir, "b")[0] == ["a.md"]
    moved = tmp_path / "moved"
    first.rename(moved)
    # The moved vault is another key: indexed from its notes, and right.
    assert sources(moved.resolve(), cache, runtime_dir, "b") == (["a.md"], None)
    # Another vault where the first was, with notes of the same names, sizes and times.
    second = make_vault(tmp_path / "v", {"a.md": "to [[c]]", "b.md": "bee", "c.md": "see"})
    os.utime(second / "a.md", ns=((moved / "a.md").stat().st_atime_ns, (moved / "a.md").stat().st_mtime_ns))
    assert sources(second, cache, runtime_dir, "b") == ([], None)
    assert sources(second, cache, runtime_dir, "c")[0] == ["a.md"]


def test_the_index_file_is_in_the_cache_folder_never_in_the_vault(tmp_path, cache, runtime_dir):
    vault = make_vault(tmp_path / "v", {"a.md": "to [[b]]", "b.md": "bee"})
    before = sorted(path.relative_to(vault) for path in vault.rglob("*"))
    sources(vault, cache, runtime_dir, "b")
    assert sorted(path.relative_to(vault) for path in vault.rglob("*")) == before
    [file] = index_files(cache)
    assert oct(file.stat().st_mode & 0o777) == "0o600"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the gate is polled as a file; the live index is Linux's")
def test_server_health_and_tools_list_answer_while_the_vault_is_indexed_and_reads_wait_for_it(tmp_path, cache, runtime_dir):
    vault = make_vault(tmp_path / "v", {"a.md": "to [[b]]", "b.md": "bee"})
    gate = tmp_path / "gate"
    params = StdioServerParameters(
        command=str(SIDECAR), args=["mcp", "--vault", str(vault), "--mode", "standalone"],
        env={"VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_CACHE_DIR": str(cache),
             "VAULTLINK_DEBUG_INDEX_GATE": str(gate)})

    async def run():
        async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                health = (await session.call_tool("server_health", {})).structured_content
                assert health["folder_index"]["mode"] == "indexing", health
                assert "get_backlinks" in {tool.name for tool in (await session.list_tools()).tools}
                backlinks = asyncio.ensure_future(session.call_tool("get_backlinks", {"path": "b"}))
                # Health answers again while the read waits: the index cannot be built before
                # the gate opens, so the read is still waiting.
                health = (await session.call_tool("server_health", {})).structured_content
                assert health["folder_index"]["mode"] == "indexing", health
                assert not backlinks.done()
                gate.write_text("")
                answer = (await backlinks).structured_content
                assert [link["source"] for link in answer["backlinks"]] == ["a.md"]
                health = (await session.call_tool("server_health", {})).structured_content
                assert health["folder_index"]["mode"] == "live", health
                assert health["index"]["notes"] == 2, health

    asyncio.run(run())
    # The server kept the index for the next start.
    assert len(index_files(cache)) == 1
