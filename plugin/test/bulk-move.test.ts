/**
 * Moving several files at once from the file explorer: the menu Obsidian shows for a
 * selection of several files offers the bulk move; the user names a folder, sees the preview
 * of every move and link, and confirms; the files move as one batch and every link follows.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { DestinationModal, MovePreviewModal } from "../move/modals";
import { Menu, TFile, TextComponent, fakeElementOf } from "./obsidian-double";
import { lastModal, loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Home.md
[[Alpha]], [[Beta]] and [Gamma](Notes/Gamma.md)
//- Notes/Alpha.md
alpha, see [[Beta]]
//- Notes/Beta.md
beta
//- Notes/Gamma.md
gamma
`;

test("several files selected in the file explorer move into a folder as one batch, every link following", async (t) => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const selected = ["Notes/Alpha.md", "Notes/Beta.md", "Notes/Gamma.md"].map((file) => app.vault.getAbstractFileByPath(file));
	assert.ok(selected.every((file) => file instanceof TFile));

	// One file: Obsidian's `files-menu` is for several; nothing is offered.
	const single = new Menu();
	app.workspace.trigger("files-menu", single, selected.slice(0, 1), "file-explorer-context-menu");
	assert.equal(single.items.length, 0);

	const menu = new Menu();
	app.workspace.trigger("files-menu", menu, selected, "file-explorer-context-menu");
	const item = menu.item("Move 3 items safely…");
	assert.ok(item !== undefined, "the bulk move is offered");
	item.click();
	const destination = lastModal(DestinationModal);
	const input: unknown = destination.input;
	assert.ok(input instanceof TextComponent);
	assert.equal(input.getValue(), "Notes", "the folder they share, to type over");
	input.type("Archive/2026");
	destination.scope.press("Enter");
	await destination.action;

	const preview = lastModal(MovePreviewModal);
	assert.match(fakeElementOf(preview.contentEl).getText(), /Notes\/Alpha\.md/);
	preview.scope.press("Enter");
	await preview.action;
	for (const name of ["Alpha.md", "Beta.md", "Gamma.md"]) assert.ok(fs.existsSync(path.join(vaultDir, "Archive", "2026", name)), name);
	// Written as Obsidian writes it under "shortest": Gamma's name is unique.
	assert.equal(fs.readFileSync(path.join(vaultDir, "Home.md"), "utf8"), "[[Alpha]], [[Beta]] and [Gamma](Gamma.md)");
});
