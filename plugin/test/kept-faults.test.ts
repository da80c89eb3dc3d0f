/**
 * Keeping a change for `undo_change` is part of its commit, inside Obsidian (issue 34): a real
 * Node process applying a move, or an undo, is killed before each change in turn, the
 * adapter's included (the journal's removal, the kept change's folder), and `vaultlink
 * recover`, the real sidecar binary, restores the vault from the journal left; the change is
 * then undone and not kept, or made and kept (an undo: made and forgotten).
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { keptChanges } from "../batch/history";
import { JOURNAL_PATH } from "../batch/journal";
import { runTool } from "../tools";
import { BATCH, KILL_CHILD, keptFiles, killedAt, leaseRunOut, moveFirst, notesOf, runKillChild, sidecarBinary } from "./killing";
import { loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

if (process.env[KILL_CHILD] !== undefined) {
	void runKillChild(process.env[KILL_CHILD]);
} else {
	test("Obsidian killed at any step of a move, its journal's removal and the keeping included: recovered and not kept, or made and kept (issue 34)", async () => {
		const binary = sidecarBinary();
		const made = writeFixtureVault(BATCH);
		await moveFirst(made);
		const after = notesOf(made);
		for (let step = 0; ; step += 1) {
			const vaultDir = writeFixtureVault(BATCH);
			const before = snapshotVault(vaultDir);
			const held = await killedAt(vaultDir, "move_note", "all", step);
			if (fs.existsSync(path.join(vaultDir, JOURNAL_PATH))) {
				leaseRunOut(vaultDir);
				const recovered = spawnSync(binary, ["recover", vaultDir], { encoding: "utf8" });
				assert.equal(recovered.status, 0, recovered.stderr);
				assert.deepEqual(snapshotVault(vaultDir), before, `killed at change ${step}: recovered, and nothing kept`);
			} else {
				assert.deepEqual(notesOf(vaultDir), after, `killed at change ${step}: the move is made`);
				assert.equal(keptFiles(vaultDir).length, 1, `killed at change ${step}: and kept`);
				const { plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
				assert.ok(plugin.toolHost !== null);
				const undone = await runTool(plugin.toolHost, "undo_change", { dry_run: false });
				plugin.unload();
				assert.ok(undone.ok, `killed at change ${step}: the kept change undoes: ${JSON.stringify(undone)}`);
				assert.deepEqual(notesOf(vaultDir), notesOf(writeFixtureVault(BATCH)));
			}
			if (!held) {
				assert.ok(step >= 6, `the move took ${step} changes`);
				break;
			}
		}
	});

	test("Obsidian killed at any step of an undo, its journal's removal and the setting aside of the undone change included: the change made and kept, or undone and forgotten", async () => {
		const binary = sidecarBinary();
		const start = notesOf(writeFixtureVault(BATCH));
		for (let step = 0; ; step += 1) {
			const vaultDir = writeFixtureVault(BATCH);
			await moveFirst(vaultDir);
			const moved = snapshotVault(vaultDir);
			const held = await killedAt(vaultDir, "undo_change", "all", step);
			if (fs.existsSync(path.join(vaultDir, JOURNAL_PATH))) {
				leaseRunOut(vaultDir);
				const recovered = spawnSync(binary, ["recover", vaultDir], { encoding: "utf8" });
				assert.equal(recovered.status, 0, recovered.stderr);
				assert.deepEqual(snapshotVault(vaultDir), moved, `killed at change ${step}: recovered, the move made and kept`);
			} else {
				assert.deepEqual(notesOf(vaultDir), start, `killed at change ${step}: the move is undone`);
				const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
				const kept = await keptChanges(app.vault.adapter);
				plugin.unload();
				assert.deepEqual(kept, [], `killed at change ${step}: and forgotten`);
			}
			if (!held) {
				assert.ok(step >= 4, `the undo took ${step} changes`);
				break;
			}
		}
	});
}
