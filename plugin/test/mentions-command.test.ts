//! The "Link unlinked mentions" command, driven as a user drives it: it lists each mention with
//! a switch, turning some off writes only the mentions left on (through core's `exclude`), and
//! "Undo last change" gives the vault back byte for byte.

import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { LINK_MENTIONS_COMMAND_ID } from "../mentions/command";
import { UNDO_COMMAND_ID } from "../undo/command";
import { PreviewConfirmModal } from "../move/modals";
import { doublePluginOf, fakeElementOf, shownNotices } from "./obsidian-double";
import { lastModal, loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Notes.md
An opportunity attack, then an attack.
The guide says \`attack\` in code.
//- Opportunity attack.md
x
//- Attack.md
x
//- a/Guide.md
x
//- b/Guide.md
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
	const link = commands.get(LINK_MENTIONS_COMMAND_ID)?.callback;
	const undo = commands.get(UNDO_COMMAND_ID)?.callback;
	assert.ok(link !== undefined && undo !== undefined, "the commands are registered");
	return { vaultDir, link, undo };
}

/** Lets the command's calls finish. */
async function settle(): Promise<void> {
	for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

test("the preview lists each mention with a switch, only the mentions left on are linked, and undo gives the vault back", async (t) => {
	const { vaultDir, link, undo } = await open(t);
	const start = notes(vaultDir);
	link();
	await settle();
	const preview = lastModal(PreviewConfirmModal);
	const shown = fakeElementOf(preview.contentEl);
	assert.match(shown.getText(), /Would link 2 mentions in 1 note; 1 name several notes share is left/);
	assert.match(shown.getText(), /Notes\.md:1 “opportunity attack” → Opportunity attack\.md/);
	assert.match(shown.getText(), /Notes\.md:1 “attack” → Attack\.md/);
	assert.match(shown.getText(), /Guide \(1\): a\/Guide\.md, b\/Guide\.md/);
	const switches = shown.findAllWithClass("checkbox-container");
	assert.equal(switches.length, 2, "one switch a mention");
	assert.ok(switches.every((one) => one.attributes.get("aria-checked") === "true"), "every mention starts on");
	// The user turns the second mention off.
	switches[1]?.click();
	preview.confirm();
	await preview.action;
	await settle();
	assert.match(shownNotices.at(-1)?.message ?? "", /Linked 1 mention in 1 note/);
	assert.equal(
		notes(vaultDir)["Notes.md"],
		"An [[Opportunity attack|opportunity attack]], then an attack.\nThe guide says `attack` in code.",
	);

	undo();
	await settle();
	const undoing = lastModal(PreviewConfirmModal);
	undoing.confirm();
	await undoing.action;
	await settle();
	assert.deepEqual(notes(vaultDir), start, "the vault is back as it was, byte for byte");
});
