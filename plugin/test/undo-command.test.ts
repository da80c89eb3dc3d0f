/**
 * The "Undo last change" command, driven as a user drives it: after a change made through the
 * tools, the command previews what the undo gives back, and confirming gives the vault back
 * byte for byte; with nothing kept, it says so and changes nothing.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { runTool } from "../tools";
import { UNDO_COMMAND_ID } from "../undo/command";
import { PreviewConfirmModal } from "../move/modals";
import { modalOpenedBy, noticeShownBy, openVault, vaultNotes } from "./command-support";
import { fakeElementOf, shownNotices } from "./obsidian-double";
import { useTemporaryRuntimeDirectory } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- A.md
see [[Old|it]]
//- Old.md
# Old
`;

test("after a move and a new page, the command previews each undo and confirming gives the vault back", async (t) => {
	const { vaultDir, plugin, commands } = await openVault(t, FIXTURE, { undo: UNDO_COMMAND_ID });
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const start = vaultNotes(vaultDir);
	assert.ok((await runTool(host, "move_note", { from: "Old.md", to: "sub/New.md", dry_run: false })).ok);
	const moved = vaultNotes(vaultDir);
	const page = { page: { path: "Page", body: "# Page\n[[New]]\n" }, patches: [{ path: "A.md", kind: "link" }], dry_run: false };
	assert.ok((await runTool(host, "commit_wiki_page", page)).ok);

	const preview = await modalOpenedBy(commands.undo, PreviewConfirmModal);
	const shown = fakeElementOf(preview.contentEl).getText();
	assert.match(shown, /A\.md: restored/);
	assert.match(shown, /Page\.md: removed/);
	preview.confirm();
	await preview.action;
	assert.deepEqual(vaultNotes(vaultDir), moved, "the new page is gone and A.md is as the move left it");
	assert.match(shownNotices.at(-1)?.message ?? "", /Undid the last new page: 1 note restored, 1 new file removed/);

	const second = await modalOpenedBy(commands.undo, PreviewConfirmModal);
	assert.match(fakeElementOf(second.contentEl).getText(), /sub\/New\.md → Old\.md: moved back/);
	second.confirm();
	await second.action;
	assert.deepEqual(vaultNotes(vaultDir), start, "the vault is back as it was, byte for byte");

	assert.match(await noticeShownBy(commands.undo), /nothing was undone: no change is kept to undo/);
	assert.deepEqual(vaultNotes(vaultDir), start);
});
