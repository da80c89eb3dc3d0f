/**
 * The link engine and its indexer, from the plugin's load to its unload: the first index of the
 * vault once the engine is up and Obsidian's layout is ready, and the engine's restart. When the
 * engine's worker fails it starts again with an empty index (`worker-engine.ts`); this says so in
 * a notice and indexes the vault again, and calls are refused, retryably, until that is done.
 */

import { Notice, type App, type Plugin } from "obsidian";
import { Indexer, type IndexerOptions } from "../indexer";
import { applyObsidianConfig } from "../obsidian-config";
import type { VaultlinkSettings } from "../settings/settings";
import { ERROR_NOTICE_MS, messageOf } from "../ui/notice";
import { EngineRestartedError, type LinkEngine } from "./client";
import { DirectEngine } from "./direct";
import { MAX_CRASHES, WorkerEngine, type EngineRestart } from "./worker-engine";

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

/** What the first index waits for and reports to. */
export interface FirstIndexStart {
	/** The engine started in its worker (or on this thread). */
	engine: Promise<LinkEngine>;
	/** Resolves once the engine and Obsidian's layout are both ready. */
	ready: Promise<unknown>;
	options: IndexerOptions;
	startup: StartupTimings;
	/** When `onload` began (`performance.now()`). */
	started: number;
}

/** The plugin's link engine and indexer, and the indexing that keeps them whole. */
export class EngineKeeper {
	/** The link index, in the link engine's worker. */
	linkIndex: LinkEngine | null = null;
	indexer: Indexer | null = null;
	/** Resolves once the first index is complete (or was stopped by unloading). Set by `start`. */
	firstIndex: Promise<void> = Promise.resolve();
	/** The indexing of the vault after the link engine's latest restart, if there was one. */
	private reindexing: Promise<void> | null = null;

	constructor(
		private readonly plugin: Plugin & { app: App },
		private readonly settings: () => Promise<VaultlinkSettings>,
		private readonly unloaded: () => boolean,
	) {}

	/**
	 * Indexes the vault once the engine and the layout are ready. Obsidian sends a `create` for
	 * every file while the vault loads; subscribing once the layout is ready skips those, and the
	 * first index covers the files instead. Nothing here waits: the index is built in the
	 * background.
	 */
	start({ engine, ready, options, startup, started }: FirstIndexStart): void {
		const app = this.plugin.app;
		this.firstIndex = ready.then(async () => {
			const linkIndex = await engine;
			if (this.unloaded()) {
				linkIndex.dispose();
				return;
			}
			if (linkIndex instanceof DirectEngine) {
				new Notice(
					`vaultlink: the link engine runs on Obsidian's main thread, since ${linkIndex.reason ?? "no worker was made"}; long calls such as a lint of the vault pause the app while they run.`,
					ERROR_NOTICE_MS,
				);
			}
			const indexer = new Indexer(app, linkIndex, options);
			this.linkIndex = linkIndex;
			this.indexer = indexer;
			if (linkIndex instanceof WorkerEngine) {
				this.plugin.register(linkIndex.onRestart((restart) => void this.indexAgainAfterRestart(linkIndex, indexer, restart)));
			}
			try {
				await applyObsidianConfig(app, linkIndex, (await this.settings()).linkForm);
			} catch (error) {
				// Unloaded meanwhile: the engine stopped with the plugin, and refused what was on its way.
				if (this.unloaded()) return;
				// The worker failed: its restart applies the settings and indexes the vault again.
				if (!(error instanceof EngineRestartedError)) throw error;
			}
			indexer.registerEvents(this.plugin);
			startup.firstIndexStartedMs = performance.now() - started;
			try {
				await indexer.indexAll();
			} catch (error) {
				if (this.unloaded()) return;
				if (!(error instanceof EngineRestartedError)) throw error;
				await this.indexedAgain();
			}
			startup.firstIndexDoneMs = performance.now() - started;
			console.debug(
				`vaultlink: the link engine loaded ${formatMs(startup.engineLoadedMs)} after onload began, the first index started at ${formatMs(startup.firstIndexStartedMs)} and was done at ${formatMs(startup.firstIndexDoneMs)}; onload itself took ${formatMs(startup.onloadMs)}`,
			);
		});
	}

	/** Stops the indexer and the engine as the plugin unloads. */
	stop(): void {
		this.indexer?.stop();
		this.indexer = null;
		this.linkIndex?.dispose();
		this.linkIndex = null;
	}

	/**
	 * The link index once it holds what the vault holds now: the first index complete and every
	 * waiting update applied. Null when unloaded.
	 */
	async settledIndex(): Promise<LinkEngine | null> {
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
	async idleIndex(): Promise<LinkEngine | null> {
		await this.firstIndex;
		await this.indexer?.whenIdle();
		return this.linkIndex;
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
			await applyObsidianConfig(this.plugin.app, engine, (await this.settings()).linkForm);
			await indexer.indexAll();
			if (this.unloaded()) return;
			engine.rebuilt();
		} catch (error) {
			// Unloaded meanwhile, or another crash, which starts its own indexing.
			if (this.unloaded() || error instanceof EngineRestartedError) return;
			console.error("vaultlink: the vault could not be indexed again after the link engine restarted", error);
			new Notice(`vaultlink: the vault could not be indexed again (${messageOf(error)}); disable and enable the plugin.`, ERROR_NOTICE_MS);
		}
	}
}

function formatMs(ms: number | null): string {
	return ms === null ? "(not reached)" : `${ms.toFixed(1)} ms`;
}
