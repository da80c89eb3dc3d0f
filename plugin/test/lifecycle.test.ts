/**
 * Loading and unloading: `onload` returns before anything is read, the first index runs in the
 * background in batches that give the event loop its turn (with a progress notice on large
 * vaults), and unloading leaves nothing behind.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import manifest from "../../manifest.json";
import { DEFAULT_INDEXER_OPTIONS, Indexer } from "../indexer";
import { LINT_COMMAND_ID } from "../lint/command";
import { LINT_VIEW_TYPE } from "../lint/view";
import VaultlinkPlugin from "../main";
import { DirectEngine } from "../engine/direct";
import { App, asObsidianApp, doublePluginOf, fakeElementOf, shownNotices } from "./obsidian-double";
import { BridgeClient, temporaryDirectory, useTemporaryRuntimeDirectory } from "./support";

useTemporaryRuntimeDirectory();

/** A vault of `count` notes, each linking to the next. */
function generatedVault(count: number): string {
	const vaultDir = temporaryDirectory("vault");
	for (let number = 0; number < count; number += 1) {
		fs.writeFileSync(path.join(vaultDir, `Note ${number}.md`), `links to [[Note ${number + 1}]]\n`);
	}
	return vaultDir;
}

/** The plugin's index; read through a call, so a check that it is null does not narrow later reads. */
const indexOf = (plugin: VaultlinkPlugin) => plugin.index;

test("onload returns before any note is read; the index and the bridge follow in the background", async () => {
	const app = new App(generatedVault(30));
	const plugin = new VaultlinkPlugin(asObsidianApp(app), { ...manifest });
	const returned: unknown = plugin.load();
	assert.equal(returned, undefined, "load returns no promise to wait on");
	// The index is made once the link engine is loaded, which is never during onload (the
	// renderer refuses a synchronous compile of the module): nothing is indexed when it returns.
	assert.equal(indexOf(plugin), null, "no index yet when onload returns");
	assert.equal(plugin.bridgeInfo, null, "the bridge waits for a complete index");
	await plugin.ready;
	assert.equal(plugin.index?.kind, "worker", "the index lives in the engine's worker");
	assert.equal(await plugin.index?.noteCount(), 30);
	assert.ok(plugin.bridgeInfo !== null);
	plugin.unload();
});

test("the plugin announces itself at load, before its first index: the discovery file says starting and calls wait for the index", async () => {
	const app = new App(generatedVault(5));
	let release: () => void = () => undefined;
	const gate = new Promise<void>((resolve) => {
		release = resolve;
	});
	const read = app.vault.cachedRead.bind(app.vault);
	app.vault.cachedRead = async (file) => {
		await gate;
		return read(file);
	};
	const plugin = new VaultlinkPlugin(asObsidianApp(app), { ...manifest });
	plugin.load();
	let bridge = plugin.bridgeInfo;
	for (let turn = 0; bridge === null && turn < 500; turn += 1) {
		await new Promise((resolve) => setTimeout(resolve, 10));
		bridge = plugin.bridgeInfo;
	}
	assert.ok(bridge !== null, "the bridge is up while no note has been read");
	// The engine may still be starting; once it is there, it holds nothing yet.
	const engine = plugin.index;
	assert.ok(engine === null || (await engine.noteCount()) === 0, "nothing is indexed while no note has been read");
	const discoveryState = () => (JSON.parse(fs.readFileSync(bridge.discoveryPath, "utf8")) as { state: string }).state;
	assert.equal(discoveryState(), "starting");
	assert.equal(plugin.bridgeStatus().state, "starting", "the settings tab says the index is being built");
	const client = await BridgeClient.connect(bridge.socketPath);
	assert.ok((await client.request("hello", { token: bridge.token, protocol: 1, client: "test" }))?.result !== undefined);
	const early = await client.request("call", { tool: "vault_summary", arguments: {} });
	const refusal = early?.error?.data as { code: string; message: string; retryable: boolean };
	assert.equal(refusal.code, "plugin_unavailable");
	assert.match(refusal.message, /still indexing/);
	assert.equal(refusal.retryable, true);
	release();
	await plugin.ready;
	assert.equal(discoveryState(), "ready");
	assert.equal(plugin.bridgeStatus().state, "listening");
	const late = await client.request("call", { tool: "vault_summary", arguments: {} });
	assert.equal((late?.result as { notes: number }).notes, 5);
	client.close();
	plugin.unload();
});

/** How many times a timer of zero delay gets to run while `indexAll` works on `vaultDir` in batches of `batchSize`. */
async function turnsDuringIndex(vaultDir: string, batchSize: number): Promise<number> {
	const app = new App(vaultDir);
	// Reads that resolve at once, so the only turns the event loop gets are the ones the indexer gives.
	app.vault.cachedRead = async () => "[[Elsewhere]]";
	// The direct engine answers on this thread, so the turns counted are the indexer's own.
	const index = new DirectEngine();
	const indexer = new Indexer(asObsidianApp(app), index, { ...DEFAULT_INDEXER_OPTIONS, batchSize });
	let turns = 0;
	let indexing = true;
	const tick = () => {
		if (!indexing) return;
		turns += 1;
		setTimeout(tick, 0);
	};
	setTimeout(tick, 0);
	await indexer.indexAll();
	indexing = false;
	assert.equal(await index.noteCount(), 30);
	index.dispose();
	return turns;
}

test("the first index gives the event loop a turn after every batch", async () => {
	const vaultDir = generatedVault(30);
	const inBatchesOfFive = await turnsDuringIndex(vaultDir, 5);
	assert.ok(inBatchesOfFive >= 5, `six batches leave at least five turns between them, got ${inBatchesOfFive}`);
	const inOneBatch = await turnsDuringIndex(vaultDir, 1000);
	assert.ok(inOneBatch <= 1, `one batch, at most the turn after it, got ${inOneBatch}`);
});

test("a vault of more than 2,000 notes shows a progress notice while the first index runs, hidden at the end", async () => {
	assert.equal(DEFAULT_INDEXER_OPTIONS.progressNoticeThreshold, 2000);
	const app = new App(generatedVault(2001));
	const before = shownNotices.length;
	const index = new DirectEngine();
	await new Indexer(asObsidianApp(app), index).indexAll();
	index.dispose();
	const notices = shownNotices.slice(before);
	assert.equal(notices.length, 1);
	const notice = notices[0];
	assert.ok(notice !== undefined);
	assert.equal(notice.history[0], "vaultlink: indexing the links of 2001 notes…");
	assert.equal(notice.history.at(-1), "vaultlink: indexing the links of 2001 notes, 100%…");
	assert.equal(notice.history.length, 1 + Math.ceil(2001 / DEFAULT_INDEXER_OPTIONS.batchSize), "one update a batch");
	assert.ok(notice.hidden);
});

test("unloading leaves nothing: no listener on the vault, workspace, metadata cache or the view, no socket, no discovery file", async () => {
	const app = new App(generatedVault(5));
	const plugin = new VaultlinkPlugin(asObsidianApp(app), { ...manifest });
	plugin.load();
	await plugin.ready;
	const bridge = plugin.bridgeInfo;
	assert.ok(bridge !== null);
	const client = await BridgeClient.connect(bridge.socketPath);
	assert.ok((await client.request("hello", { token: bridge.token, protocol: 1, client: "test" }))?.result !== undefined);
	doublePluginOf(plugin).commands.get(LINT_COMMAND_ID)?.callback?.();
	const view = await plugin.lint?.opening;
	assert.ok(view !== null && view !== undefined);
	const tab = plugin.settingsTab;
	assert.ok(tab !== null);
	tab.display();
	await tab.drawing;

	assert.ok(app.vault.totalListenerCount() > 0, "loaded, the plugin listens to the vault");
	assert.equal(fakeElementOf(view.contentEl).listenerCount(), 1, "the lint view listens for keys");

	plugin.unload();
	assert.equal(app.vault.totalListenerCount(), 0, "vault");
	assert.equal(app.workspace.totalListenerCount(), 0, "workspace");
	assert.equal(app.metadataCache.totalListenerCount(), 0, "metadata cache");
	// A leaf closes its view asynchronously (`onClose` is async), as in Obsidian.
	await new Promise((resolve) => setImmediate(resolve));
	assert.equal(fakeElementOf(view.contentEl).listenerCount(), 0, "the view's key listener");
	assert.equal(app.workspace.getLeavesOfType(LINT_VIEW_TYPE).length, 0, "the view is closed");
	assert.equal(doublePluginOf(plugin).statusBarItems.length, 0, "the status bar item");
	assert.equal(doublePluginOf(plugin).settingTabs.length, 0, "the settings tab");
	assert.ok(!fs.existsSync(bridge.socketPath), "the socket");
	assert.ok(!fs.existsSync(bridge.discoveryPath), "the discovery file");
	assert.equal(plugin.bridgeAddress(), null, "the server");
	await client.closed;
	assert.equal(plugin.index, null, "the index is freed");
});
