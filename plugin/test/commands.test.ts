/**
 * The plugin's commands as Obsidian lists them, "Check links of the current note", and
 * "Copy MCP client configuration": stable ids, sentence-case names, no default hotkeys.
 */

import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { CHECK_LINKS_COMMAND_ID } from "../check-links/command";
import { LinkCheckModal } from "../check-links/modal";
import { COPY_MCP_CONFIGURATION_COMMAND_ID } from "../onboarding/copy";
import type VaultlinkPlugin from "../main";
import { allClientConfigurations, clientConfiguration, mcpClients } from "../onboarding/mcp-config";
import { programForClients } from "../settings/sidecar-check";
import { App, TFile, activeElement, doublePluginOf, fakeElementOf, pressKey, shownNotices } from "./obsidian-double";
import { lastModal, loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Home.md
---
up: "[[Index]]"
---
[[A]] then [[Missing]], [[A#Nowhere]] and [[Twin]]
//- A.md
# A
back to [[Home]]
//- Index.md
[[Home]]
//- one/Twin.md
//- two/Twin.md
//- image.png
`;

async function open(t: TestContext): Promise<{ app: App; plugin: VaultlinkPlugin; vaultDir: string }> {
	const vaultDir = writeFixtureVault(FIXTURE);
	const loaded = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	return { ...loaded, vaultDir };
}

/** Words that keep their capitals in a sentence-case name. */
const PROPER_NOUNS = new Set(["Obsidian", "MCP"]);

test("every command has a stable id, a sentence-case name and no default hotkey", async (t) => {
	const { plugin } = await open(t);
	const commands = [...doublePluginOf(plugin).commands.values()];
	assert.deepEqual(
		commands.map((command) => [command.id, command.name]).sort(),
		[
			["audit-renames", "Audit recent renames"],
			["check-links-of-current-note", "Check links of the current note"],
			["compare-link-parsing", "Compare link parsing with Obsidian"],
			["copy-mcp-client-configuration", "Copy MCP client configuration"],
			["delete-note-safely", "Delete note safely…"],
			["fix-broken-links", "Fix broken links"],
			["heal-moves-made-outside-obsidian", "Heal links broken by moves made outside Obsidian"],
			["link-unlinked-mentions", "Link unlinked mentions"],
			["lint-vault", "Lint the vault"],
			["move-note-safely", "Move note safely…"],
			["show-link-graph-health", "Show the link graph's health"],
			["undo-last-change", "Undo last change"],
		],
	);
	for (const command of commands) {
		assert.equal(command.hotkeys, undefined, `${command.id} has no default hotkey`);
		const [first, ...rest] = command.name.replace(/…$/, "").split(" ");
		assert.match(first ?? "", /^[A-Z][a-z]+$/, `${command.name} starts with a capital`);
		for (const word of rest) assert.ok(PROPER_NOUNS.has(word) || word === word.toLowerCase(), `${command.name}: "${word}" is lower case`);
		assert.ok(!/vaultlink/i.test(command.name) && !/command/i.test(command.name), `${command.name} names neither the plugin nor "command"`);
		assert.match(command.id, /^[a-z]+(-[a-z]+)*$/);
	}
});

test("check links is offered only while a note is open, and lists problems first, then the rest, with the backlinks", async (t) => {
	const { app, plugin } = await open(t);
	const command = doublePluginOf(plugin).commands.get(CHECK_LINKS_COMMAND_ID);
	assert.ok(command?.checkCallback !== undefined);
	assert.equal(command.checkCallback(true), false, "no note open");
	app.workspace.activeFile = app.vault.getFileByPath("image.png");
	assert.equal(command.checkCallback(true), false, "an image is no note");
	app.workspace.activeFile = app.vault.getFileByPath("Home.md");
	assert.equal(command.checkCallback(true), true);
	assert.equal(plugin.linkCheck, null, "checking does not run it");

	assert.equal(command.checkCallback(false), true);
	await plugin.linkCheck;
	const modal = lastModal(LinkCheckModal);
	assert.equal(fakeElementOf(modal.titleEl).getText(), "Links of Home.md");
	assert.deepEqual(fakeElementOf(modal.contentEl).outline(), [
		"p 5 links, 3 need attention. 2 links from other notes point here.",
		"    span Unresolved: ",
		"    span line 4: Missing: no file has this name or path",
		"    span Ambiguous: ",
		"    span line 4: Twin: 2 files match (one/Twin.md, two/Twin.md); Obsidian opens one/Twin.md",
		"    span Missing heading: ",
		"    span line 4: A#Nowhere: A.md has no such heading",
		"    span property up: Index → Index.md",
		"    span line 4: A → A.md",
	]);
});

test("the link list takes the keyboard: focus starts on the first link, arrows move, Enter goes to its line; Escape closes", async (t) => {
	const { app, plugin } = await open(t);
	app.workspace.activeFile = app.vault.getFileByPath("Home.md");
	doublePluginOf(plugin).commands.get(CHECK_LINKS_COMMAND_ID)?.checkCallback?.(false);
	await plugin.linkCheck;
	const modal = lastModal(LinkCheckModal);
	const items = fakeElementOf(modal.contentEl).findAll("li");
	assert.equal(items.length, 5);
	assert.deepEqual(items.map((item) => item.getAttr("tabindex")), ["0", "-1", "-1", "-1", "-1"], "every link is focusable, Tab enters on the first");
	assert.equal(activeElement(), items[0], "the first link has the focus");
	pressKey("ArrowDown", modal.scope);
	pressKey("ArrowDown", modal.scope);
	assert.equal(activeElement(), items[2]);
	pressKey("ArrowUp", modal.scope);
	pressKey("End", modal.scope);
	assert.equal(activeElement(), items[4]);
	pressKey("ArrowDown", modal.scope);
	assert.equal(activeElement(), items[4], "the last stays last");
	pressKey("Enter", modal.scope);
	assert.ok(!modal.isOpen, "going to a link closes the list");
	assert.deepEqual(app.workspace.openedLinks.at(-1), { linktext: "Home.md", sourcePath: "", newLeaf: false, openViewState: { eState: { line: 3 } } });

	doublePluginOf(plugin).commands.get(CHECK_LINKS_COMMAND_ID)?.checkCallback?.(false);
	await plugin.linkCheck;
	const again = lastModal(LinkCheckModal);
	pressKey("Escape", again.scope);
	assert.ok(!again.isOpen);
});

test("a note the index does not hold yet gets a notice, not an error", async (t) => {
	const { app, plugin } = await open(t);
	const file = await app.vault.create("New.md", "[[A]]");
	assert.ok(file instanceof TFile);
	plugin.vaultIndexer?.stop();
	app.workspace.activeFile = file;
	doublePluginOf(plugin).commands.get(CHECK_LINKS_COMMAND_ID)?.checkCallback?.(false);
	await plugin.linkCheck;
	assert.match(shownNotices.at(-1)?.message ?? "", /^vaultlink: New\.md is not in the link index yet; wait for indexing to finish/);
});

test("the MCP configuration for each client names the sidecar and this vault's absolute path, quoted as each format needs", () => {
	const server = { command: "/opt/vault link/vaultlink", vaultPath: `/home/me/My "notes"`, platform: "linux" as NodeJS.Platform };
	const desktop = JSON.parse(clientConfiguration("claude-desktop", server)) as unknown;
	assert.deepEqual(desktop, { mcpServers: { vaultlink: { command: "/opt/vault link/vaultlink", args: ["mcp", "--vault", `/home/me/My "notes"`] } } });
	assert.equal(clientConfiguration("claude-code", server), `claude mcp add --scope user vaultlink -- '/opt/vault link/vaultlink' mcp --vault '/home/me/My "notes"'`);
	assert.equal(
		clientConfiguration("codex", server),
		'[mcp_servers.vaultlink]\ncommand = "/opt/vault link/vaultlink"\nargs = ["mcp", "--vault", "/home/me/My \\"notes\\""]',
	);
	assert.equal(clientConfiguration("claude-code", { command: "vaultlink", vaultPath: "/it's/here", platform: "linux" }), `claude mcp add --scope user vaultlink -- vaultlink mcp --vault '/it'\\''s/here'`);
	assert.equal(clientConfiguration("claude-code", { command: "vaultlink", vaultPath: "C:\\Users\\me\\My Vault", platform: "win32" }), `claude mcp add --scope user vaultlink '--' vaultlink mcp --vault 'C:\\Users\\me\\My Vault'`);
	const all = allClientConfigurations(server);
	assert.deepEqual(
		all.split("\n").filter((line) => line.startsWith("# ")),
		[
			"# Claude Desktop: merge into claude_desktop_config.json (Settings → Developer → Edit config)",
			"# Claude Code: run in a terminal; --scope user makes it available in every folder, --scope project instead shares it through the project's .mcp.json",
			"# Codex: add to ~/.codex/config.toml",
			"# VS Code: merge into your user mcp.json (command MCP: Open User Configuration), or into .vscode/mcp.json in a workspace",
			"# Cursor: merge into ~/.cursor/mcp.json, or into .cursor/mcp.json in a project",
		],
	);
});

test("the copy command puts every client's configuration for this vault on the clipboard", async (t) => {
	const { plugin, vaultDir } = await open(t);
	const copied: string[] = [];
	plugin.clipboard = { writeText: async (text) => void copied.push(text) };
	await doublePluginOf(plugin).commands.get(COPY_MCP_CONFIGURATION_COMMAND_ID)?.callback?.();
	assert.equal(copied.length, 1);
	const program = programForClients("vaultlink");
	const server = { command: program.command, vaultPath: vaultDir, platform: process.platform };
	assert.equal(copied[0], allClientConfigurations(server));
	assert.equal(copied[0]?.split(vaultDir).length, mcpClients(process.platform).length + 1, "the vault's absolute path is in each one");
	assert.match(shownNotices.at(-1)?.message ?? "", /copied the MCP configuration for Claude Desktop, Claude Code, Codex, VS Code and Cursor\. /);

	await plugin.saveSettings((settings) => {
		settings.sidecarCommand = "/usr/local/bin/vaultlink-absent";
	});
	await plugin.copyMcpConfiguration("codex");
	assert.equal(copied[1], clientConfiguration("codex", { ...server, command: "/usr/local/bin/vaultlink-absent" }));
});
