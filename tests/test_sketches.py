"""The near-duplicate sketches, made only when a lint's near_duplicate asks for them, on a copy of
a real wiki (the corpora's `dnd-srd-wiki`): the plugin's answer and the folder's are equal finding
for finding, and hold the 176 findings core's lint snapshot holds (written when every note was
sketched while it was indexed); a second command takes the sketches from the persistent index
and reads no note to sketch them.

Run with VAULTLINK_BIN=target/debug/vaultlink after scripts/build.sh and npm run build:host."""

import json
import os
import subprocess

from conftest import SIDECAR, corpus_copy, on_path
from test_mcp_quality import session_on

# `## near_duplicate (176)` in crates/core/tests/snapshots/lint-dnd-srd-wiki.txt.
FINDINGS = 176
ARGUMENTS = {"kinds": ["near_duplicate"], "limit": 100}


def by_pair(proposals):
    """Each finding's pair and evidence, in order (compared as values: JavaScript writes 1.0 as 1)."""
    return sorted((proposal["subject"], tuple(proposal.get("related", [])), sorted(proposal.get("evidence", {}).items()))
                  for proposal in proposals)


async def lint_all(vault, runtime_dir, mode):
    """Every near_duplicate finding through `vaultlink mcp`, page after page, and what was skipped."""
    found, cursor = [], None
    async with session_on(vault, runtime_dir, mode) as (session, _):
        while True:
            page = (await session.call_tool("lint_wiki", {**ARGUMENTS, **({"cursor": cursor} if cursor else {})})).structured_content
            found += page["proposals"]
            cursor = page.get("next_cursor")
            if not cursor:
                return by_pair(found), page["skipped"]


def lint_command(vault, cache, runtime_dir):
    env = {**os.environ, "VAULTLINK_CACHE_DIR": str(cache), "VAULTLINK_RUNTIME_DIR": str(runtime_dir), "VAULTLINK_LOG": "vaultlink=info"}
    done = subprocess.run([str(SIDECAR), "lint", str(vault), "--kinds", "near_duplicate", "--json", "--mode", "standalone"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 1, done.stderr  # findings
    report = json.loads(done.stdout)
    return by_pair(report["proposals"]), report["skipped"], done.stderr


def test_near_duplicate_answers_alike_on_both_paths_and_from_kept_sketches(tmp_path, runtime_dir):
    plugin, skipped = on_path(corpus_copy(tmp_path, "dnd-srd-wiki", "plugin"), runtime_dir, "plugin", lint_all)
    assert skipped == []
    assert len(plugin) == FINDINGS
    standalone, skipped = on_path(corpus_copy(tmp_path, "dnd-srd-wiki", "standalone"), runtime_dir, "standalone", lint_all)
    assert (standalone, skipped) == (plugin, [])

    vault, cache = corpus_copy(tmp_path, "dnd-srd-wiki", "command"), tmp_path / "cache"
    first, skipped, log = lint_command(vault, cache, runtime_dir)
    assert (first, skipped) == (plugin, [])
    assert "for near_duplicate" in log, log
    again, skipped, log = lint_command(vault, cache, runtime_dir)
    assert (again, skipped) == (plugin, [])
    assert "for near_duplicate" not in log, "the second command read no note to sketch it"
