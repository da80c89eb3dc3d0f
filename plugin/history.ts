//! The changes kept for `undo_change` inside Obsidian: the same files, in the same format, as the
//! sidecar keeps on the folder (`crates/sidecar/src/history.rs`), in `<vault>/.vaultlink/changes`.
//! What to keep, under which name, and which to forget is core's (`crates/core/src/history.rs`);
//! this module reads and writes the files through the vault's adapter. Each is sealed like the
//! journal, and a file that does not open under this user's key is never used.

import type { DataAdapter } from "obsidian";
import { JOURNAL_FOLDER, removeIfEmpty } from "./move/journal";
import { firstLinkOnTheWay } from "./move/links-out";
import { journalKey } from "./state";
import { changesToForget, isKeptChangeName, keptChangeName, openJournal, sealJournal, type Journal, type KeptChange } from "./wasm";

export const CHANGES_FOLDER = `${JOURNAL_FOLDER}/changes`;

type ChangesAdapter = Pick<DataAdapter, "exists" | "read" | "write" | "remove" | "mkdir" | "rmdir" | "list" | "stat">;

/** The kept changes that open under this user's key, oldest first. */
export async function keptChanges(adapter: ChangesAdapter): Promise<KeptChange[]> {
	if (!(await adapter.exists(CHANGES_FOLDER))) return [];
	const kept: KeptChange[] = [];
	const listed = await adapter.list(CHANGES_FOLDER);
	for (const name of listed.files.filter((file) => isKeptChangeName(file)).sort()) {
		try {
			const opened = openJournal(journalKey(), await adapter.read(name));
			if (opened.journal !== undefined && opened.journal !== null) kept.push({ name, journal: opened.journal as Journal });
			else console.warn(`vaultlink: ${name} is not used for undo: ${opened.refusal ?? "it cannot be opened"}`);
		} catch (error) {
			console.warn(`vaultlink: ${name} is not used for undo`, error);
		}
	}
	return kept;
}

/** Keeps an applied batch's journal for `undo_change`, then forgets the oldest past core's bounds. */
export async function keepChange(adapter: ChangesAdapter, journal: Journal): Promise<void> {
	if (journal.change_id === undefined || journal.change_id === "") return;
	// Never through a link out of the vault: the record holds notes' texts.
	const linked = firstLinkOnTheWay(adapter, [CHANGES_FOLDER]);
	if (linked !== null) throw new Error(`\`${linked.link}\` is a symbolic link, so the change is not kept through it`);
	if (!(await adapter.exists(JOURNAL_FOLDER))) await adapter.mkdir(JOURNAL_FOLDER);
	if (!(await adapter.exists(CHANGES_FOLDER))) await adapter.mkdir(CHANGES_FOLDER);
	await adapter.write(keptChangeName(Date.now(), journal.change_id), sealJournal(journalKey(), journal));
	const records: { name: string; size: number }[] = [];
	for (const name of (await adapter.list(CHANGES_FOLDER)).files.filter((file) => isKeptChangeName(file))) {
		records.push({ name, size: (await adapter.stat(name))?.size ?? 0 });
	}
	for (const name of changesToForget(records)) await adapter.remove(name);
}

/** Removes the kept change an undo consumed, and the folders left empty. */
export async function forgetChange(adapter: ChangesAdapter, name: string): Promise<void> {
	if (!isKeptChangeName(name)) return;
	if (await adapter.exists(name)) await adapter.remove(name);
	for (const folder of [CHANGES_FOLDER, JOURNAL_FOLDER]) {
		try {
			await removeIfEmpty(adapter, folder);
		} catch {
			// Left as it is: tidying, after the undo is done.
		}
	}
}
