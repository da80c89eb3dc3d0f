"""The project's map and door kept true: every path and module ARCHITECTURE.md and the documents its
detail lives in name exists, the README starts with exactly its two commands, and CI runs the second
of them."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = {"core": ROOT / "crates/core", "wasm": ROOT / "crates/wasm", "sidecar": ROOT / "crates/sidecar", "bench": ROOT / "crates/bench"}
SOURCE_FOLDERS = ("plugin", "crates", "tests", "scripts", "examples", "docs", "fuzz")
# Files of a user's vault or home that the text names, not files of this repository.
USERS_FILES = ("obsidian.json", "SCHEMA.md", ".obsidian/", ".vaultlink", "../shared", "target/", "build/")
FILE_ENDINGS = (".rs", ".ts", ".mjs", ".cjs", ".py", ".md", ".sh", ".json", ".toml", ".yml", ".css", ".canvas", ".txt")


def sections(text):
    """(heading, body) of each `##`/`###` section, so a name is looked for where its section is."""
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.M)
    yield "", parts[0]
    for heading, body in zip(parts[1::2], parts[2::2]):
        yield heading, body


def section_folders(heading):
    """The folders a codemap section's names are relative to: the one its heading names, if any."""
    named = re.findall(r"`([^`]+)`", heading)
    return [ROOT / name.rstrip("/") for name in named if (ROOT / name.rstrip("/")).is_dir()]


def rust_modules():
    """Every module of the workspace's crates, by name: a file or folder under a `src/`."""
    names = set()
    for crate in CRATES.values():
        for path in (crate / "src").rglob("*"):
            names.add(path.stem if path.is_file() else path.name)
    return names


def exists(name, folders):
    """Whether `name`, a path as ARCHITECTURE.md writes it, is a file or folder of the repository:
    from the root, from its section's folder, or (a bare file name) anywhere under that folder."""
    name = name.rstrip("/")
    if "*" in name or "<" in name:
        return True
    for base in [ROOT, *folders]:
        if (base / name).exists():
            return True
    # A file named by its path inside its folder (`client.ts`, `onboarding/mcp-config.ts`).
    for folder in [*folders, *(ROOT / top for top in SOURCE_FOLDERS)]:
        if any(folder.rglob(name)):
            return True
    return False


def named_paths(body):
    for code in re.findall(r"`([^`\n]+)`", body):
        for word in code.split():
            word = word.strip(",;:()")
            if word.startswith(("-", "$", "http", "~")) or " " in word:
                continue
            looks_like_path = word.endswith("/") and re.fullmatch(r"[\w.\-/]+/", word) or re.fullmatch(r"[\w.\-/]+", word) and word.endswith(FILE_ENDINGS)
            if looks_like_path:
                yield word


# The map and the documents its detail moved to, each held to the same check.
MAPS = ("ARCHITECTURE.md", "tests/README.md", *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "docs").glob("*.md")))


def names_that_do_not_exist(text):
    modules = rust_modules()
    missing = []
    for heading, body in sections(text):
        folders = section_folders(heading)
        for path in named_paths(heading + "\n" + body):
            if path.startswith(USERS_FILES):
                continue
            if not exists(path, folders):
                missing.append(f"{heading or '(top)'}: `{path}`")
        # Rust paths (`journal::undo`, `lease::judge`): their first segment is a module of a crate.
        for first in re.findall(r"`([a-z_]+)::[A-Za-z_:]+", body):
            if first not in modules | {"std", "vaultlink_core", "serde", "rmcp", "tokio", "crate", "self", "super", "hyper", "petgraph", "dunce"}:
                missing.append(f"{heading or '(top)'}: module `{first}`")
    return missing


def test_every_path_and_module_architecture_names_exists():
    missing = [f"{name}: {what}" for name in MAPS for what in names_that_do_not_exist((ROOT / name).read_text())]
    assert not missing, "the map names what does not exist:\n" + "\n".join(missing)


def test_the_map_stays_short_and_its_documents_are_checked():
    assert len((ROOT / "ARCHITECTURE.md").read_bytes()) < 15_000, "ARCHITECTURE.md is the map: its detail belongs in docs/ or beside its code"
    assert {"docs/bridge.md", "docs/mcp.md", "docs/decisions.md"} <= set(MAPS)
    # Every document the map points to is one the check reads.
    pointed = set(re.findall(r"`((?:docs|tests)/[\w.\-]+\.md)`", (ROOT / "ARCHITECTURE.md").read_text()))
    assert pointed <= set(MAPS), pointed - set(MAPS)


def test_the_tidy_check_finds_a_module_that_does_not_exist():
    assert names_that_do_not_exist("## Somewhere\n\n`nowhere::thing` and `crates/nowhere.rs`\n") == ["## Somewhere: `crates/nowhere.rs`", "## Somewhere: module `nowhere`"]


def test_the_tidy_check_finds_a_path_that_does_not_exist():
    assert list(named_paths("`crates/sidecar/src/nowhere.rs` and `plugin/nowhere/`")) == ["crates/sidecar/src/nowhere.rs", "plugin/nowhere/"]
    assert not exists("crates/sidecar/src/nowhere.rs", [])
    assert not exists("nowhere.ts", [ROOT / "plugin"])
    assert exists("keeper.ts", [ROOT / "plugin"])


def readme_commands():
    text = (ROOT / "README.md").read_text()
    match = re.match(r"# vaultlink\n\n```sh\n(.*?)```", text, re.S)
    assert match, "README.md starts with its heading and then its two commands"
    return [line.split("#")[0].strip() for line in match.group(1).strip().splitlines()]


def test_the_readme_starts_with_exactly_its_two_commands():
    assert readme_commands() == ["scripts/demo.sh", "scripts/test.sh"]


def test_ci_runs_the_readme_test_command_and_nothing_else():
    ci = (ROOT / ".ci/run").read_text()
    commands = [line for line in ci.splitlines() if line.strip() and not line.startswith("#") and not line.startswith("set ") and not line.startswith("cd ")]
    assert commands == [f"exec {readme_commands()[1]}"], commands


def test_one_stage_of_the_suite_is_named_as_the_script_prints_it():
    script = (ROOT / "scripts/test.sh").read_text()
    printed = {heading.split(":")[0] for heading in re.findall(r'^if stage "([^"]+)"; then$', script, re.M)}
    declared = re.search(r"^stages=\((.*)\)$", script, re.M).group(1)
    listed = {quoted or bare for quoted, bare in re.findall(r'"([^"]+)"|(\w+)', declared)}
    assert printed == listed, "every stage the script prints is one it can run alone, and no other"
    # An unknown stage is refused before anything runs, with the stages to choose from.
    refused = subprocess.run(["bash", str(ROOT / "scripts/test.sh"), "no such stage"], capture_output=True, text=True, cwd=ROOT)
    assert refused.returncode == 2
    assert 'no stage "no such stage"' in refused.stderr
    assert all(name in refused.stderr for name in printed)
