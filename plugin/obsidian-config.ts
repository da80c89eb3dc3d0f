/**
 * Makes the link index follow Obsidian's own settings (excluded files, attachment folder, new
 * link format) from `.obsidian/app.json`, read through the adapter. Core reads the text, the
 * same way the sidecar does on the folder, so both paths answer alike. The settings tab shows
 * the same settings to the user (`describeObsidianSettings`).
 */

import { normalizePath, type App } from "obsidian";
import type { LinkEngine } from "./engine/client";
import type { LinkFormSetting } from "./settings/settings";
import { messageOf } from "./ui/notice";

/** The text of `app.json`, or null when there is none or it cannot be read. */
export async function readAppJson(app: App): Promise<string | null> {
	const path = normalizePath(`${app.vault.configDir}/app.json`);
	try {
		if (!(await app.vault.adapter.exists(path))) return null;
		return await app.vault.adapter.read(path);
	} catch (error) {
		console.warn(`vaultlink: could not read ${path}; using Obsidian's defaults`, error);
		return null;
	}
}

/**
 * Configures the index from `app.json` (Obsidian's defaults when there is none), with the form
 * rewritten links are written in (the plugin's "Rewritten links" setting).
 */
export async function applyObsidianConfig(app: App, index: LinkEngine, linkForm: LinkFormSetting = "obsidian"): Promise<void> {
	const text = await readAppJson(app);
	for (const warning of await index.configure(text ?? "{}", linkForm)) {
		console.warn(`vaultlink: ${warning}`);
	}
}

/** Obsidian's settings that bear on vaultlink, as the settings tab shows them. */
export interface ObsidianSettings {
	/** "Excluded files" that name folders, without slashes at either end. */
	excludedFolders: string[];
	/** "Excluded files" written as regular expressions, which vaultlink does not follow yet. */
	excludedPatterns: string[];
	/** "New link format": `shortest`, `relative` or `absolute`. */
	newLinkFormat: string;
	/** "Use [[Wikilinks]]" is off when this is true. */
	useMarkdownLinks: boolean;
	/** Why the file could not be read as settings, when it could not. */
	problem?: string;
}

/** Reads `app.json`'s text (null when absent) as Obsidian does, with Obsidian's defaults for what is missing. */
export function describeObsidianSettings(text: string | null): ObsidianSettings {
	const settings: ObsidianSettings = { excludedFolders: [], excludedPatterns: [], newLinkFormat: "shortest", useMarkdownLinks: false };
	if (text === null) return settings;
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		return { ...settings, problem: `app.json is not valid JSON (${messageOf(error)}), so Obsidian's defaults apply` };
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
		return { ...settings, problem: "app.json does not hold an object, so Obsidian's defaults apply" };
	}
	const record = parsed as Record<string, unknown>;
	const filters = record["userIgnoreFilters"];
	if (Array.isArray(filters)) {
		for (const filter of filters) {
			if (typeof filter !== "string") continue;
			if (filter.length > 1 && filter.startsWith("/") && filter.endsWith("/")) {
				settings.excludedPatterns.push(filter);
				continue;
			}
			const folder = filter.trim().replace(/^\/+|\/+$/g, "");
			if (folder !== "") settings.excludedFolders.push(folder);
		}
	}
	if (typeof record["newLinkFormat"] === "string") settings.newLinkFormat = record["newLinkFormat"];
	if (typeof record["useMarkdownLinks"] === "boolean") settings.useMarkdownLinks = record["useMarkdownLinks"];
	return settings;
}
