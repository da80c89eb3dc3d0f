/**
 * The status-bar count of unresolved links: how many missing targets `find_unresolved_links`
 * reports. The index keeps that number as it changes (core's `Vault::missing_targets`), and the
 * link engine tells the plugin after an update that changed it; this only shows it, so no save
 * costs the UI thread, or the worker, a count. Clicking it opens the "Vault lint" view.
 */

import type { Plugin } from "obsidian";
import { EngineRestartedError, type LinkEngine } from "../engine/client";

export class UnresolvedLinksStatus {
	private readonly item: HTMLElement;
	private readonly index: () => Promise<LinkEngine | null>;
	/** Set once the plugin unloads: its engine is stopped, so a count still under way means nothing. */
	private unloaded = false;
	private unsubscribe: (() => void) | null = null;
	/** The subscription under way or done. */
	private readonly attached: Promise<void>;

	/** `index` gives the link engine once the first index is complete, or null when unloaded. */
	constructor(plugin: Plugin, index: () => Promise<LinkEngine | null>, onClick: () => void) {
		this.index = index;
		this.item = plugin.addStatusBarItem();
		this.item.addClass("vaultlink-unresolved-status");
		this.item.onClickEvent(onClick);
		plugin.register(() => {
			this.unloaded = true;
			this.unsubscribe?.();
			this.unsubscribe = null;
		});
		this.attached = this.attach().catch((error: unknown) => this.failed(error));
	}

	/** Follows the engine's count from the first index on. */
	private async attach(): Promise<void> {
		const engine = await this.index();
		if (engine === null || this.unloaded) return;
		this.unsubscribe = engine.onUnresolvedCount((count) => this.show(count));
		await engine.unresolvedCount();
	}

	/** Waits until the count shown is the index's once every update made so far is applied. */
	async settle(): Promise<void> {
		await this.attached;
		try {
			const engine = await this.index();
			if (engine === null || this.unloaded) return;
			await engine.unresolvedCount();
		} catch (error) {
			this.failed(error);
		}
	}

	private show(total: number): void {
		if (this.unloaded) return;
		this.item.setText(`${total} unresolved ${total === 1 ? "link" : "links"}`);
	}

	private failed(error: unknown): void {
		// A count cut short by the plugin unloading (its engine stopped under it) is no failure, nor
		// one cut short by the engine's restart, which tells the count again once it indexed the vault.
		if (!this.unloaded && !(error instanceof EngineRestartedError)) console.error("vaultlink: could not count the unresolved links", error);
	}
}
