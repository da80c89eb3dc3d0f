/**
 * The plugin's settings as it holds them from load to unload: read from `data.json` once, what
 * cannot be used replaced by its default and said once, and saved one save at a time, keeping
 * what `data.json` held that this version does not know.
 */

import { Notice, type Plugin } from "obsidian";
import { ERROR_NOTICE_MS, messageOf } from "../ui/notice";
import { readSettings, settingsData, type VaultlinkSettings } from "./settings";

/** The settings, read and saved through the plugin's `data.json`. */
export class SettingsStore {
	/** The settings once read; null before that. */
	loaded: VaultlinkSettings | null = null;
	/** Resolves once the settings are read. Set by `read`. */
	settingsRead: Promise<VaultlinkSettings> = Promise.resolve(readSettings(null).settings);
	/** Keys of `data.json` this version does not know; saved back unchanged. */
	private unknown: Record<string, unknown> = {};
	/** The settings save under way, if any; the next waits for it. */
	private saving: Promise<void> = Promise.resolve();

	constructor(private readonly plugin: Plugin) {}

	/** Reads `data.json`; what cannot be used is replaced by its default and said once. */
	read(): Promise<VaultlinkSettings> {
		this.settingsRead = this.readData();
		return this.settingsRead;
	}

	/**
	 * Changes the settings with `change` and saves them. `changed` runs first with the settings
	 * before and after the change (the index follows a new link form from the next call on). A
	 * failed save is said in a notice; the change holds until Obsidian restarts.
	 */
	async save(change: (settings: VaultlinkSettings) => void, changed: (before: VaultlinkSettings["linkForm"], settings: VaultlinkSettings) => Promise<void>): Promise<void> {
		const settings = await this.settingsRead;
		const linkForm = settings.linkForm;
		change(settings);
		await changed(linkForm, settings);
		// One save at a time: two writes of data.json under way at once can interleave and leave
		// it unreadable (Node's writeFile, which Obsidian's adapter uses, is not safe to overlap
		// on one file). Each save writes the settings as they are when its turn comes.
		const save = this.saving.then(async () => {
			try {
				await this.plugin.saveData(settingsData(settings, this.unknown));
			} catch (error) {
				console.error("vaultlink: could not save its settings", error);
				new Notice(`vaultlink: the settings could not be saved (${messageOf(error)}); the change holds until Obsidian restarts. Check that the vault's folder is writable.`, ERROR_NOTICE_MS);
			}
		});
		this.saving = save;
		await save;
	}

	private async readData(): Promise<VaultlinkSettings> {
		let data: unknown = null;
		try {
			data = await this.plugin.loadData();
		} catch (error) {
			console.warn("vaultlink: could not read its data.json", error);
			new Notice(`vaultlink: its settings file could not be read (${messageOf(error)}); the defaults are used until you change a setting, which rewrites it.`, ERROR_NOTICE_MS);
		}
		const loaded = readSettings(data);
		for (const problem of loaded.problems) {
			console.warn(`vaultlink: ${problem}`);
			new Notice(`vaultlink: ${problem}.`, ERROR_NOTICE_MS);
		}
		this.unknown = loaded.unknown;
		this.loaded = loaded.settings;
		return loaded.settings;
	}
}
