"""Discovery and the auto rule, the way users run vaultlink: the plugin (the plugin host, in
Node) runs with a desktop session's environment, and the sidecar is started by the MCP Python
SDK with its default environment (on Unix only HOME, LOGNAME, PATH, SHELL, TERM, USER pass), as
the configurations the plugin copies start it. No VAULTLINK_* variable is set on either side.

Obsidian is played by the test: an `obsidian.json` in the temporary home that lists the vault
as open, and Electron's single-instance lock (`SingletonLock`, a symbolic link to
`<hostname>-<pid>`) naming a live process, or none when Obsidian is closed.
"""

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

from conftest import PLUGIN_HOST, SIDECAR, snapshot

MOVE = {"from": "People/Ada.md", "to": "People/Ada Lovelace.md"}
READ = ("get_backlinks", {"path": "People/Ada.md"})


@pytest.fixture()
def home(monkeypatch):
    """A temporary home folder, the one both sides find everything from. Short, so that the
    socket fits beside the discovery file; no VAULTLINK_* variable anywhere."""
    folder = Path(tempfile.mkdtemp(prefix="vlh-", dir="/tmp"))
    for name in [name for name in os.environ if name.startswith("VAULTLINK_")]:
        monkeypatch.delenv(name)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("HOME", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def desktop_runtime():
    """The desktop session's XDG_RUNTIME_DIR, which the sidecar never sees."""
    folder = Path(tempfile.mkdtemp(prefix="vlx-", dir="/tmp"))
    folder.chmod(0o700)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def home_vault(home):
    copy = home / "Vault"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "vault", copy)
    return copy.resolve()


def desktop_environment(home, runtime):
    """What Obsidian gets from a desktop session, and nothing of vaultlink's; a session without a
    runtime directory (`runtime` None) has no XDG_RUNTIME_DIR."""
    environment = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "USER": os.environ.get("USER", "ada"),
        "LANG": "C.UTF-8",
        "XDG_SESSION_TYPE": "x11",
        "DISPLAY": ":0",
    }
    if runtime is not None:
        environment["XDG_RUNTIME_DIR"] = str(runtime)
        environment["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={runtime}/bus"
    return environment


def start_desktop_plugin(vault, home, runtime, hold_index=False, case_insensitive=False):
    env = desktop_environment(home, runtime)
    if hold_index:
        env["VAULTLINK_HOST_HOLD_INDEX"] = "1"
    if case_insensitive:
        env["VAULTLINK_HOST_CASE_INSENSITIVE"] = "1"
    host = subprocess.Popen(["node", str(PLUGIN_HOST), str(vault)], stdout=subprocess.PIPE, env=env, text=True)
    line = json.loads(host.stdout.readline())
    assert line.get("ready") is True or (hold_index and line.get("announced") is True), line
    return host, line


def stop(host):
    """Stops the host; it exits 3 when anything was thrown uncaught or rejected unhandled while
    the plugin ran, as a renderer would log it and go on."""
    if host.poll() is None:
        host.terminate()
        host.wait(timeout=10)
    return host.returncode


def obsidian_has_the_vault_open(home, vault, pid):
    """Obsidian's own records: the vault listed open, and the single-instance lock held by `pid`."""
    config = home / ".config" / "obsidian"
    config.mkdir(parents=True, exist_ok=True)
    (config / "obsidian.json").write_text(json.dumps(
        {"vaults": {"0123456789abcdef": {"path": str(vault), "ts": 1764547200000, "open": True}}}))
    lock = config / "SingletonLock"
    if lock.is_symlink():
        lock.unlink()
    if pid is not None:
        os.symlink(f"{socket.gethostname()}-{pid}", lock)


async def client_session(vault, calls, args=()):
    """The SDK starts the sidecar as a client would: no `env`, so the default environment."""
    params = StdioServerParameters(command=str(SIDECAR), args=["mcp", "--vault", str(vault), *args])
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            results = []
            for name, arguments in calls:
                if callable(arguments):
                    arguments = arguments(results)
                results.append(await session.call_tool(name, arguments))
            return results


def run(vault, calls, args=()):
    return asyncio.run(client_session(vault, calls, args))


def approve(results):
    """The move's arguments with the hash of the preview just before."""
    return {**MOVE, "approved_plan_hash": results[-1].structured_content["plan_hash"]}


def test_the_sdk_default_environment_carries_nothing_of_the_desktop_session(home, desktop_runtime):
    passed = get_default_environment()
    assert passed["HOME"] == str(home)
    assert not [name for name in passed if name.startswith(("VAULTLINK_", "XDG_"))], passed


@pytest.mark.parametrize("case_insensitive", [False, True], ids=["case-sensitive-folder", "case-insensitive-folder"])
@pytest.mark.parametrize("socket_place", ["beside", "runtime", "fresh"],
                         ids=["socket-beside-discovery", "socket-in-runtime-dir", "socket-in-fresh-folder"])
def test_a_client_started_sidecar_finds_the_plugin_and_writes_through_it(home, desktop_runtime, monkeypatch, socket_place, case_insensitive):
    if socket_place != "beside":
        # A home whose bridge folder is too deep for a Unix socket: the socket goes to the
        # session's runtime directory, or without one (issue 34) to a folder of a fresh random
        # name in the temporary folder, and the discovery file, found from the home, names it.
        deep = home / ("h" * 70)
        deep.mkdir()
        monkeypatch.setenv("HOME", str(deep))
        home = deep
    vault = home / "Vault"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "vault", vault)
    vault = vault.resolve()
    runtime = None if socket_place == "fresh" else desktop_runtime
    host, ready = start_desktop_plugin(vault, home, runtime, case_insensitive=case_insensitive)
    socket_dir = Path(ready["socket"]).parent
    try:
        discovery = Path(ready["discovery"])
        assert discovery.parent == home / ".local" / "state" / "vaultlink" / "bridge"
        assert discovery.stat().st_mode & 0o777 == 0o600 and discovery.parent.stat().st_mode & 0o777 == 0o700
        if socket_place == "fresh":
            assert socket_dir.parent == Path(tempfile.gettempdir()) and socket_dir.name.startswith("vaultlink-"), socket_dir
            assert socket_dir.name != f"vaultlink-{os.getuid()}" and socket_dir.stat().st_mode & 0o777 == 0o700
        else:
            assert socket_dir == (desktop_runtime / "vaultlink" if socket_place == "runtime" else discovery.parent)
        assert json.loads(discovery.read_text())["state"] == "ready"
        # The plugin host plays Obsidian with the vault open: a write on the folder would be
        # refused, so an applied move can only have gone through the plugin.
        obsidian_has_the_vault_open(home, vault, host.pid)
        health, read, preview, applied, after = run(vault, [
            ("server_health", {}), READ, ("move_note", MOVE), ("move_note", approve), ("server_health", {})])
        assert health.structured_content["mode"] == "plugin", health.structured_content
        assert health.structured_content["writes"]["go_to"] == "plugin"
        assert read.is_error is False and read.structured_content["total"] > 0
        assert preview.is_error is False, preview.content
        assert applied.is_error is False, applied.content
        assert applied.structured_content["applied"] is True
        assert after.structured_content["mode"] == "plugin"
        assert "last_bridge_error" not in after.structured_content
        assert (vault / "People" / "Ada Lovelace.md").exists() and not (vault / "People" / "Ada.md").exists()
        # A rename that changes only case, through the plugin, on either kind of folder.
        case_move = {"from": "People/Ada Lovelace.md", "to": "People/ADA LOVELACE.md"}
        case_preview, case_applied = run(vault, [
            ("move_note", case_move),
            ("move_note", lambda results: {**case_move, "approved_plan_hash": results[-1].structured_content["plan_hash"]}),
        ])
        assert case_applied.is_error is False and case_applied.structured_content["applied"] is True, case_applied.content
        assert "ADA LOVELACE.md" in os.listdir(vault / "People") and "Ada Lovelace.md" not in os.listdir(vault / "People")
    finally:
        code = stop(host)
    assert code == 0, "the plugin threw nothing uncaught while it ran"
    if socket_place == "fresh":
        assert not socket_dir.exists(), "the fresh folder goes with the plugin"


def refused_write(vault, args=()):
    """A write in auto mode that must be refused, a read that must still answer, and the evidence."""
    before = snapshot(vault)
    health, read, preview, applied = run(vault, [
        ("server_health", {}), READ, ("move_note", MOVE),
        ("move_note", {**MOVE, "dry_run": False})], args)
    for write in (preview, applied):
        assert write.is_error is True, write.content
        error = write.structured_content
        assert error["code"] == "plugin_unavailable", error
        assert error["retryable"] is True
    assert snapshot(vault) == before, "the vault is byte-identical"
    assert read.is_error is False, read.content
    return health.structured_content, applied.structured_content


def test_with_obsidian_open_and_no_plugin_auto_refuses_writes(home, home_vault):
    # Obsidian runs (this test's own process holds the lock) with the vault open; the plugin is
    # off, so no discovery file exists.
    obsidian_has_the_vault_open(home, home_vault, os.getpid())
    health, error = refused_write(home_vault)
    assert "Obsidian has this vault open" in error["message"] and "obsidian.json" in error["message"]
    for fix in ("Enable the vaultlink plugin", "finish indexing", "close Obsidian", "--mode standalone"):
        assert fix in error["hint"], error["hint"]
    assert health["writes"]["go_to"] == "refused"
    assert any("lists this vault as open" in line for line in health["writes"]["evidence"]), health


def test_with_obsidian_open_and_a_plugin_still_indexing_auto_waits_then_refuses(home, home_vault, desktop_runtime):
    host, announced = start_desktop_plugin(home_vault, home, desktop_runtime, hold_index=True)
    try:
        assert json.loads(Path(announced["discovery"]).read_text())["state"] == "starting"
        obsidian_has_the_vault_open(home, home_vault, host.pid)
        health, error = refused_write(home_vault, ["--wait-for-plugin", "1"])
        assert "still indexing" in error["message"] and "wrote nothing" in error["message"], error
        assert health["plugin"]["state"] == "starting"
        assert health["writes"]["go_to"] == "plugin"
    finally:
        stop(host)


def test_a_write_waits_for_a_plugin_still_indexing_and_goes_through_it_once_ready(home, home_vault, desktop_runtime):
    host, announced = start_desktop_plugin(home_vault, home, desktop_runtime, hold_index=True)
    try:
        discovery = Path(announced["discovery"])
        obsidian_has_the_vault_open(home, home_vault, host.pid)
        steps = []

        async def write():
            params = StdioServerParameters(command=str(SIDECAR), args=["mcp", "--vault", str(home_vault)])
            async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write_stream):
                async with ClientSession(read, write_stream) as session:
                    await session.initialize()

                    waiting = asyncio.Event()

                    async def progress(done, total, message):
                        steps.append(message)
                        if "has not finished its first index" in (message or ""):
                            waiting.set()
                    call = asyncio.create_task(session.call_tool(
                        "move_note", {**MOVE, "dry_run": False}, progress_callback=progress))
                    # The sidecar says it is waiting for the plugin's first index; only then is the index let finish.
                    await asyncio.wait_for(waiting.wait(), timeout=30)
                    assert not call.done(), "the write waits for the index"
                    assert json.loads(discovery.read_text())["state"] == "starting"
                    host.send_signal(signal.SIGUSR2)
                    applied = await asyncio.wait_for(call, timeout=30)
                    health = await session.call_tool("server_health", {})
                    return applied, health

        applied, health = asyncio.run(write())
        assert applied.is_error is False, applied.content
        assert applied.structured_content["applied"] is True
        assert any("has not finished its first index" in (step or "") and "waiting" in (step or "") for step in steps), steps
        assert json.loads(discovery.read_text())["state"] == "ready"
        assert health.structured_content["mode"] == "plugin"
        assert (home_vault / "People" / "Ada Lovelace.md").exists()
    finally:
        stop(host)


def test_with_obsidian_open_and_a_dead_plugins_socket_auto_refuses_writes(home, home_vault, desktop_runtime):
    # The plugin crashed: its discovery file names a socket nothing listens on. Obsidian still
    # runs (this process holds its lock) with the vault open.
    host, ready = start_desktop_plugin(home_vault, home, desktop_runtime)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=10)
    assert Path(ready["discovery"]).exists()
    obsidian_has_the_vault_open(home, home_vault, os.getpid())
    health, error = refused_write(home_vault)
    assert "nothing listens" in error["message"], error
    assert health["writes"]["go_to"] == "refused"


def test_with_obsidian_closed_auto_writes_on_the_folder(home, home_vault):
    # Obsidian quit with the vault open: obsidian.json still says open (to reopen it), but no
    # lock is held, so nothing else writes the vault.
    obsidian_has_the_vault_open(home, home_vault, None)
    health, preview, applied = run(home_vault, [("server_health", {}), ("move_note", MOVE), ("move_note", approve)])
    assert health.structured_content["mode"] == "standalone"
    assert health.structured_content["writes"]["go_to"] == "folder"
    assert any("not running" in line for line in health.structured_content["writes"]["evidence"])
    assert applied.is_error is False, applied.content
    assert (home_vault / "People" / "Ada Lovelace.md").exists() and not (home_vault / "People" / "Ada.md").exists()


def test_a_dead_obsidians_lock_does_not_block_the_folder(home, home_vault):
    # A crash left the lock: it names a process that is gone.
    dead = subprocess.Popen(["true"])
    dead.wait()
    obsidian_has_the_vault_open(home, home_vault, dead.pid)
    (applied,) = run(home_vault, [("move_note", {**MOVE, "dry_run": False})])
    assert applied.is_error is False, applied.content


def test_standalone_mode_stays_the_explicit_override(home, home_vault):
    obsidian_has_the_vault_open(home, home_vault, os.getpid())
    health, applied = run(home_vault, [("server_health", {}), ("move_note", {**MOVE, "dry_run": False})], ["--mode", "standalone"])
    assert health.structured_content["writes"]["go_to"] == "folder"
    assert applied.is_error is False, applied.content
