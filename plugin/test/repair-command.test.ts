/**
 * The "Fix broken links" command, driven as a user drives it: it previews each repair with its
 * evidence and the links it leaves, confirming writes exactly those repairs, and "Undo last
 * change" gives the vault back byte for byte.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { FIX_LINKS_COMMAND_ID } from "../repair/command";
import { UNDO_COMMAND_ID } from "../undo/command";
import { PreviewConfirmModal } from "../move/modals";
import { modalOpenedBy, openVault, vaultNotes } from "./command-support";
import { fakeElementOf, shownNotices } from "./obsidian-double";
import { useTemporaryRuntimeDirectory } from "./support";

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

test("the command previews each repair with its evidence, confirming repairs them, and undo gives the vault back", async (t) => {
	const { vaultDir, commands } = await openVault(t, FIXTURE, { fix: FIX_LINKS_COMMAND_ID, undo: UNDO_COMMAND_ID });
	const start = vaultNotes(vaultDir);
	const preview = await modalOpenedBy(commands.fix, PreviewConfirmModal);
	const shown = fakeElementOf(preview.contentEl).getText();
	assert.match(shown, /Would repair 2 links in 1 note; 2 broken links are left/);
	assert.match(shown, /\[\[Opportunity atack\]\] → \[\[Opportunity attack\]\] \(similar, 0\.99\)/);
	assert.match(shown, /\[\[Guide#Instalation\]\] → \[\[Guide#Installation\]\] \(heading renamed/);
	assert.match(shown, /\[\[Cat\]\]: low confidence: Car\.md/);
	assert.match(shown, /template expression/);
	preview.confirm();
	await preview.action;
	assert.match(shownNotices.at(-1)?.message ?? "", /Repaired 2 links in 1 note/);
	assert.equal(
		vaultNotes(vaultDir)["Notes.md"],
		"[[Opportunity attack]] and [[Guide#Installation]] and [[Cat]]\n{{[[Opportunity atack]]}}",
	);

	const undoing = await modalOpenedBy(commands.undo, PreviewConfirmModal);
	assert.match(fakeElementOf(undoing.contentEl).getText(), /Notes\.md: restored/);
	undoing.confirm();
	await undoing.action;
	assert.deepEqual(vaultNotes(vaultDir), start, "the vault is back as it was, byte for byte");
});
