"""The plugin's presence lease in the vault (issue 35, "another home, plugin live"): a sidecar in
`--mode auto` started with another HOME finds neither Obsidian's configuration nor the plugin's
discovery file, yet must never write on the folder behind a live plugin. It sees the lease the
plugin keeps in `.vaultlink/presence.json`, refuses writes saying why and what to do, and still
answers reads from the folder; a lease a killed plugin left stops counting once it has run out."""

import json
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

from conftest import snapshot
from test_discovery import MOVE, READ, approve, home, home_vault, desktop_runtime, refused_write, run, start_desktop_plugin, stop  # noqa: F401

LEASE = Path(".vaultlink") / "presence.json"
VECTOR = json.loads((Path(__file__).resolve().parent / "vectors" / "presence.json").read_text())


@pytest.fixture()
def another_home(home, monkeypatch):
    """The sidecar's HOME: a fresh folder with nothing of Obsidian's or the plugin's in it (the
    plugin's own HOME is `home`); no VAULTLINK_RUNTIME_DIR is shared (`home` removed them)."""
    folder = Path(tempfile.mkdtemp(prefix="vlo-", dir="/tmp"))
    monkeypatch.setenv("HOME", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def backdate(file, seconds):
    """Sets the file's modification time `seconds` into the past, as a lease not renewed since."""
    then = time.time() - seconds
    os.utime(file, (then, then))


def test_a_sidecar_in_another_home_never_writes_behind_a_live_plugin(home, home_vault, desktop_runtime, another_home):
    host, ready = start_desktop_plugin(home_vault, home, desktop_runtime)
    try:
        lease = json.loads((home_vault / LEASE).read_text())
        plugin_discovery_dir = str(Path(ready["discovery"]).parent)
        assert lease["discovery_dir"] == plugin_discovery_dir
        health, error = refused_write(home_vault)
        message, hint = error["message"], error["hint"]
        assert "Obsidian has this vault open" in message and ".vaultlink/presence.json" in message, message
        assert "cannot be reached from here" in message and "wrote nothing" in message, message
        assert plugin_discovery_dir in message and str(another_home) in message, "where each side looks"
        for fix in ("same HOME", f"VAULTLINK_RUNTIME_DIR to \"{plugin_discovery_dir}\"", "close Obsidian", "--mode standalone"):
            assert fix in hint, hint
        assert health["mode"] == "standalone"
        assert health["writes"]["go_to"] == "refused", health
        assert any("renewed" in line and "Obsidian has the vault open" in line for line in health["writes"]["evidence"]), health
        assert health["reads"]["go_to"] == "folder", health
        assert "cannot be reached from here" in health["reads"]["evidence"][0], health
        assert host.poll() is None, "the plugin still runs"
    finally:
        assert stop(host) == 0
    assert not (home_vault / LEASE).exists(), "the plugin removed its lease on unload"


def test_a_lease_a_killed_plugin_left_stops_blocking_writes_once_it_has_run_out(home, home_vault, desktop_runtime, another_home):
    host, _ = start_desktop_plugin(home_vault, home, desktop_runtime)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=10)
    lease = home_vault / LEASE
    assert lease.exists(), "a killed plugin leaves its lease"
    # Within its lease a killed plugin cannot be told from a live one: still refused.
    backdate(lease, VECTOR["expire_ms"] / 1000 - 5)
    refused_write(home_vault)
    # Past it, by any margin, it no longer counts: the write goes to the folder.
    backdate(lease, VECTOR["expire_ms"] / 1000 + 1)
    health, read, preview, applied = run(home_vault, [("server_health", {}), READ, ("move_note", MOVE), ("move_note", approve)])
    assert health.structured_content["writes"]["go_to"] == "folder", health.structured_content
    assert any("no longer counts" in line for line in health.structured_content["writes"]["evidence"]), health.structured_content
    assert applied.is_error is False, applied.content
    assert applied.structured_content["applied"] is True
    assert (home_vault / "People" / "Ada Lovelace.md").exists() and not (home_vault / "People" / "Ada.md").exists()
    assert read.is_error is False, read.content


def test_a_damaged_or_linked_lease(home, home_vault, another_home):
    """A fresh file that is not a lease this version reads is taken for another version's plugin;
    a link in the lease's place is never what the plugin writes, and does not count."""
    lease = home_vault / LEASE
    lease.parent.mkdir()
    lease.write_bytes(b"\x00not a lease")
    health, error = refused_write(home_vault)
    assert "cannot be read" in error["message"] and "another version" in error["message"], error
    lease.unlink()
    elsewhere = home / "lease.json"
    elsewhere.write_text(json.dumps(VECTOR["lease"]))
    lease.symlink_to(elsewhere)
    before = snapshot(home_vault)
    health, preview, applied = run(home_vault, [("server_health", {}), ("move_note", MOVE), ("move_note", approve)])
    assert health.structured_content["writes"]["go_to"] == "folder", health.structured_content
    assert any("not a plain file" in line for line in health.structured_content["writes"]["evidence"])
    assert applied.is_error is False, applied.content
    assert snapshot(home_vault) != before


def test_another_machines_lease_and_one_ahead_of_the_clock_hold_writes_back(home, home_vault, another_home):
    """A fresh lease naming another host (a container sharing the folder, or a synced computer)
    holds writes back and is named; so does one whose time is ahead of this machine's clock."""
    lease = home_vault / LEASE
    lease.parent.mkdir()
    lease.write_text(json.dumps({**VECTOR["lease"], "machine": "elsewhere-host"}))
    health, error = refused_write(home_vault)
    assert "\"elsewhere-host\"" in error["message"] and "another machine" in error["message"], error
    assert "Run the sidecar on \"elsewhere-host\"" in error["hint"], error
    assert health["writes"]["go_to"] == "refused"
    lease.write_text(json.dumps({**VECTOR["lease"], "machine": os.uname().nodename}))
    backdate(lease, -3600)
    health, error = refused_write(home_vault)
    assert "ahead of this machine's clock" in error["message"], error
