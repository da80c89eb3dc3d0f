/**
 * The plugin's settings: what they are, their defaults (`DEFAULT_SETTINGS`, the one place a
 * default is chosen), and reading them back from `data.json`. Reading never fails: a value
 * that is not what it should be is replaced by its default with a sentence saying so, and keys
 * this version does not know are kept, so saving loses nothing another version wrote.
 */

import { normalizePath } from "obsidian";

export interface VaultlinkSettings {
	/**
	 * Whether the bridge listens, so the `vaultlink` sidecar can answer agents from this
	 * window's live index. Off: no socket, no discovery file; the sidecar reads the folder.
	 */
	bridgeEnabled: boolean;
	/**
	 * Lint kinds the "Vault lint" view leaves out, of those core runs by default. What is off is
	 * stored rather than what is on, so a kind a later version of core adds runs until the user
	 * turns it off.
	 */
	disabledLintKinds: string[];
	/**
	 * Lint kinds the view runs, of those core runs only when named (`by_default` false, such as
	 * `dead_end`, which on most vaults lists most notes). What is on is stored, so such a kind
	 * stays off until the user turns it on.
	 */
	optInLintKinds: string[];
	/**
	 * Folders whose notes are never lint subjects, besides Obsidian's own "Excluded files"
	 * (which always apply). An excluded note stays a link target.
	 */
	excludedFolders: string[];
	/** The sidecar's command, as MCP clients are told to run it: a name on PATH or an absolute path. */
	sidecarCommand: string;
	/**
	 * How a rewritten link is written: as Obsidian would write it under its "New link format"
	 * (`obsidian`), or in the form it was written in (`keep`). Core decides either way
	 * (`link_form`).
	 */
	linkForm: LinkFormSetting;
}

/** The forms a rewritten link can be written in, as core names them. */
export type LinkFormSetting = "obsidian" | "keep";

export const DEFAULT_SETTINGS: Readonly<VaultlinkSettings> = Object.freeze({
	bridgeEnabled: true,
	disabledLintKinds: [],
	optInLintKinds: [],
	excludedFolders: [],
	sidecarCommand: "vaultlink",
	linkForm: "obsidian",
});

/** Settings as read from `data.json`, what could not be used, and what else the file held. */
export interface LoadedSettings {
	settings: VaultlinkSettings;
	/** One sentence per value replaced by its default, saying what to do. */
	problems: string[];
	/** Keys of `data.json` this version does not know, written back unchanged on save. */
	unknown: Record<string, unknown>;
}

const KEYS: (keyof VaultlinkSettings)[] = ["bridgeEnabled", "disabledLintKinds", "optInLintKinds", "excludedFolders", "sidecarCommand", "linkForm"];

function fresh(): VaultlinkSettings {
	return { ...DEFAULT_SETTINGS, disabledLintKinds: [], optInLintKinds: [], excludedFolders: [] };
}

/** Reads what `loadData` gave (null when there is no `data.json` yet). */
export function readSettings(data: unknown): LoadedSettings {
	const settings = fresh();
	const problems: string[] = [];
	const unknown: Record<string, unknown> = {};
	if (data === null || data === undefined) return { settings, problems, unknown };
	if (typeof data !== "object" || Array.isArray(data)) {
		problems.push("its data.json does not hold an object of settings; the defaults are used until you change a setting, which rewrites it");
		return { settings, problems, unknown };
	}
	const record = data as Record<string, unknown>;
	for (const [key, value] of Object.entries(record)) {
		if (!(KEYS as string[]).includes(key)) unknown[key] = value;
	}
	const replaced = (key: string, expected: string, fallback: string) =>
		problems.push(`the setting \`${key}\` in its data.json is not ${expected}; ${fallback} is used until you change it in the plugin's settings`);

	const bridge = record["bridgeEnabled"];
	if (typeof bridge === "boolean") settings.bridgeEnabled = bridge;
	else if (bridge !== undefined) replaced("bridgeEnabled", "true or false", "on");

	const kinds = record["disabledLintKinds"];
	if (isStringList(kinds)) settings.disabledLintKinds = [...new Set(kinds)];
	else if (kinds !== undefined) replaced("disabledLintKinds", "a list of lint kinds", "every kind");

	const optIn = record["optInLintKinds"];
	if (isStringList(optIn)) settings.optInLintKinds = [...new Set(optIn)];
	else if (optIn !== undefined) replaced("optInLintKinds", "a list of lint kinds", "none of the kinds that are off by default");

	const folders = record["excludedFolders"];
	if (isStringList(folders)) settings.excludedFolders = tidyFolders(folders);
	else if (folders !== undefined) replaced("excludedFolders", "a list of folders", "no extra folder");

	const command = record["sidecarCommand"];
	if (typeof command === "string" && command.trim() !== "") settings.sidecarCommand = command.trim();
	else if (command !== undefined) replaced("sidecarCommand", "the vaultlink program's name or path", `\`${DEFAULT_SETTINGS.sidecarCommand}\``);

	const linkForm = record["linkForm"];
	if (linkForm === "obsidian" || linkForm === "keep") settings.linkForm = linkForm;
	else if (linkForm !== undefined) replaced("linkForm", '"obsidian" or "keep"', "writing links as Obsidian would");

	return { settings, problems, unknown };
}

/** What `saveData` is given: the settings over the keys this version did not know. */
export function settingsData(settings: VaultlinkSettings, unknown: Record<string, unknown>): Record<string, unknown> {
	return { ...unknown, ...settings };
}

function isStringList(value: unknown): value is string[] {
	return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * Folders as the lint takes them: vault paths without leading or trailing slashes, tidied as
 * Obsidian tidies paths, each once, in the order given; blank lines dropped.
 */
export function tidyFolders(folders: string[]): string[] {
	const tidy = folders.map((folder) => folder.trim()).filter((folder) => folder !== "" && folder !== "/").map((folder) => normalizePath(folder));
	return [...new Set(tidy.filter((folder) => folder !== "/"))];
}

/** A lint rule as the settings need it: its kind, and whether core runs it by default. */
export interface LintKindDefault {
	kind: string;
	by_default: boolean;
}

/**
 * Whether the lint runs `rule`'s kind: a kind core runs by default unless turned off, one that
 * core runs only when named (such as `dead_end`) only once turned on.
 */
export function isLintKindOn(rule: LintKindDefault, settings: VaultlinkSettings): boolean {
	return rule.by_default ? !settings.disabledLintKinds.includes(rule.kind) : settings.optInLintKinds.includes(rule.kind);
}

/** Turns `rule`'s kind on or off in `settings`, in the list that records it. */
export function setLintKind(settings: VaultlinkSettings, rule: LintKindDefault, on: boolean): void {
	if (rule.by_default) {
		const others = settings.disabledLintKinds.filter((kind) => kind !== rule.kind);
		settings.disabledLintKinds = on ? others : [...others, rule.kind];
	} else {
		const others = settings.optInLintKinds.filter((kind) => kind !== rule.kind);
		settings.optInLintKinds = on ? [...others, rule.kind] : others;
	}
}

/** The lint kinds to run, of every rule core has: those that are on (`isLintKindOn`). */
export function enabledLintKinds(rules: LintKindDefault[], settings: VaultlinkSettings): string[] {
	return rules.filter((rule) => isLintKindOn(rule, settings)).map((rule) => rule.kind);
}
