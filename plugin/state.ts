//! The user's own vaultlink folder on this machine, outside every vault, and the journal key in
//! it: the same folder and key the sidecar uses (`crates/sidecar/src/state.rs`). The folder is
//! found from the home folder alone, never from variables a desktop session sets and an MCP
//! client's filtered environment drops: `~/.local/state/vaultlink` on Linux and other Unix
//! systems, `~/Library/Application Support/vaultlink` on macOS, `%LOCALAPPDATA%\vaultlink` on
//! Windows. The key (32 random bytes as hex, mode 0600) seals every journal this user writes on
//! this machine, so a journal that arrives with a vault from anywhere else is never acted on.

import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** What the folder depends on, passed in for testing. */
export interface StateEnvironment {
	platform: NodeJS.Platform;
	home: string;
	env: Record<string, string | undefined>;
}

export function currentStateEnvironment(): StateEnvironment {
	return { platform: process.platform, home: userHome(process.env), env: process.env };
}

/**
 * The user's real home folder: the one the sidecar, started by an MCP client outside any
 * sandbox, finds from `HOME`. A Snap may give Obsidian a home of its own (`~/snap/obsidian/…`)
 * and says where the real one is in `SNAP_REAL_HOME`.
 */
export function userHome(env: Record<string, string | undefined>, home: string = os.homedir()): string {
	const real = env["SNAP_REAL_HOME"];
	return real !== undefined && real !== "" ? real : home;
}

const KEY_FILE = "journal.key";
const KEY_BYTES = 32;

/** The user's vaultlink folder. */
export function stateDirectory(environment: StateEnvironment = currentStateEnvironment()): string {
	const { platform, home, env } = environment;
	if (platform === "win32") {
		const local = env["LOCALAPPDATA"];
		const base = local !== undefined && local !== "" ? local : path.win32.join(env["USERPROFILE"] ?? home, "AppData", "Local");
		return path.win32.join(base, "vaultlink");
	}
	if (platform === "darwin") return path.posix.join(home, "Library", "Application Support", "vaultlink");
	return path.posix.join(home, ".local", "state", "vaultlink");
}

function readKey(file: string): Uint8Array | null {
	let text: string;
	try {
		text = fs.readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
		throw error;
	}
	if (process.platform !== "win32") {
		const stat = fs.lstatSync(file);
		const uid = typeof process.getuid === "function" ? process.getuid() : stat.uid;
		if (!stat.isFile() || (stat.mode & 0o077) !== 0 || stat.uid !== uid) {
			throw new Error(`the journal key ${file} must be a file of yours with mode 0600 (it is ${(stat.mode & 0o777).toString(8)}); someone else may have read it. Remove it (a new one is made) after checking no change of yours was interrupted`);
		}
	}
	const hex = text.trim();
	if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a vaultlink journal key (64 hex digits); remove it and it is made again`);
	return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** This user's journal key on this machine, made on first use (by whichever of the plugin and the sidecar needs it first). */
export function journalKey(directory: string = stateDirectory()): Uint8Array {
	const file = path.join(directory, KEY_FILE);
	const existing = readKey(file);
	if (existing !== null) return existing;
	fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
	const key = crypto.randomBytes(KEY_BYTES);
	const hex = key.toString("hex");
	// Written whole under a name of its own, then linked into place, so that a second maker at
	// the same moment reads one whole key, the one that won.
	const temporary = path.join(directory, `${KEY_FILE}.${hex.slice(0, 16)}.tmp`);
	try {
		fs.writeFileSync(temporary, `${hex}\n`, { flag: "wx", mode: 0o600 });
		fs.linkSync(temporary, file);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		const winner = readKey(file);
		if (winner === null) throw error;
		return winner;
	} finally {
		fs.rmSync(temporary, { force: true });
	}
	return Uint8Array.from(key);
}
