"""What the end-to-end tests share: where the built sidecar and plugin host are, a copy of
the sample vault, a private runtime directory for the bridge, and the plugin serving the vault."""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SIDECAR = Path(os.environ.get("VAULTLINK_BIN", ROOT / "target" / "debug" / "vaultlink")).resolve()
PLUGIN_HOST = ROOT / "build" / "plugin-host.cjs"


@pytest.fixture()
def vault(tmp_path):
    copy = tmp_path / "vault"
    shutil.copytree(ROOT / "examples" / "vault", copy)
    return copy.resolve()


@pytest.fixture()
def runtime_dir():
    # Unix socket paths are limited to about 100 bytes, so keep this one short.
    path = Path(tempfile.mkdtemp(prefix="vl-", dir="/tmp"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture()
def plugin(vault, runtime_dir):
    """The built plugin, loaded in Node with the obsidian test double, serving `vault`."""
    assert PLUGIN_HOST.exists(), f"{PLUGIN_HOST} is missing: run scripts/build.sh and npm run build:host"
    process = subprocess.Popen(
        ["node", str(PLUGIN_HOST), str(vault)],
        stdout=subprocess.PIPE,
        env={**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime_dir)},
        text=True,
    )
    ready = json.loads(process.stdout.readline())
    assert ready["ready"] is True
    yield {"process": process, **ready}
    process.terminate()
    assert process.wait(timeout=10) == 0
    assert not Path(ready["discovery"]).exists(), "unloading the plugin must remove its discovery file"



def start_plugin(vault, runtime_dir, stall=None):
    """Starts the plugin host on `vault` and waits until its bridge serves. With `stall`, the
    host's reads of that vault path never finish (see plugin/test/host.ts)."""
    env = {**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime_dir)}
    if stall is not None:
        env["VAULTLINK_HOST_STALL_READ"] = stall
    host = subprocess.Popen(["node", str(PLUGIN_HOST), str(vault)], stdout=subprocess.PIPE, env=env, text=True)
    ready = json.loads(host.stdout.readline())
    assert ready["ready"] is True
    return host


def on_path(vault, runtime_dir, mode, run):
    """`run(vault, runtime_dir, mode)` (a coroutine function) through the plugin serving `vault`
    (started for it, stopped after) when `mode` is `plugin`, else on the folder: what it answered."""
    import asyncio
    host = start_plugin(vault, runtime_dir) if mode == "plugin" else None
    try:
        return asyncio.run(run(vault, runtime_dir, mode))
    finally:
        if host is not None:
            stop_plugin(host)


def on_both_paths(vaults, runtime_dir, run):
    """`run(vault, runtime_dir, mode)` (a coroutine function) through the plugin on
    `vaults["plugin"]`, then on the folder of `vaults["standalone"]`: what each answered, plugin
    first."""
    return on_path(vaults["plugin"], runtime_dir, "plugin", run), on_path(vaults["standalone"], runtime_dir, "standalone", run)


def on_both_sample_vaults(tmp_path, runtime_dir, run):
    """`run` on both paths (`on_both_paths`), each on its own copy of the sample vault
    (`tmp_path / "plugin"` and `tmp_path / "standalone"`)."""
    vaults = {}
    for edge in ("plugin", "standalone"):
        vaults[edge] = tmp_path / edge
        shutil.copytree(ROOT / "examples" / "vault", vaults[edge])
    return on_both_paths(vaults, runtime_dir, run)


def write_vault(folder, files):
    """A vault in `folder` holding `files` (vault path to text), its path resolved."""
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder.resolve()


def corpora_root():
    """The folder of the real vaults: `$VAULTLINK_CORPORA`, or `../shared/corpora` beside the repository."""
    return Path(os.environ.get("VAULTLINK_CORPORA", ROOT.parent / "shared" / "corpora"))


def corpus_copy(tmp_path, corpus, name):
    """A copy of the corpus vault `corpus` at `tmp_path / name` (without its `.git`), its path
    resolved; the test is skipped, saying how to run it, when the corpora are absent."""
    source = corpora_root() / corpus
    if not source.is_dir():
        pytest.skip(f"the corpus {source} is absent; set VAULTLINK_CORPORA to the corpora folder to run this")
    copy = tmp_path / name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".git"))
    return copy.resolve()


def stop_plugin(host):
    if host.poll() is None:
        host.terminate()
        host.wait(timeout=10)


def snapshot(folder):
    """Every file of the vault and its bytes, but `.obsidian`, the changes kept for undo_change
    in `.vaultlink/changes`, the plugin's presence lease `.vaultlink/presence.json` and the
    vault's sealing keys `.vaultlink/keys` with the `.vaultlink/.gitignore` made beside them
    (engine state, whose names, seals and ids differ by process and time; `kept_changes` lists
    the changes)."""
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(Path(folder).rglob("*"))
            if path.is_file() and ".obsidian" not in path.parts
            and path.relative_to(folder).parts[:2] not in ((".vaultlink", "changes"), (".vaultlink", "presence.json"),
                                                         (".vaultlink", "keys"), (".vaultlink", ".gitignore"))}


def kept_changes(folder):
    """The names of the changes kept for undo_change in the vault, oldest first."""
    changes = Path(folder) / ".vaultlink" / "changes"
    return sorted(path.name for path in changes.glob("*.json")) if changes.is_dir() else []


def vault_key(vault):
    """The vault's sealing key, as the sidecar and the plugin find it (made here if neither has
    yet, as they make it): `(id, key)`, the key derived from the key file's secret and its inode.
    A test that plays the part of an interrupted vaultlink seals its journal with it, as
    vaultlink does."""
    import hashlib
    import hmac
    import re
    import secrets
    import stat
    folder = Path(vault) / ".vaultlink" / "keys"
    names = sorted(name[:-4] for name in (os.listdir(folder) if folder.is_dir() else [])
                   if re.fullmatch(r"[0-9a-f]{16}\.key", name))[:16]
    for key_id in names:
        key_file = folder / f"{key_id}.key"
        meta = key_file.lstat()
        text = key_file.read_bytes() if stat.S_ISREG(meta.st_mode) and meta.st_size <= 128 else b""
        if meta.st_mode & 0o077 == 0 and meta.st_uid == os.getuid() and re.fullmatch(rb"[0-9a-f]{64}\n?", text):
            secret = bytes.fromhex(text.decode().strip())
            return key_id, hmac.new(secret, b"vaultlink seal key\0" + str(meta.st_ino).encode(), hashlib.sha256).digest()
    folder.mkdir(parents=True, exist_ok=True)
    key_id = secrets.token_hex(8)
    temporary = folder / f".{key_id}.key.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(secrets.token_hex(32) + "\n")
    os.rename(temporary, folder / f"{key_id}.key")
    return vault_key(vault)


def seal_journal(journal, vault, key=None, purpose="journal"):
    """A journal file's text as vaultlink writes it: the journal's JSON under an HMAC-SHA256 seal
    of its purpose (`journal`, or `kept` for a change kept for undo), the id of the vault's key it
    is sealed with and the JSON, each but the last ended by a NUL byte, under that key (or `key`,
    for a seal no key file of the vault makes)."""
    import hashlib
    import hmac
    body = json.dumps(journal, separators=(",", ":"))
    key_id, derived = vault_key(vault)
    sealed = f"{purpose}\0{key_id}\0{body}".encode()
    seal = hmac.new(derived if key is None else key, sealed, hashlib.sha256).hexdigest()
    return '{"seal":"' + seal + '","purpose":"' + purpose + '","key":"' + key_id + '","journal":' + body + "}"
