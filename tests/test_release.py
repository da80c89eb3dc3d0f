"""The release: one command bumps every version (as Obsidian's sample plugin does), and what
scripts/release.sh builds is what a user installs."""

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

from conftest import PLUGIN_HOST, ROOT, SIDECAR

# What `npm version` and scripts/version-bump.mjs read and write, copied into a fresh repository.
VERSIONED = ["package.json", "package-lock.json", ".npmrc", "manifest.json", "versions.json", "Cargo.toml", "Cargo.lock"]


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def fresh_repository(tmp_path):
    """The versioned files, the crates' sources and the bump script, committed in a new repository."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in VERSIONED + (["server.json"] if (ROOT / "server.json").exists() else []):
        shutil.copy(ROOT / name, repo / name)
    (repo / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "version-bump.mjs", repo / "scripts")
    shutil.copytree(ROOT / "crates", repo / "crates", ignore=shutil.ignore_patterns("target"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "start")
    return repo


def test_npm_version_bumps_every_version_in_one_commit_and_tag(tmp_path):
    repo = fresh_repository(tmp_path)
    manifest_before = json.loads((repo / "manifest.json").read_text())
    versions_before = json.loads((repo / "versions.json").read_text())
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run(["npm", "version", "7.8.9", "--no-audit", "--no-fund"], cwd=repo, env=env, check=True, capture_output=True)

    # One commit on top of the start, tagged with the bare version, nothing left uncommitted.
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "2"
    assert git(repo, "tag", "--points-at", "HEAD").split() == ["7.8.9"]
    assert git(repo, "status", "--porcelain") == ""
    changed = set(git(repo, "show", "--name-only", "--format=", "HEAD").split())
    assert changed == set(VERSIONED) - {".npmrc"} | ({"server.json"} if (repo / "server.json").exists() else set())

    manifest = json.loads((repo / "manifest.json").read_text())
    assert manifest == {**manifest_before, "version": "7.8.9"}
    assert json.loads((repo / "versions.json").read_text()) == {**versions_before, "7.8.9": manifest_before["minAppVersion"]}
    package = json.loads((repo / "package.json").read_text())
    assert package["version"] == "7.8.9"
    assert json.loads((repo / "package-lock.json").read_text())["version"] == "7.8.9"
    cargo = tomllib.loads((repo / "Cargo.toml").read_text())
    assert cargo["workspace"]["package"]["version"] == "7.8.9"
    assert cargo["workspace"]["dependencies"]["vaultlink-core"]["version"] == "7.8.9"
    # Cargo agrees: the lock file matches the manifests as they are now (--locked refuses otherwise).
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked", "--offline"],
        cwd=repo, check=True, capture_output=True, text=True,
    )
    ours = {p["name"]: p["version"] for p in json.loads(metadata.stdout)["packages"] if p["source"] is None}
    assert ours == {"vaultlink": "7.8.9", "vaultlink-core": "7.8.9", "vaultlink-wasm": "7.8.9", "vaultlink-bench": "7.8.9"}
    if (repo / "server.json").exists():
        server = json.loads((repo / "server.json").read_text())
        assert server["version"] == "7.8.9"
        assert all(entry["version"] == "7.8.9" for entry in server.get("packages", []))


def test_version_bump_refuses_what_is_not_a_version(tmp_path):
    repo = fresh_repository(tmp_path)
    bumped = subprocess.run(["node", "scripts/version-bump.mjs", "next"], cwd=repo, capture_output=True, text=True)
    assert bumped.returncode == 2
    assert '"next" is not a version' in bumped.stderr
    assert git(repo, "status", "--porcelain") == ""


def test_every_version_in_the_repository_agrees():
    package = json.loads((ROOT / "package.json").read_text())["version"]
    manifest = json.loads((ROOT / "manifest.json").read_text())
    versions = json.loads((ROOT / "versions.json").read_text())
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    assert manifest["version"] == package
    assert versions[package] == manifest["minAppVersion"]
    assert cargo["workspace"]["package"]["version"] == package
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["minAppVersion"])


# ---- scripts/release.sh's assets (scripts/test.sh runs it before these tests) ----

ASSETS = ROOT / "target" / "release-assets"
PLUGIN_ASSETS = ["main.js", "manifest.json", "styles.css"]


def release_sums():
    sums_file = ASSETS / "SHA256SUMS"
    assert sums_file.exists(), f"{sums_file} is missing: run scripts/release.sh"
    sums = {}
    for line in sums_file.read_text().splitlines():
        digest, name = line.split("  ", 1)
        sums[name] = digest
    return sums


def released_sidecar():
    version = json.loads((ROOT / "manifest.json").read_text())["version"]
    found = sorted(ASSETS.glob(f"vaultlink-{version}-*"))
    found = [path for path in found if not path.name.endswith((".zip", ".mcpb"))]
    assert len(found) == 1, f"one sidecar binary in {ASSETS}, found {found}"
    return found[0]


def test_release_assets_are_the_plugin_the_sidecar_and_their_sums():
    import hashlib
    sums = release_sums()
    version = json.loads((ROOT / "package.json").read_text())["version"]
    bundle = f"vaultlink-{version}-{host_target()}.mcpb"
    assert set(PLUGIN_ASSETS) | {f"vaultlink-{version}.zip", released_sidecar().name, bundle, "server.json"} == set(sums)
    for name, digest in sums.items():
        assert hashlib.sha256((ASSETS / name).read_bytes()).hexdigest() == digest, name
    # The plugin's files are the ones built from this tree.
    for name in PLUGIN_ASSETS:
        assert (ASSETS / name).read_bytes() == (ROOT / name).read_bytes(), name
    assert subprocess.run([str(released_sidecar()), "--version"], capture_output=True, text=True, check=True).stdout.strip() \
        == f"vaultlink {version} (bridge protocol 1)"


def install_release(vault):
    """The README's install for an Obsidian user: the release zip unpacked into the vault's
    plugins folder. Answers the plugin's folder."""
    import zipfile
    version = json.loads((ROOT / "manifest.json").read_text())["version"]
    plugins = vault / ".obsidian" / "plugins"
    plugins.mkdir(parents=True)
    with zipfile.ZipFile(ASSETS / f"vaultlink-{version}.zip") as archive:
        assert sorted(archive.namelist()) == sorted(f"vaultlink/{name}" for name in PLUGIN_ASSETS)
        archive.extractall(plugins)
    folder = plugins / "vaultlink"
    for name in PLUGIN_ASSETS:
        assert (folder / name).read_bytes() == (ASSETS / name).read_bytes(), name
    return folder


def test_release_installed_in_a_fresh_vault_serves_the_released_sidecar(tmp_path):
    """The release as users get it: the plugin from the zip in a fresh vault folder, loaded by
    the renderer host from there, and the released sidecar reaching it over the bridge (the
    protocol cross-check: both sides of one release say hello to each other)."""
    import asyncio
    import tempfile
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Home.md").write_text("See [[Other]] and [[Missing]].\n")
    (vault / "Other.md").write_text("Back to [[Home]].\n")
    folder = install_release(vault)
    # A Unix socket path must stay short, so the runtime folder is not under tmp_path.
    runtime = Path(tempfile.mkdtemp(prefix="vl-", dir="/tmp" if os.name == "posix" else None))
    runtime.chmod(0o700)
    env = {**os.environ, "VAULTLINK_RUNTIME_DIR": str(runtime), "VAULTLINK_PLUGIN_DIR": str(folder)}
    host = subprocess.Popen(["node", str(PLUGIN_HOST), str(vault)], stdout=subprocess.PIPE, env=env, text=True)
    try:
        ready = json.loads(host.stdout.readline())
        assert ready["ready"] is True

        async def health():
            params = StdioServerParameters(command=str(released_sidecar()), args=["mcp", "--vault", str(vault), "--mode", "plugin"],
                                           env={"VAULTLINK_RUNTIME_DIR": str(runtime)})
            with open(os.devnull, "w") as log:
                async with stdio_client(params, errlog=log) as (read, write):
                    async with ClientSession(read, write) as session:
                        init = await session.initialize()
                        links = await session.call_tool("get_outgoing_links", {"path": "Home.md"})
                        return init, (await session.call_tool("server_health", {})).structured_content, links.structured_content

        init, health, links = asyncio.run(health())
    finally:
        host.terminate()
        host.wait(timeout=10)
        shutil.rmtree(runtime, ignore_errors=True)
    version = json.loads((folder / "manifest.json").read_text())["version"]
    assert init.server_info.version == version
    assert health["mode"] == "plugin"
    assert health["sidecar_version"] == version
    assert health["plugin"]["version"] == version
    assert health["plugin"]["server"] == f"vaultlink-plugin {version}"
    assert sorted(link["target"] for link in links["links"]) == ["Missing", "Other"]


# ---- the README's install steps, run as written on the release's files ----

def readme_install_blocks():
    text = (ROOT / "README.md").read_text()
    start = text.index("## Installing\n")
    section = text[start:text.index("\n## ", start)]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def host_target():
    rustc = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    return re.search(r"^host: (\S+)$", rustc, re.M).group(1)


def run_readme_block(block, cwd, env, vault=None):
    import shlex
    version = json.loads((ROOT / "manifest.json").read_text())["version"]
    script = block.replace("<version>", version).replace("<target>", host_target())
    if vault is not None:
        script = script.replace("<vault>", shlex.quote(str(vault)))
    assert "<" not in script.replace("<<", ""), f"a placeholder is left in the README's step:\n{script}"
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, check=True)


def fresh_home(tmp_path, name):
    """A home folder with nothing in it, keeping the Rust toolchains and crates of this one."""
    home = tmp_path / name
    home.mkdir()
    real_home = Path.home()
    return home, {
        **os.environ,
        "HOME": str(home),
        "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", str(real_home / ".rustup")),
        "CARGO_HOME": os.environ.get("CARGO_HOME", str(real_home / ".cargo")),
    }


def test_readme_install_steps_install_the_release_as_written(tmp_path):
    plugin_step, binary_step, source_step = readme_install_blocks()
    downloads = tmp_path / "downloads"
    shutil.copytree(ASSETS, downloads)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Home.md").write_text("[[Elsewhere]]\n")
    version = json.loads((ROOT / "manifest.json").read_text())["version"]

    # The Obsidian user's: the sums checked, the zip unpacked into the vault's plugins folder.
    home, env = fresh_home(tmp_path, "home")
    run_readme_block(plugin_step, downloads, env, vault)
    installed = vault / ".obsidian" / "plugins" / "vaultlink"
    assert sorted(path.name for path in installed.iterdir()) == sorted(PLUGIN_ASSETS)
    for name in PLUGIN_ASSETS:
        assert (installed / name).read_bytes() == (ASSETS / name).read_bytes()

    # The agent owner's, from the release: the program on the PATH of a fresh home folder.
    env["PATH"] = f"{home / '.local' / 'bin'}{os.pathsep}{os.environ['PATH']}"
    said = run_readme_block(binary_step, downloads, env)
    assert said.stdout.strip().splitlines()[-1] == f"vaultlink {version} (bridge protocol 1)"
    assert (home / ".local" / "bin" / "vaultlink").read_bytes() == released_sidecar().read_bytes()

    # A sum that does not match stops the steps before anything is installed.
    corrupt = tmp_path / "corrupt"
    shutil.copytree(ASSETS, corrupt)
    (corrupt / "main.js").write_bytes(b"not the release's main.js")
    with __import__("pytest").raises(subprocess.CalledProcessError):
        run_readme_block(plugin_step, corrupt, env, tmp_path / "other-vault")
    assert not (tmp_path / "other-vault").exists()

    # The agent owner's, from source: cargo install from this clone into a fresh home (the
    # release build of scripts/release.sh is reused through the target folder).
    source_home, source_env = fresh_home(tmp_path, "source-home")
    source_env.update({
        "CARGO_INSTALL_ROOT": str(source_home / ".cargo"),
        "CARGO_TARGET_DIR": str(ROOT / "target"),
        "CARGO_NET_OFFLINE": "true",
        "PATH": f"{source_home / '.cargo' / 'bin'}{os.pathsep}{os.environ['PATH']}",
    })
    said = run_readme_block(source_step, ROOT, source_env)
    assert said.stdout.strip().splitlines()[-1] == f"vaultlink {version} (bridge protocol 1)"
    assert (source_home / ".cargo" / "bin" / "vaultlink").exists()


def test_readme_macos_steps_run_with_the_tools_a_stock_mac_has(tmp_path):
    """Issue 41: the macOS steps use only what a stock Mac has (`shasum`, which is the same Perl
    program on Debian, `unzip`, `mkdir -p`, `cp`, `chmod`; `xattr` only where it exists), so
    they run here as written on this machine's release, and a wrong sum stops them first."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### On macOS\n"):text.index("### On Windows\n")]
    (block,) = re.findall(r"```zsh\n(.*?)```", section, re.S)
    assert "sha256sum" not in block and "install -D" not in block
    downloads = tmp_path / "downloads"
    shutil.copytree(ASSETS, downloads)
    vault = tmp_path / "vault"
    vault.mkdir()
    home, env = fresh_home(tmp_path, "home")
    said = run_readme_block(block, downloads, env, vault)
    version = json.loads((ROOT / "manifest.json").read_text())["version"]
    assert said.stdout.strip().splitlines()[-1] == f"vaultlink {version} (bridge protocol 1)"
    assert (home / ".local" / "bin" / "vaultlink").read_bytes() == released_sidecar().read_bytes()
    assert sorted(path.name for path in (vault / ".obsidian" / "plugins" / "vaultlink").iterdir()) == sorted(PLUGIN_ASSETS)

    (downloads / released_sidecar().name).write_bytes(b"not the release's program")
    other_home, other_env = fresh_home(tmp_path, "other-home")
    with __import__("pytest").raises(subprocess.CalledProcessError):
        run_readme_block(block, downloads, other_env, tmp_path / "other-vault")
    assert not (other_home / ".local" / "bin" / "vaultlink").exists()


# ---- server.json, the MCP registry's description of the server ----

def test_server_json_names_the_tools_and_version_of_the_binary(tmp_path):
    """server.json follows the official MCP registry's server.json format (schema 2025-09-29:
    a reverse-DNS name with one slash, a description of at most 100 characters, an exact
    version, publisher data only under its one `_meta` key); its tools and version are the
    binary's, as `vaultlink mcp` lists them."""
    import asyncio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = json.loads((ROOT / "server.json").read_text())
    assert server["$schema"] == "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", server["name"])
    assert 1 <= len(server["description"]) <= 100
    assert server["repository"] == {"url": tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["repository"], "source": "github"}
    assert set(server) <= {"$schema", "name", "description", "repository", "version", "websiteUrl", "packages", "remotes", "_meta"}
    assert set(server["_meta"]) == {"io.modelcontextprotocol.registry/publisher-provided"}
    published = server["_meta"]["io.modelcontextprotocol.registry/publisher-provided"]
    assert len(json.dumps(published).encode()) <= 4096, "the registry keeps at most 4 KB of publisher data"

    vault = tmp_path / "vault"
    vault.mkdir()

    async def listed():
        params = StdioServerParameters(command=str(SIDECAR), args=["mcp", "--vault", str(vault), "--mode", "standalone"])
        with open(os.devnull, "w") as log:
            async with stdio_client(params, errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    return init, await session.list_tools()

    init, tools = asyncio.run(listed())
    assert server["version"] == init.server_info.version
    assert published["tools"] == [tool.name for tool in tools.tools]


# ---- the Claude Desktop bundle (.mcpb) and the release's server.json ----

MCPB = ROOT / "node_modules" / ".bin" / "mcpb"


def released_targets():
    """The targets the release workflow builds, as its matrix names them."""
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    return re.findall(r"^\s+target: (\S+)$", workflow, re.M)


def test_the_bundle_manifest_of_every_released_target_validates(tmp_path):
    """Issue 41: each system's bundle has a manifest the maintained packer's `mcpb validate`
    accepts (offline, from node_modules), a binary server that runs the bundled program on the
    vault the user picks when installing, the release's version and server.json's tools."""
    server = json.loads((ROOT / "server.json").read_text())
    tools = server["_meta"]["io.modelcontextprotocol.registry/publisher-provided"]["tools"]
    platforms = {"x86_64-unknown-linux-gnu": "linux", "aarch64-apple-darwin": "darwin", "x86_64-apple-darwin": "darwin", "x86_64-pc-windows-msvc": "win32"}
    assert sorted(released_targets()) == sorted(platforms)
    for target, platform in platforms.items():
        out = tmp_path / f"{target}.json"
        subprocess.run(["node", "scripts/mcpb.mjs", "manifest", target, str(out)], cwd=ROOT, check=True)
        said = subprocess.run([str(MCPB), "validate", str(out)], cwd=ROOT, capture_output=True, text=True)
        assert said.returncode == 0, said.stdout + said.stderr
        manifest = json.loads(out.read_text())
        program = "server/vaultlink.exe" if platform == "win32" else "server/vaultlink"
        assert manifest["server"] == {
            "type": "binary",
            "entry_point": program,
            "mcp_config": {"command": "${__dirname}/" + program, "args": ["mcp", "--vault", "${user_config.vault}"]},
        }
        assert manifest["user_config"]["vault"]["type"] == "directory" and manifest["user_config"]["vault"]["required"] is True
        assert manifest["compatibility"]["platforms"] == [platform]
        assert manifest["version"] == server["version"] and manifest["description"] == server["description"]
        assert [tool["name"] for tool in manifest["tools"]] == tools

    # The validator refuses what the specification does not allow, so its pass means something.
    broken = json.loads((tmp_path / "x86_64-pc-windows-msvc.json").read_text())
    broken["server"]["type"] = "exe"
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    assert subprocess.run([str(MCPB), "validate", str(tmp_path / "broken.json")], cwd=ROOT, capture_output=True).returncode != 0
    refused = subprocess.run(["node", "scripts/mcpb.mjs", "manifest", "riscv64gc-unknown-none-elf", str(tmp_path / "none.json")], cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode != 0 and "no target vaultlink is released for" in refused.stderr


def test_the_bundle_runs_the_released_program_on_the_vault_chosen(tmp_path):
    """This machine's bundle, unpacked and started as Claude Desktop starts a binary server
    (`${__dirname}` the unpacked folder, `${user_config.vault}` the folder the user chose),
    is the released program, executable, serving the chosen vault over stdio."""
    import asyncio
    import zipfile
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    version = json.loads((ROOT / "manifest.json").read_text())["version"]
    bundle = ASSETS / f"vaultlink-{version}-{host_target()}.mcpb"
    unpacked = tmp_path / "bundle"
    with zipfile.ZipFile(bundle) as archive:
        assert sorted(archive.namelist()) == ["manifest.json", "server/vaultlink"]
        archive.extractall(unpacked)
        mode = archive.getinfo("server/vaultlink").external_attr >> 16
    assert mode & 0o111 == 0o111, f"the bundled program is not executable (mode {mode:o})"
    os.chmod(unpacked / "server" / "vaultlink", mode & 0o777)
    manifest = json.loads((unpacked / "manifest.json").read_text())
    assert (unpacked / manifest["server"]["entry_point"]).read_bytes() == released_sidecar().read_bytes()

    vault = tmp_path / "My Vault"
    vault.mkdir()
    (vault / "Home.md").write_text("[[Away]]\n")
    (vault / "Away.md").write_text("back to [[Home]]\n")
    config = manifest["server"]["mcp_config"]
    fill = lambda text: text.replace("${__dirname}", str(unpacked)).replace("${user_config.vault}", str(vault))

    async def backlinks():
        params = StdioServerParameters(command=fill(config["command"]), args=[fill(arg) for arg in config["args"]])
        with open(os.devnull, "w") as log:
            async with stdio_client(params, errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool("get_backlinks", {"path": "Home"})

    answer = asyncio.run(backlinks())
    assert not answer.is_error, answer
    assert answer.structured_content["total"] == 1 and "Away.md" in json.dumps(answer.structured_content["backlinks"])


def test_the_release_server_json_lists_its_bundles():
    """The release's server.json is the repository's with `packages`: each bundle of the release
    as the MCP registry's schema (2025-09-29, `Package`) declares a binary release, its download
    URL on the GitHub release, its version and the SHA-256 a client checks before running it."""
    import hashlib
    repository = json.loads((ROOT / "server.json").read_text())
    released = json.loads((ASSETS / "server.json").read_text())
    packages = released.pop("packages")
    assert released == repository
    version = repository["version"]
    name = f"vaultlink-{version}-{host_target()}.mcpb"
    assert packages == [{
        "registryType": "mcpb",
        "identifier": f"{repository['repository']['url']}/releases/download/{version}/{name}",
        "version": version,
        "fileSha256": hashlib.sha256((ASSETS / name).read_bytes()).hexdigest(),
        "transport": {"type": "stdio"},
    }]


def test_the_server_json_check_reports_each_place_that_breaks_the_schema(tmp_path):
    """scripts/check-server-json.py, which the release workflow runs against the registry's
    schema: 0 for a document that meets the schema its `$schema` names, 1 naming the place for
    one that does not, or for a schema that is not the one named."""
    import sys
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://example.org/server.schema.json",
        "type": "object",
        "properties": {"packages": {"type": "array", "items": {
            "type": "object", "required": ["fileSha256"],
            "properties": {"fileSha256": {"type": "string", "pattern": "^[a-f0-9]{64}$"}, "identifier": {"type": "string", "format": "uri"}}}}},
    }
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    check = lambda document: subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check-server-json.py"), str(tmp_path / "schema.json"), str(document)], capture_output=True, text=True)

    good = tmp_path / "good.json"
    good.write_text(json.dumps({"$schema": schema["$id"], "packages": [{"fileSha256": "ab" * 32}]}))
    assert check(good).returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"$schema": schema["$id"], "packages": [{"fileSha256": "AB" * 32}]}))
    said = check(bad)
    assert said.returncode == 1 and "packages/0/fileSha256" in said.stdout, said.stdout
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"$schema": "https://example.org/another.json", "packages": []}))
    said = check(other)
    assert said.returncode == 1 and "check it against the schema it names" in said.stdout


# ---- the same commit gives the same plugin bytes ----

def test_the_plugin_builds_to_the_same_bytes_twice():
    """The plugin's release files of a second build, with the wasm module and main.js built
    again from nothing, are byte for byte those of the first (scripts/test.sh made the first)."""
    first = release_sums()
    # The wasm module's own profile (Cargo.toml's wasm-release, which scripts/build.sh builds with).
    subprocess.run(["cargo", "clean", "-q", "--profile", "wasm-release", "--target", "wasm32-unknown-unknown", "-p", "vaultlink-wasm", "-p", "vaultlink-core"],
                   cwd=ROOT, check=True, env=wasm_env())
    shutil.rmtree(ROOT / "plugin" / "wasm")
    (ROOT / "main.js").unlink()
    subprocess.run(["scripts/release.sh"], cwd=ROOT, check=True, capture_output=True)
    second = release_sums()
    version = json.loads((ROOT / "manifest.json").read_text())["version"]
    for name in PLUGIN_ASSETS + [f"vaultlink-{version}.zip"]:
        assert second[name] == first[name], f"{name} differs between two builds of one commit"


def wasm_env():
    """The environment the wasm builds use (scripts/wasm-toolchain.sh's choice of toolchain)."""
    env = dict(os.environ)
    setup = ROOT / "target" / "setup.env"
    for line in setup.read_text().splitlines():
        match = re.fullmatch(r"export (\w+)=(.*)", line.strip())
        if match and match.group(1) == "VAULTLINK_WASM_TOOLCHAIN" and match.group(2):
            env["RUSTUP_TOOLCHAIN"] = match.group(2)
    return env


# ---- a version skew, as the sidecar reports it ----

def test_a_plugin_of_a_newer_protocol_is_named_in_server_health_and_writes_are_refused(tmp_path):
    """A plugin of bridge protocol 2 (a later release) refuses the sidecar's hello as the plugin
    does (-32002); server_health names both versions and the program to update, reads answer
    from the folder, and writes are refused while the plugin may have the vault open."""
    import asyncio
    import hashlib
    import socket
    import tempfile
    import threading
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    vault = (tmp_path / "vault").resolve()
    vault.mkdir()
    (vault / "Home.md").write_text("[[Other]]\n")
    (vault / "Other.md").write_text("Other.\n")
    runtime = Path(tempfile.mkdtemp(prefix="vl-", dir="/tmp"))
    runtime.chmod(0o700)
    key = hashlib.sha256(str(vault).encode()).hexdigest()[:16]
    socket_path = runtime / f"{key}.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(socket_path))
    socket_path.chmod(0o600)
    listener.listen()
    hellos = []

    def serve():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                request = json.loads(connection.makefile().readline())
                hellos.append(request["params"])
                refusal = {"jsonrpc": "2.0", "id": request["id"],
                           "error": {"code": -32002, "message": "incompatible", "data": {"protocol": 2, "version": "9.0.0"}}}
                connection.sendall((json.dumps(refusal) + "\n").encode())

    threading.Thread(target=serve, daemon=True).start()
    discovery = runtime / f"{key}.json"
    discovery.write_text(json.dumps({"socket": str(socket_path), "token": "a" * 64, "pid": os.getpid(), "vault_path": str(vault),
                                     "protocol": 2, "plugin_version": "9.0.0", "state": "ready"}))
    discovery.chmod(0o600)

    async def session(mode, calls):
        params = StdioServerParameters(command=str(SIDECAR), args=["mcp", "--vault", str(vault), "--mode", mode],
                                       env={"VAULTLINK_RUNTIME_DIR": str(runtime), "HOME": str(tmp_path)})
        with open(os.devnull, "w") as log:
            async with stdio_client(params, errlog=log) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    return [await client.call_tool(name, arguments) for name, arguments in calls]

    try:
        health, read, write = asyncio.run(session("auto", [
            ("server_health", {}), ("get_backlinks", {"path": "Other.md"}),
            ("move_note", {"from": "Other.md", "to": "Moved.md", "dry_run": False})]))
        (plugin_only,) = asyncio.run(session("plugin", [("get_backlinks", {"path": "Other.md"})]))
    finally:
        listener.close()
        shutil.rmtree(runtime, ignore_errors=True)

    version = json.loads((ROOT / "manifest.json").read_text())["version"]
    skew = (f"The vaultlink program {version} speaks bridge protocol 1 and the vaultlink plugin 9.0.0 in Obsidian speaks "
            "bridge protocol 2: they cannot work together. Update the vaultlink program to 9.0.0 or later")
    assert hellos, health.structured_content
    assert hellos[0]["version"] == version and hellos[0]["protocol"] == 1
    health = health.structured_content
    assert health["plugin"]["reason"].startswith(skew), health
    assert health["writes"]["go_to"] == "refused", health
    assert read.is_error is False and [link["source"] for link in read.structured_content["backlinks"]] == ["Home.md"]
    assert write.is_error and skew in write.structured_content["message"], write.structured_content
    assert (vault / "Other.md").exists() and not (vault / "Moved.md").exists()
    assert plugin_only.is_error and plugin_only.structured_content["code"] == "plugin_unavailable"
    assert skew in plugin_only.structured_content["message"]
