/**
 * The rename audit: renames recorded from the vault's events, a rename made "Obsidian-style"
 * in the test double (the file renamed, only the body's wikilinks updated, as Obsidian's
 * updater does), the stale links the audit finds, and the fix applied through `rewrite_link`.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import type { RenameFindings } from "../audit/findings";
import { AUDIT_RENAMES_COMMAND_ID } from "../audit/command";
import { RenameAuditModal, RewritePreviewModal } from "../audit/modal";
import { MAX_RECORDED_RENAMES, RenameLog } from "../audit/renames";
import type VaultlinkPlugin from "../main";
import type { LinkEngine } from "../engine/client";
import type { OutgoingLinks } from "../wasm";
import { App, doublePluginOf, fakeElementOf, openedModals, shownNotices } from "./obsidian-double";
import { buttonOf, lastModal, loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- A.md
---
up: "[[Old]]"
see: "[old](Notes/Old.md)"
---
Body [[Old]], [[Notes/Old#Part|p]] and [text](Notes/Old.md).
//- B.md
Also [[Old]].
//- Notes/Old.md
# Part
//- Other.md
[[Solo]]
//- Solo.md
alone
`;

interface Opened {
	vaultDir: string;
	app: App;
	plugin: VaultlinkPlugin;
	index: LinkEngine;
	/** Runs the command and returns what it found. */
	audit(): Promise<RenameFindings[] | null>;
}

/** The plugin on `fixture`; the indexer's debounce is far longer than any test, so only settling moves the index on. */
async function open(t: TestContext, fixture = FIXTURE): Promise<Opened> {
	const vaultDir = writeFixtureVault(fixture);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const command = doublePluginOf(plugin).commands.get(AUDIT_RENAMES_COMMAND_ID);
	assert.ok(command?.callback !== undefined, "the command is registered");
	const callback = command.callback as () => Promise<RenameFindings[] | null>;
	const index = plugin.index;
	assert.ok(index !== null);
	return { vaultDir, app, plugin, index, audit: callback };
}

/** Renames `from` to `to` as Obsidian's interface does: the file, then only the body's wikilinks in each note. */
async function renameObsidianStyle(app: App, from: string, to: string, notes: string[]): Promise<void> {
	const file = app.vault.getAbstractFileByPath(from);
	assert.ok(file !== null, `${from} is in the vault`);
	await app.vault.rename(file, to);
	const oldName = path.posix.basename(from, ".md");
	const newName = path.posix.basename(to, ".md");
	const oldPath = from.replace(/\.md$/, "");
	const newPath = to.replace(/\.md$/, "");
	for (const note of notes) {
		const noteFile = app.vault.getFileByPath(note);
		assert.ok(noteFile !== null);
		await app.vault.process(noteFile, (text) => {
			const end = text.startsWith("---\n") ? text.indexOf("\n---\n", 4) + 5 : 0;
			const body = text
				.slice(end)
				.replaceAll(`[[${oldPath}`, `[[${newPath}`)
				.replaceAll(`[[${oldName}]]`, `[[${newName}]]`)
				.replaceAll(`[[${oldName}#`, `[[${newName}#`)
				.replaceAll(`[[${oldName}|`, `[[${newName}|`);
			return text.slice(0, end) + body;
		});
	}
}

function readText(vaultDir: string, filePath: string): string {
	return fs.readFileSync(path.join(vaultDir, ...filePath.split("/")), "utf8");
}

test("the command is registered with its stable id and no default hotkey", async (t) => {
	const { plugin } = await open(t);
	const command = doublePluginOf(plugin).commands.get(AUDIT_RENAMES_COMMAND_ID);
	assert.equal(AUDIT_RENAMES_COMMAND_ID, "audit-renames");
	assert.equal(command?.name, "Audit recent renames");
	assert.equal(command?.hotkeys, undefined);
});

test("renames are recorded from the vault's events: files, each file under a folder, and no longer once unloaded", async (t) => {
	const { app, plugin } = await open(t);
	const log = plugin.recordedRenames;
	assert.ok(log !== null);
	const listening = app.vault.listenerCount("rename");

	const solo = app.vault.getAbstractFileByPath("Solo.md");
	assert.ok(solo !== null);
	await app.vault.rename(solo, "Single.md");
	const notes = app.vault.getAbstractFileByPath("Notes");
	assert.ok(notes !== null);
	await app.vault.rename(notes, "Archive/Notes");
	// Renamed again: the first rename now ends where this one does.
	const single = app.vault.getAbstractFileByPath("Single.md");
	assert.ok(single !== null);
	await app.vault.rename(single, "Archive/Single.md");
	assert.deepEqual(log.entries(), [
		{ from: "Solo.md", to: "Archive/Single.md" },
		{ from: "Notes/Old.md", to: "Archive/Notes/Old.md" },
		{ from: "Single.md", to: "Archive/Single.md" },
	]);

	// The folder's own event alone (were the files under it to send none) records each of them.
	const folderOnly = new RenameLog();
	const archived = app.vault.getAbstractFileByPath("Archive");
	assert.ok(archived !== null);
	folderOnly.recordEvent(archived, "Attic");
	assert.deepEqual(folderOnly.entries(), [
		{ from: "Attic/Notes/Old.md", to: "Archive/Notes/Old.md" },
		{ from: "Attic/Single.md", to: "Archive/Single.md" },
	]);

	plugin.unload();
	assert.equal(app.vault.listenerCount("rename"), listening - 2, "the log's listener and the indexer's are gone");
	const other = app.vault.getAbstractFileByPath("Other.md");
	assert.ok(other !== null);
	await app.vault.rename(other, "Later.md");
	assert.equal(log.size, 3, "nothing is recorded after unloading");
});

test("the log keeps the most recent renames, and forgets a file renamed back", () => {
	const log = new RenameLog();
	for (let step = 0; step < MAX_RECORDED_RENAMES + 10; step += 1) log.record(`n${step}.md`, `m${step}.md`);
	assert.equal(log.size, MAX_RECORDED_RENAMES);
	assert.deepEqual(log.entries()[0], { from: "n10.md", to: "m10.md" }, "the oldest are dropped first");
	assert.deepEqual(log.entries().at(-1), { from: `n${MAX_RECORDED_RENAMES + 9}.md`, to: `m${MAX_RECORDED_RENAMES + 9}.md` });

	const small = new RenameLog(3);
	small.record("A.md", "B.md");
	small.record("A.md", "B.md");
	assert.deepEqual(small.entries(), [{ from: "A.md", to: "B.md" }], "the same rename is kept once");
	small.record("B.md", "A.md");
	assert.deepEqual(small.entries(), [{ from: "B.md", to: "A.md" }], "A → B → A is no rename of A");
});

test("after an Obsidian-style rename the audit finds exactly the links its updater left behind", async (t) => {
	const opened = await open(t);
	await renameObsidianStyle(opened.app, "Notes/Old.md", "Notes/New.md", ["A.md", "B.md"]);
	assert.equal(readText(opened.vaultDir, "B.md"), "Also [[New]].", "the double's updater rewrote the body");

	const before = snapshotVault(opened.vaultDir);
	const findings = await opened.audit();
	assert.deepEqual(findings, [
		{
			rename: { from: "Notes/Old.md", to: "Notes/New.md" },
			stale: [
				{ note: "A.md", line: 2, text: "[[Old]]", source: "property", key: "up" },
				{ note: "A.md", line: 3, text: "[old](Notes/Old.md)", source: "property", key: "see" },
				{ note: "A.md", line: 5, text: "[text](Notes/Old.md)", source: "body" },
			],
			fixes: [
				{ fromTarget: "Old", toTarget: "New" },
				{ fromTarget: "Notes/Old", toTarget: "Notes/New" },
			],
		},
	]);
	const modal = lastModal(RenameAuditModal);
	assert.deepEqual(fakeElementOf(modal.contentEl).outline(), [
		"p 3 links still name the old path of 1 renamed file, of 1 recent rename checked.",
		"h3 Notes/Old.md → Notes/New.md",
		"  li A.md, line 2: [[Old]] in property up (points nowhere)",
		"  li A.md, line 3: [old](Notes/Old.md) in property see (points nowhere)",
		"  li A.md, line 5: [text](Notes/Old.md) (points nowhere)",
		"  button Fix these links",
	]);
	assert.ok(fakeElementOf(modal.contentEl).findAll("button")[0]?.focused, "the fix button has the keyboard focus");
	assert.deepEqual(snapshotVault(opened.vaultDir), before, "an audit writes nothing");
});

test("fixing previews the rewrite, then applies it: the files are rewritten and the index resolves every link", async (t) => {
	const opened = await open(t);
	await renameObsidianStyle(opened.app, "Notes/Old.md", "Notes/New.md", ["A.md", "B.md"]);
	await opened.audit();
	const audit = lastModal(RenameAuditModal);
	const before = snapshotVault(opened.vaultDir);
	audit.scope.press("Enter");
	assert.ok(!audit.isOpen);
	await audit.action;

	const preview = lastModal(RewritePreviewModal);
	assert.deepEqual(fakeElementOf(preview.contentEl).outline(), [
		"p Rewrites 3 links in 1 note. Nothing changes until you confirm.",
		"h3 Old → New",
		"h4 A.md",
		'  li line 2: [[Old]] → [[New]] (it names the old target)',
		"h3 Notes/Old → Notes/New",
		"h4 A.md",
		"  li line 3: [old](Notes/Old.md) → [old](Notes/New.md) (it names the old target)",
		"  li line 5: [text](Notes/Old.md) → [text](Notes/New.md) (it names the old target)",
		"  button Rewrite links",
		"  button Cancel",
	]);
	assert.deepEqual(snapshotVault(opened.vaultDir), before, "a preview writes nothing");

	preview.scope.press("Enter");
	await preview.action;
	assert.equal(
		readText(opened.vaultDir, "A.md"),
		'---\nup: "[[New]]"\nsee: "[old](Notes/New.md)"\n---\nBody [[New]], [[Notes/New#Part|p]] and [text](Notes/New.md).',
	);
	assert.equal(shownNotices.at(-1)?.message, "vaultlink: rewrote 3 links in 1 note to point to Notes/New.md.");
	const outgoing: OutgoingLinks = await opened.index.outgoingLinks("A.md");
	assert.deepEqual(
		outgoing.links.map((link) => [link.target, link.status, link.resolved_path]),
		[
			["New", "resolved", "Notes/New.md"],
			["Notes/New.md", "resolved", "Notes/New.md"],
			["New", "resolved", "Notes/New.md"],
			["Notes/New#Part", "resolved", "Notes/New.md"],
			["Notes/New.md", "resolved", "Notes/New.md"],
		],
	);

	const again = await opened.audit();
	assert.deepEqual(again?.map((found) => found.stale), [[]], "nothing is stale any more");
	assert.equal(shownNotices.at(-1)?.message, "vaultlink: checked 1 recent rename; no link still names an old path.");
});

test("a rename that left nothing stale reports nothing and opens no modal", async (t) => {
	const opened = await open(t);
	await renameObsidianStyle(opened.app, "Solo.md", "Single.md", ["Other.md"]);
	const modals = openedModals.length;
	const findings = await opened.audit();
	assert.deepEqual(findings, [{ rename: { from: "Solo.md", to: "Single.md" }, stale: [], fixes: [] }]);
	assert.equal(openedModals.length, modals);
	assert.equal(shownNotices.at(-1)?.message, "vaultlink: checked 1 recent rename; no link still names an old path.");
});

test("a bare link gets the new path when the new name is not unique", async (t) => {
	const opened = await open(
		t,
		`
//- A.md
see [[Old]]
//- Old.md
old
//- Elsewhere/New.md
another New
`,
	);
	const file = opened.app.vault.getAbstractFileByPath("Old.md");
	assert.ok(file !== null);
	// Renamed with "Automatically update internal links" off: no link is updated.
	await opened.app.vault.rename(file, "Notes/New.md");
	const findings = await opened.audit();
	assert.deepEqual(findings?.[0]?.fixes, [{ fromTarget: "Old", toTarget: "Notes/New" }]);
	const audit = lastModal(RenameAuditModal);
	buttonOf(audit, "Fix these links").click();
	await audit.action;
	const preview = lastModal(RewritePreviewModal);
	buttonOf(preview, "Rewrite links").click();
	await preview.action;
	assert.equal(readText(opened.vaultDir, "A.md"), "see [[Notes/New]]");
});

test("cancelling the preview changes nothing; a vault changed since the preview is refused", async (t) => {
	const opened = await open(t);
	await renameObsidianStyle(opened.app, "Notes/Old.md", "Notes/New.md", ["A.md", "B.md"]);
	const before = snapshotVault(opened.vaultDir);

	await opened.audit();
	const audit = lastModal(RenameAuditModal);
	audit.scope.press("Enter");
	await audit.action;
	const cancelled = lastModal(RewritePreviewModal);
	buttonOf(cancelled, "Cancel").click();
	assert.ok(!cancelled.isOpen);
	assert.equal(cancelled.action, null);
	assert.deepEqual(snapshotVault(opened.vaultDir), before);

	await opened.audit();
	const again = lastModal(RenameAuditModal);
	again.scope.press("Enter");
	await again.action;
	const preview = lastModal(RewritePreviewModal);
	await opened.app.vault.create("C.md", "one more [[Old]]");
	const changed = snapshotVault(opened.vaultDir);
	preview.scope.press("Enter");
	await preview.action;
	assert.deepEqual(snapshotVault(opened.vaultDir), changed, "nothing was written");
	assert.match(shownNotices.at(-1)?.message ?? "", /^vaultlink: the links to Notes\/New\.md were not fixed: the vault changed since the preview.*nothing was changed/);
});

test("an audit right after a rename waits for Obsidian's link updater, and does not report the links it is still rewriting", async (t) => {
	const opened = await open(t, "//- A.md\nBody [[Old]].\n//- B.md\nAlso [[Old]].\n//- Old.md\nold\n");
	const file = opened.app.vault.getFileByPath("Old.md");
	assert.ok(file !== null);
	await opened.app.vault.rename(file, "New.md");
	// Obsidian's updater rewrites the linking notes one after another, shortly after the rename;
	// the audit is started before it has touched either.
	const updater = (async () => {
		for (const note of ["A.md", "B.md"]) {
			await new Promise((resolve) => setTimeout(resolve, 200));
			const noteFile = opened.app.vault.getFileByPath(note);
			assert.ok(noteFile !== null);
			await opened.app.vault.process(noteFile, (text) => text.replaceAll("[[Old]]", "[[New]]"));
		}
	})();
	const noticesBefore = shownNotices.length;
	const started = Date.now();
	const findings = await opened.audit();
	await updater;
	assert.ok(Date.now() - started >= 400, "the audit waited for the updater's rewrites");
	assert.deepEqual(findings?.flatMap((found) => found.stale), [], "no link the updater fixed is reported stale");
	assert.deepEqual(
		shownNotices.slice(noticesBefore).map((notice) => notice.message),
		["vaultlink: checked 1 recent rename; no link still names an old path."],
	);
	assert.equal(readText(opened.vaultDir, "A.md"), "Body [[New]].");
});
