/**
 * The "Undo last change" command, driven as a user drives it: after a change made through the
 * tools, the command previews what the undo gives back, and confirming gives the vault back
 * byte for byte; with nothing kept, it says so and changes nothing.
 */

import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { runTool } from "../tools";
import { UNDO_COMMAND_ID } from "../undo/command";
import { PreviewConfirmModal } from "../move/modals";
import { doublePluginOf, fakeElementOf, shownNotices } from "./obsidian-double";
import { lastModal, loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- A.md
see [[Old|it]]
//- Old.md
# Old
`;

/** The vault's notes, without vaultlink's own folder (the kept changes). */
function notes(vaultDir: string): Record<string, string> {
	return Object.fromEntries(Object.entries(snapshotVault(vaultDir)).filter(([path]) => !path.startsWith(".vaultlink")));
}

async function open(t: TestContext) {
	const vaultDir = writeFixtureVault(FIXTURE);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const command = doublePluginOf(plugin).commands.get(UNDO_COMMAND_ID);
	assert.ok(command?.callback !== undefined, "the command is registered");
	return { vaultDir, app, host, run: command.callback };
}

/** Lets the command's calls finish. */
async function settle(): Promise<void> {
	for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

test("after a move and a new page, the command previews each undo and confirming gives the vault back", async (t) => {
	const { vaultDir, host, run } = await open(t);
	const start = notes(vaultDir);
	assert.ok((await runTool(host, "move_note", { from: "Old.md", to: "sub/New.md", dry_run: false })).ok);
	const moved = notes(vaultDir);
	const page = { page: { path: "Page", body: "# Page\n[[New]]\n" }, patches: [{ path: "A.md", kind: "link" }], dry_run: false };
	assert.ok((await runTool(host, "commit_wiki_page", page)).ok);

	run();
	await settle();
	const preview = lastModal(PreviewConfirmModal);
	const shown = fakeElementOf(preview.contentEl).getText();
	assert.match(shown, /A\.md: restored/);
	assert.match(shown, /Page\.md: removed/);
	preview.confirm();
	await preview.action;
	await settle();
	assert.deepEqual(notes(vaultDir), moved, "the new page is gone and A.md is as the move left it");
	assert.match(shownNotices.at(-1)?.message ?? "", /Undid the last new page: 1 note restored, 1 new file removed/);

	run();
	await settle();
	const second = lastModal(PreviewConfirmModal);
	assert.match(fakeElementOf(second.contentEl).getText(), /sub\/New\.md → Old\.md: moved back/);
	second.confirm();
	await second.action;
	await settle();
	assert.deepEqual(notes(vaultDir), start, "the vault is back as it was, byte for byte");

	run();
	await settle();
	assert.match(shownNotices.at(-1)?.message ?? "", /nothing was undone: no change is kept to undo/);
	assert.deepEqual(notes(vaultDir), start);
});
