/**
 * Notes open in an editor with unsaved text: a writing tool saves the editor first and plans
 * from what the user sees, so neither the plan is made from stale text nor the editor's own
 * save (about 2 s later) writes over the tool's rewrite. An editor that cannot be saved makes
 * the tool refuse, changing nothing.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { runTool, type ToolHost } from "../tools";
import type { DeleteAnswer, MoveAnswer, ToolOutcome } from "../wasm";
import { EDITOR_SAVE_DELAY_MS, type App, type MarkdownView } from "./obsidian-double";
import { loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const VAULT = `
//- Old.md
The note that moves.
//- A.md
A links to [[Old]].
//- B.md
B has no link.
`;

interface Editing {
	vaultDir: string;
	app: App;
	host: ToolHost;
	/** A.md open in an editor, with `typed` unsaved in it. */
	view: MarkdownView;
}

async function editing(t: TestContext, typed: string): Promise<Editing> {
	const vaultDir = writeFixtureVault(VAULT);
	const { app, plugin } = await loadPlugin(vaultDir);
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const file = app.vault.getFileByPath("A.md");
	assert.ok(file !== null);
	const view = await app.workspace.openEditor(file);
	view.editor.setValue(typed);
	assert.equal(readText(vaultDir, "A.md"), "A links to [[Old]].", "the typed text is not on disk yet");
	return { vaultDir, app, host, view };
}

function readText(vaultDir: string, filePath: string): string {
	return fs.readFileSync(path.join(vaultDir, ...filePath.split("/")), "utf8");
}

function resultOf<T>(outcome: ToolOutcome): T {
	assert.ok(outcome.ok, JSON.stringify(outcome));
	return outcome.result as T;
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

test("move_note saves an open editor first, plans from its unsaved text, and the editor's later save does not undo the rewrite", async (t) => {
	const { vaultDir, host, view } = await editing(t, "A links to [[Old]], and now to [[Old|it]] again.");
	const answer = resultOf<MoveAnswer>(await runTool(host, "move_note", { from: "Old.md", to: "New.md", dry_run: false }));
	assert.equal(answer.links_changed, 2, "the link typed in the editor is rewritten too: the plan read the editor's text");
	const rewritten = "A links to [[New]], and now to [[New|it]] again.";
	assert.equal(readText(vaultDir, "A.md"), rewritten);
	assert.equal(view.editor.getValue(), rewritten, "the editor shows the rewrite");
	await sleep(EDITOR_SAVE_DELAY_MS + 200);
	assert.equal(readText(vaultDir, "A.md"), rewritten, "no save of the editor wrote the old text back");
});

test("a dry run also plans from the editor's text", async (t) => {
	const { host } = await editing(t, "A now links to [[Old]] and [[Old#Heading]].");
	const answer = resultOf<MoveAnswer>(await runTool(host, "move_note", { from: "Old.md", to: "New.md", dry_run: true }));
	assert.equal(answer.links_changed, 2);
	assert.deepEqual(
		(answer.changes ?? []).map((change) => change.after),
		["[[New]]", "[[New#Heading]]"],
	);
});

test("rewrite_link saves an open editor first and repoints the links typed in it", async (t) => {
	const { vaultDir, host } = await editing(t, "A links to [[Old]] and, typed, [[Old]] once more.");
	const answer = resultOf<MoveAnswer>(await runTool(host, "rewrite_link", { from_target: "Old.md", to_target: "B.md", dry_run: false }));
	assert.equal(answer.links_changed, 2);
	assert.equal(readText(vaultDir, "A.md"), "A links to [[B.md]] and, typed, [[B.md]] once more.");
});

test("delete_note on a note open with unsaved text captures the text the editor held", async (t) => {
	const { host, vaultDir } = await editing(t, "A, with words not yet saved.");
	const answer = resultOf<DeleteAnswer>(await runTool(host, "delete_note", { path: "A.md", confirm: true }));
	assert.equal(answer.captured?.text, "A, with words not yet saved.");
	assert.ok(!fs.existsSync(path.join(vaultDir, "A.md")));
	assert.equal(readText(vaultDir, ".trash/A.md"), "A, with words not yet saved.", "the trash holds what the user saw");
});

test("an editor that cannot be saved makes the tool refuse, and nothing changes", async (t) => {
	const { vaultDir, app, host, view } = await editing(t, "A links to [[Old]], unsaved.");
	const before = snapshotVault(vaultDir);
	app.vault.failNext("modify", "A.md");
	const outcome = await runTool(host, "move_note", { from: "Old.md", to: "New.md", dry_run: false });
	assert.ok(!outcome.ok);
	assert.equal(outcome.error.code, "write_failed");
	assert.match(outcome.error.message, /`A\.md` is open in an editor with unsaved changes/);
	assert.deepEqual(snapshotVault(vaultDir), before);
	assert.equal(view.editor.getValue(), "A links to [[Old]], unsaved.", "the editor keeps its text");
	view.editor.setValue("done");
	await view.save();
});
