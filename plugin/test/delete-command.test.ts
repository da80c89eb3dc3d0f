/**
 * The "Delete note safely…" command, driven as a keyboard user drives it through the test
 * double's modals: pick a note, read every backlink in the preview, confirm or cancel.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { DELETE_NOTE_COMMAND_ID } from "../delete/command";
import { DeletePreviewModal, renderDeletePreview } from "../delete/modals";
import type { DeleteAnswer } from "../wasm";
import { FakeElement, Modal, TFile, activeElement, asHTMLElement, fakeElementOf, pressKey, shownNotices } from "./obsidian-double";
import { checkStableCommand, openPickerCommand, type PickerCommand } from "./command-support";
import { buttonOf, lastModal, snapshotVault, useTemporaryRuntimeDirectory } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- A.md
see [[Old|it]]
//- B.md
---
related: "[[Old]]"
---
and [[Old#Part]]
//- Old.md
# Old
//- Lonely.md
alone
//- img.png
not a note
`;

type Opened = PickerCommand;

function open(t: TestContext): Promise<Opened> {
	return openPickerCommand(t, FIXTURE, DELETE_NOTE_COMMAND_ID);
}

/** Picks `query`'s first match with Enter and returns the preview. */
async function previewOf(opened: Opened, query: string): Promise<Modal & DeletePreviewModal> {
	const picker = opened.run();
	picker.inputEl.value = query;
	picker.scope.press("Enter");
	await picker.action;
	return lastModal(DeletePreviewModal);
}

function exists(vaultDir: string, file: string): boolean {
	return fs.existsSync(path.join(vaultDir, ...file.split("/")));
}

test("the delete command is registered with its stable id and no default hotkey", async (t) => {
	await checkStableCommand(t, FIXTURE, DELETE_NOTE_COMMAND_ID, "delete-note-safely", "Delete note safely…");
});

test("the preview lists body and property backlinks; its delete button trashes the note, leaving them dangling", async (t) => {
	const opened = await open(t);
	const picker = opened.run();
	assert.deepEqual(
		picker.getSuggestions("").map((match) => match.item.path),
		["A.md", "B.md", "Lonely.md", "Old.md"],
		"the picker offers notes only",
	);
	picker.inputEl.value = "old";
	picker.scope.press("Enter");
	assert.ok(!picker.isOpen);
	await picker.action;

	const before = snapshotVault(opened.vaultDir);
	const preview = lastModal(DeletePreviewModal);
	assert.equal(fakeElementOf(preview.titleEl).getText(), "Delete Old.md");
	assert.deepEqual(fakeElementOf(preview.contentEl).outline(), [
		"p 3 links in 2 notes point to Old.md; deleting it leaves them pointing nowhere. Other notes are not edited. Nothing changes until you confirm.",
		"h3 Backlinks",
		"h4 A.md",
		"  li line 1: [[Old|it]] (in the body)",
		"h4 B.md",
		"  li line 2: [[Old]] (in the property related)",
		"  li line 4: [[Old#Part]] (in the body)",
		"  button Move to trash; 3 links will dangle",
		"  button Cancel",
	]);
	assert.deepEqual(snapshotVault(opened.vaultDir), before, "a preview writes nothing");

	buttonOf(preview, "Move to trash; 3 links will dangle").click();
	await preview.action;
	assert.ok(!preview.isOpen);
	assert.ok(!exists(opened.vaultDir, "Old.md"));
	assert.equal(fs.readFileSync(path.join(opened.vaultDir, ".trash", "Old.md"), "utf8"), "# Old", "the note went through fileManager.trashFile");
	assert.equal(opened.app.vault.getAbstractFileByPath("Old.md"), null);
	const after = snapshotVault(opened.vaultDir);
	for (const note of ["A.md", "B.md", "Lonely.md"]) assert.equal(after[note], before[note], `${note} is not edited`);
	assert.equal(
		shownNotices.at(-1)?.message,
		"vaultlink: Moved Old.md to Obsidian's trash (as its Files and links settings choose). 3 links to it now point nowhere.",
	);
});

test("a note without backlinks gets a plain Move to trash", async (t) => {
	const opened = await open(t);
	const preview = await previewOf(opened, "lonely");
	assert.deepEqual(fakeElementOf(preview.contentEl).outline(), [
		"p No note links to Lonely.md; it goes to the trash. Nothing changes until you confirm.",
		"  button Move to trash",
		"  button Cancel",
	]);
	buttonOf(preview, "Move to trash").click();
	const action = preview.action;
	preview.confirm();
	assert.equal(preview.action, action, "a second confirmation starts nothing");
	await action;
	assert.ok(!exists(opened.vaultDir, "Lonely.md"));
	assert.ok(exists(opened.vaultDir, ".trash/Lonely.md"));
	assert.equal(shownNotices.at(-1)?.message, "vaultlink: Moved Lonely.md to Obsidian's trash (as its Files and links settings choose).");
});

test("Cancel and Escape change nothing", async (t) => {
	const opened = await open(t);
	const before = snapshotVault(opened.vaultDir);

	const escaped = await previewOf(opened, "old");
	escaped.scope.press("Escape");
	assert.ok(!escaped.isOpen);
	assert.equal(escaped.action, null);

	const cancelled = await previewOf(opened, "old");
	buttonOf(cancelled, "Cancel").click();
	assert.ok(!cancelled.isOpen);
	assert.equal(cancelled.action, null);

	const picker = opened.run();
	picker.scope.press("Escape");
	assert.ok(!picker.isOpen);
	assert.equal(picker.action, null);

	assert.deepEqual(snapshotVault(opened.vaultDir), before, "nothing was deleted");
	assert.ok(opened.app.vault.getAbstractFileByPath("Old.md") instanceof TFile);
});

test("confirming a preview after the note was edited is refused, and nothing is deleted", async (t) => {
	const opened = await open(t);
	const preview = await previewOf(opened, "lonely");
	const file = opened.app.vault.getAbstractFileByPath("Lonely.md");
	assert.ok(file instanceof TFile);
	await opened.app.vault.modify(file, "alone, and edited since");
	const before = snapshotVault(opened.vaultDir);
	buttonOf(preview, "Move to trash").click();
	await preview.action;
	assert.deepEqual(snapshotVault(opened.vaultDir), before);
	assert.equal(
		shownNotices.at(-1)?.message,
		"vaultlink: Lonely.md was not deleted: the approved plan_hash is not the plan now (the note or the links to it changed since the preview); nothing changed. Run the command again to see the note as it is now.",
	);
});

test("confirming a preview after a new backlink appeared is refused", async (t) => {
	const opened = await open(t);
	const preview = await previewOf(opened, "lonely");
	await opened.app.vault.create("C.md", "now [[Lonely]] has a friend");
	const before = snapshotVault(opened.vaultDir);
	buttonOf(preview, "Move to trash").click();
	await preview.action;
	assert.deepEqual(snapshotVault(opened.vaultDir), before);
	assert.match(shownNotices.at(-1)?.message ?? "", /^vaultlink: Lonely\.md was not deleted: the approved plan_hash is not the plan now .*; 1 link points to it, which it would leave dangling: C\.md line 1 \(\[\[Lonely\]\]\); nothing changed\./);
});

test("the preview says how many backlinks it leaves out", () => {
	const answer: DeleteAnswer = {
		ok: true,
		path: "Hub.md",
		dry_run: true,
		would_change: false,
		can_confirm: false,
		preview_ready: true,
		blocked_reasons: ["has_backlinks"],
		backlinks: [
			{ note: "One.md", line: 3, link: "![[Hub]]", kind: "embed", source: "body" },
			{ note: "One.md", line: 1, link: "[[Hub]]", kind: "wikilink", source: "property", key: "up" },
			{ note: "Two.md", line: 7, link: "[hub](Hub.md)", kind: "markdown", source: "body" },
		],
		forced: false,
		plan_hash: "0".repeat(64),
	};
	const container = new FakeElement("div");
	renderDeletePreview(asHTMLElement(container), answer, 2);
	assert.deepEqual(container.outline(), [
		"p 3 links in 2 notes point to Hub.md; deleting it leaves them pointing nowhere. Other notes are not edited. Nothing changes until you confirm.",
		"h3 Backlinks",
		"h4 One.md",
		"  li line 3: ![[Hub]] (in the body)",
		"  li line 1: [[Hub]] (in the property up)",
		"p 1 more link points to it, not listed here.",
	]);
});

test("the preview opens with the keyboard on Cancel, not on the button that deletes: Enter there cancels, Escape too", async (t) => {
	const opened = await open(t);
	const entered = await previewOf(opened, "old");
	const confirm = buttonOf(entered, "Move to trash; 3 links will dangle");
	assert.equal(activeElement(), buttonOf(entered, "Cancel"), "the focus lands on Cancel");
	assert.notEqual(activeElement(), confirm);
	assert.ok(confirm.hasClass("mod-warning"), "styled as one that removes");
	pressKey("Enter", entered.scope);
	assert.ok(!entered.isOpen);
	assert.equal(entered.action, null, "Enter on Cancel started nothing");
	assert.ok(exists(opened.vaultDir, "Old.md"));

	const escaped = await previewOf(opened, "old");
	pressKey("Escape", escaped.scope);
	assert.ok(!escaped.isOpen);
	assert.ok(exists(opened.vaultDir, "Old.md"));

	const preview = await previewOf(opened, "old");
	buttonOf(preview, "Move to trash; 3 links will dangle").click();
	await preview.action;
	assert.ok(!exists(opened.vaultDir, "Old.md"), "the delete button deleted the note");
});
