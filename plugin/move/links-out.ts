/**
 * No step inside Obsidian goes through a symbolic link or a junction. Obsidian shows a folder
 * that is a link (a cloned or shared vault can carry `Inbox -> ~/.config/autostart`) as an
 * ordinary folder, and its Vault API follows the link wherever it leads, so a move, write, create
 * or delete there would land outside the vault. Core names every path a change touches
 * (`Change::paths_to_guard`, handed over as the call outcome's `guard`); this module looks at
 * each existing component of those paths on the disk with Node's `fs.lstat`, which reports a
 * symbolic link as one (and a Windows junction too) instead of following it. The batch checks
 * them all before its first step, the paths of each step again right before it, and afterwards
 * that what it moved or made is where it should be. Reads through a link stay allowed, as
 * Obsidian reads them (SECURITY.md).
 */

import * as fs from "fs";
import * as path from "path";
import { FileSystemAdapter } from "obsidian";

/** A path of the vault reached through a symbolic link: `link` is the first component that is one. */
export interface LinkOnTheWay {
	path: string;
	link: string;
}

/**
 * The first component of `vaultPath` under `base` that is a symbolic link or junction, as a vault
 * path, or null when there is none. The walk ends at the first component that does not exist
 * (nothing below it does either) or that is a file (nothing can be below it).
 */
export function linkOnTheWay(base: string, vaultPath: string): string | null {
	let full = base;
	let shown = "";
	for (const segment of vaultPath.split("/")) {
		if (segment === "") continue;
		full = path.join(full, segment);
		shown = shown === "" ? segment : `${shown}/${segment}`;
		let stat: fs.Stats | undefined;
		try {
			stat = fs.lstatSync(full, { throwIfNoEntry: false });
		} catch (error) {
			// A file where a folder would be: nothing is below it, and the step fails on its own.
			if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
			throw error;
		}
		if (stat === undefined) return null;
		if (stat.isSymbolicLink()) return shown;
		if (!stat.isDirectory()) return null;
	}
	return null;
}

/**
 * The first of `paths` reached through a symbolic link in the vault behind `adapter`, or null.
 * An adapter with no folder on disk (not a desktop vault, which the plugin is not made for) has
 * no links to follow.
 */
export function firstLinkOnTheWay(adapter: object, paths: readonly string[]): LinkOnTheWay | null {
	if (!(adapter instanceof FileSystemAdapter)) return null;
	const base = adapter.getBasePath();
	for (const vaultPath of paths) {
		const link = linkOnTheWay(base, vaultPath);
		if (link !== null) return { path: vaultPath, link };
	}
	return null;
}

/** Whether something (a file or folder, not a link) is at `vaultPath` on the disk, seen without following a link. */
export function presentOnDisk(adapter: object, vaultPath: string): boolean {
	if (!(adapter instanceof FileSystemAdapter)) return true;
	const stat = fs.lstatSync(path.join(adapter.getBasePath(), ...vaultPath.split("/")), { throwIfNoEntry: false });
	return stat !== undefined && !stat.isSymbolicLink();
}
