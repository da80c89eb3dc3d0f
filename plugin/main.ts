/**
 * The plugin's lifecycle: on load it reads its settings, creates the link index, indexes the
 * vault in the background and then opens the bridge (when the settings let it); on unload it
 * undoes all of that. Only the wiring is here: the engine and its restart live in
 * `engine/keeper.ts`, the bridge's state machine in `bridge/control.ts`, the settings in
 * `settings/store.ts`, and the features in `indexer.ts`, `bridge/`, `settings/`, `onboarding/`,
 * `check-links/`, `parity/`, `move/`, `delete/`, `batch/`, `audit/` and `lint/`.
 */

import { FileSystemAdapter, Notice, Plugin } from "obsidian";
import { RENAME_SETTLE_MS, registerRenameAuditCommand } from "./audit/command";
import type { RenameLog } from "./audit/renames";
import { BridgeControl, type BridgeInfo } from "./bridge/control";
import { PROTOCOL_VERSION } from "./bridge/discovery";
import { discoveryDirectory } from "./bridge/paths";
import type { BridgeServer } from "./bridge/server";
import { registerCheckLinksCommand } from "./check-links/command";
import { registerDeleteNoteCommand } from "./delete/command";
import type { LinkEngine } from "./engine/client";
import { EngineKeeper, type StartupTimings } from "./engine/keeper";
import { startEngine } from "./engine/start";
import { registerLinkGraphCommand } from "./graph/command";
import { MovesNotice, registerHealMovesCommand } from "./heal/command";
import { DEFAULT_INDEXER_OPTIONS, type Indexer, type IndexerOptions } from "./indexer";
import { VaultLint } from "./lint/command";
import { registerBulkMove } from "./move/bulk";
import { registerMoveNoteCommand } from "./move/command";
import { applyObsidianConfig, describeObsidianSettings, readAppJson } from "./obsidian-config";
import { COPY_MCP_CONFIGURATION_COMMAND_ID, copyMcpConfiguration, type ClipboardWriter } from "./onboarding/copy";
import type { McpClient } from "./onboarding/mcp-config";
import { METADATA_RESOLVE_WAIT_MS, registerLinkParityCommand } from "./parity/command";
import { PRESENCE_RENEW_MS, PresenceKeeper } from "./presence";
import { registerFixLinksCommand } from "./repair/command";
import { registerLinkMentionsCommand } from "./mentions/command";
import type { VaultlinkSettings } from "./settings/settings";
import { SettingsStore } from "./settings/store";
import { VaultlinkSettingTab, type BridgeStatus } from "./settings/tab";
import type { ToolHost } from "./tools";
import { ERROR_NOTICE_MS, messageOf } from "./ui/notice";
import { registerUndoCommand } from "./undo/command";
import { lintRules, loadEngine } from "./wasm";

export default class VaultlinkPlugin extends Plugin {
	/** Indexer settings; a host or test may change them before `load()`. */
	indexerOptions: IndexerOptions = { ...DEFAULT_INDEXER_OPTIONS };
	/** How long commands that look at Obsidian's metadata cache wait for it to resolve (the link parity); a test may shorten it. */
	metadataWaitMs = METADATA_RESOLVE_WAIT_MS;
	/** How old the latest rename must be before the rename audit looks (`RENAME_SETTLE_MS`); a test may shorten it. */
	renameSettleMs = RENAME_SETTLE_MS;
	/** How often the presence lease in the vault is renewed (`PRESENCE_RENEW_MS`); a test may shorten it. */
	presenceRenewMs = PRESENCE_RENEW_MS;
	/** Where "Copy MCP client configuration" writes; a test may replace it before using it. */
	clipboard: ClipboardWriter = { writeText: (text) => navigator.clipboard.writeText(text) };
	/** Resolves once the settings are read, the first index is complete and the bridge is up (or turned off, or not needed on mobile); rejects if any of that failed. Set by `onload`. */
	ready: Promise<void> = Promise.resolve();
	/** When each step of the start happened (null until it has); logged with console.debug once the first index is done. For tests and the startup bench. */
	startup: StartupTimings = { engineLoadedMs: null, firstIndexStartedMs: null, firstIndexDoneMs: null, onloadMs: 0 };
	/** Whether the first index is complete, so the bridge may serve calls. */
	private indexed = false;
	private unloaded = false;
	private readonly store = new SettingsStore(this);
	private readonly engine = new EngineKeeper(this, () => this.store.settingsRead, () => this.unloaded);
	private readonly bridge = new BridgeControl({
		app: this.app,
		pluginVersion: () => this.manifest.version,
		unloaded: () => this.unloaded,
		indexed: () => this.indexed,
		host: () => this.toolHost,
	});
	/** What the features made at load hold, for tests; null when unloaded. */
	private features: {
		renameLog: RenameLog;
		lint: VaultLint;
		movesNotice: MovesNotice;
		settingTab: VaultlinkSettingTab;
		checkLinks: { running: Promise<void> | null };
		presence: PresenceKeeper | null;
	} | null = null;

	override onload(): void {
		const started = performance.now();
		this.unloaded = false;
		this.indexed = false;
		this.startup = { engineLoadedMs: null, firstIndexStartedMs: null, firstIndexDoneMs: null, onloadMs: 0 };
		const startup = this.startup;
		// The link engine compiles asynchronously (wasm.ts says why); the index, the indexer and
		// everything that uses them wait for it, through the first index. Even an asynchronous
		// compile spends some milliseconds before it returns (V8 takes in the 1.6 MB of bytes), so
		// it starts just after onload returns (a microtask), and still before anything else the app
		// has queued, so that the compile runs in the background while the vault loads. The index
		// lives in a Web Worker, which compiles its own copy of the module; this thread's copy
		// serves the pure functions the plugin calls itself (parseNote, contentHash, …).
		const engineStarted = Promise.resolve().then(() => startEngine());
		const engineReady = Promise.all([Promise.resolve().then(() => loadEngine()), engineStarted]).then(() => {
			startup.engineLoadedMs = performance.now() - started;
		});
		const settingsRead = this.store.read();
		// The presence lease goes first: from now on even a sidecar that cannot reach the bridge
		// sees that Obsidian has the vault open, and does not write on the folder.
		const adapter = this.app.vault.adapter;
		let presence: PresenceKeeper | null = null;
		if (adapter instanceof FileSystemAdapter) {
			presence = new PresenceKeeper(adapter.getBasePath(), () => ({
				plugin_version: this.manifest.version,
				protocol: PROTOCOL_VERSION,
				bridge: this.store.loaded?.bridgeEnabled ?? true,
				discovery_dir: discoveryDirectory(),
			}));
			presence.keep(this, this.presenceRenewMs);
		}
		const settledIndex = () => this.engine.settledIndex();
		registerLinkParityCommand(this, settledIndex, () => this.metadataWaitMs);
		const settledHost = async () => {
			const index = await settledIndex();
			return index === null ? null : this.hostFor(index);
		};
		for (const register of [registerMoveNoteCommand, registerDeleteNoteCommand, registerUndoCommand, registerHealMovesCommand]) register(this, settledHost);
		const movesNotice = new MovesNotice(this, settledHost);
		movesNotice.registerEvents();
		registerFixLinksCommand(this, settledHost);
		registerLinkMentionsCommand(this, settledHost);
		registerBulkMove(this, settledHost);
		const renameLog = registerRenameAuditCommand(this, settledHost, () => this.renameSettleMs);
		const checkLinks = registerCheckLinksCommand(this, settledIndex);
		registerLinkGraphCommand(this, settledIndex);
		this.addCommand({ id: COPY_MCP_CONFIGURATION_COMMAND_ID, name: "Copy MCP client configuration", callback: () => this.copyMcpConfiguration() });
		const settingTab = new VaultlinkSettingTab(this.app, this, {
			currentSettings: () => this.store.loaded,
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
		this.addSettingTab(settingTab);
		// Subscribed once the layout is ready; nothing here waits: `onload` returns at once.
		const layoutReady = new Promise<void>((resolve) => this.app.workspace.onLayoutReady(resolve));
		this.engine.start({ engine: engineStarted, ready: Promise.all([layoutReady, engineReady]), options: this.indexerOptions, startup, started });
		// After the first index is begun: the status bar's count waits for it.
		const lint = new VaultLint(this, {
			settledIndex,
			idleIndex: () => this.engine.idleIndex(),
			host: settledHost,
			settings: () => this.store.settingsRead,
			followObsidianSettings: async () => {
				if (this.engine.linkIndex !== null) await applyObsidianConfig(this.app, this.engine.linkIndex, (await this.store.settingsRead).linkForm);
			},
		});
		this.features = { renameLog, lint, movesNotice, settingTab, checkLinks, presence };
		// The bridge opens at once, before the first index, and its discovery file says
		// `starting`: a sidecar then knows Obsidian has the vault open, and waits for the index
		// (or answers reads from the folder) rather than write behind Obsidian's back. Calls are
		// refused until the index is complete, so no answer is ever half-built.
		const announced = settingsRead.then(async (settings) => {
			if (this.unloaded) return;
			if (settings.bridgeEnabled) await this.bridge.change(true);
			else this.bridge.off();
		});
		this.ready = Promise.all([this.engine.firstIndex, announced]).then(() => {
			if (this.unloaded) return;
			this.indexed = true;
			this.bridge.markReady();
		});
		this.ready.catch((error: unknown) => {
			console.error("vaultlink: could not start", error);
			new Notice(`vaultlink: ${messageOf(error)}`, ERROR_NOTICE_MS);
		});
		startup.onloadMs = performance.now() - started;
	}

	override onunload(): void {
		this.unloaded = true;
		this.engine.indexer?.stop();
		this.engine.indexer = null;
		this.bridge.unload();
		this.engine.stop();
		this.features?.movesNotice.stop();
		this.features = null;
	}

	/** For tests and the host: what the features hold, the link engine and the indexer; null when unloaded. */
	get movesNoticer(): MovesNotice | null { return this.features?.movesNotice ?? null; }
	get presenceKeeper(): PresenceKeeper | null { return this.features?.presence ?? null; }
	get currentSettings(): VaultlinkSettings | null { return this.store.loaded; }
	get index(): LinkEngine | null { return this.engine.linkIndex; }
	get vaultIndexer(): Indexer | null { return this.engine.indexer; }
	get recordedRenames(): RenameLog | null { return this.features?.renameLog ?? null; }
	get lint(): VaultLint | null { return this.features?.lint ?? null; }
	get settingsTab(): VaultlinkSettingTab | null { return this.features?.settingTab ?? null; }
	/** The check the "Check links of the current note" command started last. */
	get linkCheck(): Promise<void> | null { return this.features?.checkLinks.running ?? null; }
	/** The bridge's socket and discovery file, or null while it is not up. */
	get bridgeInfo(): BridgeInfo | null { return this.bridge.info; }
	/** What the bridge's tools run against; null when unloaded. */
	get toolHost(): ToolHost | null { return this.engine.linkIndex === null ? null : this.hostFor(this.engine.linkIndex); }

	/** The bridge as the settings tab reports it. */
	bridgeStatus(): BridgeStatus {
		return this.bridge.status(this.store.loaded?.bridgeEnabled);
	}

	/** The server's listening address: a socket path, never a TCP port. */
	bridgeAddress(): ReturnType<BridgeServer["address"]> {
		return this.bridge.address();
	}

	/** Changes the settings with `change` and saves them (`settings/store.ts`); the index writes rewritten links in a new link form from the next call on. */
	saveSettings(change: (settings: VaultlinkSettings) => void): Promise<void> {
		return this.store.save(change, async (linkForm, settings) => {
			const linkIndex = this.engine.linkIndex;
			if (settings.linkForm !== linkForm && linkIndex !== null) await applyObsidianConfig(this.app, linkIndex, settings.linkForm);
		});
	}

	/** Turns the bridge on (once the first index is complete) or off, and remembers the choice. A bridge that cannot start says why in a notice and in the settings tab. */
	async setBridgeEnabled(enabled: boolean): Promise<void> {
		await this.saveSettings((settings) => {
			settings.bridgeEnabled = enabled;
		});
		if (this.unloaded) return;
		try {
			await this.bridge.change(enabled);
		} catch (error) {
			console.error("vaultlink: could not start the bridge", error);
			new Notice(`vaultlink: ${messageOf(error)}`, ERROR_NOTICE_MS);
		}
	}

	/** A new token in a rewritten discovery file; connected sidecars are dropped. */
	regenerateToken(): Promise<void> {
		return this.bridge.regenerateToken();
	}

	/** Puts the MCP clients' configuration for this vault on the clipboard: one client's, or every one's (`onboarding/copy.ts`). */
	copyMcpConfiguration(client?: McpClient): Promise<void> {
		return copyMcpConfiguration(this.app, this.store.settingsRead, this.clipboard, client);
	}

	/** What tools run against: this app, `index`, and waiting for the indexer to catch up. */
	private hostFor(index: LinkEngine): ToolHost {
		return { app: this.app, index, settle: async () => void (await this.engine.settledIndex()) };
	}
}
