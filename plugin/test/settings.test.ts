/**
 * The settings: read back from data.json without losing anything, drawn in the settings tab,
 * and acted on: the bridge turned off and on, its token regenerated, the last connection
 * shown, the lint's kinds and excluded folders, Obsidian's own settings shown.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { LINT_COMMAND_ID } from "../lint/command";
import { kindTitle } from "../lint/report";
import VaultlinkPlugin from "../main";
import type { BridgeInfo } from "../bridge/control";
import manifest from "../../manifest.json";
import { DEFAULT_SETTINGS, enabledLintKinds, readSettings, setLintKind, tidyFolders } from "../settings/settings";
import { describeBridge, type VaultlinkSettingTab } from "../settings/tab";
import { lintRules } from "../wasm";
import { App, FakeElement, asObsidianApp, doublePluginOf, fakeElementOf, settingsIn, shownNotices } from "./obsidian-double";
import { BridgeClient, loadPlugin, readDiscovery, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- .obsidian/app.json
{"userIgnoreFilters": ["Archive/", "/^tmp/"], "newLinkFormat": "relative", "useMarkdownLinks": true}
//- Home.md
[[Old]] and [[Missing]]
//- Archive/Old.md
alone in the archive, linked from Home
//- Drafts/Loose.md
nobody links here
`;

/** The plugin's bridge as it is now (read afresh, not narrowed by an earlier check). */
function bridgeOf(plugin: VaultlinkPlugin): BridgeInfo | null {
	return plugin.bridgeInfo;
}

function dataJson(vaultDir: string): string {
	return path.join(vaultDir, ".obsidian", "plugins", "vaultlink", "data.json");
}

async function open(t: TestContext, vaultDir = writeFixtureVault(FIXTURE)): Promise<{ app: App; plugin: VaultlinkPlugin; vaultDir: string }> {
	const loaded = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	return { ...loaded, vaultDir };
}

/** The plugin's settings tab, drawn as when the user opens it. */
async function drawnTab(plugin: VaultlinkPlugin): Promise<VaultlinkSettingTab> {
	const tabs = doublePluginOf(plugin).settingTabs;
	assert.equal(tabs.length, 1, "the plugin adds one settings tab");
	const tab = plugin.settingsTab;
	assert.ok(tab !== null && tabs[0] === (tab as unknown));
	tab.display();
	await tab.drawing;
	return tab;
}

/** The setting row whose name is `name`. */
function row(tab: VaultlinkSettingTab, name: string): FakeElement {
	const found = settingsIn(tab.containerEl).find((candidate) => candidate.findAllWithClass("setting-item-name")[0]?.getText() === name);
	assert.ok(found !== undefined, `a setting named ${name}`);
	return found;
}

function descriptionOf(tab: VaultlinkSettingTab, name: string): string {
	return row(tab, name).findAllWithClass("setting-item-description")[0]?.getText() ?? "";
}

function toggleOf(tab: VaultlinkSettingTab, name: string): FakeElement {
	const toggle = row(tab, name).findAllWithClass("checkbox-container")[0];
	assert.ok(toggle !== undefined, `${name} has a toggle`);
	return toggle;
}

async function lintOutline(plugin: VaultlinkPlugin): Promise<string[]> {
	doublePluginOf(plugin).commands.get(LINT_COMMAND_ID)?.callback?.();
	const view = await plugin.lint?.opening;
	assert.ok(view !== null && view !== undefined);
	return fakeElementOf(view.contentEl).outline();
}

test("settings read from data.json: defaults for what is missing or wrong, each wrong value said, unknown keys kept", () => {
	assert.deepEqual(readSettings(null), { settings: { ...DEFAULT_SETTINGS, disabledLintKinds: [], excludedFolders: [] }, problems: [], unknown: {} });
	const loaded = readSettings({
		bridgeEnabled: "yes",
		disabledLintKinds: ["orphan", "orphan", "retired_kind"],
		optInLintKinds: ["dead_end", "dead_end"],
		excludedFolders: ["/Archive/", " ", "Archive", "Daily//Old"],
		sidecarCommand: 7,
		futureSetting: { kept: true },
	});
	assert.deepEqual(loaded.settings, {
		bridgeEnabled: true,
		disabledLintKinds: ["orphan", "retired_kind"],
		optInLintKinds: ["dead_end"],
		excludedFolders: ["Archive", "Daily/Old"],
		sidecarCommand: "vaultlink",
		linkForm: "obsidian",
	});
	assert.equal(loaded.problems.length, 2);
	assert.match(loaded.problems[0] ?? "", /`bridgeEnabled`.*not true or false; on is used until you change it/);
	assert.match(loaded.problems[1] ?? "", /`sidecarCommand`/);
	assert.deepEqual(loaded.unknown, { futureSetting: { kept: true } });
	assert.match(readSettings([1, 2]).problems[0] ?? "", /does not hold an object/);
	assert.deepEqual(tidyFolders(["", "/", "a/", "a"]), ["a"]);
	assert.match(readSettings({ optInLintKinds: "dead_end" }).problems[0] ?? "", /`optInLintKinds`.*none of the kinds that are off by default is used/);
});

test("a kind core runs by default is on until turned off; one it runs only when named is off until turned on", () => {
	const settings = readSettings(null).settings;
	const orphan = { kind: "orphan", by_default: true };
	const deadEnd = { kind: "dead_end", by_default: false };
	assert.deepEqual(DEFAULT_SETTINGS.optInLintKinds, []);
	assert.deepEqual(enabledLintKinds([orphan, deadEnd], settings), ["orphan"]);
	setLintKind(settings, deadEnd, true);
	setLintKind(settings, orphan, false);
	assert.deepEqual([settings.disabledLintKinds, settings.optInLintKinds], [["orphan"], ["dead_end"]]);
	assert.deepEqual(enabledLintKinds([orphan, deadEnd], settings), ["dead_end"]);
	setLintKind(settings, deadEnd, false);
	setLintKind(settings, orphan, true);
	assert.deepEqual([settings.disabledLintKinds, settings.optInLintKinds], [[], []]);
});

test("a data.json that is not JSON: a notice says so, the defaults apply, and the file is left as it was", async (t) => {
	const vaultDir = writeFixtureVault(FIXTURE);
	fs.mkdirSync(path.dirname(dataJson(vaultDir)), { recursive: true });
	fs.writeFileSync(dataJson(vaultDir), "{ broken");
	const before = shownNotices.length;
	const { plugin } = await open(t, vaultDir);
	assert.deepEqual(plugin.currentSettings?.bridgeEnabled, true);
	assert.ok(plugin.bridgeInfo !== null, "the bridge opens, as by default");
	assert.ok(shownNotices.slice(before).some((notice) => /settings file could not be read/.test(notice.message)));
	assert.equal(fs.readFileSync(dataJson(vaultDir), "utf8"), "{ broken", "nothing is written until a setting changes");
});

test("the tab has a section each for agents, the lint and links, and shows Obsidian's own settings", async (t) => {
	const { plugin } = await open(t);
	const tab = await drawnTab(plugin);
	const headings = settingsIn(tab.containerEl)
		.filter((candidate) => candidate.hasClass("setting-item-heading"))
		.map((heading) => heading.findAllWithClass("setting-item-name")[0]?.getText());
	assert.deepEqual(headings, ["Agents", "Lint", "Links"]);
	assert.match(descriptionOf(tab, "Excluded folders"), /Obsidian's Excluded files \(Files and links\) always apply: Archive\. Its patterns \(\/\^tmp\/\) are not followed yet\./);
	assert.match(descriptionOf(tab, "Keep the form of rewritten links"), /new link format "Relative path to file", Markdown links\. Off: when vaultlink rewrites a link .* writes it as Obsidian would/);
	assert.equal(toggleOf(tab, "Keep the form of rewritten links").getAttr("aria-checked"), "false");
	// One toggle per lint rule of core, named and described, all on by default but dead ends.
	for (const rule of lintRules()) assert.equal(toggleOf(tab, kindTitle(rule.kind)).getAttr("aria-checked"), String(rule.by_default), rule.kind);
	assert.equal(lintRules().length, 14);
	assert.deepEqual(lintRules().filter((rule) => !rule.by_default).map((rule) => rule.kind), ["dead_end"]);
	assert.equal(toggleOf(tab, "Dead ends").getAttr("aria-checked"), "false");
	assert.equal(descriptionOf(tab, "Connection"), "Ready: agents' vaultlink program can connect to this window. No agent has connected since the plugin loaded.");

	// The copy buttons: every client's configuration, or one client's.
	const copied: string[] = [];
	plugin.clipboard = { writeText: async (text) => void copied.push(text) };
	row(tab, "Copy MCP client configuration").findAll("button")[0]?.click();
	row(tab, "Claude Code").findAll("button")[0]?.click();
	await new Promise((resolve) => setImmediate(resolve));
	assert.equal(copied.length, 2);
	assert.match(copied[0] ?? "", /^# Claude Desktop: .*\n[^]*# Claude Code: [^]*# Codex: [^]*# VS Code: [^]*# Cursor: /);
	assert.match(copied[1] ?? "", /^claude mcp add --scope user vaultlink -- \S+ mcp --vault /);
	row(tab, "VS Code").findAll("button")[0]?.click();
	row(tab, "Cursor").findAll("button")[0]?.click();
	await new Promise((resolve) => setImmediate(resolve));
	assert.deepEqual(Object.keys(JSON.parse(copied[2] ?? "") as object), ["servers"]);
	assert.deepEqual(Object.keys(JSON.parse(copied[3] ?? "") as object), ["mcpServers"]);
});

test("turning the bridge off closes the socket and removes the discovery file; on opens it again with a new token; the choice is saved", async (t) => {
	const { plugin, vaultDir, app } = await open(t);
	const first = plugin.bridgeInfo;
	assert.ok(first !== null);
	const client = await BridgeClient.connect(first.socketPath);
	const tab = await drawnTab(plugin);

	toggleOf(tab, "Let agents connect").click();
	await plugin.setBridgeEnabled(false); // the click's change, awaited (running it twice is harmless)
	assert.equal(plugin.bridgeInfo, null);
	assert.ok(!fs.existsSync(first.discoveryPath), "discovery file removed");
	assert.ok(!fs.existsSync(first.socketPath), "socket removed");
	await client.closed;
	assert.equal((JSON.parse(fs.readFileSync(dataJson(vaultDir), "utf8")) as { bridgeEnabled: boolean }).bridgeEnabled, false);
	// The toggle's own handler redraws the tab once its change is done; under load that may be
	// after the test's call above returned, so wait for that redraw (a bounded number of turns).
	for (let turn = 0; turn < 200 && !/^Off:/.test(descriptionOf(tab, "Connection")); turn += 1) {
		await tab.drawing;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	assert.match(descriptionOf(tab, "Connection"), /^Off: agents read the vault's files\./);

	// A new window on the same vault reads the choice and leaves the bridge off.
	plugin.unload();
	const again = await loadPlugin(vaultDir);
	t.after(() => again.plugin.unload());
	assert.equal(again.plugin.bridgeInfo, null, "off after a restart too");
	void app;

	await again.plugin.setBridgeEnabled(true);
	const second = bridgeOf(again.plugin);
	assert.ok(second !== null, "on again");
	assert.notEqual(second.token, first.token);
	assert.equal(readDiscovery(second.discoveryPath)["token"], second.token);
});

test("regenerating the token rewrites the discovery file and drops connected sidecars; the new token works, the old one does not", async (t) => {
	const { plugin } = await open(t);
	const before = plugin.bridgeInfo;
	assert.ok(before !== null);
	const connected = await BridgeClient.connect(before.socketPath);
	assert.ok((await connected.request("hello", { token: before.token, protocol: 1, client: "old" }))?.result !== undefined);

	const tab = await drawnTab(plugin);
	const button = row(tab, "Regenerate token").findAll("button")[0];
	assert.ok(button !== undefined);
	button.click();
	await connected.closed;
	const after = plugin.bridgeInfo;
	assert.ok(after !== null);
	assert.notEqual(after.token, before.token);
	assert.equal(readDiscovery(after.discoveryPath)["token"], after.token);

	const stale = await BridgeClient.connect(after.socketPath);
	assert.equal((await stale.request("hello", { token: before.token, protocol: 1, client: "stale" }))?.error?.code, -32001);
	const fresh = await BridgeClient.connect(after.socketPath);
	assert.ok((await fresh.request("hello", { token: after.token, protocol: 1, client: "fresh" }))?.result !== undefined);
	fresh.close();
});

test("the tab says when a sidecar last connected, and which", async (t) => {
	const { plugin } = await open(t);
	const info = plugin.bridgeInfo;
	assert.ok(info !== null);
	const unauthenticated = await BridgeClient.connect(info.socketPath);
	await unauthenticated.request("hello", { token: "wrong", protocol: 1, client: "intruder" });
	assert.equal(plugin.bridgeStatus().lastConnection, null, "a wrong token is no connection");

	const before = Date.now();
	const client = await BridgeClient.connect(info.socketPath);
	await client.request("hello", { token: info.token, protocol: 1, client: "vaultlink 0.1.0" });
	const last = plugin.bridgeStatus().lastConnection;
	assert.ok(last !== null);
	assert.equal(last.client, "vaultlink 0.1.0");
	assert.ok(last.at.getTime() >= before - 1000 && last.at.getTime() <= Date.now());
	const tab = await drawnTab(plugin);
	assert.match(descriptionOf(tab, "Connection"), /An agent last connected at .* \(vaultlink 0\.1\.0\)\.$/);
	client.close();
	assert.equal(describeBridge({ state: "failed", error: "in use", lastConnection: null }), "Could not start: in use No agent has connected since the plugin loaded.");
});

test("lint kinds turned off and extra excluded folders change what the view lists; an excluded note stays a link target", async (t) => {
	const { plugin, vaultDir } = await open(t);
	const all = await lintOutline(plugin);
	assert.ok(all.includes("  h3 Orphans (2)"), all.join("\n"));
	assert.ok(all.includes("  h3 Unresolved links (1)"));
	assert.ok(!all.some((line) => line.includes("Archive/Old.md")), "Obsidian's excluded folder is no subject");

	const tab = await drawnTab(plugin);
	toggleOf(tab, "Unresolved links").click();
	const area = row(tab, "Excluded folders").findAll("textarea")[0];
	assert.ok(area !== undefined);
	area.type("Drafts/\n\n");
	await plugin.saveSettings(() => undefined);
	assert.deepEqual(plugin.currentSettings?.disabledLintKinds, ["unresolved_link"]);
	assert.deepEqual(plugin.currentSettings?.excludedFolders, ["Drafts"]);
	const saved = JSON.parse(fs.readFileSync(dataJson(vaultDir), "utf8")) as Record<string, unknown>;
	assert.deepEqual(saved["excludedFolders"], ["Drafts"]);

	const some = await lintOutline(plugin);
	assert.ok(!some.some((line) => line.includes("Unresolved")), some.join("\n"));
	assert.ok(some.includes("  h3 Orphans (1)"), "Drafts/Loose.md is no longer a subject");
	assert.ok(!some.some((line) => line.includes("Drafts/Loose.md")));
	// Home's link to the excluded Archive/Old.md still resolves: Old is no orphan subject, and no unresolved link.
	const index = plugin.index;
	assert.ok(index !== null);
	const links = (await index.outgoingLinks("Home.md")) as { links: { status: string; resolved_path?: string }[] };
	assert.equal(links.links[0]?.resolved_path, "Archive/Old.md");
});

test("a rewritten link follows Obsidian's new link format until the form-keeping toggle is on, and the choice is saved", async (t) => {
	const { plugin, vaultDir } = await open(t);
	const index = plugin.index;
	assert.ok(index !== null);
	const rewritten = async (): Promise<string[]> => {
		const args = { from: "Archive/Old.md", to: "Later/New.md", dry_run: true };
		const needed = await index.notesNeeded("move_note", args);
		const texts = new Map(needed.map((notePath) => [notePath, fs.readFileSync(path.join(vaultDir, ...notePath.split("/")), "utf8")] as const));
		const outcome = await index.call("move_note", args, { texts, modified: new Map(needed.map((notePath) => [notePath, 1] as const)) });
		assert.ok(outcome.ok, JSON.stringify(outcome));
		return ((outcome.result as { changes?: { after: string }[] }).changes ?? []).map((change) => change.after);
	};
	// app.json asks for "Relative path to file": from Home.md at the root, the path itself.
	assert.deepEqual(await rewritten(), ["[[Later/New]]"]);
	const tab = await drawnTab(plugin);
	toggleOf(tab, "Keep the form of rewritten links").click();
	await plugin.saveSettings(() => undefined);
	assert.equal(plugin.currentSettings?.linkForm, "keep");
	const saved = JSON.parse(fs.readFileSync(dataJson(vaultDir), "utf8")) as Record<string, unknown>;
	assert.equal(saved["linkForm"], "keep");
	assert.deepEqual(await rewritten(), ["[[New]]"], "the bare name stays bare");
});

test("dead ends are off by default; their toggle turns them on, and the choice is saved", async (t) => {
	const { plugin, vaultDir } = await open(t);
	const before = await lintOutline(plugin);
	assert.ok(before.includes("  h3 Orphans (2)"), before.join("\n"));
	assert.ok(!before.some((line) => line.includes("Dead ends")), before.join("\n"));

	const tab = await drawnTab(plugin);
	toggleOf(tab, "Dead ends").click();
	await plugin.saveSettings(() => undefined);
	assert.deepEqual(plugin.currentSettings?.optInLintKinds, ["dead_end"]);
	assert.deepEqual(plugin.currentSettings?.disabledLintKinds, []);
	const saved = JSON.parse(fs.readFileSync(dataJson(vaultDir), "utf8")) as Record<string, unknown>;
	assert.deepEqual(saved["optInLintKinds"], ["dead_end"]);
	// Drafts/Loose.md links nowhere; Home.md links out, and Archive/ is excluded.
	const after = await lintOutline(plugin);
	assert.ok(after.includes("  h3 Dead ends (1)"), after.join("\n"));
});

test("every lint kind turned off: the view says how to turn some on", async (t) => {
	const { plugin } = await open(t);
	await plugin.saveSettings((settings) => {
		settings.disabledLintKinds = lintRules().map((rule) => rule.kind);
	});
	const outline = await lintOutline(plugin);
	assert.ok(outline.includes("  p Every lint check is turned off; turn some on in the plugin's settings, under Lint."), outline.join("\n"));
});

test("a bridge that cannot start says why in a notice and in the tab, and turning it on again does not throw", async (t) => {
	const { plugin: first, vaultDir } = await open(t);
	assert.ok(first.bridgeInfo !== null);
	// A second window on the same vault: the first one serves it.
	const app = new App(vaultDir);
	const second = new VaultlinkPlugin(asObsidianApp(app), { ...manifest });
	second.load();
	t.after(() => second.unload());
	await assert.rejects(second.ready, /Another Obsidian window already serves the vault/);
	assert.match(shownNotices.at(-1)?.message ?? "", /^vaultlink: Another Obsidian window already serves the vault/);
	assert.equal(second.bridgeStatus().state, "failed");
	const tab = await drawnTab(second);
	assert.match(descriptionOf(tab, "Connection"), /^Could not start: Another Obsidian window already serves the vault .*Close it to serve the vault from this window\./);

	await second.setBridgeEnabled(true);
	assert.match(shownNotices.at(-1)?.message ?? "", /^vaultlink: Another Obsidian window already serves the vault/);
	assert.ok(first.bridgeInfo !== null, "the first window serves on");
});
