//! What users see, as DOM snapshots: the "Vault lint" view, the move preview and the delete
//! preview, rendered against the test double on the sample vault (`examples/vault`) and
//! serialised to HTML, compared with the snapshots committed in `plugin/test/snapshots/`. A
//! change to what users see fails here until the snapshots are updated on purpose:
//!
//!     VAULTLINK_UPDATE_SNAPSHOTS=1 npm test
//!
//! `npm run screenshots` renders the same snapshots in headless Chromium into the PNGs the
//! README shows.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { DELETE_NOTE_COMMAND_ID } from "../delete/command";
import { DeletePreviewModal } from "../delete/modals";
import { LINT_COMMAND_ID } from "../lint/command";
import type VaultlinkPlugin from "../main";
import { MOVE_NOTE_COMMAND_ID } from "../move/command";
import { DestinationModal, MovePreviewModal, NotePickerModal } from "../move/modals";
import { doublePluginOf, fakeElementOf, type Modal } from "./obsidian-double";
import { REPO_ROOT, copyVault, lastModal, loadPlugin, useTemporaryRuntimeDirectory } from "./support";

useTemporaryRuntimeDirectory();

const SNAPSHOTS = path.join(REPO_ROOT, "plugin", "test", "snapshots");
const UPDATE = process.env["VAULTLINK_UPDATE_SNAPSHOTS"] === "1";

/** Compares `html` with the stored snapshot `name`, or stores it when updating. */
function checkSnapshot(name: string, html: string): void {
	const file = path.join(SNAPSHOTS, `${name}.html`);
	const text = `${html}\n`;
	if (UPDATE) {
		fs.mkdirSync(SNAPSHOTS, { recursive: true });
		fs.writeFileSync(file, text);
		return;
	}
	assert.ok(fs.existsSync(file), `no snapshot ${path.relative(REPO_ROOT, file)}; run VAULTLINK_UPDATE_SNAPSHOTS=1 npm test to write it, then check it and commit it`);
	assert.equal(
		text,
		fs.readFileSync(file, "utf8"),
		`what users see in ${name} changed; if that is meant, run VAULTLINK_UPDATE_SNAPSHOTS=1 npm test, check the diff of ${path.relative(REPO_ROOT, file)} and commit it`,
	);
}

async function sampleVault(t: TestContext): Promise<VaultlinkPlugin> {
	const { plugin } = await loadPlugin(copyVault(path.join(REPO_ROOT, "examples", "vault")), { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	return plugin;
}

function run(plugin: VaultlinkPlugin, id: string): void {
	const callback = doublePluginOf(plugin).commands.get(id)?.callback;
	assert.ok(callback !== undefined, `the command ${id}`);
	void callback();
}

/** A modal as the user sees it: the modal element with its title and content. */
function modalHTML(modal: Modal): string {
	return fakeElementOf(modal.containerEl).toHTML();
}

test("the Vault lint view on the sample vault", async (t) => {
	const plugin = await sampleVault(t);
	run(plugin, LINT_COMMAND_ID);
	const view = await plugin.lint?.opening;
	assert.ok(view !== null && view !== undefined);
	checkSnapshot("lint-view", fakeElementOf(view.containerEl).toHTML());
});

test("the move preview on the sample vault: Projects/Alpha.md to Projects/Archive/Alpha.md", async (t) => {
	const plugin = await sampleVault(t);
	run(plugin, MOVE_NOTE_COMMAND_ID);
	const picker = lastModal(NotePickerModal);
	picker.inputEl.value = "projects/alpha";
	picker.scope.press("Enter");
	const destination = lastModal(DestinationModal);
	fakeElementOf(destination.contentEl).findAll("input")[0]?.type("Projects/Archive/Alpha.md");
	destination.scope.press("Enter");
	await destination.action;
	checkSnapshot("move-preview", modalHTML(lastModal(MovePreviewModal)));
});

test("the delete preview on the sample vault: People/Ada.md and the links to it", async (t) => {
	const plugin = await sampleVault(t);
	run(plugin, DELETE_NOTE_COMMAND_ID);
	const picker = lastModal(NotePickerModal);
	picker.inputEl.value = "people/ada";
	picker.scope.press("Enter");
	await picker.action;
	checkSnapshot("delete-preview", modalHTML(lastModal(DeletePreviewModal)));
});
