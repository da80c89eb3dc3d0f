//! The plugin's lifecycle: on load it reads its settings, creates the link index, indexes the
//! vault in the background and then opens the bridge (when the settings let it); on unload it
//! undoes all of that. Features live in `indexer.ts`, `bridge/`, `settings/`, `onboarding/`,
//! `check-links/`, `parity/`, `move/`, `delete/`, `audit/` and `lint/`.

import { FileSystemAdapter, Notice, Plugin } from "obsidian";
import { RENAME_SETTLE_MS, registerRenameAuditCommand } from "./audit/command";
import type { RenameLog } from "./audit/renames";
import { BridgeServer } from "./bridge/server";
import { registerCheckLinksCommand } from "./check-links/command";
import { registerLinkGraphCommand } from "./graph/command";
import { registerDeleteNoteCommand } from "./delete/command";
import { DEFAULT_INDEXER_OPTIONS, Indexer, type IndexerOptions } from "./indexer";
import { VaultLint } from "./lint/command";
import { registerMoveNoteCommand } from "./move/command";
import { registerBulkMove } from "./move/bulk";
import { registerUndoCommand } from "./undo/command";
import { MovesNotice, registerHealMovesCommand } from "./heal/command";
import { allClientConfigurations, clientConfiguration, clientList, clientName, type McpClient, type McpServerCommand } from "./onboarding/mcp-config";
import { programForClients } from "./settings/sidecar-check";
import { registerFixLinksCommand } from "./repair/command";
import { registerLinkMentionsCommand } from "./mentions/command";
import { METADATA_RESOLVE_WAIT_MS, registerLinkParityCommand } from "./parity/command";
import { applyObsidianConfig, describeObsidianSettings, readAppJson } from "./obsidian-config";
import { readSettings, settingsData, type VaultlinkSettings } from "./settings/settings";
import { VaultlinkSettingTab, type BridgeStatus } from "./settings/tab";
import { runTool, type ToolHost } from "./tools";
import { lintRules, loadEngine, type ToolOutcome } from "./wasm";
import { EngineRestartedError, type LinkEngine } from "./engine/client";
import { MAX_CRASHES, WorkerEngine, type EngineRestart } from "./engine/worker-engine";
import { startEngine } from "./engine/start";
import { DirectEngine } from "./engine/direct";
import { ErrorCode } from "./error-codes";
import { PRESENCE_RENEW_MS, PresenceKeeper } from "./presence";
import { PROTOCOL_VERSION } from "./bridge/discovery";
import { discoveryDirectory } from "./bridge/paths";

/** Where the bridge is, once it is up. */
export interface BridgeInfo {
	socketPath: string;
	discoveryPath: string;
	token: string;
}

/** When each step of the plugin's start happened, in milliseconds after `onload` began. */
export interface StartupTimings {
	/** How long `onload` itself ran before it returned. */
	onloadMs: number;
	/** When the wasm link engine was compiled and instantiated, in its worker and on this thread. */
	engineLoadedMs: number | null;
	/** When the first index began reading notes. */
	firstIndexStartedMs: number | null;
	/** When the first index was complete. */
	firstIndexDoneMs: number | null;
}

/** Stable: users bind hotkeys to it. */
export const COPY_MCP_CONFIGURATION_COMMAND_ID = "copy-mcp-client-configuration";

/** Where copied text goes; the system clipboard in Obsidian. */
export interface ClipboardWriter {
	writeText(text: string): Promise<void>;
}

/** How long an error stays on screen: long enough to read what to do. */
const ERROR_NOTICE_MS = 10_000;

export default class VaultlinkPlugin extends Plugin {
	/** Indexer settings; a host or test may change them before `load()`. */
	indexerOptions: IndexerOptions = { ...DEFAULT_INDEXER_OPTIONS };
	/**
	 * How long commands that look at Obsidian's metadata cache wait for it to resolve (the link
	 * parity) before they say Obsidian is still indexing; a test may shorten it.
	 */
	metadataWaitMs = METADATA_RESOLVE_WAIT_MS;
	/** How old the latest rename must be before the rename audit looks (`RENAME_SETTLE_MS`); a test may shorten it. */
	renameSettleMs = RENAME_SETTLE_MS;
	/** How often the presence lease in the vault is renewed (`PRESENCE_RENEW_MS`); a test may shorten it. */
	presenceRenewMs = PRESENCE_RENEW_MS;
	/** Where "Copy MCP client configuration" writes; a test may replace it before using it. */
	clipboard: ClipboardWriter = { writeText: (text) => navigator.clipboard.writeText(text) };
	/**
	 * Resolves once the settings are read, the first index is complete and the bridge is up (or
	 * turned off, or not needed on mobile); rejects if any of that failed. Set by `onload`.
	 */
	ready: Promise<void> = Promise.resolve();
	/** Resolves once the first index is complete (or was stopped by unloading). Set by `onload`. */
	private firstIndex: Promise<void> = Promise.resolve();
	/** Resolves once the bridge has announced the plugin (discovery file `starting`), or is off. Set by `onload`. */
	private announced: Promise<void> = Promise.resolve();
	/** Whether the first index is complete, so the bridge may serve calls. */
	private indexed = false;
	/** Resolves once the settings are read. Set by `onload`. */
	private settingsRead: Promise<VaultlinkSettings> = Promise.resolve(readSettings(null).settings);

	private loadedSettings: VaultlinkSettings | null = null;
	/** Keys of `data.json` this version does not know; saved back unchanged. */
	private unknownSettings: Record<string, unknown> = {};
	/** The link index, in the link engine's worker. */
	private linkIndex: LinkEngine | null = null;
	private indexer: Indexer | null = null;
	private bridge: BridgeServer | null = null;
	/** The bridge's start or stop under way, so toggling it quickly never runs two at once. */
	private bridgeChange: Promise<void> = Promise.resolve();
	private bridgeState: BridgeStatus["state"] = "starting";
	private bridgeError: string | undefined;
	/** The last authenticated connection of a bridge since stopped, so the tab still shows it. */
	private lastConnection: BridgeStatus["lastConnection"] = null;
	private renameLog: RenameLog | null = null;
	private vaultLint: VaultLint | null = null;
	/** Says when moves made outside Obsidian broke links; null when unloaded. */
	private movesNotice: MovesNotice | null = null;
	private settingTab: VaultlinkSettingTab | null = null;
	private checkLinks: { running: Promise<void> | null } | null = null;
	/** The presence lease in the vault, kept from load to unload (desktop only). */
	private presence: PresenceKeeper | null = null;
	private unloaded = false;
	/** The indexing of the vault after the link engine's latest restart, if there was one. */
	private reindexing: Promise<void> | null = null;
	/**
	 * When each step of the start happened, in milliseconds after `onload` began (null until it
	 * has); logged with console.debug once the first index is done. For tests and the startup bench.
	 */
	startup: StartupTimings = { engineLoadedMs: null, firstIndexStartedMs: null, firstIndexDoneMs: null, onloadMs: 0 };

	override onload(): void {
		const started = performance.now();
		this.unloaded = false;
		this.indexed = false;
		this.startup = { engineLoadedMs: null, firstIndexStartedMs: null, firstIndexDoneMs: null, onloadMs: 0 };
		const startup = this.startup;
		// The link engine compiles asynchronously (wasm.ts says why); the index, the indexer and
		// everything that uses them wait for it, through `firstIndex`. Even an asynchronous compile
		// spends some milliseconds before it returns (V8 takes in the 1.6 MB of bytes), so it
		// starts just after onload returns (a microtask), and still before anything else the app
		// has queued, so that the compile runs in the background while the vault loads.
		// The index lives in a Web Worker, which compiles its own copy of the module; this thread's
		// copy serves the pure functions the plugin calls itself (parseNote, contentHash, …).
		const engineStarted = Promise.resolve().then(() => startEngine());
		const engineReady = Promise.all([Promise.resolve().then(() => loadEngine()), engineStarted]).then(() => {
			startup.engineLoadedMs = performance.now() - started;
		});
		this.settingsRead = this.readSettings();
		// The presence lease goes first: from now on even a sidecar that cannot reach the bridge
		// sees that Obsidian has the vault open, and does not write on the folder.
		const adapter = this.app.vault.adapter;
		if (adapter instanceof FileSystemAdapter) {
			const presence = new PresenceKeeper(adapter.getBasePath(), () => ({
				plugin_version: this.manifest.version,
				protocol: PROTOCOL_VERSION,
				bridge: this.loadedSettings?.bridgeEnabled ?? true,
				discovery_dir: discoveryDirectory(),
			}));
			presence.keep(this, this.presenceRenewMs);
			this.presence = presence;
		}

		registerLinkParityCommand(this, () => this.settledIndex(), () => this.metadataWaitMs);
		const settledHost = async () => {
			const index = await this.settledIndex();
			return index === null ? null : this.hostFor(index);
		};
		registerMoveNoteCommand(this, settledHost);
		registerDeleteNoteCommand(this, settledHost);
		registerUndoCommand(this, settledHost);
		registerHealMovesCommand(this, settledHost);
		this.movesNotice = new MovesNotice(this, settledHost);
		this.movesNotice.registerEvents();
		registerFixLinksCommand(this, settledHost);
		registerLinkMentionsCommand(this, settledHost);
		registerBulkMove(this, settledHost);
		this.renameLog = registerRenameAuditCommand(this, settledHost, () => this.renameSettleMs);
		this.checkLinks = registerCheckLinksCommand(this, () => this.settledIndex());
		registerLinkGraphCommand(this, () => this.settledIndex());
		this.addCommand({
			id: COPY_MCP_CONFIGURATION_COMMAND_ID,
			name: "Copy MCP client configuration",
			callback: () => this.copyMcpConfiguration(),
		});
		this.settingTab = new VaultlinkSettingTab(this.app, this, {
			currentSettings: () => this.loadedSettings,
			saveSettings: (change) => this.saveSettings(change),
			setBridgeEnabled: (enabled) => this.setBridgeEnabled(enabled),
			regenerateToken: () => this.regenerateToken(),
			bridgeStatus: () => this.bridgeStatus(),
			copyMcpConfiguration: (client) => this.copyMcpConfiguration(client),
			lintRules: async () => {
				await engineReady;
				return lintRules();
			},
			obsidianSettings: async () => describeObsidianSettings(await readAppJson(this.app)),
		});
		this.addSettingTab(this.settingTab);

		// Obsidian sends a `create` for every file while the vault loads; subscribing once the
		// layout is ready skips those, and the first index covers the files instead. Nothing here
		// waits: `onload` returns at once and the index is built in the background.
		const layoutReady = new Promise<void>((resolve) => this.app.workspace.onLayoutReady(resolve));
		this.firstIndex = Promise.all([layoutReady, engineReady]).then(async () => {
			const linkIndex = await engineStarted;
			if (this.unloaded) {
				linkIndex.dispose();
				return;
			}
			if (linkIndex instanceof DirectEngine) {
				new Notice(
					`vaultlink: the link engine runs on Obsidian's main thread, since ${linkIndex.reason ?? "no worker was made"}; long calls such as a lint of the vault pause the app while they run.`,
					ERROR_NOTICE_MS,
				);
			}
			const indexer = new Indexer(this.app, linkIndex, this.indexerOptions);
			this.linkIndex = linkIndex;
			this.indexer = indexer;
			if (linkIndex instanceof WorkerEngine) {
				this.register(linkIndex.onRestart((restart) => void this.indexAgainAfterRestart(linkIndex, indexer, restart)));
			}
			try {
				await applyObsidianConfig(this.app, linkIndex, (await this.settingsRead).linkForm);
			} catch (error) {
				// Unloaded meanwhile: the engine stopped with the plugin, and refused what was on its way.
				if (this.unloaded) return;
				// The worker failed: its restart applies the settings and indexes the vault again.
				if (!(error instanceof EngineRestartedError)) throw error;
			}
			indexer.registerEvents(this);
			startup.firstIndexStartedMs = performance.now() - started;
			try {
				await indexer.indexAll();
			} catch (error) {
				if (this.unloaded) return;
				if (!(error instanceof EngineRestartedError)) throw error;
				await this.indexedAgain();
			}
			startup.firstIndexDoneMs = performance.now() - started;
			console.debug(
				`vaultlink: the link engine loaded ${formatMs(startup.engineLoadedMs)} after onload began, the first index started at ${formatMs(startup.firstIndexStartedMs)} and was done at ${formatMs(startup.firstIndexDoneMs)}; onload itself took ${formatMs(startup.onloadMs)}`,
			);
		});
		// After `firstIndex` is set: the status bar's count waits for it.
		this.vaultLint = new VaultLint(this, {
			settledIndex: () => this.settledIndex(),
			idleIndex: () => this.idleIndex(),
			host: settledHost,
			settings: () => this.settingsRead,
			followObsidianSettings: async () => {
				if (this.linkIndex !== null) await applyObsidianConfig(this.app, this.linkIndex, (await this.settingsRead).linkForm);
			},
		});
		// The bridge opens at once, before the first index, and its discovery file says
		// `starting`: a sidecar then knows Obsidian has the vault open, and waits for the index
		// (or answers reads from the folder) rather than write behind Obsidian's back. Calls are
		// refused until the index is complete, so no answer is ever half-built.
		this.announced = this.settingsRead.then(async (settings) => {
			if (this.unloaded) return;
			if (settings.bridgeEnabled) await this.changeBridge(true);
			else this.bridgeState = "off";
		});
		this.ready = Promise.all([this.firstIndex, this.announced]).then(() => {
			if (this.unloaded) return;
			this.indexed = true;
			this.markBridgeReady();
		});
		this.ready.catch((error: unknown) => {
			console.error("vaultlink: could not start", error);
			new Notice(`vaultlink: ${messageOf(error)}`, ERROR_NOTICE_MS);
		});
		startup.onloadMs = performance.now() - started;
	}

	override onunload(): void {
		this.unloaded = true;
		this.indexer?.stop();
		this.indexer = null;
		void this.bridge?.stop();
		this.bridge = null;
		this.linkIndex?.dispose();
		this.linkIndex = null;
		this.renameLog = null;
		this.vaultLint = null;
		this.movesNotice?.stop();
		this.movesNotice = null;
		this.settingTab = null;
		this.checkLinks = null;
		this.presence = null;
	}

	/**
	 * The link engine's worker failed and the engine started again with an empty index: says so,
	 * and indexes the vault again; calls are refused (retryably) until that is done.
	 */
	private indexAgainAfterRestart(engine: WorkerEngine, indexer: Indexer, restart: EngineRestart): Promise<void> {
		const indexing = this.indexAgain(engine, indexer, restart);
		this.reindexing = indexing;
		return indexing;
	}

	/** Resolves once the indexing after the latest restart is over (and after any restart meanwhile). */
	private async indexedAgain(): Promise<void> {
		for (;;) {
			const current = this.reindexing;
			await current;
			if (current === this.reindexing) return;
		}
	}

	private async indexAgain(engine: WorkerEngine, indexer: Indexer, restart: EngineRestart): Promise<void> {
		new Notice(
			restart.onThisThread
				? `vaultlink: the link engine failed again (${restart.reason}), ${MAX_CRASHES} times within a minute; it now runs on Obsidian's main thread, where long calls pause the app, and is indexing the vault again. Disable and enable the plugin to try a worker again.`
				: `vaultlink: the link engine failed (${restart.reason}) and was started again; it is indexing the vault again, and agents' calls until then are refused so they can retry.`,
			ERROR_NOTICE_MS,
		);
		try {
			await applyObsidianConfig(this.app, engine, (await this.settingsRead).linkForm);
			await indexer.indexAll();
			if (this.unloaded) return;
			engine.rebuilt();
		} catch (error) {
			// Unloaded meanwhile, or another crash, which starts its own indexing.
			if (this.unloaded || error instanceof EngineRestartedError) return;
			console.error("vaultlink: the vault could not be indexed again after the link engine restarted", error);
			new Notice(`vaultlink: the vault could not be indexed again (${messageOf(error)}); disable and enable the plugin.`, ERROR_NOTICE_MS);
		}
	}

	/** What says when moves made outside Obsidian broke links, for tests; null when unloaded. */
	get movesNoticer(): MovesNotice | null {
		return this.movesNotice;
	}

	/** The presence lease's keeper, for tests; null when unloaded or on mobile. */
	get presenceKeeper(): PresenceKeeper | null {
		return this.presence;
	}

	/** The settings once read; null before that. */
	get currentSettings(): VaultlinkSettings | null {
		return this.loadedSettings;
	}

	/** The link engine holding the index, for tests and the host; null when unloaded. */
	get index(): LinkEngine | null {
		return this.linkIndex;
	}

	/** The indexer, for tests and the host; null when unloaded. */
	get vaultIndexer(): Indexer | null {
		return this.indexer;
	}

	/** The renames the rename audit checks, for tests; null when unloaded. */
	get recordedRenames(): RenameLog | null {
		return this.renameLog;
	}

	/** The lint view's command and the status bar's count, for tests; null when unloaded. */
	get lint(): VaultLint | null {
		return this.vaultLint;
	}

	/** The settings tab, for tests; null when unloaded. */
	get settingsTab(): VaultlinkSettingTab | null {
		return this.settingTab;
	}

	/** The check the "Check links of the current note" command started last, for tests. */
	get linkCheck(): Promise<void> | null {
		return this.checkLinks?.running ?? null;
	}

	/** The bridge's socket and discovery file, or null while it is not up. */
	get bridgeInfo(): BridgeInfo | null {
		const bridge = this.bridge;
		if (bridge === null) return null;
		return { socketPath: bridge.paths.socketPath, discoveryPath: bridge.paths.discoveryPath, token: bridge.token };
	}

	/** The bridge as the settings tab reports it. */
	bridgeStatus(): BridgeStatus {
		const bridge = this.bridge;
		const lastConnection = bridge?.lastConnection ?? this.lastConnection;
		if (bridge !== null) {
			return { state: bridge.state === "starting" ? "starting" : "listening", socketPath: bridge.paths.socketPath, lastConnection, skew: bridge.lastSkew };
		}
		// Turned off in the settings: off, even while the first index that would precede it runs.
		if (this.loadedSettings?.bridgeEnabled === false) return { state: "off", lastConnection };
		return { state: this.bridgeState, error: this.bridgeError, lastConnection };
	}

	/**
	 * Changes the settings with `change` and saves them, keeping what `data.json` held that this
	 * version does not know. A failed save is said in a notice; the change holds until Obsidian
	 * restarts.
	 */
	async saveSettings(change: (settings: VaultlinkSettings) => void): Promise<void> {
		const settings = await this.settingsRead;
		const linkForm = settings.linkForm;
		change(settings);
		// The index writes rewritten links in the chosen form from the next call on.
		if (settings.linkForm !== linkForm && this.linkIndex !== null) await applyObsidianConfig(this.app, this.linkIndex, settings.linkForm);
		// One save at a time: two writes of data.json under way at once can interleave and leave
		// it unreadable (Node's writeFile, which Obsidian's adapter uses, is not safe to overlap
		// on one file). Each save writes the settings as they are when its turn comes.
		const save = this.settingsSaving.then(async () => {
			try {
				await this.saveData(settingsData(settings, this.unknownSettings));
			} catch (error) {
				console.error("vaultlink: could not save its settings", error);
				new Notice(`vaultlink: the settings could not be saved (${messageOf(error)}); the change holds until Obsidian restarts. Check that the vault's folder is writable.`, ERROR_NOTICE_MS);
			}
		});
		this.settingsSaving = save;
		await save;
	}

	/** The settings save under way, if any; the next waits for it. */
	private settingsSaving: Promise<void> = Promise.resolve();

	/**
	 * Turns the bridge on (once the first index is complete) or off, and remembers the choice. A
	 * bridge that cannot start says why in a notice and in the settings tab.
	 */
	async setBridgeEnabled(enabled: boolean): Promise<void> {
		await this.saveSettings((settings) => {
			settings.bridgeEnabled = enabled;
		});
		if (this.unloaded) return;
		try {
			await this.changeBridge(enabled);
		} catch (error) {
			console.error("vaultlink: could not start the bridge", error);
			new Notice(`vaultlink: ${messageOf(error)}`, ERROR_NOTICE_MS);
		}
	}

	/** A new token in a rewritten discovery file; connected sidecars are dropped. */
	async regenerateToken(): Promise<void> {
		await this.bridgeChange;
		const bridge = this.bridge;
		if (bridge === null) {
			new Notice("vaultlink: the bridge is off, so there is no token to replace; let agents connect first, in the plugin's settings.", ERROR_NOTICE_MS);
			return;
		}
		try {
			bridge.regenerateToken();
			new Notice("vaultlink: new token written; connected agents reconnect with it.");
		} catch (error) {
			console.error("vaultlink: could not regenerate the token", error);
			new Notice(`vaultlink: the token was not replaced: ${messageOf(error)}. The old one still works.`, ERROR_NOTICE_MS);
		}
	}

	/**
	 * Puts the MCP clients' configuration for this vault on the clipboard: one client's, or every
	 * one's. It names the program by the absolute path the settings' program check finds, since
	 * clients start it without a shell and from a search path of their own; when there is none it
	 * names the program as configured, and the notice says so.
	 */
	async copyMcpConfiguration(client?: McpClient): Promise<void> {
		const server = await this.mcpServerCommand();
		if (server === null) {
			new Notice("vaultlink: agents reach a vault through a folder on disk, which this device does not have; use Obsidian on a desktop.", ERROR_NOTICE_MS);
			return;
		}
		const text = client === undefined ? allClientConfigurations(server) : clientConfiguration(client, server);
		try {
			await this.clipboard.writeText(text);
		} catch (error) {
			// The configuration itself is not logged: it names the vault's folder, and the console
			// keeps what is written there for anyone who opens it later.
			console.error("vaultlink: could not write to the clipboard", messageOf(error));
			new Notice(`vaultlink: could not copy to the clipboard (${messageOf(error)}); nothing was copied. Try again with Obsidian's window in front.`, ERROR_NOTICE_MS);
			return;
		}
		const what =
			client === undefined
				? `vaultlink: copied the MCP configuration for ${clientList(server.platform)}. Paste the part for your client.`
				: `vaultlink: copied the MCP configuration for ${clientName(client, server.platform)}. Paste it into your client.`;
		const found = server.found
			? ""
			: ` It names the program "${server.command}", which was not found: set its absolute path under Agents in the plugin's settings and copy again.`;
		new Notice(`${what}${found}`, server.found ? undefined : ERROR_NOTICE_MS);
	}

	private async mcpServerCommand(): Promise<(McpServerCommand & { found: boolean }) | null> {
		const adapter = this.app.vault.adapter;
		if (!(adapter instanceof FileSystemAdapter)) return null;
		const settings = await this.settingsRead;
		const program = programForClients(settings.sidecarCommand);
		return { command: program.command, found: program.found, vaultPath: adapter.getBasePath(), platform: process.platform };
	}

	/** Reads `data.json`; what cannot be used is replaced by its default and said once. */
	private async readSettings(): Promise<VaultlinkSettings> {
		let data: unknown = null;
		try {
			data = await this.loadData();
		} catch (error) {
			console.warn("vaultlink: could not read its data.json", error);
			new Notice(`vaultlink: its settings file could not be read (${messageOf(error)}); the defaults are used until you change a setting, which rewrites it.`, ERROR_NOTICE_MS);
		}
		const loaded = readSettings(data);
		for (const problem of loaded.problems) {
			console.warn(`vaultlink: ${problem}`);
			new Notice(`vaultlink: ${problem}.`, ERROR_NOTICE_MS);
		}
		this.unknownSettings = loaded.unknown;
		this.loadedSettings = loaded.settings;
		return loaded.settings;
	}

	/**
	 * The link index once it holds what the vault holds now: the first index complete and every
	 * waiting update applied. Null when unloaded.
	 */
	private async settledIndex(): Promise<LinkEngine | null> {
		await this.firstIndex;
		const indexer = this.indexer;
		if (indexer === null) return null;
		indexer.flush();
		await indexer.whenIdle();
		return this.linkIndex;
	}

	/**
	 * The link index once the first index is complete and the indexer is idle, without hurrying
	 * its waiting updates: for readers that can wait, like the status bar. Null when unloaded.
	 */
	private async idleIndex(): Promise<LinkEngine | null> {
		await this.firstIndex;
		await this.indexer?.whenIdle();
		return this.linkIndex;
	}

	/** What the bridge's tools run against, for tests; null when unloaded. */
	get toolHost(): ToolHost | null {
		return this.linkIndex === null ? null : this.hostFor(this.linkIndex);
	}

	/** What tools run against: this app, `index`, and waiting for the indexer to catch up. */
	private hostFor(index: LinkEngine): ToolHost {
		return {
			app: this.app,
			index,
			settle: async () => {
				await this.settledIndex();
			},
		};
	}

	/** The server's listening address: a socket path, never a TCP port. */
	bridgeAddress(): ReturnType<BridgeServer["address"]> {
		return this.bridge?.address() ?? null;
	}

	/** Starts or stops the bridge after any change under way. A failure to start is reported, not thrown. */
	private changeBridge(enabled: boolean): Promise<void> {
		const change = this.bridgeChange.then(() => (enabled ? this.startBridge() : this.stopBridge()));
		this.bridgeChange = change.catch(() => undefined);
		return change;
	}

	private async stopBridge(): Promise<void> {
		const bridge = this.bridge;
		this.bridge = null;
		this.bridgeState = "off";
		this.bridgeError = undefined;
		if (bridge === null) return;
		this.lastConnection = bridge.lastConnection ?? this.lastConnection;
		await bridge.stop();
	}

	private async startBridge(): Promise<void> {
		// The bridge opens before the link engine and the index exist (it announces Obsidian at
		// once); calls reach the index only once it is complete.
		if (this.bridge !== null || this.unloaded) return;
		const adapter = this.app.vault.adapter;
		if (!(adapter instanceof FileSystemAdapter)) {
			// Mobile: no sockets and no sidecar to serve.
			this.bridgeState = "unavailable";
			return;
		}
		let bridge: BridgeServer;
		try {
			bridge = await BridgeServer.start({
				vaultPath: adapter.getBasePath(),
				pluginVersion: this.manifest.version,
				call: (tool, args, signal) => {
					const linkIndex = this.linkIndex;
					return this.indexed && linkIndex !== null ? runTool(this.hostFor(linkIndex), tool, args, signal) : stillIndexing();
				},
				state: this.indexed ? "ready" : "starting",
			});
		} catch (error) {
			this.bridgeState = "failed";
			this.bridgeError = messageOf(error);
			throw error;
		}
		if (this.unloaded) {
			// Unloaded while the bridge was starting: it must not outlive the plugin.
			await bridge.stop();
			return;
		}
		this.bridge = bridge;
		this.bridgeState = "listening";
		this.bridgeError = undefined;
		// The index may have completed while the bridge started.
		if (this.indexed) this.markBridgeReady();
	}

	/** Tells sidecars, through the discovery file, that the first index is complete. */
	private markBridgeReady(): void {
		try {
			this.bridge?.markReady();
		} catch (error) {
			console.error("vaultlink: could not rewrite the discovery file", error);
			new Notice(`vaultlink: agents cannot be told the index is ready (${messageOf(error)}); turn "Let agents connect" off and on again in the settings.`, ERROR_NOTICE_MS);
		}
	}
}

/** The answer to a call before the first index is complete: refused, to be retried. */
function stillIndexing(): ToolOutcome {
	return {
		ok: false,
		error: {
			code: ErrorCode.PluginUnavailable,
			message: "the vaultlink plugin is still indexing the vault",
			hint: "Wait for the plugin to finish indexing, then call again.",
			retryable: true,
		},
	};
}

function formatMs(ms: number | null): string {
	return ms === null ? "(not reached)" : `${ms.toFixed(1)} ms`;
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
