/**
 * The indexer: the first index of a vault and the updates that follow the vault's events,
 * checked through the real wasm link index.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { DirectEngine } from "../engine/direct";
import manifest from "../../manifest.json";
import VaultlinkPlugin from "../main";
import { App, TFile, TFolder, asObsidianApp, shownNotices } from "./obsidian-double";
import {
	REPO_ROOT,
	copyVault,
	listVaultFiles,
	loadPlugin,
	useTemporaryRuntimeDirectory,
	writeFixtureVault,
	type LoadedPlugin,
} from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Alpha.md
Alpha links to [[Beta]] and embeds ![[diagram.png]].
//- Beta.md
Beta links back to [[Alpha]].
//- Notes/Gamma.md
Gamma links to [[Beta]] and to [[Missing]].
//- diagram.png
`;

function indexOf(loaded: LoadedPlugin) {
	const index = loaded.plugin.index;
	assert.ok(index !== null, "the plugin has an index while loaded");
	return index;
}

function indexerOf(loaded: LoadedPlugin) {
	const indexer = loaded.plugin.vaultIndexer;
	assert.ok(indexer !== null, "the plugin has an indexer while loaded");
	return indexer;
}

function fileOf(loaded: LoadedPlugin, filePath: string): TFile {
	const file = loaded.app.vault.getAbstractFileByPath(filePath);
	assert.ok(file instanceof TFile, `${filePath} is a file of the vault`);
	return file;
}

/** The result shapes of core's `ops` (crates/core/src/ops.rs), as far as these tests read them. */
interface OutgoingLinks {
	links: { target: string; status: string; resolved_path?: string }[];
}
interface Backlinks {
	backlinks: { source: string }[];
}

/** The files `notePath`'s links resolve to, in the order written; "?" for an unresolved link. */
async function linkTargets(loaded: LoadedPlugin, notePath: string): Promise<string[]> {
	const outgoing = (await indexOf(loaded).outgoingLinks(notePath)) as OutgoingLinks;
	return outgoing.links.map((link) => link.resolved_path ?? "?");
}

/** The notes that link to `notePath`, each once, sorted. */
async function linkSources(loaded: LoadedPlugin, notePath: string): Promise<string[]> {
	const backlinks = (await indexOf(loaded).backlinks(notePath)) as Backlinks;
	return [...new Set(backlinks.backlinks.map((backlink) => backlink.source))].sort();
}

/** Checks the links of each note given: `{note: [[targets...], [sources...]]}`. */
async function checkLinks(loaded: LoadedPlugin, expected: Record<string, [string[], string[]]>): Promise<void> {
	for (const [notePath, [targets, sources]] of Object.entries(expected)) {
		assert.deepEqual(await linkTargets(loaded, notePath), targets, `links of ${notePath}`);
		assert.deepEqual(await linkSources(loaded, notePath), sources, `backlinks of ${notePath}`);
	}
}

async function summaryOf(loaded: LoadedPlugin): Promise<{ notes: number; attachments: number }> {
	const outcome = await indexOf(loaded).call("vault_summary", {});
	assert.ok(outcome.ok, JSON.stringify(outcome));
	return outcome.result as { notes: number; attachments: number };
}

async function settled(loaded: LoadedPlugin): Promise<void> {
	await indexerOf(loaded).whenIdle();
}

test("the first index registers every file and resolves links between them", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	t.after(() => loaded.plugin.unload());
	assert.equal(await indexOf(loaded).noteCount(), 3);
	assert.equal((await summaryOf(loaded)).attachments, 1);
	await checkLinks(loaded, {
		"Alpha.md": [["Beta.md", "diagram.png"], ["Beta.md"]],
		"Beta.md": [["Alpha.md"], ["Alpha.md", "Notes/Gamma.md"]],
		"Notes/Gamma.md": [["Beta.md", "?"], []],
	});
	await assert.rejects(indexOf(loaded).outgoingLinks("Missing.md"), "an unknown note is an error");
});

test("a created note is indexed and its links resolve", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	t.after(() => loaded.plugin.unload());
	await loaded.app.vault.create("Notes/Delta.md", "Delta links to [[Alpha]].");
	await settled(loaded);
	await checkLinks(loaded, {
		"Notes/Delta.md": [["Alpha.md"], []],
		"Alpha.md": [["Beta.md", "diagram.png"], ["Beta.md", "Notes/Delta.md"]],
	});

	await loaded.app.vault.create("Missing.md", "Now it exists.");
	await settled(loaded);
	await checkLinks(loaded, { "Missing.md": [[], ["Notes/Gamma.md"]], "Notes/Gamma.md": [["Beta.md", "Missing.md"], []] });

	await loaded.app.vault.create("Attachments/chart.pdf", "");
	await loaded.app.vault.modify(fileOf(loaded, "Beta.md"), "Beta embeds ![[chart.pdf]].");
	await settled(loaded);
	await checkLinks(loaded, { "Beta.md": [["Attachments/chart.pdf"], ["Alpha.md", "Notes/Gamma.md"]] });
	assert.equal((await summaryOf(loaded)).attachments, 2);
});

test("a modified note's links are replaced", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	t.after(() => loaded.plugin.unload());
	await loaded.app.vault.modify(fileOf(loaded, "Alpha.md"), "Alpha now links only to [[Gamma]].");
	await settled(loaded);
	await checkLinks(loaded, {
		"Alpha.md": [["Notes/Gamma.md"], ["Beta.md"]],
		"Beta.md": [["Alpha.md"], ["Notes/Gamma.md"]],
		"Notes/Gamma.md": [["Beta.md", "?"], ["Alpha.md"]],
	});
});

test("a deleted note leaves the index", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	t.after(() => loaded.plugin.unload());
	await loaded.app.vault.delete(fileOf(loaded, "Notes/Gamma.md"));
	await settled(loaded);
	await assert.rejects(indexOf(loaded).outgoingLinks("Notes/Gamma.md"));
	await checkLinks(loaded, { "Beta.md": [["Alpha.md"], ["Alpha.md"]] });
	assert.equal(await indexOf(loaded).noteCount(), 2);

	await loaded.app.vault.delete(fileOf(loaded, "diagram.png"));
	await settled(loaded);
	await checkLinks(loaded, { "Alpha.md": [["Beta.md", "?"], ["Beta.md"]] });
	assert.equal((await summaryOf(loaded)).attachments, 0);
});

test("a renamed note keeps its links under its new path", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	t.after(() => loaded.plugin.unload());
	await loaded.app.vault.rename(fileOf(loaded, "Notes/Gamma.md"), "Archive/Gamma.md");
	// The rename is applied at once, before the debounced re-read.
	await checkLinks(loaded, { "Beta.md": [["Alpha.md"], ["Alpha.md", "Archive/Gamma.md"]] });
	await settled(loaded);
	await checkLinks(loaded, { "Archive/Gamma.md": [["Beta.md", "?"], []] });
	await assert.rejects(indexOf(loaded).outgoingLinks("Notes/Gamma.md"));
	assert.equal(await indexOf(loaded).noteCount(), 3);

	await loaded.app.vault.rename(fileOf(loaded, "diagram.png"), "Attachments/diagram.png");
	await settled(loaded);
	await checkLinks(loaded, { "Alpha.md": [["Beta.md", "Attachments/diagram.png"], ["Beta.md"]] });
});

test("a renamed folder moves every file in it", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	t.after(() => loaded.plugin.unload());
	const folder = loaded.app.vault.getAbstractFileByPath("Notes");
	assert.ok(folder instanceof TFolder);
	await loaded.app.vault.rename(folder, "Journal");
	await settled(loaded);
	await checkLinks(loaded, {
		"Journal/Gamma.md": [["Beta.md", "?"], []],
		"Beta.md": [["Alpha.md"], ["Alpha.md", "Journal/Gamma.md"]],
	});
	await assert.rejects(indexOf(loaded).outgoingLinks("Notes/Gamma.md"));
	assert.equal(await indexOf(loaded).noteCount(), 3);
});

test("a deleted folder takes its files out of the index", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	t.after(() => loaded.plugin.unload());
	const folder = loaded.app.vault.getAbstractFileByPath("Notes");
	assert.ok(folder instanceof TFolder);
	await loaded.app.vault.delete(folder);
	await settled(loaded);
	await assert.rejects(indexOf(loaded).outgoingLinks("Notes/Gamma.md"));
	assert.equal(await indexOf(loaded).noteCount(), 2);
	await checkLinks(loaded, { "Beta.md": [["Alpha.md"], ["Alpha.md"]] });
});

test("a burst of events for one note is read once, after the debounce", async (t) => {
	// A debounce far longer than the test, released by `flush`: no timing involved.
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE), { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	const vault = loaded.app.vault;
	const alpha = fileOf(loaded, "Alpha.md");
	let reads = 0;
	const cachedRead = vault.cachedRead.bind(vault);
	vault.cachedRead = async (file) => {
		reads += 1;
		return cachedRead(file);
	};
	for (const target of ["Beta", "Notes/Gamma", "Missing", "Beta"]) await vault.modify(alpha, `Now [[${target}]].`);
	assert.equal(reads, 0, "nothing is read before the debounce");
	assert.deepEqual(await linkTargets(loaded, "Alpha.md"), ["Beta.md", "diagram.png"], "still the old text");

	indexerOf(loaded).flush();
	await settled(loaded);
	assert.equal(reads, 1, "one read for the whole burst");
	assert.deepEqual(await linkTargets(loaded, "Alpha.md"), ["Beta.md"]);
});

test("a note modified and renamed before its update runs ends up under its new path with its new text", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE), { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	const vault = loaded.app.vault;
	const gamma = fileOf(loaded, "Notes/Gamma.md");
	await vault.modify(gamma, "Gamma now links to [[Alpha]].");
	await vault.rename(gamma, "Gamma.md");
	indexerOf(loaded).flush();
	await settled(loaded);
	await checkLinks(loaded, { "Gamma.md": [["Alpha.md"], []], "Alpha.md": [["Beta.md", "diagram.png"], ["Beta.md", "Gamma.md"]] });
	await assert.rejects(indexOf(loaded).outgoingLinks("Notes/Gamma.md"));
	assert.equal(await indexOf(loaded).noteCount(), 3);
});

test("a large vault shows a progress notice that is hidden at the end", async (t) => {
	const before = shownNotices.length;
	const small = await loadPlugin(writeFixtureVault(FIXTURE));
	small.plugin.unload();
	assert.equal(shownNotices.length, before, "no notice for a vault under the threshold");

	const loaded = await loadPlugin(writeFixtureVault(FIXTURE), { progressNoticeThreshold: 2, batchSize: 1 });
	t.after(() => loaded.plugin.unload());
	const notices = shownNotices.slice(before);
	assert.equal(notices.length, 1);
	const notice = notices[0];
	assert.ok(notice !== undefined);
	assert.ok(notice.hidden, "hidden once the index is complete");
	assert.match(notice.history[0] ?? "", /indexing the links of 3 notes…/);
	assert.match(notice.history[notice.history.length - 1] ?? "", /3 notes, 100%…/);
	assert.ok(notice.history.length >= 5, `one update per batch: ${JSON.stringify(notice.history)}`);
});

test("unloading unsubscribes from the vault and frees the index", async () => {
	const loaded = await loadPlugin(writeFixtureVault(FIXTURE));
	// Each event has the indexer's listener; `rename` has the rename audit's log
	// (`audit/renames.ts`) too, and `create` and `delete` the notice of moves made outside
	// Obsidian (`heal/command.ts`). The status bar's count follows the engine, not the vault's events.
	const listeners = { create: 2, modify: 1, delete: 2, rename: 2 };
	for (const [event, count] of Object.entries(listeners)) assert.equal(loaded.app.vault.listenerCount(event), count, event);
	loaded.plugin.unload();
	for (const event of ["create", "modify", "delete", "rename"]) assert.equal(loaded.app.vault.listenerCount(event), 0, event);
	assert.equal(loaded.plugin.index, null);
	// Events after unloading reach nobody, so nothing touches the freed index.
	await loaded.app.vault.create("After.md", "[[Alpha]]");
});

test("the index of the example vault equals one built straight from its files", async (t) => {
	const examples = path.join(REPO_ROOT, "examples", "vault");
	const files = fs.existsSync(examples) ? listVaultFiles(examples) : [];
	if (!files.some((file) => file.endsWith(".md"))) {
		t.skip("examples/vault has no notes yet");
		return;
	}
	const loaded = await loadPlugin(copyVault(examples));
	t.after(() => loaded.plugin.unload());
	const index = indexOf(loaded);
	const notes = files.filter((file) => file.endsWith(".md"));
	assert.equal(await index.noteCount(), notes.length, "every note is indexed");
	assert.equal((await summaryOf(loaded)).attachments, files.length - notes.length, "every attachment is registered");

	const direct = new DirectEngine();
	t.after(() => direct.dispose());
	for (const file of files) await direct.upsert(file, file.endsWith(".md") ? fs.readFileSync(path.join(examples, file), "utf8") : "");
	for (const note of notes) {
		assert.deepEqual(await index.outgoingLinks(note), await direct.outgoingLinks(note), `outgoing links of ${note}`);
		assert.deepEqual(await index.backlinks(note), await direct.backlinks(note), `backlinks of ${note}`);
	}
	assert.deepEqual(await index.call("vault_summary", {}), await direct.call("vault_summary", {}));
	const targets = await Promise.all(notes.map((note) => linkTargets(loaded, note)));
	assert.ok(
		targets.some((found) => found.some((target) => target !== "?")),
		"some example note links to another file of the vault",
	);
});

test("the startup storm (a create for every file before the layout is ready) does not index the vault once per event", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const app = new App(vaultDir);
	let creates = 0;
	app.vault.on("create", () => (creates += 1));
	const reads = new Map<string, number>();
	const cachedRead = app.vault.cachedRead.bind(app.vault);
	app.vault.cachedRead = (file) => {
		reads.set(file.path, (reads.get(file.path) ?? 0) + 1);
		return cachedRead(file);
	};
	// Loaded with the app, as at Obsidian's start: before the storm and the layout.
	const plugin = new VaultlinkPlugin(asObsidianApp(app), { ...manifest });
	plugin.indexerOptions = { ...plugin.indexerOptions, debounceMs: 10 };
	plugin.load();
	await plugin.ready;
	// The storm has been sent, and whatever its events scheduled has run.
	await app.started;
	await plugin.vaultIndexer?.whenIdle();
	assert.equal(creates, 5, "a create for each of the four files and the folder");
	assert.deepEqual(Object.fromEntries(reads), { "Alpha.md": 1, "Beta.md": 1, "Notes/Gamma.md": 1 }, "each note is read once, by the first index");
	assert.equal(await plugin.index?.noteCount(), 3);
	plugin.unload();
});
