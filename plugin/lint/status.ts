//! The status-bar count of unresolved links: how many missing targets `find_unresolved_links`
//! reports, refreshed once the vault's events have been quiet for a while and the indexer is
//! idle. Clicking it opens the "Vault lint" view.

import { debounce, type Debouncer, type Plugin } from "obsidian";

/** How long the vault's events must be quiet before the count is refreshed. */
export const STATUS_REFRESH_MS = 1000;

export class UnresolvedLinksStatus {
	private readonly item: HTMLElement;
	private readonly scheduled: Debouncer<[], void>;
	private readonly count: () => Promise<number | null>;
	/** The refresh under way or last finished; refreshes run one after another. */
	private refreshing: Promise<void> = Promise.resolve();

	/** `count` gives the number of missing targets once the index is idle, or null when unloaded. */
	constructor(plugin: Plugin, count: () => Promise<number | null>, onClick: () => void) {
		this.count = count;
		this.item = plugin.addStatusBarItem();
		this.item.addClass("vaultlink-unresolved-status");
		this.item.onClickEvent(onClick);
		this.scheduled = debounce(() => void this.refresh(), STATUS_REFRESH_MS, true);
		const vault = plugin.app.vault;
		plugin.registerEvent(vault.on("create", () => this.scheduled()));
		plugin.registerEvent(vault.on("modify", () => this.scheduled()));
		plugin.registerEvent(vault.on("delete", () => this.scheduled()));
		plugin.registerEvent(vault.on("rename", () => this.scheduled()));
		plugin.register(() => {
			this.unloaded = true;
			this.scheduled.cancel();
		});
	}

	/** Set once the plugin unloads: its index is freed, so a count still under way means nothing. */
	private unloaded = false;

	/** Counts again now (after the refresh under way, if any). */
	refresh(): Promise<void> {
		this.refreshing = this.refreshing
			.then(() => this.update())
			.catch((error: unknown) => {
				// A count cut short by the plugin unloading (its index freed under it) is no failure.
				if (!this.unloaded) console.error("vaultlink: could not count the unresolved links", error);
			});
		return this.refreshing;
	}

	/** Runs a refresh still waiting for quiet now, and waits for every refresh started. */
	async settle(): Promise<void> {
		this.scheduled.run();
		await this.refreshing;
	}

	private async update(): Promise<void> {
		if (this.unloaded) return;
		const total = await this.count();
		if (total === null || this.unloaded) return;
		this.item.setText(`${total} unresolved ${total === 1 ? "link" : "links"}`);
	}
}
