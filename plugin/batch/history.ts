/**
 * The changes kept for `undo_change` inside Obsidian: the same files, in the same format, as the
 * sidecar keeps on the folder (`crates/sidecar/src/history.rs`), in `<vault>/.vaultlink/changes`.
 * What to keep, under which name, and which to forget is core's (`crates/core/src/history.rs`);
 * this module reads and writes the files. Each is sealed like the journal, as a kept change of
 * this vault (never a journal), and a file that does not open so under this user's key, or is
 * larger than core's bound (which is not read), is never used.
 *
 * A change is kept as part of its commit (`batch/execute.ts`): written and synced while its journal
 * holds the vault's lock, before the journal goes, so a batch stopped at any step is undone by
 * `vaultlink recover` (which removes what was kept of it) or made and kept.
 */

import * as fs from "fs";
import * as path from "path";
import { FileSystemAdapter, type DataAdapter } from "obsidian";
import { JOURNAL_FOLDER, openSealed, removeIfEmpty, removeQuietly, sealFor, syncFolder, writeNew } from "./journal";
import { CHANGES_FOLDER, cannotBeRead } from "../wire";
import { changesToForget, isKeptChangeName, isUndoneChangeName, keptChangeName, type Journal, type KeptChange, type ListedChange } from "../wasm";
import { messageOf } from "../ui/notice";

export { CHANGES_FOLDER };

type ChangesAdapter = Pick<DataAdapter, "exists" | "read" | "write" | "remove" | "mkdir" | "rmdir" | "list" | "stat" | "getName">;

/** The kept changes that open under this user's key as this vault's, oldest first. */
export async function keptChanges(adapter: ChangesAdapter): Promise<KeptChange[]> {
	return (await listedChanges(adapter)).filter((listed): listed is KeptChange => "journal" in listed);
}

/** Every file named as a kept change, oldest first: opened, or with why it would not open (core lists it, and an undo without an id never reaches past it). */
export async function listedChanges(adapter: ChangesAdapter): Promise<ListedChange[]> {
	return listedFiles(adapter, isKeptChangeName);
}

/**
 * The kept changes undoes set aside, each the record that its undo was made (core answers a
 * retried undo `already_applied` from them, and tells them from kept changes by their names);
 * one that does not open records nothing.
 */
export async function undoneChanges(adapter: ChangesAdapter): Promise<KeptChange[]> {
	return (await listedFiles(adapter, isUndoneChangeName)).filter((listed): listed is KeptChange => "journal" in listed);
}

async function listedFiles(adapter: ChangesAdapter, named: (file: string) => boolean): Promise<ListedChange[]> {
	if (!(await adapter.exists(CHANGES_FOLDER))) return [];
	const listed: ListedChange[] = [];
	const files = await adapter.list(CHANGES_FOLDER);
	for (const name of files.files.filter((file) => named(file)).sort()) {
		try {
			const opened = await openSealed(adapter, name, "kept");
			if ("journal" in opened) listed.push({ name, journal: opened.journal });
			else {
				console.warn(`vaultlink: ${name} is not used for undo: ${opened.refusal}`);
				listed.push({ name, why: opened.refusal });
			}
		} catch (error) {
			console.warn(`vaultlink: ${name} is not used for undo`, error);
			listed.push({ name, why: cannotBeRead(messageOf(error)) });
		}
	}
	return listed;
}

/**
 * Keeps an applied batch's journal for `undo_change`, as part of its commit: called while the
 * batch's journal holds the lock, before it is removed. Written whole under a name of its own,
 * synced, put in place without replacing, and the folder's entry synced: on the disk before the
 * journal goes. Answers the kept change's name; throws when it cannot be kept (the batch is then
 * undone).
 */
export async function keepChange(adapter: ChangesAdapter, journal: Journal): Promise<string> {
	const made = sealFor(adapter, "kept", journal);
	if ("error" in made) throw new Error(made.error.message);
	if (!(await adapter.exists(JOURNAL_FOLDER))) await adapter.mkdir(JOURNAL_FOLDER);
	if (!(await adapter.exists(CHANGES_FOLDER))) await adapter.mkdir(CHANGES_FOLDER);
	const existing = (await adapter.list(CHANGES_FOLDER)).files.filter((file) => isKeptChangeName(file));
	const name = keptChangeName(Date.now(), journal.change_id ?? "", existing);
	if (!(adapter instanceof FileSystemAdapter)) {
		// No folder on disk (not a desktop vault, which the plugin is not made for): the adapter's write.
		await adapter.write(name, made.sealed);
		return name;
	}
	const base = adapter.getBasePath();
	// Nothing is written through a symbolic link: it may lead out of the vault.
	if (!fs.lstatSync(path.join(base, ...CHANGES_FOLDER.split("/"))).isDirectory()) throw new Error(`${CHANGES_FOLDER} is not a folder of the vault (a symbolic link, or a file)`);
	const target = path.join(base, ...name.split("/"));
	const temporary = `${target}.tmp`;
	removeQuietly(temporary);
	try {
		writeNew(temporary, made.sealed);
		// A hard link fails when anything is at the name: a kept change is never replaced.
		fs.linkSync(temporary, target);
	} finally {
		removeQuietly(temporary);
	}
	try {
		syncFolder(path.join(base, ...CHANGES_FOLDER.split("/")));
	} catch (error) {
		removeQuietly(target);
		throw error;
	}
	return name;
}

/** Where an undo sets aside the kept change it consumes (core's `history::set_aside_name`): not a kept change's name, so no undo picks it. */
function setAsideName(name: string): string {
	return `${name}.undone`;
}

/**
 * Sets aside the kept change an undo consumes, as part of the undo's commit: called while the
 * undo's journal holds the lock, before it goes, so no undo picks it once this one is made, and
 * `vaultlink recover`, undoing this undo, puts it back. Through Node's `fs` (a link, which never
 * replaces, then the old name removed), the folder synced. Whether it set one aside.
 */
export async function setAside(adapter: ChangesAdapter, name: string): Promise<boolean> {
	if (!isKeptChangeName(name) || !(await adapter.exists(name))) return false;
	if (!(adapter instanceof FileSystemAdapter)) {
		await adapter.write(setAsideName(name), await adapter.read(name));
		await adapter.remove(name);
		return true;
	}
	const base = adapter.getBasePath();
	const record = path.join(base, ...name.split("/"));
	fs.linkSync(record, `${record}.undone`);
	fs.unlinkSync(record);
	syncFolder(path.dirname(record));
	return true;
}

/** Puts back what {@link setAside} set aside, when the undo is itself undone. */
export async function putBackSetAside(adapter: ChangesAdapter, name: string): Promise<void> {
	if (!(await adapter.exists(setAsideName(name)))) return;
	if (!(adapter instanceof FileSystemAdapter)) {
		await adapter.write(name, await adapter.read(setAsideName(name)));
		await adapter.remove(setAsideName(name));
		return;
	}
	const record = path.join(adapter.getBasePath(), ...name.split("/"));
	fs.linkSync(`${record}.undone`, record);
	fs.unlinkSync(`${record}.undone`);
}

/** Forgets the oldest kept changes past core's bounds, and the oldest records of undoes past the same bounds: tidying once a batch is made. */
export async function forgetOldest(adapter: ChangesAdapter): Promise<void> {
	if (!(await adapter.exists(CHANGES_FOLDER))) return;
	const files = (await adapter.list(CHANGES_FOLDER)).files;
	for (const named of [isKeptChangeName, isUndoneChangeName]) {
		const records: { name: string; size: number }[] = [];
		for (const name of files.filter((file) => named(file))) records.push({ name, size: (await adapter.stat(name))?.size ?? 0 });
		for (const name of changesToForget(records)) await adapter.remove(name);
	}
}

/**
 * Removes a kept change (a delete's whose move to the trash failed), and the folders left empty;
 * the one an undo consumed stays set aside as the record of the undo, and the oldest such
 * records past core's bounds go.
 */
export async function forgetChange(adapter: ChangesAdapter, name: string): Promise<void> {
	if (!isKeptChangeName(name)) return;
	if (await adapter.exists(name)) await adapter.remove(name);
	await forgetOldest(adapter);
	for (const folder of [CHANGES_FOLDER, JOURNAL_FOLDER]) {
		try {
			await removeIfEmpty(adapter, folder);
		} catch {
			// Left as it is: tidying, after the undo is done.
		}
	}
}
