/**
 * The "Move note safely…" command, driven as a keyboard user drives it through the test
 * double's modals: pick a file, type its new path, read the preview, confirm or cancel.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { MOVE_NOTE_COMMAND_ID } from "../move/command";
import { DestinationModal, MovePreviewModal, renderMovePreview } from "../move/modals";
import type { MoveAnswer } from "../wasm";
import { FakeElement, Modal, TextComponent, activeElement, asHTMLElement, fakeElementOf, openedModals, pressKey, shownNotices } from "./obsidian-double";
import { checkStableCommand, openPickerCommand, type PickerCommand } from "./command-support";
import { buttonOf, lastModal, snapshotVault, useTemporaryRuntimeDirectory } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- A.md
see [[Old|it]]
//- B.md
[[Old#Part]] and [[Old]]
//- Old.md
# Old
`;

type Opened = PickerCommand;

function open(t: TestContext): Promise<Opened> {
	return openPickerCommand(t, FIXTURE, MOVE_NOTE_COMMAND_ID);
}

/** Picks `query`'s first match, types `destination`, presses Enter, and returns the preview. */
async function previewOf(opened: Opened, query: string, destination: string): Promise<Modal & MovePreviewModal> {
	const picker = opened.run();
	picker.inputEl.value = query;
	picker.scope.press("Enter");
	const destinationModal = lastModal(DestinationModal);
	typeDestination(destinationModal, destination);
	destinationModal.scope.press("Enter");
	await destinationModal.action;
	return lastModal(MovePreviewModal);
}

/** Types `value` into the destination field, as the user would. */
function typeDestination(modal: DestinationModal, value: string): void {
	const input: unknown = modal.input;
	assert.ok(input instanceof TextComponent, "the destination modal is open, with its field");
	input.type(value);
}

test("the command is registered with its stable id and no default hotkey", async (t) => {
	await checkStableCommand(t, FIXTURE, MOVE_NOTE_COMMAND_ID, "move-note-safely", "Move note safely…");
});

test("pick, type the destination, read every change in the preview, confirm with Enter", async (t) => {
	const opened = await open(t);
	const picker = opened.run();
	picker.inputEl.value = "old";
	assert.deepEqual(
		picker.getSuggestions(picker.inputEl.value).map((match) => match.item.path),
		["Old.md"],
		"the picker searches every file's path",
	);
	picker.scope.press("Enter");
	assert.ok(!picker.isOpen);

	const destination = lastModal(DestinationModal);
	const input = destination.input;
	assert.ok(input !== null);
	const field = fakeElementOf(input.inputEl);
	assert.equal(input.getValue(), "Old.md", "prefilled with the current path");
	assert.deepEqual([field.focused, field.selectionStart, field.selectionEnd], [true, 0, 3], "the name is selected, ready to type over");
	typeDestination(destination, "/Archive//New/");
	destination.scope.press("Enter");
	await destination.action;

	const before = snapshotVault(opened.vaultDir);
	const preview = lastModal(MovePreviewModal);
	assert.deepEqual(fakeElementOf(preview.contentEl).outline(), [
		"p Moves Old.md to Archive/New.md and rewrites 3 links in 2 notes. Nothing changes until you confirm.",
		"h3 File moved",
		"  li Old.md → Archive/New.md",
		"h3 Links rewritten",
		"h4 A.md",
		"  li line 1: [[Old|it]] → [[New|it]] (it points to a file that moves)",
		"h4 B.md",
		"  li line 1: [[Old#Part]] → [[New#Part]] (it points to a file that moves)",
		"  li line 1: [[Old]] → [[New]] (it points to a file that moves)",
		"  button Move",
		"  button Cancel",
	]);
	assert.deepEqual(snapshotVault(opened.vaultDir), before, "a preview writes nothing");

	preview.scope.press("Enter");
	await preview.action;
	assert.ok(!preview.isOpen);
	assert.equal(fs.readFileSync(path.join(opened.vaultDir, "B.md"), "utf8"), "[[New#Part]] and [[New]]");
	assert.equal(fs.readFileSync(path.join(opened.vaultDir, "Archive", "New.md"), "utf8"), "# Old\n");
	assert.ok(!fs.existsSync(path.join(opened.vaultDir, "Old.md")));
	assert.equal(shownNotices.at(-1)?.message, "vaultlink: Moved Old.md to Archive/New.md and rewrote 3 links in 2 notes.");
});

test("the Move button applies the plan once; Cancel and Escape change nothing", async (t) => {
	const opened = await open(t);
	const before = snapshotVault(opened.vaultDir);

	const escaped = await previewOf(opened, "old", "New.md");
	escaped.scope.press("Escape");
	assert.ok(!escaped.isOpen);
	assert.equal(escaped.action, null);

	const cancelled = await previewOf(opened, "old", "New.md");
	buttonOf(cancelled, "Cancel").click();
	assert.ok(!cancelled.isOpen);
	assert.equal(cancelled.action, null);

	const picker = opened.run();
	picker.scope.press("Escape");
	assert.ok(!picker.isOpen);
	assert.deepEqual(snapshotVault(opened.vaultDir), before, "nothing was moved");

	const confirmed = await previewOf(opened, "old", "New.md");
	const move = buttonOf(confirmed, "Move");
	move.click();
	const action = confirmed.action;
	confirmed.confirm();
	assert.equal(confirmed.action, action, "a second confirmation starts nothing");
	await action;
	assert.ok(fs.existsSync(path.join(opened.vaultDir, "New.md")));
});

test("a refused move shows the error's message and hint, and opens no preview", async (t) => {
	const opened = await open(t);
	const picker = opened.run();
	picker.inputEl.value = "old";
	picker.scope.press("Enter");
	const destination = lastModal(DestinationModal);
	typeDestination(destination, "A.md");
	destination.scope.press("Enter");
	await destination.action;
	assert.ok(!(openedModals.at(-1) instanceof MovePreviewModal));
	assert.equal(
		shownNotices.at(-1)?.message,
		"vaultlink: Old.md was not moved: `A.md` already exists. Choose another destination, or move or delete the file that is there first.",
	);
});

test("confirming a preview after the vault changed is refused, and nothing moves", async (t) => {
	const opened = await open(t);
	const preview = await previewOf(opened, "old", "New.md");
	await opened.app.vault.create("C.md", "a new link to [[Old]]");
	const before = snapshotVault(opened.vaultDir);
	preview.scope.press("Enter");
	await preview.action;
	assert.deepEqual(snapshotVault(opened.vaultDir), before);
	assert.match(shownNotices.at(-1)?.message ?? "", /^vaultlink: Old\.md was not moved: the vault changed since the preview.*Preview the move again/);
});

test("the preview lists every kind of change, and says how many it leaves out", () => {
	const answer: MoveAnswer = {
		dry_run: true,
		applied: false,
		plan_hash: "0".repeat(64),
		moves: [
			{ from: "proj/One.md", to: "archive/One.md" },
			{ from: "proj/Two.md", to: "archive/Two.md" },
		],
		files_moved: 2,
		notes_edited: 2,
		changes: [
			{ note: "proj/One.md", line: 2, before: "[up](../Home.md)", after: "[up](../Home.md)", reason: "source_moved" },
			{ note: "Home.md", line: 1, before: "[[One]]", after: "[[archive/One]]", reason: "second_order" },
			{ note: "Home.md", line: 4, before: "![[Two]]", after: "![[archive/Two]]", reason: "target_moved" },
		],
		links_changed: 3,
		newly_resolved: [{ note: "Todo.md", line: 3, link: "[[archive/One]]", resolves_to: "archive/One.md" }],
	};
	const container = new FakeElement("div");
	renderMovePreview(asHTMLElement(container), answer, 2);
	assert.deepEqual(container.outline(), [
		"p Moves 2 files and rewrites 3 links in 2 notes. Nothing changes until you confirm.",
		"h3 Files moved",
		"  li proj/One.md → archive/One.md",
		"  li proj/Two.md → archive/Two.md",
		"h3 Links rewritten",
		"h4 proj/One.md",
		"  li line 2: [up](../Home.md) → [up](../Home.md) (its note moves, and the link is written relative to the note's folder)",
		"h4 Home.md",
		"  li line 1: [[One]] → [[archive/One]] (the move would make it point to another file)",
		"p 1 more link is rewritten, not listed here.",
		"h3 Links that will find the moved file",
		"p These links point nowhere now; under its new name the moved file is what they name.",
		"  li Todo.md, line 3: [[archive/One]] → archive/One.md",
	]);

	renderMovePreview(asHTMLElement(container), { ...answer, moves: answer.moves.slice(0, 1), files_moved: 1, changes: [], links_changed: 0, notes_edited: 0, newly_resolved: [] });
	assert.deepEqual(container.outline(), [
		"p Moves proj/One.md to archive/One.md; no link needs rewriting. Nothing changes until you confirm.",
		"h3 File moved",
		"  li proj/One.md → archive/One.md",
		"h3 Links rewritten",
		"p None: every link keeps pointing where it points without a change.",
	]);
});

test("the preview opens with the keyboard on Move: Enter presses it, Tab-and-Enter on Cancel cancels, Escape cancels", async (t) => {
	const opened = await open(t);
	const preview = await previewOf(opened, "old", "Archive/Old.md");
	const move = buttonOf(preview, "Move");
	assert.equal(activeElement(), move, "the focus lands on Move");
	// The keyboard moves to Cancel: Enter now presses Cancel, not Move.
	const before = snapshotVault(opened.vaultDir);
	buttonOf(preview, "Cancel").focus();
	pressKey("Enter", preview.scope);
	assert.ok(!preview.isOpen);
	assert.equal(preview.action, null);
	assert.deepEqual(snapshotVault(opened.vaultDir), before);
	assert.equal(activeElement(), null, "the closed modal took its focus with it");

	const again = await previewOf(opened, "old", "Archive/Old.md");
	assert.equal(activeElement(), buttonOf(again, "Move"));
	pressKey("Enter", again.scope);
	await again.action;
	assert.ok(fs.existsSync(path.join(opened.vaultDir, "Archive", "Old.md")), "Enter on Move moved the note");
});
