/**
 * The "Fix broken links" command, driven as a user drives it: it previews each repair with its
 * evidence and the links it leaves, confirming writes exactly those repairs, and "Undo last
 * change" gives the vault back byte for byte.
 */

import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FIX_LINKS_COMMAND_ID } from "../repair/command";
import { UNDO_COMMAND_ID } from "../undo/command";
import { PreviewConfirmModal } from "../move/modals";
import { doublePluginOf, fakeElementOf, shownNotices } from "./obsidian-double";
import { lastModal, loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Notes.md
[[Opportunity atack]] and [[Guide#Instalation]] and [[Cat]]
{{[[Opportunity atack]]}}
//- Opportunity attack.md
x
//- Guide.md
## Installation
//- Car.md
x
`;

/** The vault's notes, without vaultlink's own folder (the kept changes). */
function notes(vaultDir: string): Record<string, string> {
	return Object.fromEntries(Object.entries(snapshotVault(vaultDir)).filter(([path]) => !path.startsWith(".vaultlink")));
}

async function open(t: TestContext) {
	const vaultDir = writeFixtureVault(FIXTURE);
	const { plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const commands = doublePluginOf(plugin).commands;
	const fix = commands.get(FIX_LINKS_COMMAND_ID)?.callback;
	const undo = commands.get(UNDO_COMMAND_ID)?.callback;
	assert.ok(fix !== undefined && undo !== undefined, "the commands are registered");
	return { vaultDir, fix, undo };
}

/** Lets the command's calls finish. */
async function settle(): Promise<void> {
	for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

test("the command previews each repair with its evidence, confirming repairs them, and undo gives the vault back", async (t) => {
	const { vaultDir, fix, undo } = await open(t);
	const start = notes(vaultDir);
	fix();
	await settle();
	const preview = lastModal(PreviewConfirmModal);
	const shown = fakeElementOf(preview.contentEl).getText();
	assert.match(shown, /Would repair 2 links in 1 note; 2 broken links are left/);
	assert.match(shown, /\[\[Opportunity atack\]\] → \[\[Opportunity attack\]\] \(similar, 0\.99\)/);
	assert.match(shown, /\[\[Guide#Instalation\]\] → \[\[Guide#Installation\]\] \(heading renamed/);
	assert.match(shown, /\[\[Cat\]\]: low confidence: Car\.md/);
	assert.match(shown, /template expression/);
	preview.confirm();
	await preview.action;
	await settle();
	assert.match(shownNotices.at(-1)?.message ?? "", /Repaired 2 links in 1 note/);
	assert.equal(
		notes(vaultDir)["Notes.md"],
		"[[Opportunity attack]] and [[Guide#Installation]] and [[Cat]]\n{{[[Opportunity atack]]}}",
	);

	undo();
	await settle();
	const undoing = lastModal(PreviewConfirmModal);
	assert.match(fakeElementOf(undoing.contentEl).getText(), /Notes\.md: restored/);
	undoing.confirm();
	await undoing.action;
	await settle();
	assert.deepEqual(notes(vaultDir), start, "the vault is back as it was, byte for byte");
});
