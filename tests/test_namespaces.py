"""One writer per vault across process-id namespaces and homes (issue 35): the plugin host runs in
a pid namespace of its own (`unshare --pid --fork --mount-proc`, as Flathub's Obsidian does), so
the journal of its batch names pid 1; the sidecar runs outside it, with another HOME. Nothing is
shared but the vault folder, which also holds the key both sides seal journals with
(`.vaultlink/keys`).

Whether a journal found is a live change or an interrupted one is its lease (the file's time,
renewed every second by its holder), never a pid: a read outside leaves a live batch alone; a
killed plugin's journal is recovered once its lease has run out, never before; a holder
suspended for longer than its lease, whose journal a sidecar recovered meanwhile, never writes
again when it wakes. Nothing here sleeps to decide: every wait is on a file or a process, with a
deadline."""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import PLUGIN_HOST, SIDECAR, snapshot
from test_discovery import client_session, desktop_environment

JOURNAL = Path(".vaultlink") / "journal.json"
PRESENCE = Path(".vaultlink") / "presence.json"
VECTORS = json.loads((Path(__file__).resolve().parent / "vectors" / "liveness.json").read_text())
# Core's lease::EXPIRE_MS, as the shared vector at the limit states it.
EXPIRE_S = next(vector["observed"]["age_ms"] for vector in VECTORS if vector["name"] == "a lease at its limit still holds") / 1000
NOTES = 300

pytestmark = pytest.mark.skipif(
    subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode != 0,
    reason="unshare --pid is not allowed here (CI runs as root)")


def wait_for(condition, what, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.005)


def backdate(file, seconds):
    """Sets the file's modification time `seconds` into the past, as a lease not renewed since."""
    then = time.time() - seconds
    os.utime(file, (then, then))


@pytest.fixture()
def homes(monkeypatch):
    """The plugin's home (HOME for the test's own client, which reaches the plugin through its
    bridge) and the outside sidecar's home, which share nothing."""
    for name in [name for name in os.environ if name.startswith("VAULTLINK_")]:
        monkeypatch.delenv(name)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    plugin_home = Path(tempfile.mkdtemp(prefix="vlp-", dir="/tmp"))
    other_home = Path(tempfile.mkdtemp(prefix="vlq-", dir="/tmp"))
    runtime = Path(tempfile.mkdtemp(prefix="vlr-", dir="/tmp"))
    runtime.chmod(0o700)
    monkeypatch.setenv("HOME", str(plugin_home))
    yield plugin_home, other_home, runtime
    for folder in (plugin_home, other_home, runtime):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def big_vault(homes):
    """A folder of NOTES notes, each linked from a note outside it and linking the next: moving
    the folder rewrites every one of them, a batch of hundreds of files."""
    vault = homes[0] / "Vault"
    (vault / "Big").mkdir(parents=True)
    (vault / "Out").mkdir()
    for n in range(NOTES):
        (vault / "Big" / f"Note {n}.md").write_text(f"# Note {n}\n\n[[Note {(n + 1) % NOTES}]] and [Out](../Out/Link%20{n}.md)\n")
        (vault / "Out" / f"Link {n}.md").write_text(f"See [[Big/Note {n}]] and [the note](../Big/Note%20{n}.md).\n")
    return vault.resolve()


MOVE = {"from": "Big", "to": "Archive/Big"}


def start_plugin_in_its_namespace(vault, home, runtime, pid_at_least=1):
    """The plugin host in a pid namespace of its own, as pid 1 of it or, after that many short
    processes ran there first, with a pid of at least `pid_at_least` (as an app in a sandbox has);
    answers the unshare process (whose one child, outside, is the host: `host_pid`)."""
    env = desktop_environment(home, runtime)
    command = ["node", str(PLUGIN_HOST), str(vault)]
    if pid_at_least > 1:
        # Each /bin/true takes the namespace's next pid; the shell then execs node.
        command = ["sh", "-c", f"for i in $(seq {pid_at_least}); do /bin/true; done; \"$0\" \"$@\"", *command]
    unshare = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", *command],
                               stdout=subprocess.PIPE, env=env, text=True)
    line = json.loads(unshare.stdout.readline())
    assert line.get("ready") is True, line
    return unshare


def host_pid(unshare):
    """The plugin host's pid outside its namespace: the node process under the unshare process."""
    pid = unshare.pid
    while Path(f"/proc/{pid}/comm").read_text().strip() != "node":
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        assert len(children) == 1, children
        pid = int(children[0])
    return pid


def namespace_init(unshare):
    """Pid 1 of the plugin's namespace, seen from outside: killed, it takes every process of it."""
    children = Path(f"/proc/{unshare.pid}/task/{unshare.pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def stop(unshare):
    """Stops the plugin host (pid 1 of its namespace, so every process in it), then unshare."""
    if unshare.poll() is None:
        try:
            os.kill(host_pid(unshare), signal.SIGCONT)
            os.kill(namespace_init(unshare), signal.SIGKILL)
        except (AssertionError, FileNotFoundError, ProcessLookupError):
            unshare.kill()
        unshare.wait(timeout=20)


def outside(*args, home):
    """The sidecar outside the plugin's namespace, with the other home."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.run([str(SIDECAR), *args], capture_output=True, text=True, env=env, timeout=120)


def notes(vault):
    """The vault's notes, without vaultlink's own folder (its presence lease changes by itself)."""
    return {path: text for path, text in snapshot(vault).items() if not str(path).startswith(".vaultlink")}


def move_through_plugin(vault, result):
    """Previews and applies MOVE through the plugin (this test's client shares the plugin's home),
    leaving the call's outcome in `result`."""
    async def calls():
        return await client_session(vault, [
            ("move_note", MOVE),
            ("move_note", lambda results: {**MOVE, "approved_plan_hash": results[-1].structured_content["plan_hash"]}),
        ])
    try:
        result["answers"] = asyncio.run(calls())
    except BaseException as error:  # noqa: BLE001 - handed to the test thread, which raises it
        result["error"] = error


def applying(vault):
    """Starts the move through the plugin on a thread, and waits for the plugin's journal of it."""
    result = {}
    thread = threading.Thread(target=move_through_plugin, args=(vault, result))
    thread.start()
    wait_for(lambda: (vault / JOURNAL).exists() and b'"moves":[{' in (vault / JOURNAL).read_bytes(), "the plugin's journal")
    return thread, result


def links_resolve_as_before(vault, home):
    """Every link resolves to the file it did before, where the move put it: the markdown links
    rewritten as Obsidian writes them (the name alone, unique in the vault), the wikilinks by a
    path's end as Obsidian resolves them, and none unresolved."""
    for n in range(NOTES):
        moved = (vault / "Archive" / "Big" / f"Note {n}.md").read_text()
        assert f"[[Note {(n + 1) % NOTES}]]" in moved and f"(Link%20{n}.md)" in moved, moved
        out = (vault / "Out" / f"Link {n}.md").read_text()
        assert f"Big/Note {n}]]" in out and f"(Note%20{n}.md)" in out, out
    unresolved = outside("unresolved", str(vault), "--json", home=home)
    assert unresolved.returncode == 0, unresolved.stderr
    assert json.loads(unresolved.stdout) == [], unresolved.stdout
    backlinks = outside("backlinks", str(vault), "Archive/Big/Note 7.md", "--json", home=home)
    assert {"Out/Link 7.md", "Archive/Big/Note 6.md"} <= {link["source"] for link in json.loads(backlinks.stdout)}, backlinks.stdout


def test_a_read_outside_leaves_the_plugins_live_batch_alone(homes, big_vault):
    plugin_home, other_home, runtime = homes
    unshare = start_plugin_in_its_namespace(big_vault, plugin_home, runtime, pid_at_least=200)
    try:
        thread, result = applying(big_vault)
        journal = json.loads((big_vault / JOURNAL).read_text())["journal"]
        named = journal["pid"]
        assert named >= 200 and named != host_pid(unshare), "the journal names the plugin's pid in its own namespace"
        assert not Path(f"/proc/{named}").exists(), "a pid that is not alive outside: by pids, the batch would look interrupted"
        # Reads outside, with another home, while the journal is there.
        reads_during = 0
        while (big_vault / JOURNAL).exists() and thread.is_alive():
            summary = outside("summary", str(big_vault), home=other_home)
            assert summary.returncode == 0 or "still being made" in summary.stderr, summary.stderr
            assert "undid an interrupted" not in summary.stderr, summary.stderr
            reads_during += 1
        thread.join(timeout=300)
        assert "error" not in result, result
        applied = result["answers"][-1]
        assert applied.is_error is False and applied.structured_content["applied"] is True, applied.content
        assert reads_during >= 1, "a read ran while the batch did"
    finally:
        stop(unshare)
    assert not (big_vault / JOURNAL).exists(), "no journal left"
    assert not (big_vault / "Big").exists() and len(list((big_vault / "Archive" / "Big").iterdir())) == NOTES, "every file moved"
    links_resolve_as_before(big_vault, other_home)


def test_a_plugin_killed_mid_batch_in_its_namespace_is_recovered_once_its_lease_ran_out(homes, big_vault):
    plugin_home, other_home, runtime = homes
    before = notes(big_vault)
    unshare = start_plugin_in_its_namespace(big_vault, plugin_home, runtime)
    try:
        thread, _ = applying(big_vault)
        os.kill(host_pid(unshare), signal.SIGKILL)
        unshare.wait(timeout=20)
        thread.join(timeout=120)
    finally:
        stop(unshare)
    assert (big_vault / JOURNAL).exists(), "a killed batch leaves its journal"
    # Within its lease, a killed plugin cannot be told from a live one: left alone, by a read and
    # by `vaultlink recover`, which says why.
    left = outside("summary", str(big_vault), home=other_home)
    assert "undid an interrupted" not in left.stderr and (big_vault / JOURNAL).exists(), left.stderr
    early = outside("recover", str(big_vault), home=other_home)
    assert early.returncode != 0 and "being applied" in early.stderr and "process 1" in early.stderr, early.stderr
    # Once it has run out (as time does; the lease is the file's time), the next call recovers it.
    backdate(big_vault / JOURNAL, EXPIRE_S + 1)
    backdate(big_vault / PRESENCE, EXPIRE_S + 1)
    recovered = outside("summary", str(big_vault), home=other_home)
    assert recovered.returncode == 0, recovered.stderr
    assert "undid an interrupted move_note (process 1)" in recovered.stderr, recovered.stderr
    assert not (big_vault / JOURNAL).exists()
    assert notes(big_vault) == before, "the vault is whole, as before the batch"
    # Then reads and writes work, from outside.
    assert outside("backlinks", str(big_vault), "Big/Note 3.md", home=other_home).returncode == 0
    moved = outside("mv", str(big_vault), "Big/Note 3.md", "Big/Note three.md", home=other_home)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "[[Note three]]" in (big_vault / "Out" / "Link 3.md").read_text()


def test_a_plugin_suspended_past_its_lease_never_writes_again_once_recovered_outside(homes, big_vault):
    plugin_home, other_home, runtime = homes
    before = notes(big_vault)
    unshare = start_plugin_in_its_namespace(big_vault, plugin_home, runtime)
    try:
        thread, result = applying(big_vault)
        pid = host_pid(unshare)
        os.kill(pid, signal.SIGSTOP)
        # Suspended for longer than its lease: waited for on the journal's own time.
        journal = big_vault / JOURNAL
        wait_for(lambda: time.time() - journal.stat().st_mtime > EXPIRE_S + 0.5, "the suspended holder's lease to run out", seconds=EXPIRE_S * 3)
        recovered = outside("recover", str(big_vault), home=other_home)
        assert recovered.returncode == 0, recovered.stderr
        assert "undid an interrupted move_note" in recovered.stdout, recovered.stdout
        undone = notes(big_vault)
        assert undone == before, "recovered whole"
        # Woken, the holder finds its journal gone or not its own, and stops: the call answers an
        # error, and the vault is as the recovery left it.
        os.kill(pid, signal.SIGCONT)
        thread.join(timeout=300)
        assert not thread.is_alive()
        assert "error" not in result, result
        applied = result["answers"][-1]
        assert applied.is_error is True, applied.content
        assert "lease" in applied.structured_content["message"] and applied.structured_content["code"] == "write_failed", applied.structured_content
        assert unshare.poll() is None, "the plugin runs on"
    finally:
        stop(unshare)
    assert notes(big_vault) == before, "no write after the recovery: one state, whole"
    assert not (big_vault / JOURNAL).exists()


def test_a_sidecar_suspended_past_its_lease_undoes_its_own_batch_and_is_never_recovered_under_it(homes, big_vault):
    """The other direction: the sidecar applying a folder move in a pid namespace of its own is
    suspended for longer than its lease. Its kernel lock on the journal, which the kernel keeps for
    a stopped process, tells a sidecar outside that the change is live: recovery refuses. Woken,
    the holder finds its lease lapsed, undoes its batch itself and says why."""
    plugin_home, other_home, _ = homes
    before = notes(big_vault)
    env = {"PATH": os.environ["PATH"], "HOME": str(plugin_home), "LANG": "C.UTF-8"}
    unshare = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", str(SIDECAR), "mv", str(big_vault), "Big", "Archive/Big"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        journal = big_vault / JOURNAL
        wait_for(lambda: journal.exists() and b'"moves":[{' in journal.read_bytes(), "the sidecar's journal")
        holder = namespace_init(unshare)
        os.kill(holder, signal.SIGSTOP)
        wait_for(lambda: time.time() - journal.stat().st_mtime > EXPIRE_S + 0.5, "the suspended holder's lease to run out", seconds=EXPIRE_S * 3)
        refused = outside("recover", str(big_vault), home=other_home)
        assert refused.returncode != 0 and "being applied" in refused.stderr, refused.stdout + refused.stderr
        left = outside("summary", str(big_vault), home=other_home)
        assert "undid an interrupted" not in left.stderr, left.stderr
        os.kill(holder, signal.SIGCONT)
        out, err = unshare.communicate(timeout=120)
    finally:
        if unshare.poll() is None:
            unshare.kill()
            unshare.wait(timeout=20)
    assert unshare.returncode != 0, out
    assert "lease" in out + err and "every change made so far was undone" in out + err, out + err
    assert notes(big_vault) == before, "the holder undid its own batch: one state, whole"
    assert not (big_vault / JOURNAL).exists()


def test_a_sidecar_in_another_home_never_writes_behind_a_live_plugin_in_another_namespace(homes, monkeypatch):
    """What tests/test_presence.py holds for another home, with the plugin in a pid namespace of
    its own too: the write is refused, the vault byte-identical, a read answered."""
    from test_discovery import refused_write
    plugin_home, other_home, runtime = homes
    vault = plugin_home / "Example"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "vault", vault)
    vault = vault.resolve()
    unshare = start_plugin_in_its_namespace(vault, plugin_home, runtime, pid_at_least=200)
    try:
        monkeypatch.setenv("HOME", str(other_home))
        health, error = refused_write(vault)
        assert "Obsidian has this vault open" in error["message"], error
        assert health["writes"]["go_to"] == "refused", health
    finally:
        stop(unshare)
