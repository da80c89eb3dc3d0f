/**
 * Deletes inside Obsidian, as issue 36 found them: `confirm: false` is always a preview (with an
 * approved hash it is refused), a blocked delete is an error with its code, and a delete is kept
 * like every other change, so `undo_change` right after it writes the note back byte for byte,
 * whatever trash Obsidian's setting sent it to, and `list_changes` shows it.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { runTool, type ToolHost } from "../tools";
import type { ToolOutcome } from "../wasm";
import type { App, TAbstractFile } from "./obsidian-double";
import { loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const VAULT = `
//- Hub.md
Hub links to [[Linked]].
//- Linked.md
Linked is linked.
//- Lonely.md
---
up: "[[Hub]]"
---
Nothing links here.\r
`;

async function open(t: TestContext): Promise<{ vaultDir: string; app: App; host: ToolHost }> {
	const vaultDir = writeFixtureVault(VAULT);
	const { app, plugin } = await loadPlugin(vaultDir);
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null);
	return { vaultDir, app, host };
}

function resultOf<T>(outcome: ToolOutcome): T {
	assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
	return outcome.result as T;
}

function codeOf(outcome: ToolOutcome): string {
	assert.ok(!outcome.ok, "refused");
	return outcome.error.code;
}

/** The vault without the engine's own files. */
function notes(vaultDir: string): Record<string, string> {
	return Object.fromEntries(Object.entries(snapshotVault(vaultDir)).filter(([file]) => !file.startsWith(".vaultlink") && !file.startsWith(".trash")));
}

test("confirm: false is always a preview, with a hash it is refused, and a blocked delete is an error", async (t) => {
	const { vaultDir, host } = await open(t);
	const before = snapshotVault(vaultDir);
	const preview = resultOf<{ plan_hash: string; dry_run: boolean }>(await runTool(host, "delete_note", { path: "Lonely", confirm: false }));
	assert.equal(preview.dry_run, true);
	assert.equal(codeOf(await runTool(host, "delete_note", { path: "Lonely", confirm: false, approved_plan_hash: preview.plan_hash })), "invalid_arguments");
	assert.equal(codeOf(await runTool(host, "delete_note", { path: "Linked", confirm: true })), "has_backlinks");
	assert.equal(codeOf(await runTool(host, "delete_note", { path: "Lonely", confirm: true, approved_plan_hash: "0".repeat(64) })), "plan_hash_mismatch");
	assert.deepEqual(snapshotVault(vaultDir), before, "nothing was deleted");
});

test("a delete sent out of the vault's reach is undone from its kept text, and list_changes shows it first", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const text = fs.readFileSync(path.join(vaultDir, "Lonely.md"));
	const start = notes(vaultDir);
	// Obsidian's "Deleted files" setting may send a note to the system trash, which vaultlink
	// cannot read back: played here by a trash that removes the file.
	t.mock.method(app.fileManager, "trashFile", (file: TAbstractFile) => app.vault.delete(file, true));
	const edited = resultOf<{ change_id: string }>(await runTool(host, "update_properties", { path: "Hub", set: { status: "done" }, dry_run: false }));
	const afterEdit = notes(vaultDir);
	const deleted = resultOf<{ change_id: string }>(await runTool(host, "delete_note", { path: "Lonely", confirm: true }));
	assert.ok(!fs.existsSync(path.join(vaultDir, "Lonely.md")) && !fs.existsSync(path.join(vaultDir, ".trash")));

	const listed = resultOf<{ total: number; changes: { change_id: string; tool: string; undoable: boolean; latest?: boolean }[] }>(await runTool(host, "list_changes", {}));
	assert.equal(listed.total, 2);
	assert.deepEqual(
		listed.changes.map((change) => [change.change_id, change.tool, change.undoable, change.latest === true]),
		[
			[deleted.change_id, "delete_note", true, true],
			[edited.change_id, "update_properties", true, false],
		],
	);

	const undone = resultOf<{ tool: string; restored: string[] }>(await runTool(host, "undo_change", { dry_run: false }));
	assert.deepEqual([undone.tool, undone.restored], ["delete_note", ["Lonely.md"]]);
	assert.deepEqual(fs.readFileSync(path.join(vaultDir, "Lonely.md")), text, "the note is back byte for byte");
	assert.deepEqual(notes(vaultDir), afterEdit, "the edit before the delete stands");
	resultOf(await runTool(host, "undo_change", { dry_run: false }));
	assert.deepEqual(notes(vaultDir), start);
});
