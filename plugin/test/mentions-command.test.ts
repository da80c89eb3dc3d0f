/**
 * The "Link unlinked mentions" command, driven as a user drives it: it lists each mention with a
 * switch, turning some off writes only the mentions left on (through core's `exclude`), and "Undo
 * last change" gives the vault back byte for byte.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { LINK_MENTIONS_COMMAND_ID } from "../mentions/command";
import { UNDO_COMMAND_ID } from "../undo/command";
import { PreviewConfirmModal } from "../move/modals";
import { modalOpenedBy, openVault, vaultNotes } from "./command-support";
import { fakeElementOf, shownNotices } from "./obsidian-double";
import { useTemporaryRuntimeDirectory } from "./support";

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

test("the preview lists each mention with a switch, only the mentions left on are linked, and undo gives the vault back", async (t) => {
	const { vaultDir, commands } = await openVault(t, FIXTURE, { link: LINK_MENTIONS_COMMAND_ID, undo: UNDO_COMMAND_ID });
	const start = vaultNotes(vaultDir);
	const preview = await modalOpenedBy(commands.link, PreviewConfirmModal);
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
	assert.match(shownNotices.at(-1)?.message ?? "", /Linked 1 mention in 1 note/);
	assert.equal(
		vaultNotes(vaultDir)["Notes.md"],
		"An [[Opportunity attack|opportunity attack]], then an attack.\nThe guide says `attack` in code.",
	);

	const undoing = await modalOpenedBy(commands.undo, PreviewConfirmModal);
	undoing.confirm();
	await undoing.action;
	assert.deepEqual(vaultNotes(vaultDir), start, "the vault is back as it was, byte for byte");
});
