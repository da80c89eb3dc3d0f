/**
 * The vault's sealing keys on the disk, through Node's `fs` inside Obsidian: the same files, read
 * and made by the same rules, as the sidecar's (`crates/sidecar/src/seal_keys.rs`); every rule is
 * core's (`crates/core/src/seal_key.rs`), reached through the wasm module.
 *
 * A key file is `<vault>/.vaultlink/keys/<id>.key`, opened without following a link and used
 * only when what was opened is a plain file of this user, of mode 0600 (but on Windows), no
 * larger than core's bound, holding a key; the key a seal is made with is derived from its secret
 * and the file's identity (`ino`: the inode, or on Windows the file index), so a copy of the file
 * is never a usable key. Nothing here depends on the home folder: a Flatpak or Snap Obsidian and
 * a sidecar elsewhere find the same key in the vault they share.
 */

import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { journalKeyNamed, openJournal, sealJournal, sealKey, sealKeyCandidates, sealKeyNewId, sealKeyRefusal, sealKeySecret, sealKeyUnusable, type Journal, type Purpose, type SealKeyUnusable, type ToolError } from "../wasm";
import { KEYS_FOLDER, OWN_FOLDER } from "../wire";
import { messageOf } from "../ui/notice";

const VAULTLINK_FOLDER = OWN_FOLDER;
/** More than a key file may hold (core's `seal_key::MAX_KEY_FILE_BYTES` is 128): a read stops here. */
const READ_AT_MOST = 256;
/** The most names of the keys folder looked at; core looks at no more than 16 of them. */
const NAMES_AT_MOST = 4096;

/** A key to seal with: its id, which the sealed file names, and the derived key. */
export interface SealKey {
	id: string;
	key: Uint8Array;
}

function keysFolder(base: string): string {
	return path.join(base, ...KEYS_FOLDER.split("/"));
}

/** No folder between the vault and the keys is a symbolic link (or anything but a folder). */
function foldersArePlain(base: string): boolean {
	let current = base;
	for (const name of KEYS_FOLDER.split("/")) {
		current = path.join(current, name);
		const stat = fs.lstatSync(current, { throwIfNoEntry: false });
		if (stat === undefined) return true;
		if (!stat.isDirectory()) return false;
	}
	return true;
}

/** The key of `id`, from its file in the vault at `base`, when that file may be used. */
export function keyOf(base: string, id: string): { key: Uint8Array } | { unusable: SealKeyUnusable } {
	if (!/^[0-9a-f]{16}$/.test(id)) return { unusable: { kind: "missing" } };
	const file = path.join(keysFolder(base), `${id}.key`);
	let fd: number;
	try {
		if (!foldersArePlain(base)) return { unusable: { kind: "not_plain_file" } };
		if (process.platform === "win32") {
			// Windows has no O_NOFOLLOW: the name is looked at first.
			const stat = fs.lstatSync(file, { throwIfNoEntry: false });
			if (stat === undefined) return { unusable: { kind: "missing" } };
			if (!stat.isFile()) return { unusable: { kind: "not_plain_file" } };
			fd = fs.openSync(file, "r");
		} else {
			fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
		}
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { unusable: { kind: "missing" } };
		if (code === "ELOOP") return { unusable: { kind: "not_plain_file" } };
		return { unusable: { kind: "unreadable", detail: messageOf(error) } };
	}
	try {
		// What is checked is what was opened, so a file swapped meanwhile is not read.
		const stat = fs.fstatSync(fd, { bigint: true });
		const windows = process.platform === "win32";
		const ours = windows || typeof process.getuid !== "function" || stat.uid === BigInt(process.getuid());
		const unusable = sealKeyUnusable(stat.isFile(), windows ? undefined : Number(stat.mode), ours, Number(stat.size));
		if (unusable !== undefined) return { unusable };
		const buffer = Buffer.alloc(READ_AT_MOST);
		let read = 0;
		for (let got = 1; got > 0 && read < buffer.length; read += got) got = fs.readSync(fd, buffer, read, buffer.length - read, read);
		const secret = sealKeySecret(buffer.subarray(0, read));
		if (secret === undefined) return { unusable: { kind: "not_a_key" } };
		return { key: sealKey(secret, stat.ino) };
	} catch (error) {
		return { unusable: { kind: "unreadable", detail: messageOf(error) } };
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * The key to seal with in the vault at `base`: the first usable key file (core's order), or one
 * made now when there is none. Another key file is never removed or overwritten: it may be a sync
 * peer's.
 */
export function sealingKey(base: string): SealKey {
	const found = usableKey(base);
	return "key" in found ? found.key : makeKey(base, found.passedOver);
}

/** The first usable key file of the vault at `base` (core's order), without making one: the key, or the ids passed over. */
export function usableKey(base: string): { key: SealKey } | { passedOver: string[] } {
	let names: string[] = [];
	try {
		names = fs.readdirSync(keysFolder(base)).slice(0, NAMES_AT_MOST);
	} catch {
		// No keys yet.
	}
	const candidates = sealKeyCandidates(names);
	for (const id of candidates) {
		const found = keyOf(base, id);
		if ("key" in found) return { key: { id, key: found.key } };
	}
	return { passedOver: candidates };
}

/** Makes a folder of the vault's `.vaultlink` when it is not there; refuses one that is a link. */
function makeFolder(folder: string): void {
	try {
		fs.mkdirSync(folder);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
	}
	if (!fs.lstatSync(folder).isDirectory()) throw new Error(`${folder} is not a folder of the vault (a symbolic link, or a file), so no key is kept in it`);
}

/**
 * Makes a new key file: written whole and synced under a temporary name (mode 0600, created
 * exclusively), then renamed into place; its id is random (below those passed over, so it comes
 * first from now on), so no other file has its name.
 */
function makeKey(base: string, passedOver: string[]): SealKey {
	const top = path.join(base, VAULTLINK_FOLDER);
	const folder = keysFolder(base);
	try {
		makeFolder(top);
		makeFolder(folder);
		// So that git never commits the folder (a key is of no use elsewhere, but journals and
		// kept changes hold notes' texts): one line, never replacing a file the user wrote.
		try {
			fs.writeFileSync(path.join(top, ".gitignore"), "*\n", { flag: "wx", mode: 0o600 });
		} catch {
			// There already, or not writable: the key does not depend on it.
		}
		const random = crypto.randomBytes(40);
		const secret = random.subarray(0, 32).toString("hex");
		const id = sealKeyNewId(random.subarray(32), passedOver);
		const temporary = path.join(folder, `.${id}.key.tmp`);
		const file = path.join(folder, `${id}.key`);
		const fd = fs.openSync(temporary, "wx", 0o600);
		try {
			fs.writeSync(fd, `${secret}\n`);
			fs.fsyncSync(fd);
		} finally {
			fs.closeSync(fd);
		}
		try {
			if (fs.existsSync(file)) throw new Error(`${file} is there already`);
			fs.renameSync(temporary, file);
		} catch (error) {
			fs.rmSync(temporary, { force: true });
			throw error;
		}
		const made = keyOf(base, id);
		if ("unusable" in made) throw new Error(sealKeyRefusal(id, made.unusable));
		return { id, key: made.key };
	} catch (error) {
		throw new Error(`making the vault's sealing key in ${folder} failed: ${messageOf(error)}`);
	}
}

/** `journal` sealed for `purpose` with the sealing key of the vault at `base`; or the error (a journal past core's bound). */
export function sealIn(base: string, purpose: Purpose, journal: Journal): { sealed: string } | { error: ToolError } {
	const key = sealingKey(base);
	return sealJournal(key.key, purpose, key.id, journal);
}

/** A journal or kept change file's text, opened as a file of `purpose` with the key file of the vault at `base` that it names. */
export function openIn(base: string, purpose: Purpose, text: string): { journal: Journal } | { refusal: string } {
	const named = journalKeyNamed(text);
	if (named.key === undefined || named.key === null) return { refusal: named.refusal ?? "it names no key" };
	const found = keyOf(base, named.key);
	if ("unusable" in found) return { refusal: sealKeyRefusal(named.key, found.unusable) };
	const opened = openJournal(found.key, purpose, named.key, text);
	return opened.journal !== undefined && opened.journal !== null ? { journal: opened.journal as Journal } : { refusal: opened.refusal ?? "it cannot be opened" };
}
