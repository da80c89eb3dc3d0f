/**
 * What users see, as DOM snapshots: the "Vault lint" view, the move preview and the delete
 * preview, rendered against the test double on the sample vault (`examples/vault`) and
 * serialised to HTML, compared with the snapshots committed in `plugin/test/snapshots/`. A
 * change to what users see fails here until the snapshots are updated on purpose:
 *
 *     VAULTLINK_UPDATE_SNAPSHOTS=1 npm test
 *
 * The double is not a DOM, so the last test draws the same views with the plugin's own
 * drawing code on a real DOM in headless Chromium and checks that it serialises exactly as the
 * double's drawing does. `npm run screenshots` renders the snapshots in headless Chromium into
 * the PNGs the README shows.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { deleteNote } from "../change";
import { DELETE_NOTE_COMMAND_ID } from "../delete/command";
import { DeletePreviewModal, renderDeletePreview } from "../delete/modals";
import { LINT_COMMAND_ID, LINT_LIMIT } from "../lint/command";
import { renderLintReport, type LintReport } from "../lint/report";
import { moveNote } from "../change";
import type VaultlinkPlugin from "../main";
import { MOVE_NOTE_COMMAND_ID } from "../move/command";
import { DestinationModal, MovePreviewModal, NotePickerModal, renderMovePreview } from "../move/modals";
import type { DeleteAnswer, MoveAnswer } from "../wasm";
import type { ViewsData } from "./browser/render-views";
import { FakeElement, asHTMLElement, doublePluginOf, fakeElementOf, type Modal } from "./obsidian-double";
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

test("the settings tab on the sample vault, with the program built from this tree", async (t) => {
	const plugin = await sampleVault(t);
	const built = path.join(REPO_ROOT, "target", "debug", process.platform === "win32" ? "vaultlink.exe" : "vaultlink");
	assert.ok(fs.existsSync(built), `${built} is missing: run scripts/build.sh`);
	await plugin.saveSettings((settings) => {
		settings.sidecarCommand = built;
	});
	const tab = plugin.settingsTab;
	assert.ok(tab !== null);
	tab.display();
	await tab.drawing;
	const check = await tab.checking;
	assert.equal(check?.ok, true, check?.message);
	// The checkout's folder differs between machines, and the version between releases: the
	// snapshot names them as an installed program of one fixed version, so neither changes it.
	const html = fakeElementOf(tab.containerEl).toHTML().split(built).join("/usr/local/bin/vaultlink").split(`vaultlink ${plugin.manifest.version} `).join("vaultlink 1.0.0 ").split(`(${plugin.manifest.version})`).join("(1.0.0)");
	checkSnapshot("settings-tab", html);
});

/** The system's Chromium, as scripts/setup.sh installs it, or `$VAULTLINK_CHROMIUM`. */
function chromium(): string {
	for (const candidate of [process.env["VAULTLINK_CHROMIUM"], "chromium", "chromium-browser", "google-chrome"]) {
		if (candidate === undefined || candidate === "") continue;
		try {
			execFileSync(candidate, ["--version"], { stdio: "ignore" });
			return candidate;
		} catch {
			// Not this one; try the next.
		}
	}
	assert.fail("no Chromium to draw the views in: run scripts/setup.sh test, or set VAULTLINK_CHROMIUM to its path");
}

/** What `draw` puts in an empty container of the double, as the snapshots serialise it. */
function drawnByTheDouble(draw: (container: HTMLElement) => void): string {
	const container = new FakeElement("div");
	draw(asHTMLElement(container));
	return container.toHTML();
}

function unescapeHTML(text: string): string {
	return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
}

test("in headless Chromium, the plugin's drawing of the three views on a real DOM equals the double's", async (t) => {
	const plugin = await sampleVault(t);
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const lint = await host.index.call("lint_wiki", { limit: LINT_LIMIT });
	assert.ok(lint.ok);
	const report = lint.result as LintReport;
	const names = report.proposals.flatMap((proposal) => [proposal.subject, ...(proposal.related ?? [])]);
	const foundNotes = await Promise.all(names.map((name) => host.index.findNote(name)));
	const notes = names.filter((name, at) => foundNotes[at] === name);
	const move = await moveNote(host, { from: "Projects/Alpha.md", to: "Projects/Archive/Alpha.md", dry_run: true });
	const remove = await deleteNote(host, { path: "People/Ada.md" });
	assert.ok(move.ok && remove.ok);
	const data: ViewsData = { lint: { report, notes }, move: move.result as MoveAnswer, delete: remove.result as DeleteAnswer };

	const script = path.join(REPO_ROOT, "build", "views-page", "render.js");
	assert.ok(fs.existsSync(script), "the page's script is built with the tests (plugin/test/build.mjs)");
	const page = path.join(path.dirname(script), "views.html");
	// In a <script>, "</" would end it early; JSON allows the escaped form.
	const json = JSON.stringify(data).replace(/<\//g, "<\\/");
	fs.writeFileSync(page, `<!doctype html>\n<html><head><meta charset="utf-8"></head><body><script>window.VAULTLINK_VIEWS = ${json};</script><script src="render.js"></script></body></html>\n`);
	const dom = execFileSync(chromium(), ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", `file://${page}`], {
		encoding: "utf8",
		stdio: ["ignore", "pipe", "pipe"],
		timeout: 60_000,
	});
	const found = /<pre id="result">([^]*?)<\/pre>/.exec(dom);
	assert.ok(found?.[1] !== undefined, `the page drew the views: ${dom.slice(0, 400)}`);
	const drawn = JSON.parse(unescapeHTML(found[1])) as Record<"lint" | "move" | "delete", string>;

	const isNote = (name: string) => notes.includes(name);
	assert.equal(drawn.lint, drawnByTheDouble((container) => void renderLintReport(container, report, isNote, () => undefined)));
	assert.equal(drawn.move, drawnByTheDouble((container) => renderMovePreview(container, data.move)));
	assert.equal(drawn.delete, drawnByTheDouble((container) => renderDeletePreview(container, data.delete)));
	// And the snapshots hold what these functions draw.
	assert.ok(fs.readFileSync(path.join(SNAPSHOTS, "move-preview.html"), "utf8").includes("Projects/Alpha.md → Projects/Archive/Alpha.md"));
	assert.ok(drawn.lint.includes('<li aria-label="Missing page. Open Archive/Orphan.md at line 3" class="vaultlink-lint-finding">'));
});
