/**
 * The plugin's settings tab: agents (the bridge on or off, its token, whether a sidecar has
 * connected and when, or was refused for another bridge protocol; the vaultlink program
 * configured, checked: there, running, its version; the MCP client configuration to copy), the lint (which checks run, which
 * folders are left out besides Obsidian's own Excluded files), and how links are written.
 */

import { PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import { kindTitle } from "../lint/report";
import { clientList, clientName, clientPlace, mcpClients, type McpClient } from "../onboarding/mcp-config";
import type { ObsidianSettings } from "../obsidian-config";
import type { LintRule } from "../wasm";
import { PROTOCOL_VERSION } from "../bridge/discovery";
import { checkSidecar, type SidecarCheck } from "./sidecar-check";
import { isLintKindOn, setLintKind, tidyFolders, type VaultlinkSettings } from "./settings";
import { messageOf } from "../ui/notice";

/** The bridge as the settings tab reports it. */
export interface BridgeStatus {
	/** Listening, off, not available here (mobile), or failed to start with its reason. */
	state: "listening" | "off" | "starting" | "unavailable" | "failed";
	socketPath?: string;
	/** Why it failed, when it did. */
	error?: string;
	/** The last sidecar connection that authenticated, since the plugin loaded. */
	lastConnection: { at: Date; client: string | null } | null;
	/** The last sidecar refused for another bridge protocol, and what it was told (both versions, which to update). */
	skew?: { at: Date; message: string } | null;
}

/** What the tab asks of the plugin. */
export interface SettingsHost {
	/** The settings, or null while they are still being read. */
	currentSettings(): VaultlinkSettings | null;
	saveSettings(change: (settings: VaultlinkSettings) => void): Promise<void>;
	setBridgeEnabled(enabled: boolean): Promise<void>;
	regenerateToken(): Promise<void>;
	bridgeStatus(): BridgeStatus;
	copyMcpConfiguration(client?: McpClient): Promise<void>;
	/** Core's lint rules, once the link engine has loaded. */
	lintRules(): Promise<LintRule[]>;
	obsidianSettings(): Promise<ObsidianSettings>;
}

export class VaultlinkSettingTab extends PluginSettingTab {
	/** The last redraw started (it reads Obsidian's settings first), for callers that wait on it. */
	drawing: Promise<void> = Promise.resolve();
	/** The last check of the configured vaultlink program, for callers that wait on it. */
	checking: Promise<SidecarCheck | null> = Promise.resolve(null);
	private readonly host: SettingsHost;
	private readonly pluginVersion: string;
	/** Which check is the latest: an earlier one finishing late does not overwrite it. */
	private checks = 0;

	constructor(app: App, plugin: Plugin, host: SettingsHost) {
		super(app, plugin);
		this.host = host;
		this.pluginVersion = plugin.manifest.version;
	}

	override display(): void {
		this.redraw();
	}

	/**
	 * Draws the tab again, as Obsidian's own call of `display` does when the tab opens. The tab's
	 * handlers call this rather than `display`, which Obsidian 1.13 deprecates in favour of
	 * declarative settings that need a newer Obsidian than the plugin's minAppVersion.
	 */
	private redraw(): void {
		this.drawing = this.draw().catch((error: unknown) => {
			console.error("vaultlink: could not draw its settings", error);
			this.containerEl.empty();
			this.containerEl.createEl("p", { text: `The settings could not be shown: ${messageOf(error)}. Reload the plugin and open this tab again.` });
		});
	}

	private async draw(): Promise<void> {
		// The lint rules come from the link engine, which may still be loading just after onload.
		const [obsidian, rules] = await Promise.all([this.host.obsidianSettings(), this.host.lintRules()]);
		const container = this.containerEl;
		container.empty();
		const settings = this.host.currentSettings();
		if (settings === null) {
			container.createEl("p", { text: "The settings are still being read; close and open this tab again in a moment." });
			return;
		}
		this.drawAgents(container, settings);
		this.drawLint(container, settings, obsidian, rules);
		this.drawLinks(container, settings, obsidian);
	}

	private drawAgents(container: HTMLElement, settings: VaultlinkSettings): void {
		new Setting(container).setName("Agents").setHeading();
		new Setting(container)
			.setName("Let agents connect")
			.setDesc(
				"Lets the vaultlink program that your MCP client starts work through this window: it reads the live link index and makes its changes through Obsidian, each previewed, all or nothing and undoable. On from the start, since that is what vaultlink is for: it listens on a socket only your user account can open, answers only a program that shows the token below, and nothing reaches it from the network. Off: agents read the vault's files, and their changes are refused while Obsidian has the vault open.",
			)
			.addToggle((toggle) =>
				toggle.setValue(settings.bridgeEnabled).onChange(async (enabled) => {
					await this.host.setBridgeEnabled(enabled);
					this.redraw();
				}),
			);
		const status = this.host.bridgeStatus();
		new Setting(container).setName("Connection").setDesc(describeBridge(status)).setClass("vaultlink-bridge-status");
		new Setting(container)
			.setName("Regenerate token")
			.setDesc("Makes a new secret that the vaultlink program must present. Connected agents are dropped and reconnect with the new one.")
			.addButton((button) =>
				button
					.setButtonText("Regenerate")
					.setDisabled(status.state !== "listening")
					.onClick(async () => {
						await this.host.regenerateToken();
						this.redraw();
					}),
			);
		new Setting(container)
			.setName("vaultlink program")
			.setDesc("Its absolute path, or its name when it is on Obsidian's search path. The copied configurations name the absolute path the program check finds, as MCP clients need.")
			.addText((text) =>
				text
					.setPlaceholder("vaultlink")
					.setValue(settings.sidecarCommand)
					.onChange(async (value) => {
						await this.host.saveSettings((changed) => {
							changed.sidecarCommand = value.trim() === "" ? "vaultlink" : value.trim();
						});
						this.check(check, this.host.currentSettings()?.sidecarCommand ?? "vaultlink");
					}),
			);
		const check = new Setting(container)
			.setName("Program check")
			.setClass("vaultlink-sidecar-check")
			.addButton((button) => button.setButtonText("Check again").onClick(() => this.check(check, this.host.currentSettings()?.sidecarCommand ?? "vaultlink")));
		this.check(check, settings.sidecarCommand);
		new Setting(container)
			.setName("Copy MCP client configuration")
			.setDesc(`For ${clientList(process.platform)}, with this vault's path and the program's filled in. Paste the part for your client.`)
			.addButton((button) =>
				button
					.setButtonText("Copy all")
					.setCta()
					.onClick(() => this.host.copyMcpConfiguration()),
			);
		for (const client of mcpClients(process.platform)) {
			new Setting(container)
				.setName(clientName(client, process.platform))
				.setDesc(`Only its configuration: ${clientPlace(client, process.platform)}.`)
				.addButton((button) => button.setButtonText("Copy").onClick(() => this.host.copyMcpConfiguration(client)));
		}
	}

	/** Checks the program `command` names and says what it found in `setting`. */
	private check(setting: Setting, command: string): void {
		const which = ++this.checks;
		setting.setDesc(`Checking ${command}…`);
		this.checking = checkSidecar(command, { version: this.pluginVersion, protocol: PROTOCOL_VERSION }).then((found) => {
			if (which !== this.checks) return found;
			setting.setDesc(found.message);
			if (found.ok) setting.settingEl.removeClass("vaultlink-sidecar-problem");
			else setting.settingEl.addClass("vaultlink-sidecar-problem");
			return found;
		});
	}

	private drawLint(container: HTMLElement, settings: VaultlinkSettings, obsidian: ObsidianSettings, rules: LintRule[]): void {
		new Setting(container).setName("Lint").setHeading();
		const excludedByObsidian =
			obsidian.excludedFolders.length === 0 ? "none" : obsidian.excludedFolders.join(", ");
		const patterns =
			obsidian.excludedPatterns.length === 0 ? "" : ` Its patterns (${obsidian.excludedPatterns.join(", ")}) are not followed yet.`;
		new Setting(container)
			.setName("Excluded folders")
			.setDesc(
				`Notes in these folders are never lint findings, but links to them still count. Obsidian's Excluded files (Files and links) always apply: ${excludedByObsidian}.${patterns} Add more here, one folder a line.`,
			)
			.addTextArea((area) =>
				area
					.setPlaceholder("One folder a line")
					.setValue(settings.excludedFolders.join("\n"))
					.onChange(async (value) => {
						await this.host.saveSettings((changed) => {
							changed.excludedFolders = tidyFolders(value.split("\n"));
						});
					}),
			);
		for (const rule of rules) {
			new Setting(container)
				.setName(kindTitle(rule.kind))
				.setDesc(rule.summary)
				.addToggle((toggle) =>
					toggle.setValue(isLintKindOn(rule, settings)).onChange(async (enabled) => {
						await this.host.saveSettings((changed) => setLintKind(changed, rule, enabled));
					}),
				);
		}
	}

	private drawLinks(container: HTMLElement, settings: VaultlinkSettings, obsidian: ObsidianSettings): void {
		new Setting(container).setName("Links").setHeading();
		const format = NEW_LINK_FORMATS[obsidian.newLinkFormat] ?? obsidian.newLinkFormat;
		const style = obsidian.useMarkdownLinks ? "Markdown links" : "wikilinks";
		new Setting(container)
			.setName("Keep the form of rewritten links")
			.setDesc(
				`Obsidian here: new link format "${format}", ${style}. Off: when vaultlink rewrites a link (moving a note, undoing a move, fixing a finding) it writes it as Obsidian would, under this new link format, and a display text that named the old note follows the new name. On: each link keeps the form it was written in (a bare name stays bare, a path stays a path, a relative link stays relative), lengthened only when the shorter form would find another note. A wikilink stays a wikilink and a Markdown link stays Markdown either way.${obsidian.problem === undefined ? "" : ` (${obsidian.problem}.)`}`,
			)
			.addToggle((toggle) =>
				toggle.setValue(settings.linkForm === "keep").onChange(async (keep) => {
					await this.host.saveSettings((changed) => {
						changed.linkForm = keep ? "keep" : "obsidian";
					});
				}),
			);
	}
}

const NEW_LINK_FORMATS: Record<string, string> = {
	shortest: "Shortest path when possible",
	relative: "Relative path to file",
	absolute: "Absolute path in vault",
};

/**
 * The connection line: whether agents can connect and when one last did. It says what the state
 * means to a person; the socket's path is for the sidecar, which finds it in the discovery file.
 */
export function describeBridge(status: BridgeStatus): string {
	const state = {
		listening: "Ready: agents' vaultlink program can connect to this window.",
		off: "Off: agents read the vault's files. Their writes are refused while Obsidian has the vault open.",
		starting: "Starting: the first index of the vault is being built; agents can connect, and their changes wait for it.",
		unavailable: "Not available on this device: agents need Obsidian on a desktop.",
		failed: `Could not start: ${status.error ?? "unknown error"}`,
	}[status.state];
	const last = status.lastConnection;
	const connected =
		last === null
			? "No agent has connected since the plugin loaded."
			: `An agent last connected at ${last.at.toLocaleString()}${last.client === null ? "" : ` (${last.client})`}.`;
	const skew = status.skew ?? null;
	const refused = skew === null ? "" : ` An agent's vaultlink program was refused at ${skew.at.toLocaleString()}: ${skew.message}`;
	return `${state} ${connected}${refused}`;
}
