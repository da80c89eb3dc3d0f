//! The "Vault lint" view and the status bar's count of unresolved links, on the test double's
//! workspace: the command opens the view, findings are grouped and clickable, the count follows
//! the vault.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { LINT_COMMAND_ID } from "../lint/command";
import { LINT_VIEW_TYPE, LintView } from "../lint/view";
import { renderLintReport, type LintReport, forPeople } from "../lint/report";
import type VaultlinkPlugin from "../main";
import { PreviewConfirmModal } from "../move/modals";
import { App, FakeElement, TFile, activeElement, asHTMLElement, doubleLeafOf, doublePluginOf, fakeElementOf, pressKey, shownNotices } from "./obsidian-double";
import { lastModal, loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Home.md
[[A]] and [[Missing]], and [[A#Nowhere]]
//- A.md
---
up: "[[Home]]"
---
text [[Missing]]
//- Lonely.md
alone
`;

async function open(t: TestContext): Promise<{ app: App; plugin: VaultlinkPlugin }> {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE), { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	return loaded;
}

async function runCommand(plugin: VaultlinkPlugin): Promise<LintView> {
	const command = doublePluginOf(plugin).commands.get(LINT_COMMAND_ID);
	assert.ok(command?.callback !== undefined, "the command is registered");
	command.callback();
	const view = await plugin.lint?.opening;
	assert.ok(view instanceof LintView, "the command opened the lint view");
	return view;
}

function linkOf(view: LintView, text: string) {
	const link = fakeElementOf(view.contentEl)
		.findAll("a")
		.find((candidate) => candidate.getText() === text);
	assert.ok(link !== undefined, `a link ${text}`);
	return link;
}

test("the lint command opens the view in the sidebar, grouped by kind with counts, and the skipped checks", async (t) => {
	const { app, plugin } = await open(t);
	assert.equal(LINT_COMMAND_ID, "lint-vault");
	assert.equal(doublePluginOf(plugin).commands.get(LINT_COMMAND_ID)?.name, "Lint the vault");
	const view = await runCommand(plugin);
	const leaves = app.workspace.getLeavesOfType(LINT_VIEW_TYPE);
	assert.equal(leaves.length, 1);
	const leaf = leaves[0];
	assert.ok(leaf !== undefined);
	assert.equal(leaf.view, view);
	assert.ok(doubleLeafOf(leaf).revealed, "the leaf is shown");
	assert.equal(view.getDisplayText(), "Vault lint");
	assert.deepEqual(fakeElementOf(view.contentEl).outline(), [
		"  button Lint again",
		"  p 3 findings.",
		"  p Link health: 3 notes, 5 links; 2 broken links, 0 ambiguous links, 1 orphan, 1 dead end, 2 islands.",
		"  h3 Links to missing headings (1)",
		"      a Home.md, line 1",
		"      div the link to “A#Nowhere” names the heading “#Nowhere”, which “A.md” does not have",
		"      div Involves: A.md",
		"      div Point the link at an existing heading of “A.md”, or restore the heading there.",
		"  h3 Orphans (1)",
		"      a Lonely.md",
		"      div no other note links to “Lonely.md”, from its body or its properties",
		"      div Link it from a related note or an index page, or merge it into another note if it repeats one.",
		"  h3 Unresolved links (1)",
		"      a Missing",
		"      div 2 links in 2 notes point to “Missing”, and no file has that name or path",
		"      div Involves: A.md, Home.md",
		"      div Write the note “Missing”, or remove or correct the links.",
		"  h3 Checks not run",
		"    li Schema violations: no SCHEMA.md governs the notes linted: put one, with “types” and “properties” in its frontmatter, in the wiki's folder",
	]);
});

test("clicking a finding opens its note, at its line when it has one", async (t) => {
	const { app, plugin } = await open(t);
	const view = await runCommand(plugin);
	linkOf(view, "Lonely.md").click();
	linkOf(view, "Home.md, line 1").click();
	// An unresolved target is no note: the first note that links it opens, at that link.
	linkOf(view, "Missing").click();
	assert.deepEqual(app.workspace.openedLinks, [
		{ linktext: "Lonely.md", sourcePath: "", newLeaf: false, openViewState: undefined },
		{ linktext: "Home.md", sourcePath: "", newLeaf: false, openViewState: { eState: { line: 0 } } },
		{ linktext: "A.md", sourcePath: "", newLeaf: false, openViewState: { eState: { line: 3 } } },
	]);
});

test("running the command again lints again in the same view, after the vault changed", async (t) => {
	const { app, plugin } = await open(t);
	const first = await runCommand(plugin);
	await app.vault.create("Missing.md", "now it exists, and links [[Lonely]]");
	const second = await runCommand(plugin);
	assert.equal(second, first, "the open view is reused");
	assert.equal(app.workspace.getLeavesOfType(LINT_VIEW_TYPE).length, 1);
	const outline = fakeElementOf(second.contentEl).outline();
	assert.ok(outline.includes("  p 1 finding."), outline.join("\n"));
	assert.ok(
		outline.includes("  p Link health: 4 notes, 6 links; 0 broken links, 0 ambiguous links, 0 orphans, 1 dead end, 1 island. Since the last lint: broken links −2, orphans −1, islands −1."),
		"the vault's link health, with how it moved since the lint before",
	);
	assert.ok(outline.includes("  h3 Links to missing headings (1)"));
	assert.ok(!outline.some((line) => line.includes("Unresolved") || line.includes("Orphans")));
});

test("the status bar counts unresolved links and follows the vault; unloading removes it", async (t) => {
	const { app, plugin } = await open(t);
	const status = plugin.lint?.status;
	assert.ok(status !== undefined);
	await status.settle();
	const items = doublePluginOf(plugin).statusBarItems;
	assert.equal(items.length, 1);
	const item = items[0];
	assert.ok(item !== undefined);
	assert.equal(item.getText(), "1 unresolved link");

	await app.vault.create("B.md", "[[Elsewhere]] and [[Nowhere]]");
	plugin.vaultIndexer?.flush();
	await status.settle();
	assert.equal(item.getText(), "3 unresolved links");

	// After each edit the engine tells the count the index keeps; nothing here asks for it. The
	// round trip of another request comes back after what the engine told before it.
	const engine = plugin.index;
	assert.ok(engine !== null);
	const shownAfter = async (edit: () => Promise<unknown>): Promise<string> => {
		await edit();
		plugin.vaultIndexer?.flush();
		await plugin.vaultIndexer?.whenIdle();
		await engine.noteCount();
		return item.getText();
	};
	const fileAt = (filePath: string): TFile => {
		const file = app.vault.getAbstractFileByPath(filePath);
		assert.ok(file instanceof TFile, filePath);
		return file;
	};
	// A new note resolves the links elsewhere that name it.
	assert.equal(await shownAfter(() => app.vault.create("Elsewhere.md", "here")), "2 unresolved links");
	// Renamed away, it leaves them unresolved again; renamed back, it resolves them.
	assert.equal(await shownAfter(() => app.vault.rename(fileAt("Elsewhere.md"), "Other.md")), "3 unresolved links");
	assert.equal(await shownAfter(() => app.vault.rename(fileAt("Other.md"), "Elsewhere.md")), "2 unresolved links");
	// An edit that names one more missing note, and one (in another case) already counted.
	assert.equal(await shownAfter(() => app.vault.modify(fileAt("B.md"), "[[nowhere]] [[Nowhere]] [[Gone]]")), "3 unresolved links");
	// A removed note unresolves what linked to it (Home's links to A), and takes its own links with
	// it (its link to Missing, which Home names too).
	assert.equal(await shownAfter(() => app.vault.delete(fileAt("A.md"))), "4 unresolved links");
	assert.equal(await shownAfter(() => app.vault.delete(fileAt("B.md"))), "2 unresolved links");
	assert.equal(await engine.unresolvedCount(), 2, "the count shown is the index's");

	item.click();
	assert.ok((await plugin.lint?.opening) instanceof LintView, "clicking the count opens the lint view");

	plugin.unload();
	assert.equal(items.length, 0);
	assert.equal(app.workspace.getLeavesOfType(LINT_VIEW_TYPE).length, 0, "the view closes with the plugin");
});

test("a report lists what one page holds, says how many more there are, and links only notes", () => {
	const report: LintReport = {
		total: 3,
		counts: { duplicate_identity: 1, orphan: 2 },
		proposals: [
			{ kind: "orphan", subject: "Notes/One.md", suggested_action: "Link it." },
			{ kind: "duplicate_identity", subject: "one", related: [], detail: "two notes are called one", suggested_action: "Rename one.", tool: "move_note" },
		],
		skipped: [],
		next_cursor: "2",
	};
	const container = new FakeElement("div");
	const opened: unknown[] = [];
	renderLintReport(asHTMLElement(container), report, (path) => path === "Notes/One.md", (location) => opened.push(location));
	assert.deepEqual(container.outline(), [
		"p 3 findings. Only the first ones are listed.",
		"h3 Notes known by the same name (1)",
		"    span one",
		"    div two notes are called one",
		"    div Rename one. The “Move note safely” command does it.",
		"h3 Orphans (2)",
		"    a Notes/One.md",
		"    div Link it.",
		"p 1 more, not listed here.",
	]);
	assert.deepEqual(container.findAll("a").length, 1, "a subject that is no note is not a link");
	container.findAll("a")[0]?.click();
	assert.deepEqual(opened, [{ path: "Notes/One.md" }]);
});

const FIXABLE = `
//- Home.md
[[Alpha]] and [[Lonely]]
//- Projects/Alpha project.md
---
aliases: [Alpha]
---
linked by alias only, [[Home]]
//- Lonely.md
alone
`;

test("findings take the keyboard: each is focusable, arrows move between them, Enter opens the focused one", async (t) => {
	const { app, plugin } = await open(t);
	const view = await runCommand(plugin);
	const findings = fakeElementOf(view.contentEl).findAllWithClass("vaultlink-lint-finding");
	assert.equal(findings.length, 3);
	assert.deepEqual(view.findings.all.map((item) => fakeElementOf(item.el)), findings, "the view's list is the findings on screen, in order");
	assert.deepEqual(findings.map((finding) => finding.getAttr("tabindex")), ["0", "-1", "-1"], "each focusable; Tab enters on the first");
	assert.equal(findings[0]?.getAttr("aria-label"), "Home.md, line 1. Open Home.md at line 1");
	findings[0]?.focus();
	pressKey("ArrowDown");
	assert.equal(activeElement(), findings[1]);
	assert.deepEqual(findings.map((finding) => finding.getAttr("tabindex")), ["-1", "0", "-1"], "Tab comes back to the finding last focused");
	pressKey("Enter");
	assert.deepEqual(app.workspace.openedLinks.at(-1), { linktext: "Lonely.md", sourcePath: "", newLeaf: false, openViewState: undefined });
	pressKey("ArrowDown");
	pressKey("ArrowDown");
	assert.equal(activeElement(), findings[2], "the last stays last");
	pressKey("Home");
	assert.equal(activeElement(), findings[0]);
	pressKey(" ");
	assert.deepEqual(app.workspace.openedLinks.at(-1)?.openViewState, { eState: { line: 0 } });
});

test("a finding with a tool gets a fix button: the preview writes nothing, Enter applies exactly it, the view lints again", async (t) => {
	const vaultDir = writeFixtureVault(FIXABLE);
	const { plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const view = await runCommand(plugin);
	const before = snapshotVault(vaultDir);
	const buttons = fakeElementOf(view.contentEl).findAll("button").filter((button) => button.hasClass("vaultlink-lint-fix"));
	assert.equal(buttons.length, 1, "only the finding with rewrite_link gets one");
	assert.equal(buttons[0]?.getText(), "Preview the fix");
	// The button is inside a focusable finding; Enter on the button presses it, not the finding.
	buttons[0]?.focus();
	pressKey("Enter");
	await plugin.lint?.fixing;
	const preview = lastModal(PreviewConfirmModal);
	assert.equal(fakeElementOf(preview.titleEl).getText(), "Fix: point the links to Alpha project");
	assert.deepEqual(fakeElementOf(preview.contentEl).outline(), [
		"p Rewrites 1 link in 1 note. Nothing changes until you confirm.",
		"h3 Alpha → Alpha project",
		"h4 Home.md",
		"  li line 1: [[Alpha]] → [[Alpha project]] (it names the old target)",
		"  button Rewrite the links",
		"  button Cancel",
	]);
	assert.deepEqual(snapshotVault(vaultDir), before, "the preview writes nothing");
	assert.ok(activeElement()?.hasClass("mod-cta"), "the keyboard is on the confirm button");
	const lintRuns = view.running;
	pressKey("Enter", preview.scope);
	await preview.action;
	assert.notEqual(view.running, lintRuns, "the view lints again after the fix");
	await view.running;
	assert.equal(fs.readFileSync(path.join(vaultDir, "Home.md"), "utf8"), "[[Alpha project]] and [[Lonely]]");
	assert.match(shownNotices.at(-1)?.message ?? "", /^vaultlink: rewrote 1 link in 1 note\.$/);
	assert.ok(!fakeElementOf(view.contentEl).outline().some((line) => line.includes("Unresolved")), "the finding is gone");
});

test("a fix cancelled with Escape writes nothing", async (t) => {
	const vaultDir = writeFixtureVault(FIXABLE);
	const { plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const view = await runCommand(plugin);
	const before = snapshotVault(vaultDir);
	fakeElementOf(view.contentEl).findAllWithClass("vaultlink-lint-fix")[0]?.click();
	await plugin.lint?.fixing;
	const preview = lastModal(PreviewConfirmModal);
	pressKey("Escape", preview.scope);
	assert.ok(!preview.isOpen);
	assert.equal(preview.action, null);
	assert.deepEqual(snapshotVault(vaultDir), before);
});

test("the view words core's findings for people: names in quotation marks, and no MCP tool names", () => {
	assert.equal(forPeople("Point these links at `Notes/A.md` with rewrite_link."), "Point these links at “Notes/A.md”.");
	assert.equal(
		forPeople("Write the path of the file meant (such as `folder/Note`), or rename one of the files so the name is unique (move_note)."),
		"Write the path of the file meant (such as “folder/Note”), or rename one of the files so the name is unique (the “Move note safely” command).",
	);
	assert.equal(forPeople("Rename it with move_note."), "Rename it with the “Move note safely” command.");
	// A snake_case word that is no tool, such as a property, stays as it is.
	assert.equal(forPeople("its `page_type` (page_type) is unknown"), "its “page_type” (page_type) is unknown");
});

test("the view reads the sources pages keep hashes of, so a page older than its source is stale", async (t) => {
	const kept = "0".repeat(64);
	const vault = writeFixtureVault(`
//- raw/Clip.md
clipped, then captured again
//- Page.md
---
sources: ["[[Clip]]"]
source_hashes: ["${kept} raw/Clip.md"]
---
From [[Clip]].
`);
	const loaded = await loadPlugin(vault, { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	const view = await runCommand(loaded.plugin);
	const outline = fakeElementOf(view.contentEl).outline();
	assert.ok(outline.includes("  h3 Pages older than a source they cite (1)"), outline.join("\n"));
	assert.ok(
		outline.some((line) => line.includes(`“Page.md” was written from “raw/Clip.md” when its content hash was ${kept}`)),
		outline.join("\n"),
	);
	// Handed the source's text, the check ran: it is not among the checks not run.
	assert.ok(!outline.some((line) => line.startsWith("    li Pages older than a source they cite")), outline.join("\n"));
});
