//! The plugin's lifecycle: on load it creates the link index, indexes the vault in the
//! background and then opens the bridge; on unload it undoes all of that. Features live in
//! `indexer.ts`, `bridge/`, `parity/`, `move/`, `delete/`, `audit/` and `lint/`.

import { FileSystemAdapter, Notice, Plugin } from "obsidian";
import { registerRenameAuditCommand } from "./audit/command";
import type { RenameLog } from "./audit/renames";
import { BridgeServer } from "./bridge/server";
import { registerDeleteNoteCommand } from "./delete/command";
import { DEFAULT_INDEXER_OPTIONS, Indexer, type IndexerOptions } from "./indexer";
import { VaultLint } from "./lint/command";
import { registerMoveNoteCommand } from "./move/command";
import { registerLinkParityCommand } from "./parity/command";
import { applyObsidianConfig } from "./obsidian-config";
import { runTool, type ToolHost } from "./tools";
import { createLinkIndex, type Vault as LinkIndex } from "./wasm";

/** Where the bridge is, once it is up. */
export interface BridgeInfo {
	socketPath: string;
	discoveryPath: string;
	token: string;
}

export default class VaultlinkPlugin extends Plugin {
	/** Indexer settings; a host or test may change them before `load()`. */
	indexerOptions: IndexerOptions = { ...DEFAULT_INDEXER_OPTIONS };
	/**
	 * Resolves once the first index is complete and the bridge is up (or, on mobile, not
	 * needed); rejects if either failed. Set by `onload`.
	 */
	ready: Promise<void> = Promise.resolve();
	/** Resolves once the first index is complete (or was stopped by unloading). Set by `onload`. */
	private firstIndex: Promise<void> = Promise.resolve();

	private linkIndex: LinkIndex | null = null;
	private indexer: Indexer | null = null;
	private bridge: BridgeServer | null = null;
	private renameLog: RenameLog | null = null;
	private vaultLint: VaultLint | null = null;
	private unloaded = false;

	override onload(): void {
		this.unloaded = false;
		const linkIndex = createLinkIndex();
		const indexer = new Indexer(this.app, linkIndex, this.indexerOptions);
		this.linkIndex = linkIndex;
		this.indexer = indexer;
		registerLinkParityCommand(this, () => this.settledIndex());
		const settledHost = async () => {
			const index = await this.settledIndex();
			return index === null ? null : this.hostFor(index);
		};
		registerMoveNoteCommand(this, settledHost);
		registerDeleteNoteCommand(this, settledHost);
		this.renameLog = registerRenameAuditCommand(this, settledHost);
		this.vaultLint = new VaultLint(this, () => this.settledIndex(), () => this.idleIndex());

		// Obsidian sends a `create` for every file while the vault loads; subscribing once the
		// layout is ready skips those, and the first index covers the files instead.
		const layoutReady = new Promise<void>((resolve) => this.app.workspace.onLayoutReady(resolve));
		this.firstIndex = layoutReady.then(async () => {
			if (this.unloaded) return;
			await applyObsidianConfig(this.app, linkIndex);
			indexer.registerEvents(this);
			await indexer.indexAll();
		});
		this.ready = this.firstIndex.then(async () => {
			if (this.unloaded) return;
			// The bridge opens only on a complete index: until then the sidecar answers from
			// the files on disk, which is slower but never gives a half-built answer.
			await this.startBridge(linkIndex);
		});
		this.ready.catch((error: unknown) => {
			console.error("vaultlink: could not start", error);
			new Notice(`vaultlink: ${error instanceof Error ? error.message : String(error)}`);
		});
	}

	override onunload(): void {
		this.unloaded = true;
		this.indexer?.stop();
		this.indexer = null;
		void this.bridge?.stop();
		this.bridge = null;
		this.linkIndex?.free();
		this.linkIndex = null;
		this.renameLog = null;
		this.vaultLint = null;
	}

	/** The link index, for tests and the host; null when unloaded. */
	get index(): LinkIndex | null {
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

	/** The bridge's socket and discovery file, or null while it is not up. */
	get bridgeInfo(): BridgeInfo | null {
		const bridge = this.bridge;
		if (bridge === null) return null;
		return { socketPath: bridge.paths.socketPath, discoveryPath: bridge.paths.discoveryPath, token: bridge.token };
	}

	/**
	 * The link index once it holds what the vault holds now: the first index complete and every
	 * waiting update applied. Null when unloaded.
	 */
	private async settledIndex(): Promise<LinkIndex | null> {
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
	private async idleIndex(): Promise<LinkIndex | null> {
		await this.firstIndex;
		await this.indexer?.whenIdle();
		return this.linkIndex;
	}

	/** What the bridge's tools run against, for tests; null when unloaded. */
	get toolHost(): ToolHost | null {
		return this.linkIndex === null ? null : this.hostFor(this.linkIndex);
	}

	/** What tools run against: this app, `index`, and waiting for the indexer to catch up. */
	private hostFor(index: LinkIndex): ToolHost {
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

	private async startBridge(linkIndex: LinkIndex): Promise<void> {
		const adapter = this.app.vault.adapter;
		if (!(adapter instanceof FileSystemAdapter)) {
			// Mobile: no sockets and no sidecar to serve.
			return;
		}
		const bridge = await BridgeServer.start({
			vaultPath: adapter.getBasePath(),
			pluginVersion: this.manifest.version,
			call: (tool, args) => runTool(this.hostFor(linkIndex), tool, args),
		});
		if (this.unloaded) {
			// Unloaded while the bridge was starting: it must not outlive the plugin.
			await bridge.stop();
			return;
		}
		this.bridge = bridge;
	}
}
